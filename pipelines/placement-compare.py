#!/usr/bin/env python3
"""placement-compare: placement-fill's fgd-csv rows against the FGD artifact's expected
results (analysis_*_discrete.csv rows), as means over the seeds per (workload, policy).

usage: placement-compare.py --expected EXPECTED.csv [--expected ...] [--tolerance PP]
                            [--table] OURS.csv...

Prints, per (workload, policy) present in both, the largest gap over x = 0..130 and ours
beside the paper's at 80/90/100/110/120/130 %; with --table, that as a Markdown table.
With --tolerance, exits 1 when a gap exceeds it (else prints "all within T pp")."""
import argparse
import csv
import math
import sys

POINTS = (80, 90, 100, 110, 120, 130)


def means(paths):
    rows = {}
    for path in paths:
        with open(path, newline="") as f:
            r = csv.reader(f)
            head = next(r)
            if head[:5] != ["workload", "sc_policy", "tune", "seed", "total_gpus"] or len(head) != 136:
                sys.exit(f"placement-compare: {path}: not the artifact's row layout")
            for line, row in enumerate(r, 2):
                if len(row) != 136:
                    sys.exit(f"placement-compare: {path}:{line}: {len(row)} fields, want 136")
                vals = [float(v) if v else math.nan for v in row[5:]]
                rows.setdefault((row[0], row[1]), []).append(vals)
    out = {}
    for key, runs in rows.items():
        col = []
        for x in range(131):
            v = [r[x] for r in runs if not math.isnan(r[x])]
            col.append(sum(v) / len(v) if v else math.nan)
        out[key] = (col, len(runs))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expected", action="append", required=True)
    ap.add_argument("--tolerance", type=float)
    ap.add_argument("--table", action="store_true")
    ap.add_argument("ours", nargs="+")
    a = ap.parse_args()
    exp, ours = means(a.expected), means(a.ours)
    worst = 0.0
    keys = sorted(k for k in ours if k in exp)
    if not keys:
        sys.exit("placement-compare: no (workload, policy) in both")
    if a.table:
        print("| workload | policy | seeds | " + " | ".join(f"{x} %" for x in POINTS) + " | max gap (x) |")
        print("|---|---|---|" + "---|" * len(POINTS) + "---|")
    for k in keys:
        o, e = ours[k][0], exp[k][0]
        gaps = [(abs(o[x] - e[x]), x) for x in range(131) if not (math.isnan(o[x]) or math.isnan(e[x]))]
        gap, at = max(gaps)
        worst = max(worst, gap)
        cells = [f"{o[x]:.2f} / {e[x]:.2f}" for x in POINTS]
        if a.table:
            print(f"| {k[0].replace('openb_pod_list_', '')} | {k[1]} | {ours[k][1]} | " + " | ".join(cells) + f" | {gap:.2f} ({at}) |")
        else:
            print(f"{k[0]} {k[1]} seeds {ours[k][1]}: max gap {gap:.2f} pp at {at} %; " + ", ".join(f"{x}: {c}" for x, c in zip(POINTS, cells)))
    if a.tolerance is not None:
        if worst > a.tolerance:
            print(f"placement-compare: a gap of {worst:.2f} pp exceeds {a.tolerance} pp", file=sys.stderr)
            return 1
        print(f"all within {a.tolerance} pp (largest gap {worst:.2f} pp)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
