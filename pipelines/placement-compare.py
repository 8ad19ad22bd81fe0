#!/usr/bin/env python3
"""placement-compare: placement-fill's fgd-csv rows against the FGD artifact's expected
results (analysis_*_discrete.csv rows), as means over the seeds per (workload, policy).

usage: placement-compare.py --expected EXPECTED.csv [--expected ...] [--tolerance PP]
                            [--table] [--svg OUT.svg --workload W] OURS.csv...

Prints, per (workload, policy) present in both, the largest gap over x = 0..130 and ours
beside the paper's at 80/90/100/110/120/130 %; with --table, that as a Markdown table.
With --tolerance, exits 1 when a gap exceeds it (else prints "all within T pp"). With --svg,
also draws workload W's curves, ours solid and the paper's dashed, from 60 to 130 %."""
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


COLORS = ["#7f7f7f", "#ff7f0e", "#2ca02c", "#9467bd", "#1f77b4", "#d62728"]


def esc(t):
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def svg(path, workload, exp, ours):
    keys = sorted(k for k in ours if k in exp and k[0] == workload)
    if not keys:
        sys.exit(f"placement-compare: no curves of workload '{workload}' in both")
    x0, x1 = 60, 130
    vals = [v for k in keys for c in (ours[k][0], exp[k][0]) for v in c[x0:] if not math.isnan(v)]
    y0, y1 = math.floor(min(vals) / 5) * 5, math.ceil(max(vals) / 5) * 5
    L, T, W, H = 60, 40, 640, 380
    X = lambda x: L + W * (x - x0) / (x1 - x0)
    Y = lambda y: T + H - H * (y - y0) / (y1 - y0)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{L + W + 190}" height="{T + H + 50}" font-family="sans-serif" font-size="12">',
           f'<text x="{L}" y="20" font-size="14">{esc(workload)}: GPU allocation ratio, mean over seeds (ours solid, the paper\'s dashed)</text>',
           f'<rect x="{L}" y="{T}" width="{W}" height="{H}" fill="none" stroke="#444"/>']
    for x in range(x0, x1 + 1, 10):
        out.append(f'<text x="{X(x):.1f}" y="{T + H + 16}" text-anchor="middle">{x}</text>')
    for y in range(y0, y1 + 1, 5):
        out.append(f'<text x="{L - 6}" y="{Y(y) + 4:.1f}" text-anchor="end">{y}</text>')
    out.append(f'<text x="{L + W / 2}" y="{T + H + 36}" text-anchor="middle">arrived GPU request (% of capacity)</text>')
    for i, k in enumerate(keys):
        color = COLORS[i % len(COLORS)]
        for curve, dash in ((ours[k][0], ""), (exp[k][0], ' stroke-dasharray="5,4"')):
            pts = " ".join(f"{X(x):.1f},{Y(curve[x]):.1f}" for x in range(x0, x1 + 1) if not math.isnan(curve[x]))
            out.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.5"{dash} points="{pts}"/>')
        out.append(f'<text x="{L + W + 10}" y="{T + 16 + 18 * i}" fill="{color}">{esc(k[1])}</text>')
    out.append("</svg>")
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(out) + "\n")
    import os
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expected", action="append", required=True)
    ap.add_argument("--tolerance", type=float)
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--svg")
    ap.add_argument("--workload")
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
    if a.svg:
        svg(a.svg, a.workload or keys[0][0], exp, ours)
    if a.tolerance is not None:
        if worst > a.tolerance:
            print(f"placement-compare: a gap of {worst:.2f} pp exceeds {a.tolerance} pp", file=sys.stderr)
            return 1
        print(f"all within {a.tolerance} pp (largest gap {worst:.2f} pp)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
