#!/usr/bin/env python3
"""Write a small, seeded, self-consistent set of evaluation streams for the report tests:
result streams (job_result, run, preemption, cluster) for three policies, their metrics,
audits, a ranking and per-window study records. Usage: fixture.py OUTDIR.
Streams are stamped with XXH3-128 end fingerprints through libxxhash (ctypes)."""
import ctypes, json, os, random, sys

lib = ctypes.CDLL("libxxhash.so.0")
class H128(ctypes.Structure):
    _fields_ = [("low64", ctypes.c_uint64), ("high64", ctypes.c_uint64)]
lib.XXH3_128bits.restype = H128
lib.XXH3_128bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]

def dumps(rec):
    return json.dumps(rec, separators=(",", ":"), ensure_ascii=False)

def write_stream(path, schema, tool, body, **extra):
    hdr = {"type": "header", "schema": schema, "tool": tool, "version": "0.2.0", "inputs": [], "params": {}}
    hdr.update(extra)
    head = (dumps(hdr) + "\n").encode()
    lines = "".join(dumps(r) + "\n" for r in body).encode()
    def xxh3(b):
        h = lib.XXH3_128bits(b, len(b))
        return "%016x%016x" % (h.high64, h.low64)
    fp = xxh3(lines)
    with open(path, "wb") as f:
        f.write(head)
        f.write(lines)
        f.write((dumps({"type": "end", "records": len(body), "fingerprint": fp, "header_fingerprint": xxh3(head)}) + "\n").encode())
    return fp

def p95(v):
    v = sorted(v)
    if not v:
        return None
    pos = (len(v) - 1) * 0.95
    lo = int(pos); hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)

POLICIES = ["native-fifo", "native-preemptive-3600", "native-preemptive-g3600-b09-d0000"]
CAP, ES, EE = 40, 2000.0, 9000.0

def simulate(k, rnd):
    """Plausible (not exact) schedules: preemptive policies start HP sooner and evict Spot."""
    jobs, runs, pre = [], [], []
    for i in range(60):
        hp = rnd.random() < 0.4
        submit = float(rnd.randrange(0, 10000, 50))
        dur = float(rnd.randrange(300, 2400, 60))
        gpus = float(rnd.choice([1, 2, 4]))
        wait = float(rnd.randrange(0, 1800 if (hp and k) else 3000, 30))
        start = submit + wait
        jid = "j%03d" % i
        end = start + dur
        if not hp:
            if k and rnd.random() < 0.25:
                cut = start + dur / 3
                back = cut + 600.0
                end = back + dur - (cut - start) + 60.0
                runs.append({"type": "run", "job_id": jid, "run_ordinal": 1, "start_time_seconds": start, "end_time_seconds": cut, "end_reason": "preempted"})
                runs.append({"type": "run", "job_id": jid, "run_ordinal": 2, "start_time_seconds": back, "end_time_seconds": end, "end_reason": "completed"})
                pre.append({"type": "preemption", "time_seconds": cut, "preempted_job_id": jid, "triggering_job_id": "j000"})
            else:
                runs.append({"type": "run", "job_id": jid, "run_ordinal": 1, "start_time_seconds": start, "end_time_seconds": end, "end_reason": "completed"})
        jobs.append({"type": "job_result", "job_id": jid, "service_class": "HP" if hp else "Spot", "submit_time_seconds": submit,
                     "start_time_seconds": start, "completion_time_seconds": end, "gpu_count": gpus,
                     "evaluation_population": ES <= submit <= EE})
    pre.sort(key=lambda r: r["time_seconds"])
    return jobs, runs, pre

def main(out):
    os.makedirs(out, exist_ok=True)
    metrics_fp, policy_fp, alloc, passed_ids = {}, {}, {}, []
    for k, action in enumerate(POLICIES):
        rnd = random.Random(7)   # same workload for every policy
        jobs, runs, pre = simulate(k, rnd)
        end = max(j["completion_time_seconds"] for j in jobs)
        busy = 0.0
        for j in jobs:
            ivs = [(r["start_time_seconds"], r["end_time_seconds"]) for r in runs if r["job_id"] == j["job_id"]] or \
                  [(j["start_time_seconds"], j["completion_time_seconds"])]
            for a, b in ivs:
                busy += j["gpu_count"] * max(0.0, min(b, EE) - max(a, ES))
        cluster = {"type": "cluster", "node_count": 2, "capacity_gpus": CAP, "simulation_start": 0.0, "simulation_end": end,
                   "allocation_rate_mean": busy / (CAP * (EE - ES))}
        pfp = "%032x" % (0xabc000 + k)
        policy = {"action_id": action, "scheduler": "fifo" if k == 0 else "priority_preemptive"}
        rfp = write_stream(os.path.join(out, "%s.result.ndjson" % action), "schednav.result/1", "sim-run",
                           jobs + runs + pre + [cluster], policy=policy, policy_fingerprint=pfp,
                           trace_id="report-fixture", evaluation_start=ES, evaluation_end=EE)
        ev = [j for j in jobs if j["evaluation_population"]]
        hp = [j for j in ev if j["service_class"] == "HP"]
        sp = [j for j in ev if j["service_class"] == "Spot"]
        sp_ids = {j["job_id"] for j in sp}
        ru = [r for r in runs if r["job_id"] in sp_ids]
        evp = [p for p in pre if p["preempted_job_id"] in sp_ids]
        alloc[action] = round(cluster["allocation_rate_mean"], 6)
        m = {"type": "metrics", "action_id": action, "scheduler": policy["scheduler"], "policy_fingerprint": pfp,
             "trace_id": "report-fixture", "dataset": "report-fixture", "evaluation_start": ES, "evaluation_end": EE,
             "result_fingerprint": rfp, "node_count": 2, "capacity_gpus": CAP,
             "allocation_rate_mean": alloc[action],
             "hp_jct_p95_seconds": p95([j["completion_time_seconds"] - j["submit_time_seconds"] for j in hp]),
             "hp_queue_p95_seconds": p95([j["start_time_seconds"] - j["submit_time_seconds"] for j in hp]),
             "spot_jct_p95_seconds": p95([j["completion_time_seconds"] - j["submit_time_seconds"] for j in sp]),
             "spot_eviction_rate_per_run": len(evp) / len(ru) if ru else None,
             "preemption_event_count": len(evp),
             "spot_guarantee_success_rate": 1.0 if ru else None}
        policy_fp[action] = pfp
        metrics_fp[action] = write_stream(os.path.join(out, "%s.metrics.ndjson" % action), "schednav.metrics/1", "metrics", [m])
        m_by = m
        if k == 0:
            fifo = m
        cons = [("hp-p95-jct-fifo-regression", "hp_jct_p95_seconds", "<=", fifo["hp_jct_p95_seconds"] * 1.01,
                 {"kind": "baseline_relative", "baseline_metric": "hp_jct_p95_seconds", "baseline_observed": fifo["hp_jct_p95_seconds"], "multiplier": 1.01, "addend": 0.0}, "hard"),
                ("spot-eviction-rate-per-run", "spot_eviction_rate_per_run", "<=", 0.1, {"kind": "absolute"}, "hard"),
                ("spot-guarantee-success-rate", "spot_guarantee_success_rate", ">=", 0.9, {"kind": "absolute"}, "hard"),
                ("allocation-soft-target", "allocation_rate_mean", ">=", 0.8, {"kind": "absolute"}, "soft")]
        results = []
        for cid, metric, op, thr, src, sev in cons:
            obs = m_by[metric]
            ok = obs is not None and thr is not None and {"<=": obs <= thr, ">=": obs >= thr}[op]
            results.append({"id": cid, "metric": metric, "operator": op, "threshold": thr, "threshold_source": src,
                            "severity": sev, "observed": obs,
                            "status": "passed" if ok else ("unavailable" if obs is None else "failed"), "passed": ok})
        passed = all(r["passed"] for r in results if r["severity"] == "hard")
        audit = {"type": "audit", "slo_name": "Report fixture SLO", "metrics_fingerprint": metrics_fp[action],
                 "policy_fingerprint": pfp, "audit_passed": passed, "constraints": results,
                 "failed_constraint_ids": [r["id"] for r in results if r["status"] == "failed"]}
        write_stream(os.path.join(out, "%s.audit.ndjson" % action), "schednav.audit/1", "slo-audit", [audit])
        passed_ids.append(action) if passed else None
    # Ranking: the hard-SLO survivors, then (a declared fixture outcome) a tie among them.
    stages = [{"stage": "hard_slo_filter", "remaining_action_ids": passed_ids},
              {"stage": "maximize_allocation_rate", "remaining_action_ids": passed_ids},
              {"stage": "minimize_spot_p95_jct", "remaining_action_ids": passed_ids}]
    status = "tie_requires_human_approval" if len(passed_ids) > 1 else "selected" if passed_ids else "no_eligible_policy"
    write_stream(os.path.join(out, "ranking.ndjson"), "schednav.ranking/1", "rank",
                 [{"type": "ranking", "selection_status": status, "selected_action_ids": passed_ids,
                   "stages": stages, "ranking_fingerprint": "%032x" % 0xfeed}])
    # Study: four windows x three arms.
    rnd = random.Random(11)
    body = []
    for w in range(4):
        pols = []
        base = 0.6 + 0.05 * w
        for k, a in enumerate(POLICIES):
            pols.append({"action_id": a, "hard_slo_passed": k == 0 or rnd.random() < 0.6, "allocation_soft_target_met": False,
                         "allocation_rate_mean": round(base + (0.0 if k == 0 else rnd.uniform(-0.02, 0.06)), 6),
                         "hp_jct_p95_seconds": 3600.0, "spot_eviction_rate_per_run": 0.0, "deterministic_repetitions": 2})
        sel = [p["action_id"] for p in pols if p["hard_slo_passed"]][:1]
        body.append({"type": "window_result", "window_id": "2024-04-%02d" % (3 + 7 * w), "partition": "calibration",
                     "baseline_action_id": "native-fifo", "policies": pols,
                     "ranking": {"selection_status": "selected", "selected_action_ids": sel}})
    write_stream(os.path.join(out, "study.ndjson"), "schednav.study/1", "aggregate", body)

if __name__ == "__main__":
    main(sys.argv[1])
