#!/usr/bin/env bats
load helper

POL="$ROOT/configs/policies"
SMALL="$ROOT/tests/data/sim/preemption-small.trace.ndjson"
WARM="$ROOT/tests/data/sim/warmup-window.trace.ndjson"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

body() { grep -v '"type":"header"\|"type":"end"' "$1" > "$1.body"; echo "$1.body"; }

@test "sim-run: --help matches the man page; a bad option exits 2" {
	assert_tool_invariants sim-run
}

@test "sim-run: missing --policy is a usage error" {
	run sim-run < "$SMALL"
	assert_failure 2
	assert_output --partial "usage: sim-run"
}

@test "sim-run: the §3.8 golden trace under native-preemptive-3600 (guarantee protects the Spot run)" {
	run sim-run --policy "$POL/native-preemptive-3600.json" --input "$SMALL"
	assert_success
	assert_line --partial '{"type":"job_result","job_id":"hp","service_class":"HP","submit_time_seconds":2.0,"start_time_seconds":10.0,"completion_time_seconds":12.0'
	assert_line --partial '"type":"cluster","node_count":1,"capacity_gpus":2,"simulation_start":0.0,"simulation_end":12.0,"allocated_gpu_seconds":24.0'
	refute_line --partial '"type":"preemption"'
}

@test "sim-run: header carries the canonical policy, fingerprints, window and source" {
	sim-run --policy "$POL/native-preemptive-g3600-b09-d0000.json" --input "$SMALL" > "$TMP/r"
	head -n1 "$TMP/r" > "$TMP/h"
	run jq -c '[.schema, .policy, .trace_id, .time_origin, .source, .evaluation_start, .evaluation_end, (.policy_fingerprint|length), .trace_fingerprint == .inputs[0].fingerprint]' "$TMP/h"
	assert_output '["schednav.result/1",{"action_id":"native-preemptive-g3600-b09-d0000","scheduler":"priority_preemptive","spot_guarantee_seconds":3600,"checkpoint_interval_seconds":3600,"preemption_overhead_seconds":80,"placement_strategy":"deterministic_best_fit","spot_eviction_budget_rate":0.09},"preemption-small","2026-01-01 00:00:00",{"dataset":"unit-fixture"},0,2,32,true]'
	grep -q '"evaluation_start":0.0,"evaluation_end":2.0}' "$TMP/h"
}

@test "sim-run: every record matches its schema; jobs sorted by id, warm-up included" {
	sim-run --policy "$POL/native-preemptive-0000.json" --input "$WARM" > "$TMP/r"
	assert_schema "$(body "$TMP/r")"
	run sh -c "jq -r 'select(.type==\"job_result\") | .job_id' '$TMP/r' | LC_ALL=C sort -c"
	assert_success
	n_trace=$(grep -c '"type":"job"' "$WARM")
	n_res=$(grep -c '"type":"job_result"' "$TMP/r")
	[ "$n_trace" -eq "$n_res" ]
	grep -q '"evaluation_population":false' "$TMP/r"
}

@test "sim-run: empty input is an error" {
	run sim-run --policy "$POL/native-fifo.json" < /dev/null
	assert_failure 1
	assert_output --partial "empty input"
}

@test "sim-run: a truncated trace stream fails with PATH:LINE" {
	head -n 3 "$SMALL" > "$TMP/t.ndjson"
	run sim-run --policy "$POL/native-fifo.json" --input "$TMP/t.ndjson"
	assert_failure 1
	assert_output --regexp "^sim-run: .*t\.ndjson:[0-9]+: "
	[ ! -e "$TMP/out" ]
	run sim-run --policy "$POL/native-fifo.json" --input "$TMP/t.ndjson" -o "$TMP/out"
	assert_failure 1
	assert_no_output "$TMP/out"
}

@test "sim-run: zstd in and out, chunked input, and two runs are byte-identical" {
	sim-run --policy "$POL/native-preemptive-g3600-b09-d0900.json" --input "$WARM" > "$TMP/a"
	zstd -q -c "$WARM" > "$TMP/w.zst"
	sim-run --policy "$POL/native-preemptive-g3600-b09-d0900.json" -o "$TMP/b.zst" < "$TMP/w.zst"
	zstd -q -d -c "$TMP/b.zst" > "$TMP/b"
	feed_chunked "$WARM" sim-run --policy "$POL/native-preemptive-g3600-b09-d0900.json" > "$TMP/c"
	sim-run --policy "$POL/native-preemptive-g3600-b09-d0900.json" --input "$WARM" > "$TMP/d"
	cmp "$TMP/a" "$TMP/d"
	cmp "$TMP/b" "$TMP/c"
	# stdin and a path differ only in the header's input path
	diff <(sans_header "$TMP/a") <(sans_header "$TMP/c")
}

@test "sim-run: bad policy files are rejected with a clear message" {
	base='"schema_version":"schednav.simulation-policy/v1","action_id":"x","placement_strategy":"deterministic_best_fit","preemption_overhead_seconds":80'
	check() {
		echo "{$base,$1}" > "$TMP/p.json"
		run sim-run --policy "$TMP/p.json" --input "$SMALL"
		assert_failure 1
		assert_output --partial "$2"
	}
	check '"scheduler":"fifo","spot_guarantee_seconds":0,"checkpoint_interval_seconds":3600,"colour":1' "unknown key 'colour'"
	check '"scheduler":"lifo","spot_guarantee_seconds":0,"checkpoint_interval_seconds":3600' "unknown scheduler 'lifo'"
	check '"scheduler":"fifo","spot_guarantee_seconds":0,"checkpoint_interval_seconds":0' "'checkpoint_interval_seconds' must be > 0"
	check '"scheduler":"fifo","spot_guarantee_seconds":0,"checkpoint_interval_seconds":3600,"spot_eviction_budget_rate":1.5' "'spot_eviction_budget_rate' must be in [0, 1]"
	check '"scheduler":"fifo","spot_guarantee_seconds":1800.7,"checkpoint_interval_seconds":3600' "'spot_guarantee_seconds' must be a whole number of seconds"
	check '"scheduler":"fifo","checkpoint_interval_seconds":3600' "missing required key 'spot_guarantee_seconds'"
	echo '{' > "$TMP/p.json"
	run sim-run --policy "$TMP/p.json" --input "$SMALL"
	assert_failure 1
	assert_output --partial "p.json"
}

@test "sim-run: integral float seconds are coerced (3600.0 == 3600)" {
	sed 's/"spot_guarantee_seconds": 3600/"spot_guarantee_seconds": 3600.0/' "$POL/native-preemptive-3600.json" > "$TMP/p.json"
	grep -q '3600.0' "$TMP/p.json"
	sim-run --policy "$POL/native-preemptive-3600.json" --input "$SMALL" > "$TMP/a"
	sim-run --policy "$TMP/p.json" --input "$SMALL" > "$TMP/b"
	cmp "$TMP/a" "$TMP/b"
}

@test "sim-run: every catalogue policy file is valid" {
	for p in "$POL"/*.json; do
		run sim-run --policy "$p" --input "$SMALL"
		assert_success
	done
	[ "$(ls "$POL"/*.json | wc -l)" -eq 11 ]
}

@test "sim-run: a result that stalls exits 1 naming the stuck jobs and leaves no output" {
	run sim-run --policy "$POL/native-fifo.json" --input "$ROOT/tests/data/sim/drift.trace.ndjson" -o "$TMP/o"
	assert_failure 1
	assert_output --partial "cannot make progress"
	assert_output --partial "'c'"
	[ ! -e "$TMP/o" ]
}
