#!/usr/bin/env python3
"""Write a schednav.metrics/1 stream for one golden case and policy, built from
../shared/golden/expected-golden.json (the original engine's numbers), so that the golden
parity tests can audit and rank the original's own numbers (tests/golden-eval.py).

usage: golden-metrics.py GOLDEN_DIR CASE POLICY_FILE_NAME [KEY=JSON]...
       golden-metrics.py GOLDEN_DIR --batch OUTDIR CASE...   (OUTDIR/CASE/POLICY.metrics.ndjson)

Fields the golden file does not hold are filled from the policy file (flat action keys,
canonical policy dict and its fingerprint) and the case's trace.json (trace_id, source,
dataset); trace_fingerprint and result_fingerprint are stand-ins derived from the case and
policy. KEY=JSON overrides one key of the flat record (tests use it to build edge cases).
The stream is sealed with XXH3-128 from stream_edit.py (ctypes, system libxxhash).
Only the golden-parity tests use it: every other suite measures real tool outputs.
Exits 1 when the golden run is an expected_error (no metrics exist).
"""
import json, os, sys
from stream_edit import canon, canon_sorted, xxh3

CATALOGUE = ["allocation_rate_mean", "allocated_gpu_seconds", "warmup_allocated_gpu_seconds",
    "evaluation_allocated_gpu_seconds", "drain_allocated_gpu_seconds", "hp_job_count",
    "hp_completed_count", "hp_completion_rate", "hp_jct_mean_seconds", "hp_jct_p50_seconds",
    "hp_jct_p95_seconds", "hp_queue_mean_seconds", "hp_queue_p50_seconds", "hp_queue_p95_seconds",
    "hp_preemption_count", "hp_preempted_job_count", "spot_job_count", "spot_completed_count",
    "spot_completion_rate", "spot_jct_mean_seconds", "spot_jct_p50_seconds", "spot_jct_p95_seconds",
    "spot_queue_mean_seconds", "spot_queue_p50_seconds", "spot_queue_p95_seconds",
    "spot_preemption_count", "spot_preempted_job_count", "spot_preempted_job_rate", "spot_run_count",
    "spot_eviction_rate_per_run", "preemption_event_count", "preemption_added_gpu_seconds",
    "preemption_rollback_seconds", "preemption_overhead_seconds", "spot_guarantee_success_rate",
    "spot_guarantee_succeeded_count", "spot_guarantee_failed_count"]
EXTRAS = ["hp_preempted_job_rate", "preempted_job_count", "preemption_events_during_evaluation_window",
    "preemption_events_during_drain", "spot_runs_during_evaluation_window", "spot_runs_during_drain"]
FLAGS = ["preemption_ledger_consistent", "spot_run_ledger_consistent", "spot_guarantee_ledger_consistent"]

def canonical_policy(p):
    d = {"action_id": p["action_id"], "scheduler": p["scheduler"],
         "spot_guarantee_seconds": int(p["spot_guarantee_seconds"]),
         "checkpoint_interval_seconds": int(p["checkpoint_interval_seconds"]),
         "preemption_overhead_seconds": int(p["preemption_overhead_seconds"]),
         "placement_strategy": p["placement_strategy"]}
    if int(p.get("hp_preemption_delay_seconds", 0)) != 0:
        d["hp_preemption_delay_seconds"] = int(p["hp_preemption_delay_seconds"])
    if p.get("spot_eviction_budget_rate") is not None:
        d["spot_eviction_budget_rate"] = float(p["spot_eviction_budget_rate"])
    if p.get("preemption_victim_strategy", "longest_remaining") != "longest_remaining":
        d["preemption_victim_strategy"] = p["preemption_victim_strategy"]
    if p.get("predictive_admission_mode", "enforce") != "enforce":
        d["predictive_admission_mode"] = p["predictive_admission_mode"]
    return d

def build_stream(golden, exp, case, pname, overrides=()):
    """The sealed metrics stream (bytes) of one golden run; None when the run has no metrics."""
    run = exp["cases"][case]["runs"][pname]
    if "metrics" not in run:
        return None
    pol = json.load(open(os.path.join(golden, "policies", pname)))
    trace = json.load(open(os.path.join(golden, "cases", case, "trace.json")))
    cp = canonical_policy(pol)
    budget = pol.get("spot_eviction_budget_rate")
    src = trace.get("source")
    r = {"type": "metrics", "action_id": pol["action_id"], "scheduler": pol["scheduler"],
         "spot_guarantee_seconds": int(pol["spot_guarantee_seconds"]),
         "checkpoint_interval_seconds": int(pol["checkpoint_interval_seconds"]),
         "policy_preemption_overhead_seconds": int(pol["preemption_overhead_seconds"]),
         "hp_preemption_delay_seconds": int(pol.get("hp_preemption_delay_seconds", 0)),
         "spot_eviction_budget_rate": None if budget is None else float(budget),
         "preemption_victim_strategy": pol.get("preemption_victim_strategy", "longest_remaining"),
         "placement_strategy": pol["placement_strategy"],
         "policy": cp, "policy_fingerprint": xxh3(canon_sorted(cp).encode()),
         "trace_id": trace["trace_id"],
         "trace_fingerprint": xxh3(("trace:" + case).encode()),
         "dataset": src["dataset"] if isinstance(src, dict) and isinstance(src.get("dataset"), str) else trace["trace_id"],
         "source": src, "engine": {"name": "schednav-sim", "version": "1"}}
    ex = run["extra"]
    r["evaluation_start"] = ex["evaluation_start"]
    r["evaluation_end"] = ex["evaluation_end"]
    r["result_fingerprint"] = xxh3(("result:%s:%s" % (case, pname)).encode())
    for k in ("node_count", "capacity_gpus", "simulation_start", "simulation_end"):
        r[k] = ex[k]
    for k in CATALOGUE:
        r[k] = run["metrics"][k]
    for k in EXTRAS:
        r[k] = ex[k]
    checks = run.get("audit", {}).get("evidence_checks", {})
    for k in FLAGS:
        r[k] = checks.get(k, True)
    for k, v in overrides:
        if k not in r:
            raise KeyError("golden-metrics: unknown key '%s'" % k)
        r[k] = json.loads(v)
    body = (canon(r) + "\n").encode()
    hdr = {"type": "header", "schema": "schednav.metrics/1", "tool": "golden-metrics.py", "version": "0.1.0",
           "inputs": [], "params": {"case": case, "policy": pname}}
    head = (canon(hdr) + "\n").encode()
    return head + body + \
        (canon({"type": "end", "records": 1, "fingerprint": xxh3(body), "header_fingerprint": xxh3(head)}) + "\n").encode()

def main():
    if sys.argv[2] == "--batch":
        golden, outdir = sys.argv[1], sys.argv[3]
        exp = json.load(open(os.path.join(golden, "expected-golden.json")))
        for case in sys.argv[4:]:
            os.makedirs(os.path.join(outdir, case), exist_ok=True)
            for pname in exp["cases"][case]["runs"]:
                data = build_stream(golden, exp, case, pname)
                if data is not None:
                    with open(os.path.join(outdir, case, pname.replace(".json", ".metrics.ndjson")), "wb") as f:
                        f.write(data)
        return
    golden, case, pname = sys.argv[1:4]
    exp = json.load(open(os.path.join(golden, "expected-golden.json")))
    data = build_stream(golden, exp, case, pname, [a.split("=", 1) for a in sys.argv[4:]])
    if data is None:
        run = exp["cases"][case]["runs"][pname]
        sys.exit("golden-metrics: %s/%s: %s" % (case, pname, run.get("expected_error", "no metrics")))
    sys.stdout.buffer.write(data)

if __name__ == "__main__":
    main()
