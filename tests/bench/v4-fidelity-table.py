#!/usr/bin/env python3
"""The /4 targets of several traces side by side, as docs/profiles.md shows them.

usage: tests/bench/v4-fidelity-table.py LABEL=FIDELITY.ndjson ...

Each FIDELITY.ndjson is what `trace-fidelity --profile configs/profiles/alibaba-spot-gpu-v2026-v4.json
-o FILE TRACE` wrote. Prints one Markdown table: a row per issue-34 target, a column per trace;
a missed target is marked with a cross. Nothing is computed here that trace-fidelity did not
report: the script only reads its records.
"""
import json
import sys


def load(path):
    summary, models = None, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "fidelity_summary":
                summary = rec
            elif rec.get("type") == "fidelity_model":
                models.append(rec)
    if summary is None or "v4" not in summary:
        sys.exit(f"v4-fidelity-table: {path}: no fidelity_summary record with a v4 object")
    return summary, models


def pct(t):
    return f"{100 * t['relative_error']:+.1f} %" + ("" if t["met"] else " ✗")


def r3(t):
    return f"{t['value']:.3f}" + ("" if t["met"] else " ✗")


def share(t):
    return f"{100 * t['value']:.1f} %" + ("" if t["met"] else " ✗")


def main(argv):
    if not argv or any("=" not in a for a in argv):
        sys.exit("usage: v4-fidelity-table.py LABEL=FIDELITY.ndjson ...")
    cols = [(a.split("=", 1)[0], *load(a.split("=", 1)[1])) for a in argv]
    rows = []
    cls = lambda k: [pct(s["v4"]["classes"][k]) for _, s, _ in cols]
    sub = lambda k, f: [f(s["v4"]["submissions"][k]) for _, s, _ in cols]
    rows.append(("Spot GPU-seconds (±5 %)", cls("spot_gpu_seconds")))
    rows.append(("Spot jobs ≥ 6 h (±5 %)", cls("spot_long_jobs")))
    rows.append(("HP median duration (±10 %)", cls("hp_median_duration")))
    rows.append(("HP p90 duration (±10 %)", cls("hp_p90_duration")))
    rows.append(("Spot median duration (±10 %)", cls("spot_median_duration")))
    rows.append(("Spot p90 duration (±10 %)", cls("spot_p90_duration")))
    rows.append(("days with the published HP/Spot counts (≥ 95 %)",
                 [share(s["v4"]["classes"]["days_with_exact_class_counts"]) for _, s, _ in cols]))
    rows.append(("GPUs submitted per hour, r (≥ 0.9)", sub("gpus_per_hour_pearson_r", r3)))
    rows.append(("hours within ±10 % of GPUs submitted (≥ 80 %)", sub("gpus_per_hour_within_10pct_share", share)))
    rows.append(("GPU-seconds by submit hour from hour 1, r (≥ 0.8)",
                 sub("gpu_seconds_per_hour_pearson_r_from_hour_1", r3)))
    names = [m["model"] for m in cols[0][2]]
    per = lambda name, f: [f(next(m for m in ms if m["model"] == name)["v4"]) for _, _, ms in cols]
    for n in names:
        rows.append((f"{n} demand (±2 %)", per(n, lambda v: pct(v["gpu_demand"]))))
    for n in names:
        rows.append((f"{n} GPU-s day 0 (±10 %)", per(n, lambda v: pct(v["gpu_seconds_by_submit_day"]["day0"]))))
    for n in names:
        rows.append((f"{n} GPU-s days 1–183, r (≥ 0.8)",
                     per(n, lambda v: r3(v["gpu_seconds_by_submit_day"]["pearson_r_days_1_183"]))))
    for n in names:
        rows.append((f"{n} daily ratio p50 / p90 (±15 %)",
                     per(n, lambda v: pct(v["gpu_seconds_by_submit_day"]["ratio_p50"]) + " / " +
                         pct(v["gpu_seconds_by_submit_day"]["ratio_p90"]))))
    for n in names:
        at = f"{cols[0][2][names.index(n)]['v4']['touched_pearson_r']['at_least']:.2f}"
        rows.append((f"{n} touched-hour r (≥ {at})", per(n, lambda v: r3(v["touched_pearson_r"]))))
    gap = lambda key: [f"{max(abs(b['difference_pp']) for b in s[key]):.2f}" for _, s, _ in cols]
    rows.append(("duration buckets, largest gap (pp)", gap("duration_buckets")))
    rows.append(("GPU-demand buckets, largest gap (pp)", gap("gpu_demand_buckets")))
    for n in names:
        rows.append((f"{n} slice ratio median",
                     [f"{next(m for m in ms if m['model'] == n)['slice_peak_ratio']['median']:.3f}" for _, _, ms in cols]))
    print("| target (tolerance) | " + " | ".join(c[0] for c in cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for label, vals in rows:
        print(f"| {label} | " + " | ".join(vals) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
