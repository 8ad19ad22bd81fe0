#!/usr/bin/env python3
"""Golden parity of slo-audit and rank, driven by ../shared/golden/expected-golden.json.

usage: golden-eval.py GOLDEN_DIR SLO_FILE WORKDIR

For every case (iterating the JSON, nothing hard-coded): build each run's metrics stream
(golden-metrics.py), run `slo-audit --baseline <case's native-fifo>` over every run, and
compare audit_passed, failed/unavailable ids, soft_violation_count, the evidence checks and
each constraint's observed/threshold/status with the expected audit; then run `rank` over
the catalogue policies (expected-golden.json "rank_policies") and compare selection_status,
selected_action_ids and every stage's survivors. A ranking marked expected_error (the
original aborts) is not compared, but our rank must end cleanly (exit 0, a valid status).
Numbers compare with the golden tolerance (|e-g| <= 1e-9 absolute or relative); null must
stay null and int/float kinds of `observed` must be kept. Prints one line per mismatch and
"audits N/M match" / "rankings N/M match"; exits 1 on any mismatch.

usage: golden-eval.py --pipeline GOLDEN_DIR SLO_FILE WORKDIR

End to end through the real tools instead: every run's metrics stream is made by
    trace-import canonical CASE | sim-run --policy P | metrics -o WORKDIR/CASE/P.metrics.ndjson
(cases in parallel, two at a time), a run marked expected_error must fail with exit 1 (both
sim-run and metrics; no metrics file left), every other run must succeed, and the same audit
and ranking comparisons follow on those streams. The ranking reuses the simulated streams.
Prints "N/M audits match", "E/F expected errors reproduced" and "K/L rankings match"
(plus, for an original ranking error, the clean outcome our rank gave instead).
"""
import concurrent.futures, importlib.util, json, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("golden_metrics", os.path.join(here, "golden-metrics.py"))
gm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gm)

pipeline = len(sys.argv) > 1 and sys.argv[1] == "--pipeline"
golden, slo, work = sys.argv[1 + pipeline:4 + pipeline]
exp = json.load(open(os.path.join(golden, "expected-golden.json")))
baseline_name = exp["baseline_policy"]
bad = []
errors_ok = errors_n = 0

def run_pipeline(case):
    """trace-import canonical | sim-run | metrics for every policy of one case.
    Returns {policy: (metrics path, exit statuses, stderr)}."""
    d = os.path.join(work, case)
    os.makedirs(d, exist_ok=True)
    out = {}
    for pname in exp["cases"][case]["runs"]:
        path = os.path.join(d, pname.replace(".json", ".metrics.ndjson"))
        imp = subprocess.Popen(["trace-import", "canonical", os.path.join(golden, "cases", case)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        sim = subprocess.Popen(["sim-run", "--policy", os.path.join(golden, "policies", pname)],
                               stdin=imp.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        imp.stdout.close()
        met = subprocess.Popen(["metrics", "-o", path], stdin=sim.stdout, stderr=subprocess.PIPE)
        sim.stdout.close()
        errs = [p.stderr.read().decode() for p in (imp, sim, met)]
        codes = tuple(p.wait() for p in (imp, sim, met))
        out[pname] = (path, codes, "".join(errs).strip())
    return case, out

piped = {}
if pipeline:
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        piped = dict(pool.map(run_pipeline, exp["cases"]))

def close(e, g):
    if e is None or g is None:
        return e is None and g is None
    if isinstance(e, bool) or isinstance(g, bool):
        return e == g
    return abs(e - g) <= 1e-9 or abs(e - g) <= 1e-9 * max(abs(e), abs(g))

def records(path):
    with open(path) as f:
        return [json.loads(l) for l in f][1:-1]

audits_ok = audits_n = ranks_ok = ranks_n = 0
for case, c in exp["cases"].items():
    d = os.path.join(work, case)
    os.makedirs(d, exist_ok=True)
    paths = {}
    for pname in c["runs"]:
        if pipeline:
            path, codes, err = piped[case][pname]
            if "expected_error" in c["runs"][pname]:
                errors_n += 1
                if codes[0] == 0 and codes[1] == 1 and codes[2] == 1 and not os.path.exists(path) and err:
                    errors_ok += 1
                else:
                    bad.append("%s/%s: expected_error %r, our pipeline exited %r: %s" % (case, pname, c["runs"][pname]["expected_error"], codes, err))
            elif codes != (0, 0, 0):
                bad.append("%s/%s: pipeline exited %r: %s" % (case, pname, codes, err))
            else:
                paths[pname] = path
            continue
        data = gm.build_stream(golden, exp, case, pname)
        if data is None:
            continue
        paths[pname] = os.path.join(d, pname.replace(".json", ".metrics.ndjson"))
        with open(paths[pname], "wb") as f:
            f.write(data)
    if baseline_name not in paths:
        continue  # the original had no baseline either (its FIFO run errored): nothing to audit
    audited = [p for p in c["runs"] if p in paths and "audit" in c["runs"][p] and "audit_passed" in c["runs"][p]["audit"]]
    apath = os.path.join(d, "audits.ndjson")
    subprocess.run(["slo-audit", "--slo", slo, "--baseline", paths[baseline_name], "-o", apath] +
                   [paths[p] for p in audited], check=True)
    for pname, got in zip(audited, records(apath)):
        want = c["runs"][pname]["audit"]
        audits_n += 1
        errs = []
        for k in ("audit_passed", "failed_constraint_ids", "unavailable_constraint_ids", "soft_violation_count", "evidence_checks"):
            if got[k] != want[k]:
                errs.append("%s: got %r want %r" % (k, got[k], want[k]))
        gc = {x["id"]: x for x in got["constraints"]}
        if list(gc) != list(want["constraints"]):
            errs.append("constraint ids/order differ")
        for cid, wc in want["constraints"].items():
            x = gc.get(cid)
            if x is None:
                continue
            if x["status"] != wc["status"] or x["severity"] != wc["severity"]:
                errs.append("%s: status %s/%s" % (cid, x["status"], wc["status"]))
            if not close(wc["observed"], x["observed"]) or type(wc["observed"]) is not type(x["observed"]):
                errs.append("%s: observed %r want %r" % (cid, x["observed"], wc["observed"]))
            if not close(wc["threshold"], x["threshold"]):
                errs.append("%s: threshold %r want %r" % (cid, x["threshold"], wc["threshold"]))
        if errs:
            bad.append("%s/%s audit: %s" % (case, pname, "; ".join(errs)))
        else:
            audits_ok += 1
    want = c.get("ranking", {})
    if "skipped" in want:
        continue
    rpath = os.path.join(d, "ranking.ndjson")
    if any(p not in paths for p in exp["rank_policies"]):
        ranks_n += 1
        bad.append("%s ranking: a catalogue policy has no metrics" % case)
        continue
    rank_paths = [paths[p] for p in exp["rank_policies"]]
    rapath = os.path.join(d, "rank-audits.ndjson")
    subprocess.run(["slo-audit", "--slo", slo, "--baseline", paths[baseline_name], "-o", rapath] + rank_paths, check=True)
    proc = subprocess.run(["rank", "--slo", slo, "-o", rpath, rapath] + rank_paths, capture_output=True, text=True)
    ranks_n += 1
    if proc.returncode != 0:
        bad.append("%s ranking: rank exited %d: %s" % (case, proc.returncode, proc.stderr.strip()))
        continue
    got = records(rpath)[0]
    if "expected_error" in want:
        # The original aborted; ours must give a clean outcome.
        if got["selection_status"] in ("selected", "tie_requires_human_approval", "no_eligible_policy"):
            ranks_ok += 1
            if pipeline:
                print("%s ranking: original %r; ours %s %r" % (case, want["expected_error"], got["selection_status"], got["selected_action_ids"]))
        else:
            bad.append("%s ranking: no clean outcome" % case)
        continue
    errs = []
    if got["selection_status"] != want["selection_status"]:
        errs.append("status %s want %s" % (got["selection_status"], want["selection_status"]))
    if got["selected_action_ids"] != want["selected_action_ids"]:
        errs.append("selected %r want %r" % (got["selected_action_ids"], want["selected_action_ids"]))
    gs = [(s["stage"], s["remaining_action_ids"]) for s in got["stages"]]
    ws = [(s["stage"], s["remaining_action_ids"]) for s in want["stages"]]
    if gs != ws:
        errs.append("stages %r want %r" % (gs, ws))
    if errs:
        bad.append("%s ranking: %s" % (case, "; ".join(errs)))
    else:
        ranks_ok += 1

for b in bad:
    print(b)
if pipeline:
    print("%d/%d audits match" % (audits_ok, audits_n))
    print("%d/%d expected errors reproduced" % (errors_ok, errors_n))
    print("%d/%d rankings match" % (ranks_ok, ranks_n))
else:
    print("audits %d/%d match" % (audits_ok, audits_n))
    print("rankings %d/%d match" % (ranks_ok, ranks_n))
sys.exit(1 if bad or audits_n == 0 or ranks_n == 0 else 0)
