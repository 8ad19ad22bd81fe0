#!/usr/bin/env python3
"""Per-day peak pressure of a study's days, combined and per class (HP, Spot).

usage: tests/bench/class-pressure.py TRACE WINDOWS LABEL=DAY-ID,DAY-ID... [LABEL=...]

TRACE is the study's trace (NDJSON, zstd or not), WINDOWS the study's trace-scan output
(`windows.ndjson`). Pressure is trace-scan's: requested GPUs of the jobs running at each
sample (a job runs at t when submit <= t < submit + duration; samples every
`sample_seconds` from the window's start) over the pool's GPUs (the trace's nodes); a day's
peak is the largest sample. The combined peak is checked against trace-scan's `peak_pressure`
of every day named that WINDOWS lists (exit 1 on a difference above 1e-6), so the per-class
figures use the same definition; a day WINDOWS does not list (DAY-ID day-NNNN) is taken from
its index. HP and Spot peaks are each class's own largest sample (their sum is not the
combined peak: the classes peak at different hours).

Prints one NDJSON record per day (`class_peak_pressure`) and then, per LABEL, a Markdown row
of p50 / p90 (linear between order statistics) of the combined, HP and Spot peaks, and the
days with each above 1. docs/headline-studies.md shows these rows.
"""
import json
import math
import subprocess
import sys


def records(path):
    if path.endswith(".zst"):
        out = subprocess.run(["zstdcat", "-q", path], check=True, capture_output=True).stdout.decode()
        lines = out.splitlines()
    else:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    for n, line in enumerate(lines, 1):
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"class-pressure: {path}:{n}: {e.msg}")


def quantile(xs, q):
    s = sorted(xs)
    if not s:
        return float("nan")
    pos = q * (len(s) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def main(argv):
    if len(argv) < 3 or any("=" not in a for a in argv[2:]):
        sys.exit("usage: class-pressure.py TRACE WINDOWS LABEL=DAY-ID,DAY-ID... [LABEL=...]")
    trace, windows, groups = argv[0], argv[1], [a.split("=", 1) for a in argv[2:]]
    win, sample, day_s = {}, None, None
    for r in records(windows):
        if r.get("type") == "header":
            sample = r.get("params", {}).get("sample_seconds", sample)
            day_s = r.get("params", {}).get("day_seconds", day_s)
        elif r.get("type") == "window":
            win[r["window_id"]] = r
    capacity, jobs = 0.0, []
    for r in records(trace):
        if r.get("type") == "node":
            capacity += r["gpu_count"]
        elif r.get("type") == "job":
            jobs.append((r["submit"], r["duration"], r["gpus"], r["class"] == "HP"))
    if capacity <= 0:
        sys.exit(f"class-pressure: {trace}: no nodes (capacity 0)")
    sample, day_s = sample or 3600, day_s or 86400
    wanted = [w for _, ids in groups for w in ids.split(",")]
    for w in wanted:   # a day trace-scan did not list (not eligible): its span from its index, unchecked
        if w not in win:
            try:
                k = int(w.split("-", 1)[1])
            except (IndexError, ValueError):
                sys.exit(f"class-pressure: {windows}: no window {w}, and no day index in its name")
            win[w] = {"start": k * day_s, "end": k * day_s + day_s - 1, "peak_pressure": None}
    # samples over the whole span of the named days; a job counts in samples ceil(s/I) .. ceil((s+d)/I)-1
    last = max(win[w]["end"] for w in wanted)
    n = int(math.ceil((last + 1) / sample)) + 1
    diff = {True: [0.0] * (n + 1), False: [0.0] * (n + 1)}
    for s, d, g, hp in jobs:
        a = min(max(math.ceil(s / sample), 0), n)
        b = min(max(math.ceil((s + d) / sample), 0), n)
        if a < b:
            diff[hp][a] += g
            diff[hp][b] -= g
    run = {}
    for k in (True, False):
        acc, out = 0.0, []
        for i in range(n):
            acc += diff[k][i]
            out.append(acc)
        run[k] = out
    day = {}
    for w in wanted:
        r = win[w]
        first = int(math.ceil(r["start"] / sample))
        count = int((r["end"] + 1 - r["start"]) // sample)
        idx = range(first, first + count)
        both = max(run[True][i] + run[False][i] for i in idx) / capacity
        if r["peak_pressure"] is not None and abs(round(both, 6) - r["peak_pressure"]) > 1e-6:
            sys.exit(f"class-pressure: {w}: combined peak {both:.6f} is not trace-scan's {r['peak_pressure']}")
        day[w] = (both, max(run[True][i] for i in idx) / capacity, max(run[False][i] for i in idx) / capacity)
    for label, ids in groups:
        for w in ids.split(","):
            c, h, s = day[w]
            print(json.dumps({"type": "class_peak_pressure", "group": label, "window_id": w,
                              "combined": round(c, 6), "hp": round(h, 6), "spot": round(s, 6)}))
    print("| days | n | combined p50 / p90 (above 1) | HP p50 / p90 (above 1) | Spot p50 / p90 (above 1) |")
    print("|---|---:|---|---|---|")
    for label, ids in groups:
        vals = [day[w] for w in ids.split(",")]
        cells = []
        for k in range(3):
            xs = [v[k] for v in vals]
            cells.append(f"{quantile(xs, 0.5):.3f} / {quantile(xs, 0.9):.3f} ({sum(x > 1 for x in xs)})")
        print(f"| {label} | {len(vals)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
