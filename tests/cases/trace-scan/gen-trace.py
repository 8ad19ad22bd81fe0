#!/usr/bin/python3
"""Write a seeded synthetic trace stream WITHOUT its end record (pipe it to stream-seal).

usage: gen-trace.py SEED DAYS [DAY_SECONDS]
Nodes: two models (A100 8x4, H100 4x4, capacity 48). Per day a random number of HP and Spot
arrivals (some days below 20 of a class, some empty), integer and fractional GPU demands,
integer and fractional submit times, durations from minutes to two days, some '*' jobs.
Every job fits its model's capacity, so the trace is valid.
"""
import json, random, sys

seed, days = int(sys.argv[1]), int(sys.argv[2])
W = int(sys.argv[3]) if len(sys.argv) > 3 else 86400
rng = random.Random(seed)
nodes = [("a%02d" % i, "A100", 8) for i in range(4)] + [("h%02d" % i, "H100", 4) for i in range(4)]
jobs = []
for day in range(days):
    kind = rng.random()
    if kind < 0.15:
        n_hp, n_spot = rng.randint(0, 19), rng.randint(20, 40)       # too few HP
    elif kind < 0.25:
        n_hp, n_spot = rng.randint(20, 40), rng.randint(0, 19)       # too few Spot
    elif kind < 0.30:
        n_hp, n_spot = 0, 0                                          # empty day
    else:
        n_hp, n_spot = rng.randint(20, 45), rng.randint(20, 45)
    heavy = rng.random()
    for cls, n in (("HP", n_hp), ("Spot", n_spot)):
        for _ in range(n):
            t = day * W + rng.random() * (W - 1)
            if rng.random() < 0.5:
                t = float(int(t))
            model = rng.choice(["A100", "A100", "H100", "*"])
            g = rng.choice([1, 2, 4, 0.25, 0.5, 1.5]) if model != "H100" else rng.choice([1, 2, 0.5])
            d = rng.choice([60.0, 900.0, 3600.0, 7200.5, 20000.0, 100000.0 * heavy + 1])
            jobs.append((t, "j%05d" % len(jobs), d, g, cls, model))
# The last day needs an arrival so that max submit lands inside it.
jobs.append(((days - 1) * W + W - 1.0, "zlast", 30.0, 1, "HP", "A100"))
jobs.sort(key=lambda j: (j[0], j[1]))
hdr = {"type": "header", "schema": "schednav.trace/1", "tool": "gen-trace.py", "version": "0",
       "inputs": [], "params": {"seed": seed, "days": days}, "trace_id": "synthetic-%d" % seed,
       "time_origin": "1970-01-01 00:00:00", "window": None, "source": {"dataset": "test synthetic"},
       "skipped_rows": {}}
out = [json.dumps(hdr, separators=(",", ":"))]
for nid, m, c in nodes:
    out.append(json.dumps({"type": "node", "node_id": nid, "gpu_model": m, "gpu_count": c}, separators=(",", ":")))
for t, jid, d, g, cls, m in jobs:
    out.append(json.dumps({"type": "job", "job_id": jid, "submit": t, "duration": d, "gpus": g,
                           "class": cls, "gpu_model": m}, separators=(",", ":")))
sys.stdout.write("\n".join(out) + "\n")
