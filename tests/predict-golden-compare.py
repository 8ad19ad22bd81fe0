#!/usr/bin/python3
"""Run the golden-predictive corpus through our tools and compare with expected-predictive.json.

usage: predict-golden-compare.py GOLDEN_PREDICTIVE_DIR [runs|bundles|leakage|all] [CASE_FILTER]

- runs: every (case, policy): trace-import canonical CASE | sim-run --policy P --controller C | metrics;
  the flat metrics, the control summary (from control_report and from metrics.predictive_control),
  every retained control_decision row (decision_columns) and the counts; runs marked
  expected_error must exit non-zero.
- bundles: every cutoff: forecast --controller C --cutoff S; every key of the expected bundle.
- leakage: the future variants: the bundle differs from the base case's only where expected.
Numbers match within the corpus tolerance (1e-9 relative or absolute); ints, strings,
booleans and null exactly. Prints one line per mismatch and "N/M ... match"; exit 1 on any.
"""
import json, math, os, subprocess, sys

golden = sys.argv[1]
what = sys.argv[2] if len(sys.argv) > 2 else "all"
only = sys.argv[3] if len(sys.argv) > 3 else None
expected = json.load(open(os.path.join(golden, "expected-predictive.json")))
tol = expected["tolerance"]
controller = os.path.join(golden, expected["controller"])
traces = {}

def same(e, g):
    if e is None or g is None:
        return e is None and g is None
    if isinstance(e, bool) or isinstance(g, bool):
        return e is g
    if isinstance(e, int) and isinstance(g, int):
        return e == g
    if isinstance(e, (int, float)) and isinstance(g, (int, float)):
        if isinstance(e, int) != isinstance(g, int):
            return False
        if not (math.isfinite(e) and math.isfinite(g)):
            return False
        d = abs(e - g)
        return d <= tol["absolute"] or d <= tol["relative"] * max(abs(e), abs(g))
    return e == g

def diff(e, g, path, out):
    """Every key of the expected value must match (recursively)."""
    if isinstance(e, dict):
        if not isinstance(g, dict):
            out.append("%s: expected an object, got %r" % (path, g))
            return
        for k, v in e.items():
            if k not in g:
                out.append("%s.%s missing" % (path, k))
            else:
                diff(v, g[k], "%s.%s" % (path, k), out)
    elif isinstance(e, list):
        if not isinstance(g, list) or len(e) != len(g):
            out.append("%s: expected %d items, got %r" % (path, len(e), g if not isinstance(g, list) else len(g)))
            return
        for i, (x, y) in enumerate(zip(e, g)):
            diff(x, y, "%s[%d]" % (path, i), out)
    elif not same(e, g):
        out.append("%s expected %r got %r" % (path, e, g))

def trace_of(case_dir):
    if case_dir not in traces:
        p = subprocess.run(["trace-import", "canonical", case_dir], capture_output=True)
        if p.returncode != 0:
            raise RuntimeError("import failed: " + p.stderr.decode().strip())
        traces[case_dir] = p.stdout
    return traces[case_dir]

def records(data):
    return [json.loads(l) for l in data.decode().splitlines()]

def bundle_of(case_dir, cutoff, with_quota=False):
    p = subprocess.run(["forecast", "--controller", controller, "--cutoff", cutoff], input=trace_of(case_dir), capture_output=True)
    if p.returncode != 0:
        raise RuntimeError("forecast failed: " + p.stderr.decode().strip())
    recs = [r for r in records(p.stdout) if r["type"] == "observation_bundle"]
    if len(recs) != 1:
        raise RuntimeError("forecast wrote %d bundles" % len(recs))
    if not with_quota:
        return recs[0]
    q = subprocess.run(["quota", "--controller", controller], input=p.stdout, capture_output=True)
    if q.returncode != 0:
        raise RuntimeError("quota failed: " + q.stderr.decode().strip())
    plans = [r for r in records(q.stdout) if r["type"] == "quota_plan"]
    if len(plans) != 1:
        raise RuntimeError("quota wrote %d plans" % len(plans))
    return recs[0], plans[0]

def normalise_history(b):
    """The corpus stores the hourly history as [t, gpus] pairs; we write the original's objects."""
    snap = b.get("observation_snapshot", {})
    h = snap.get("hourly_max_hp_requested_gpus")
    if isinstance(h, list) and h and isinstance(h[0], dict):
        snap["hourly_max_hp_requested_gpus"] = [[x["time_seconds"], x["gpus"]] for x in h]
    return b

def compare_bundles():
    total = ok = 0
    for case, cv in sorted(expected["cases"].items()):
        if only and only not in case:
            continue
        for f in cv.get("forecasts", []):
            total += 1
            label = "%s @%s" % (case, f["cutoff_argument"])
            try:
                got, plan = bundle_of(os.path.join(golden, "cases", case), f["cutoff_argument"], with_quota=True)
                got = normalise_history(got)
            except RuntimeError as e:
                print("%s: %s" % (label, e))
                continue
            want = {k: v for k, v in f.items() if k not in ("cutoff_argument", "wall_seconds")}
            bad = []
            diff(want, got, "bundle", bad)
            # the quota tool on the bundle gives the expected plan (the same library function)
            diff(f["spot_quota_plan"], plan, "quota", bad)
            if bad:
                print("%s: %d difference(s): %s" % (label, len(bad), "; ".join(bad[:5])))
            else:
                ok += 1
    print("%d/%d bundles match" % (ok, total))
    return ok == total and total > 0

def flat_diffs(want, got):
    out = []
    for k, v in want.items():
        if k not in got:
            out.append("%s missing" % k)
        elif not same(v, got[k]):
            out.append("%s expected %r got %r" % (k, v, got[k]))
    return out

def compare_leakage():
    total = ok = 0
    for case, cv in sorted(expected["cases"].items()):
        if only and only not in case:
            continue
        for lk in cv.get("leakage", []):
            total += 1
            label = "%s vs %s" % (case, lk["variant"])
            try:
                base = bundle_of(os.path.join(golden, "cases", case), lk["cutoff_argument"])
                var = bundle_of(os.path.join(golden, "leakage", lk["variant"]), lk["cutoff_argument"])
            except RuntimeError as e:
                print("%s: %s" % (label, e))
                continue
            differing = sorted(k for k in set(base) | set(var) if base.get(k) != var.get(k))
            want = sorted(lk["differing_fields"])
            bad = []
            if differing != want:
                bad.append("differing fields %s, expected %s" % (differing, want))
            if lk["byte_identical"] and json.dumps(base) != json.dumps(var):
                bad.append("bundles not identical")
            for k, v in lk.get("differing_values", {}).items():
                if base.get(k) != v["base"] or var.get(k) != v["variant"]:
                    bad.append("%s: %r / %r, expected %r / %r" % (k, base.get(k), var.get(k), v["base"], v["variant"]))
            if bad:
                print("%s: %s" % (label, "; ".join(bad)))
            else:
                ok += 1
    print("%d/%d leakage checks match" % (ok, total))
    return ok == total and total > 0

def decision_row(d):
    q = d["spot_quota_gpus_by_guarantee_hour"]
    reason = d.get("feedback_adjustment_reason", d.get("feedback", {}).get("adjustment_reason"))
    return ([d["cutoff_time_seconds"], d["eta"], q["1"], q["2"], q["4"]] + [p["guarantee_quantile_gpus"] for p in d["points"]] +
            [d["points"][0]["sigma_gpus"], reason, d["hp_outstanding_requested_gpus"], d["spot_backlog_gpus"], d["running_spot_gpus"]])

CONTROL_SUMMARY = ["controller_id", "controller_fingerprint", "information_boundary", "update_count", "total_runtime_update_count",
                   "evidence_window_seconds", "first_cutoff_time_seconds", "last_cutoff_time_seconds", "eta", "spot_quota_gpus",
                   "forecast_evaluation"]

def compare_runs():
    total = ok = 0
    for case, cv in sorted(expected["cases"].items()):
        if only and only not in case:
            continue
        for pol, run in cv["runs"].items():
            total += 1
            label = "%s %s" % (case, pol)
            try:
                trace = trace_of(os.path.join(golden, "cases", case))
            except RuntimeError as e:
                print("%s: %s" % (label, e))
                continue
            sim = subprocess.run(["sim-run", "--policy", os.path.join(golden, "policies", pol), "--controller", controller],
                                 input=trace, capture_output=True)
            if "expected_error" in run:
                msg = sim.stderr.decode().strip()
                if sim.returncode == 1 and msg.startswith("sim-run: ") and not sim.stdout:
                    ok += 1
                else:
                    print("%s: expected an error (%s), got exit %d, %d bytes out: %s" % (label, run["expected_error"], sim.returncode, len(sim.stdout), msg))
                continue
            if sim.returncode != 0:
                print("%s: sim-run failed: %s" % (label, sim.stderr.decode().strip()))
                continue
            met = subprocess.run(["metrics"], input=sim.stdout, capture_output=True)
            if met.returncode != 0:
                print("%s: metrics failed: %s" % (label, met.stderr.decode().strip()))
                continue
            rec = [r for r in records(met.stdout) if r.get("type") == "metrics"][0]
            result = records(sim.stdout)
            bad = flat_diffs(run["metrics"], rec)
            bad += [b for b in flat_diffs(run.get("extra", {}), rec) if not b.endswith(" missing")]
            reports = [r for r in result if r["type"] == "control_report"]
            if len(reports) != 1:
                bad.append("%d control_report records" % len(reports))
            want = {k: run["control"][k] for k in CONTROL_SUMMARY}
            for name, got in (("control_report", reports[0] if reports else {}), ("predictive_control", rec.get("predictive_control", {}))):
                w = dict(want)
                if name == "predictive_control":
                    w.pop("first_cutoff_time_seconds")
                    w.pop("last_cutoff_time_seconds")
                    if got.get("available") is not True:
                        bad.append("predictive_control.available is not true")
                d = []
                diff(w, got, name, d)
                bad += d
            decisions = [r for r in result if r["type"] == "control_decision"]
            kept = [d for d in decisions if d["retained"]]
            if len(decisions) != run["control"]["total_runtime_update_count"]:
                bad.append("%d control_decision records, expected %d" % (len(decisions), run["control"]["total_runtime_update_count"]))
            if len(kept) != run["control"]["update_count"] or len(kept) != len(run["decisions"]):
                bad.append("%d retained decisions, expected %d" % (len(kept), len(run["decisions"])))
            else:
                for i, (e, d) in enumerate(zip(run["decisions"], kept)):
                    g = decision_row(d)
                    if len(g) != len(e) or not all(same(x, y) for x, y in zip(e, g)):
                        bad.append("decision %d (t=%r) expected %r got %r" % (i, e[0], e, g))
                        break
            if bad:
                print("%s: %d difference(s): %s" % (label, len(bad), "; ".join(bad[:5])))
            else:
                ok += 1
    print("%d/%d runs match" % (ok, total))
    return ok == total and total > 0

good = True
if what in ("bundles", "all"):
    good &= compare_bundles()
if what in ("leakage", "all"):
    good &= compare_leakage()
if what in ("runs", "all"):
    good &= compare_runs()
sys.exit(0 if good else 1)
