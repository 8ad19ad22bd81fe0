#!/usr/bin/python3
"""Independent check of trace-scan: recompute every window record from the trace and
compare it with the tool's output, field by field (floats must be equal exactly).

usage: reference.py TRACE SCAN [--day-seconds W] [--sample-seconds I] [--min-hp N]
                    [--min-spot N] [--pressure-strata P] [--share-strata S]
                    [--warmup-days D] [--all-eligible] [--all-days]
Implements evaluation.md "Window selection" and studies.md §4 literally, in Python:
K = (max submit + 1) // W windows [kW, kW+W-1]; arrivals binned by submit // W; a job is
active on samples ceil(s/I) .. ceil((s+d)/I) - 1 within [0, K*W/I); a window's samples are
those with start <= x*I <= end; peak = round(max/C, 6), share = round(spot_req/all_req, 6);
strata: (peak, start)-sorted, P balanced parts (the first n mod P one larger), each
(share, start)-sorted into S parts; medoid = min(|peak-median|/span + |share-median|/span, start).
Sums are plain left-to-right loops (Python 3.11 naive summation).
"""
import argparse, json, math, statistics, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("trace"); ap.add_argument("scan")
ap.add_argument("--day-seconds", type=int, default=86400)
ap.add_argument("--sample-seconds", type=int, default=3600)
ap.add_argument("--min-hp", type=int, default=20)
ap.add_argument("--min-spot", type=int, default=20)
ap.add_argument("--pressure-strata", type=int, default=3)
ap.add_argument("--share-strata", type=int, default=4)
ap.add_argument("--warmup-days", type=int, default=30)
ap.add_argument("--all-eligible", action="store_true")
ap.add_argument("--all-days", action="store_true")
o = ap.parse_args()

def records(path):
    data = subprocess.run(["zstdcat", "-f", path], check=True, capture_output=True).stdout
    return [json.loads(l) for l in data.decode().splitlines()]

def naive_sum(xs):
    s = 0.0
    for x in xs:
        s += x
    return s

trace = records(o.trace)
nodes = [r for r in trace if r["type"] == "node"]
jobs = [r for r in trace if r["type"] == "job"]
C = naive_sum(n["gpu_count"] for n in nodes)
W, I = o.day_seconds, o.sample_seconds
K = int((max(j["submit"] for j in jobs) + 1) // W)
N = K * W // I

hp = [0] * K; spot = [0] * K
hp_req = [0.0] * K; spot_req = [0.0] * K; all_req = [0.0] * K
for j in jobs:
    k = int(j["submit"] // W)
    if k >= K:
        continue
    if j["class"] == "HP":
        hp[k] += 1; hp_req[k] += j["gpus"]
    else:
        spot[k] += 1; spot_req[k] += j["gpus"]
    all_req[k] += j["gpus"]

demand = [0.0] * N
for j in jobs:
    a = math.ceil(j["submit"] / I)
    b = math.ceil((j["submit"] + j["duration"]) / I)
    for x in range(max(a, 0), min(b, N)):
        demand[x] += j["gpus"]

days = []
for k in range(K):
    start, end = k * W, k * W + W - 1
    samples = [demand[x] for x in range(N) if start <= x * I <= end]
    mean = naive_sum(samples) / len(samples)
    sd = math.sqrt(naive_sum((x - mean) ** 2 for x in samples) / len(samples))
    has = hp[k] + spot[k] > 0
    d = {
        "type": "window",
        "window_id": ("day-%04d" if W == 86400 else "window-%04d") % k,
        "index": k,
        "start": float(start), "end": float(end),
        "warmup_start": float(max(0, start - o.warmup_days * 86400)),
        "eligible": has and hp[k] >= o.min_hp and spot[k] >= o.min_spot,
        "hp_arrivals": hp[k], "spot_arrivals": spot[k],
        "hp_requested_gpus": round(hp_req[k], 6), "spot_requested_gpus": round(spot_req[k], 6),
        "peak_pressure": round(max(samples) / C, 6),
        "mean_pressure": round(mean / C, 6),
        "spot_share": round(spot_req[k] / all_req[k], 6) if has else None,
        "active_gpus_min": round(min(samples), 6),
        "active_gpus_mean": round(mean, 6),
        "active_gpus_max": round(max(samples), 6),
        "active_gpus_cv": round(sd / mean, 6) if mean != 0 else None,
        "stratum": None,
        "selected": False,
    }
    days.append(d)

def split(items, parts):
    n = len(items); out = []; pos = 0
    for p in range(parts):
        size = n // parts + (1 if p < n % parts else 0)
        out.append(items[pos:pos + size]); pos += size
    return out

eligible = [d for d in days if d["eligible"]]
if o.all_eligible:
    for d in eligible:
        d["selected"] = True
else:
    by_peak = sorted(eligible, key=lambda d: (d["peak_pressure"], d["start"]))
    for p, part in enumerate(split(by_peak, o.pressure_strata)):
        by_share = sorted(part, key=lambda d: (d["spot_share"], d["start"]))
        for s, cell in enumerate(split(by_share, o.share_strata)):
            if not cell:
                sys.exit("reference: empty stratum (the tool must fail)")
            peaks = [d["peak_pressure"] for d in cell]; shares = [d["spot_share"] for d in cell]
            mp, ms = statistics.median(peaks), statistics.median(shares)
            sp, ss = max(peaks) - min(peaks), max(shares) - min(shares)
            def dist(d):
                return (abs(d["peak_pressure"] - mp) / sp if sp else 0.0) + (abs(d["spot_share"] - ms) / ss if ss else 0.0)
            for d in cell:
                d["stratum"] = {"pressure": p, "share": s}
            min(cell, key=lambda d: (dist(d), d["start"]))["selected"] = True

want = [d for d in days if d["eligible"] or o.all_days]
got = [r for r in records(o.scan) if r["type"] == "window"]
bad = 0
if len(got) != len(want):
    print("reference: %d window records, expected %d" % (len(got), len(want)), file=sys.stderr)
    bad += 1
for g, w in zip(got, want):
    for key in w:
        if key not in g or g[key] != w[key] or type(g[key]) != type(w[key]):
            print("reference: %s: %s = %r, expected %r" % (w["window_id"], key, g.get(key), w[key]), file=sys.stderr)
            bad += 1
    extra = set(g) - set(w)
    if extra:
        print("reference: %s: unexpected keys %s" % (w["window_id"], sorted(extra)), file=sys.stderr)
        bad += 1
print("reference: %d windows, %d eligible, %d selected, %d mismatches" % (
    len(days), len(eligible), sum(d["selected"] for d in days), bad))
sys.exit(1 if bad else 0)
