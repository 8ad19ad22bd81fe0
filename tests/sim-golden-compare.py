#!/usr/bin/python3
"""Run every case x policy of the golden corpus through
   trace-import canonical CASE | sim-run --policy P | metrics
and compare each metric and extra field with expected-golden.json.

usage: sim-golden-compare.py GOLDEN_DIR [CASE_FILTER]
Prints one line per mismatch and "N/M runs match"; exit 1 on any mismatch.
SIM_GOLDEN_IMPORT (development only) replaces "trace-import canonical" by another
command that takes the case directory and writes a trace stream.
"""
import json, math, os, shlex, subprocess, sys

golden = sys.argv[1]
only = sys.argv[2] if len(sys.argv) > 2 else None
expected = json.load(open(os.path.join(golden, "expected-golden.json")))
importer = shlex.split(os.environ.get("SIM_GOLDEN_IMPORT", "trace-import canonical"))
tol = expected["tolerance"]

def same(e, g):
    if e is None or g is None:
        return e is None and g is None
    if isinstance(e, bool) or isinstance(g, bool):
        return e is g
    if isinstance(e, int) != isinstance(g, int):
        return False          # int vs float kind is part of the contract (int 0 totals)
    if isinstance(e, int):
        return e == g
    if isinstance(e, (int, float)) and isinstance(g, (int, float)):
        if not (math.isfinite(e) and math.isfinite(g)):
            return False
        d = abs(e - g)
        return d <= tol["absolute"] or d <= tol["relative"] * max(abs(e), abs(g))
    return e == g

total = ok = 0
for case, cv in sorted(expected["cases"].items()):
    if only and only not in case:
        continue
    trace = subprocess.run(importer + [os.path.join(golden, "cases", case)], capture_output=True)
    for pol, run in cv["runs"].items():
        total += 1
        label = "%s %s" % (case, pol)
        if trace.returncode != 0:
            print("%s: import failed: %s" % (label, trace.stderr.decode().strip()))
            continue
        sim = subprocess.run(["sim-run", "--policy", os.path.join(golden, "policies", pol)],
                             input=trace.stdout, capture_output=True)
        if "expected_error" in run:
            msg = sim.stderr.decode().strip()
            if sim.returncode == 1 and msg.startswith("sim-run: ") and "cannot make progress" in msg:
                ok += 1
            else:
                print("%s: expected an error (%s), got exit %d: %s" % (label, run["expected_error"], sim.returncode, msg))
            continue
        if sim.returncode != 0:
            print("%s: sim-run failed: %s" % (label, sim.stderr.decode().strip()))
            continue
        met = subprocess.run(["metrics"], input=sim.stdout, capture_output=True)
        if met.returncode != 0:
            print("%s: metrics failed: %s" % (label, met.stderr.decode().strip()))
            continue
        recs = [json.loads(l) for l in met.stdout.decode().splitlines()]
        rec = [r for r in recs if r.get("type") == "metrics"][0]
        bad = []
        for k, e in run["metrics"].items():
            if k not in rec:
                bad.append("%s missing" % k)
            elif not same(e, rec[k]):
                bad.append("%s expected %r got %r" % (k, e, rec[k]))
        for k, e in run.get("extra", {}).items():
            if k in rec and not same(e, rec[k]):
                bad.append("%s expected %r got %r" % (k, e, rec[k]))
        if bad:
            print("%s: %d field(s) differ: %s" % (label, len(bad), "; ".join(bad[:6])))
        else:
            ok += 1
print("%d/%d runs match" % (ok, total))
sys.exit(0 if ok == total and total > 0 else 1)
