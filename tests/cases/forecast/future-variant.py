#!/usr/bin/python3
"""Print the body of a future variant of a trace stream (header and jobs, no end record:
seal it with stream-seal): every job with submit <= CUTOFF is kept, except that the jobs
still running at the cutoff get longer (they still end after it); every later job is
replaced by a different one; with --trace-id the header names another trace.

usage: future-variant.py TRACE CUTOFF [--trace-id ID]
"""
import json, sys

path, cutoff = sys.argv[1], float(sys.argv[2])
new_id = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--trace-id" else None
jobs, out = [], []
for line in open(path):
    r = json.loads(line)
    if r["type"] == "header":
        if new_id:
            r["trace_id"] = new_id
        out.append(r)
    elif r["type"] == "node":
        out.append(r)
    elif r["type"] == "job":
        jobs.append(r)
kept = [j for j in jobs if j["submit"] <= cutoff + 1e-9]
later = [j for j in jobs if j["submit"] > cutoff + 1e-9]
for j in kept:
    if j["submit"] + j["duration"] > cutoff + 1e-9:
        j["duration"] = j["duration"] * 3 + 7
for i, j in enumerate(later):   # a different future: other sizes, classes and times
    j["job_id"] = "future-%05d" % i
    j["submit"] = j["submit"] + 37
    j["duration"] = j["duration"] / 2 + 11
    j["class"] = "HP" if j["class"] == "Spot" else "Spot"
later.sort(key=lambda j: (j["submit"], j["job_id"]))
for r in out + kept + later:
    print(json.dumps(r, separators=(",", ":")))
