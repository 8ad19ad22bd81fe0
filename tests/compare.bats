#!/usr/bin/env bats
# compare: comparability checks, neutral deltas, portfolio form, never a winner.
load helper
load eval_fixtures
load run_cases

setup_file() {
	export FIX="$BATS_FILE_TMPDIR/fix"
	build_fixtures "$FIX"
}

setup() {
	PS="$FIX/ps"
	SEL="$FIX/sel"
	cd "$BATS_TEST_TMPDIR"
}

rec() { sed -n 2p "$1" | jq -c "$2"; }

@test "compare: --help matches the man page, bad option exits 2" {
	assert_tool_invariants compare
}

@test "compare: the error cases (tests/cases/compare/*.case)" {
	run_cases compare ps="$PS" sel="$SEL"
}

@test "compare: zstd in and out, chunked input give identical records" {
	compare "$SEL/native-fifo.metrics.ndjson" "$SEL/native-preemptive-3600.metrics.ndjson" > plain.ndjson
	cat "$SEL/native-fifo.metrics.ndjson" "$SEL/native-preemptive-3600.metrics.ndjson" > both.ndjson
	zstd -q both.ndjson -o both.zst
	compare -o out.zst both.zst
	cmp <(sans_header out.zst) <(sans_header plain.ndjson)
	feed_chunked both.ndjson compare > chunked.ndjson
	cmp <(sans_header chunked.ndjson) <(sans_header plain.ndjson)
}

@test "compare: two records: every check true, 37 deltas computed as round6(r - l)" {
	compare "$SEL/native-fifo.metrics.ndjson" "$SEL/native-preemptive-3600.metrics.ndjson" > c.ndjson
	body c.ndjson > b.ndjson
	assert_schema b.ndjson
	run -0 check_self comparison_fingerprint < c.ndjson
	assert_output "verified 1"
	run -0 rec c.ndjson '[.comparable, ([.checks[]] | all), (.deltas | length)]'
	assert_output '[true,true,37]'
	# Recompute every delta independently from the two metrics records.
	run -0 python3 - "$SEL/native-fifo.metrics.ndjson" "$SEL/native-preemptive-3600.metrics.ndjson" c.ndjson <<'PY'
import json, sys
l = json.loads(open(sys.argv[1]).read().split("\n")[1])
r = json.loads(open(sys.argv[2]).read().split("\n")[1])
c = json.loads(open(sys.argv[3]).read().split("\n")[1])
bad = 0
for d in c["deltas"]:
    a, b = l[d["metric"]], r[d["metric"]]
    if a is None or b is None:
        want = (None, None)
    else:
        diff = b - a if isinstance(a, int) and isinstance(b, int) else round(b - a, 6)
        want = (diff, round(diff / a, 6) if a != 0 else None)
    got = (d["right_minus_left"], d["relative_to_left"])
    if got != want or type(got[0]) is not type(want[0]):
        print(d["metric"], got, want); bad += 1
print("mismatches", bad)
PY
	assert_output "mismatches 0"
	grep -q '"metric":"hp_jct_p95_seconds","left":8950.0,"right":8500.0,"right_minus_left":-450.0,"relative_to_left":-0.050279}' c.ndjson
}

@test "compare: null values give null deltas, a zero left gives a null relative" {
	compare "$FIX/hponly/native-fifo.metrics.ndjson" "$FIX/hponly/native-preemptive-3600.metrics.ndjson" > c.ndjson
	run -0 rec c.ndjson '[.deltas[] | select(.metric == "spot_jct_p95_seconds" or .metric == "warmup_allocated_gpu_seconds") | [.right_minus_left, .relative_to_left]]'
	assert_output '[[0,null],[null,null]]'
	run -0 rec c.ndjson '.checks.both_complete'
	assert_output 'true'
}

@test "compare: each failed check makes the pair not comparable" {
	check() {
		compare "$PS/native-fifo.metrics.ndjson" "$1" > c.ndjson
		run -0 rec c.ndjson "[.comparable, .checks.$2]"
		assert_output '[false,false]'
	}
	mk_metrics ps native-preemptive-3600 'trace_id="x"' > t.ndjson; check t.ndjson trace_id_equal
	mk_metrics ps native-preemptive-3600 'source={}' > s.ndjson; check s.ndjson source_equal_and_nonempty
	mk_metrics ps native-preemptive-3600 evaluation_start=1.0 > w.ndjson; check w.ndjson window_equal
	mk_metrics ps native-preemptive-3600 hp_job_count=3 > p.ndjson; check p.ndjson population_equal
	mk_metrics ps native-preemptive-3600 spot_completed_count=0 > i.ndjson; check i.ndjson both_complete
	mk_metrics ps native-preemptive-3600 preemption_ledger_consistent=false > g.ndjson; check g.ndjson ledgers_available_and_consistent
	check "$PS/native-fifo.metrics.ndjson" actions_distinct
	check "$PS/test-preemptive-ck1800.metrics.ndjson" execution_controls_equal
}

@test "compare: 3-5 records give a portfolio with pairwise checks and per-action values" {
	compare $(catalogue_files "$SEL") > p.ndjson
	body p.ndjson > b.ndjson
	assert_schema b.ndjson
	run -0 check_self portfolio_fingerprint < p.ndjson
	assert_output "verified 1"
	run -0 rec p.ndjson '[.type, .comparable, .actions_unique, (.pairs | length), (.metrics | length), (.metrics[] | select(.metric == "hp_jct_p95_seconds") | .values)]'
	assert_output '["portfolio",true,true,10,37,[8950,8500,8800,8800,8800]]'
}

@test "compare: the portfolio compares canonical bytes (0 != 0.0), the pair compares numbers" {
	mk_metrics ps native-preemptive-3600 evaluation_start=0 > int.ndjson
	compare "$PS/native-fifo.metrics.ndjson" int.ndjson > c.ndjson
	run -0 rec c.ndjson '.checks.window_equal'
	assert_output 'true'
	compare "$PS/native-fifo.metrics.ndjson" int.ndjson "$PS/native-preemptive-g3600-b09-d0000.metrics.ndjson" > p.ndjson
	run -0 rec p.ndjson '[.comparable, [.pairs[] | .checks.window_equal]]'
	assert_output '[false,[false,true,false]]'
	compare "$PS/native-fifo.metrics.ndjson" "$PS/native-fifo.metrics.ndjson" "$PS/native-preemptive-3600.metrics.ndjson" > d.ndjson
	run -0 rec d.ndjson '[.comparable, .actions_unique]'
	assert_output '[false,false]'
}

@test "compare: never names a winner" {
	compare "$SEL/native-fifo.metrics.ndjson" "$SEL/native-preemptive-3600.metrics.ndjson" > c.ndjson
	compare $(catalogue_files "$SEL") > p.ndjson
	run grep -Eiq '"(winner|best|selected|rank[a-z_]*)"' c.ndjson p.ndjson
	assert_failure 1
}
