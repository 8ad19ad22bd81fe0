#!/usr/bin/env python3
"""Write a small, seeded set of evaluation streams for the report and decision-table tests,
made by the real tools (on PATH): a 60-job trace on two 20-GPU nodes with an evaluation
window (sealed by stream-seal), its result and metrics streams under three policies
(sim-run, metrics), one audit stream per policy against the FIFO baseline (slo-audit), a
ranking (rank), and per-window study records. Every self-fingerprinted record therefore
verifies as report and decision-table require. Usage: fixture.py OUTDIR."""
import json, os, random, subprocess, sys

POLICIES = ["native-fifo", "native-preemptive-3600", "native-preemptive-g3600-b09-d0000"]
ES, EE = 2000.0, 9000.0
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SLO = os.path.join(ROOT, "configs", "slos", "schednav-demo-slo-v1.json")

def dumps(rec):
    return json.dumps(rec, separators=(",", ":"), ensure_ascii=False)

def run(*args, stdin=None):
    subprocess.run(args, input=stdin, check=True)

def trace(out):
    rnd = random.Random(7)
    hdr = {"type": "header", "schema": "schednav.trace/1", "tool": "fixture", "version": "0.2.0", "inputs": [], "params": {},
           "trace_id": "report-fixture", "time_origin": "2026-01-01 00:00:00", "window": {"eval_start": ES, "eval_end": EE},
           "source": {"dataset": "report-fixture"}, "skipped_rows": {}}
    lines = [dumps(hdr)]
    lines += [dumps({"type": "node", "node_id": n, "gpu_model": "A", "gpu_count": 20}) for n in ("n1", "n2")]
    jobs = []
    for i in range(60):
        hp = rnd.random() < 0.4
        jobs.append((float(rnd.randrange(0, 9000, 50)), "j%03d" % i, float(rnd.randrange(300, 2400, 60)),
                     float(rnd.choice([2, 4, 8])), "HP" if hp else "Spot"))
    jobs.append((0.0, "j-first", 600.0, 2.0, "Spot"))   # an arrival before the window starts
    for submit, jid, dur, gpus, cls in sorted(jobs):
        lines.append(dumps({"type": "job", "job_id": jid, "submit": submit, "duration": dur, "gpus": gpus, "class": cls,
                            "gpu_model": "A", "phase": "warmup" if submit < ES else "eval"}))
    path = os.path.join(out, "trace.ndjson")
    with open(path, "wb") as f:
        subprocess.run(["stream-seal"], input=("\n".join(lines) + "\n").encode(), stdout=f, check=True)
    return path

def main(out):
    os.makedirs(out, exist_ok=True)
    t = trace(out)
    for action in POLICIES:
        pol = os.path.join(ROOT, "configs", "policies", action + ".json")
        res = os.path.join(out, action + ".result.ndjson")
        run("sim-run", "--policy", pol, "-i", t, "-o", res)
        run("metrics", "-i", res, "-o", os.path.join(out, action + ".metrics.ndjson"))
    base = os.path.join(out, "native-fifo.metrics.ndjson")
    for action in POLICIES:
        run("slo-audit", "--slo", SLO, "--baseline", base, "-o", os.path.join(out, action + ".audit.ndjson"),
            os.path.join(out, action + ".metrics.ndjson"))
    run("rank", "--slo", SLO, "-o", os.path.join(out, "ranking.ndjson"),
        *[os.path.join(out, a + ".audit.ndjson") for a in POLICIES], *[os.path.join(out, a + ".metrics.ndjson") for a in POLICIES])
    os.remove(t)
    # Study: four windows x three arms (window_result records carry no fingerprint of their own).
    rnd = random.Random(11)
    body = []
    for w in range(4):
        pols = []
        base_alloc = 0.6 + 0.05 * w
        for k, a in enumerate(POLICIES):
            pols.append({"action_id": a, "hard_slo_passed": k == 0 or rnd.random() < 0.6, "allocation_soft_target_met": False,
                         "allocation_rate_mean": round(base_alloc + (0.0 if k == 0 else rnd.uniform(-0.02, 0.06)), 6),
                         "hp_jct_p95_seconds": 3600.0, "spot_eviction_rate_per_run": 0.0, "deterministic_repetitions": 2})
        sel = [p["action_id"] for p in pols if p["hard_slo_passed"]][:1]
        body.append({"type": "window_result", "window_id": "2024-04-%02d" % (3 + 7 * w), "partition": "calibration",
                     "baseline_action_id": "native-fifo", "policies": pols,
                     "ranking": {"selection_status": "selected", "selected_action_ids": sel}})
    hdr = {"type": "header", "schema": "schednav.study/1", "tool": "aggregate", "version": "0.2.0", "inputs": [], "params": {}}
    with open(os.path.join(out, "study.ndjson"), "wb") as f:
        subprocess.run(["stream-seal"], input=("\n".join(dumps(r) for r in [hdr] + body) + "\n").encode(), stdout=f, check=True)

if __name__ == "__main__":
    main(sys.argv[1])
