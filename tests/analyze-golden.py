#!/usr/bin/env python3
"""Compare trace-analyze workload summaries with ../shared/golden/expected-analyze.json.

usage: analyze-golden.py EXPECTED CASE INTERVAL SUMMARY_STREAM
Compares what the golden README names: population, regime_signals, window_seconds,
capacity_gpus, sample_interval_seconds; numbers within 1e-9 (absolute or relative),
null stays null, strings and counts exact. Prints 'match' or the differing paths; exit 1 on a
difference."""
import json
import sys

COMPARED = ("population", "regime_signals", "window_seconds", "capacity_gpus", "sample_interval_seconds")


def diff(path, e, g, out):
    if isinstance(e, dict):
        if not isinstance(g, dict):
            out.append(f"{path}: expected an object, got {g!r}")
            return
        for k in e:
            if k not in g:
                out.append(f"{path}.{k}: missing")
            else:
                diff(f"{path}.{k}", e[k], g[k], out)
        for k in g:
            if k not in e:
                out.append(f"{path}.{k}: unexpected key")
    elif e is None or g is None or isinstance(e, (str, bool)) or isinstance(g, (str, bool)):
        if e != g or type(e) is not type(g) and not (isinstance(e, (int, float)) and isinstance(g, (int, float))):
            out.append(f"{path}: expected {e!r}, got {g!r}")
    else:
        if not (abs(e - g) <= 1e-9 or abs(e - g) <= 1e-9 * max(abs(e), abs(g))):
            out.append(f"{path}: expected {e!r}, got {g!r}")


def main():
    expected_path, case, interval, stream = sys.argv[1:5]
    expected = json.load(open(expected_path))["cases"][case][interval]
    records = [json.loads(line) for line in open(stream)]
    got = [r for r in records if r.get("type") == "workload_summary"]
    if len(got) != 1:
        print(f"{case}@{interval}: expected one workload_summary record, found {len(got)}")
        return 1
    out = []
    for key in COMPARED:
        diff(key, expected[key], got[0].get(key), out)
    if out:
        print(f"{case}@{interval}: " + "; ".join(out))
        return 1
    print("match")
    return 0


sys.exit(main())
