#!/usr/bin/python3
"""Print a small seeded trace stream without its end record (seal it with stream-seal).

usage: gen-trace.py SEED WINDOWS WINDOW_SECONDS
Three 8-GPU nodes of one model; per window 22-30 HP and 22-30 Spot arrivals with 1-4 GPUs
and durations of 2-40 % of a window, so the cluster queues and preemption matters.
"""
import json, random, sys

seed, windows, width = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
rows = [{"type": "header", "schema": "schednav.trace/1", "tool": "gen-trace.py", "version": "1",
         "inputs": [], "params": {"seed": seed, "windows": windows, "window_seconds": width},
         "trace_id": "study-test-%d" % seed, "time_origin": "2026-01-01 00:00:00", "window": None,
         "source": {"dataset": "synthetic study test trace (tests/data/study/gen-trace.py)"},
         "skipped_rows": {}}]
rows += [{"type": "node", "node_id": "n%d" % i, "gpu_model": "A100", "gpu_count": 8} for i in range(3)]
# A job at time 0 so that the first window's slice has an arrival at or before its start.
jobs = [(0.0, "hp-origin", 60.0, 1, "HP")]
for w in range(windows):
    for cls in ("HP", "Spot"):
        for _ in range(rng.randint(22, 30)):
            submit = float(w * width + rng.randrange(width))
            duration = float(rng.randint(width // 50, width * 2 // 5))
            jobs.append((submit, "%s-%05d" % (cls.lower(), len(jobs)), duration, rng.choice([1, 1, 2, 4]), cls))
jobs.sort(key=lambda j: (j[0], j[1]))
rows += [{"type": "job", "job_id": i, "submit": s, "duration": d, "gpus": g, "class": c, "gpu_model": "A100"}
         for s, i, d, g, c in jobs]
sys.stdout.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))
