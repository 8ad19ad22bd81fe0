#!/usr/bin/env bats
# aggregate: per-window evidence checks, per-action statistics, the summary, null/zero rules.
load helper
load eval_fixtures
load run_cases

setup_file() {
	export FIX="$BATS_FILE_TMPDIR/fix"
	build_fixtures "$FIX"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# win ID CASE_DIR: the arguments of one window group.
win() { echo "--window $1 $2/ranking.ndjson $2/audits.ndjson $(catalogue_files "$2")"; }

rec() { sed -n "$(( $2 + 1 ))p" "$1" | jq -c "$3"; }

@test "aggregate: --help matches the man page, bad option exits 2" {
	assert_tool_invariants aggregate
}

@test "aggregate: the error cases (tests/cases/aggregate/*.case)" {
	run_cases aggregate sel="$FIX/sel"
}

@test "aggregate: zstd in and out, chunked stdin give identical records" {
	aggregate $(win a "$FIX/sel") $(win b "$FIX/ps") > plain.ndjson
	cat $(win a "$FIX/sel" | cut -d' ' -f3-) | zstd -q > a.zst
	cat $(win b "$FIX/ps" | cut -d' ' -f3-) > b.ndjson
	aggregate -o out.zst --window a a.zst --window b b.ndjson
	cmp <(sans_header out.zst) <(sans_header plain.ndjson)
	feed_chunked b.ndjson aggregate --window a a.zst --window b - > chunked.ndjson
	cmp <(sans_header chunked.ndjson) <(sans_header plain.ndjson)
}

@test "aggregate: every statistic equals an independent recomputation" {
	aggregate -o agg.ndjson $(win ps "$FIX/ps") $(win big "$FIX/tie") $(win odd "$FIX/sel")
	body agg.ndjson > b.ndjson
	assert_schema b.ndjson
	run -0 check_self aggregate_fingerprint < agg.ndjson
	assert_output "verified 5"
	run -0 check_self summary_fingerprint < agg.ndjson
	assert_output "verified 1"
	run -0 python3 - agg.ndjson "$FIX/ps" "$FIX/tie" "$FIX/sel" <<'PY'
import json, statistics, sys
def body(p): return [json.loads(l) for l in open(p)][1:-1]
def stats(v):
    return None if not v else {"mean": round(sum(v) / len(v), 9), "median": round(statistics.median(v), 9),
                               "min": round(min(v), 9), "max": round(max(v), 9)}
out = body(sys.argv[1]); acts, summ = out[:-1], out[-1]
wins = []
for d in sys.argv[2:]:
    rk = body(d + "/ranking.ndjson")[0]
    ms = {}
    import glob
    for f in glob.glob(d + "/*.metrics.ndjson"):
        lines = open(f).read().split("\n")
        ms[json.loads(lines[2])["fingerprint"]] = json.loads(lines[1])
    fifo = next(m for m in ms.values() if m["action_id"] == "native-fifo")
    wins.append((rk, {ms[c["metrics_fingerprint"]]["action_id"]: (c, ms[c["metrics_fingerprint"]]) for c in rk["candidates"]}, fifo))
bad = []
for a in acts:
    rows = [(w[1][a["action_id"]], w[2]) for w in wins]
    hard = sum(c["hard_slo_passed"] and c["evidence_valid"] for (c, m), f in rows)
    soft = sum(c["allocation_soft_target_met"] is True for (c, m), f in rows)
    diffs = [m["allocation_rate_mean"] - f["allocation_rate_mean"] for (c, m), f in rows]
    rel = [(m["hp_jct_p95_seconds"] - f["hp_jct_p95_seconds"]) / f["hp_jct_p95_seconds"] for (c, m), f in rows]
    want = {"window_count": 3, "hard_pass_window_count": hard, "soft_pass_window_count": soft,
            "hard_pass_rate": round(hard / 3, 9),
            "alloc": stats([m["allocation_rate_mean"] for (c, m), f in rows]), "diff": stats(diffs),
            "signs": [sum(d > 0 for d in diffs), sum(d == 0 for d in diffs), sum(d < 0 for d in diffs)],
            "rel": stats(rel), "ev": stats([m["spot_eviction_rate_per_run"] for (c, m), f in rows])}
    got = {"window_count": a["window_count"], "hard_pass_window_count": a["hard_pass_window_count"],
           "soft_pass_window_count": a["soft_pass_window_count"], "hard_pass_rate": a["hard_pass_rate"],
           "alloc": a["allocation_rate_mean"]["stats"], "diff": a["allocation_minus_fifo"]["stats"],
           "signs": [a["allocation_minus_fifo"][k] for k in ("positive_count", "zero_count", "negative_count")],
           "rel": a["hp_jct_p95_relative_to_fifo"]["stats"], "ev": a["spot_eviction_rate_per_run"]["stats"]}
    if got != want: bad.append((a["action_id"], got, want))
status = {s: sum(w[0]["selection_status"] == s for w in wins) for s in ("selected", "tie_requires_human_approval", "no_eligible_policy")}
freq = [{"action_id": a["action_id"], "selected_window_count": sum(a["action_id"] in w[0]["selected_action_ids"] for w in wins)} for a in acts]
allhard = sum(all(c["hard_slo_passed"] for c, m in w[1].values()) for w in wins)
ups = [max(m["allocation_rate_mean"] for c, m in w[1].values() if c["hard_slo_passed"]) - w[2]["allocation_rate_mean"]
       for w in wins if any(c["hard_slo_passed"] for c, m in w[1].values())]
if summ["selection_status_counts"] != status: bad.append(("status", summ["selection_status_counts"], status))
if summ["frontier_frequency"] != freq: bad.append(("freq", summ["frontier_frequency"], freq))
if summ["all_hard_pass_window_count"] != allhard: bad.append(("allhard", summ["all_hard_pass_window_count"], allhard))
if summ["best_hard_pass_uplift"]["stats"] != stats(ups): bad.append(("uplift", summ["best_hard_pass_uplift"], ups))
print(bad or "all equal", len(acts))
PY
	assert_output "all equal 5"
	run -0 rec agg.ndjson 6 '[.window_ids, .baseline_action_id, .selection_status_counts]'
	assert_output '[["ps","big","odd"],"native-fifo",{"selected":1,"tie_requires_human_approval":2,"no_eligible_policy":0}]'
}

@test "aggregate: FIFO p95 = 0 leaves the relative term out and counts it" {
	mkdir z
	cp "$FIX"/ps/*.metrics.ndjson z/
	mk_metrics ps native-fifo hp_jct_p95_seconds=0.0 > z/native-fifo.metrics.ndjson
	audit_and_rank z
	aggregate -o agg.ndjson $(win zero z) $(win ps "$FIX/ps")
	run -0 rec agg.ndjson 2 '.hp_jct_p95_relative_to_fifo'
	assert_output '{"count":1,"null_count":0,"stats":{"mean":0,"median":0,"min":0,"max":0},"relative_undefined_count":1}'
}

@test "aggregate: null values are excluded and counted; no hard-pass window gives a reason" {
	aggregate -o agg.ndjson $(win none "$FIX/none") $(win hponly "$FIX/hponly")
	run -0 rec agg.ndjson 1 '[.hard_pass_window_count, .spot_eviction_rate_per_run.count, .spot_eviction_rate_per_run.null_count]'
	assert_output '[0,1,1]'
	run -0 rec agg.ndjson 6 '[.all_hard_pass_window_count, .selection_status_counts.no_eligible_policy, .best_hard_pass_uplift]'
	assert_output '[0,2,{"window_count":0,"null_count":0,"stats":null,"by_window":[],"reason":"no window has a hard-passing action"}]'
}

@test "aggregate: repetitions: identical runs are deterministic, a differing run is not" {
	d="$FIX/sel"
	aggregate -o same.ndjson $(win a "$d") "$d/native-fifo.metrics.ndjson" "$d/native-preemptive-3600.metrics.ndjson"
	run -0 rec same.ndjson 1 '.deterministic_window_count'
	assert_output '1'
	mk_metrics sel native-preemptive-3600 'result_fingerprint="ffffffffffffffffffffffffffffffff"' > rerun.ndjson
	aggregate -o diff.ndjson $(win a "$d") rerun.ndjson
	run -0 rec diff.ndjson 2 '[.action_id, .deterministic_window_count]'
	assert_output '["native-preemptive-3600",0]'
	run -0 rec diff.ndjson 1 '.deterministic_window_count'
	assert_output '1'
}

@test "aggregate: windows ranking different action sets are an error" {
	# (the other inconsistent windows: tests/cases/aggregate/*.case)
	d="$FIX/sel"
	mkdir four
	for p in native-fifo native-preemptive-3600 native-preemptive-g3600-b09-d0000 native-preemptive-g3600-b09-d0900; do cp "$d/$p.metrics.ndjson" four/; done
	slo-audit --slo "$SLO" --baseline four/native-fifo.metrics.ndjson four/*.metrics.ndjson > four/audits.ndjson
	rank --slo "$SLO" -o four/ranking.ndjson four/audits.ndjson four/*.metrics.ndjson
	run aggregate $(win a "$d") --window b four/ranking.ndjson four/audits.ndjson four/*.metrics.ndjson
	assert_failure 1
	assert_output "aggregate: window 'b' ranks another set of actions than window 'a'"
}
