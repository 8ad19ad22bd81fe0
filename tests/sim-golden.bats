#!/usr/bin/env bats
# Every case x policy of ../shared/golden/expected-golden.json through
# trace-import canonical | sim-run | metrics, every metric and extra field compared.
load helper

@test "sim-run + metrics reproduce every golden run of the original engine" {
	require_shared
	run python3 "$ROOT/tests/sim-golden-compare.py" "$GOLDEN"
	echo "$output" | tail -n 20
	assert_success
	assert_output --regexp "(^|$'\n')([0-9]+)/\\2 runs match$"
	n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(c["runs"]) for c in d["cases"].values()))' "$GOLDEN/expected-golden.json")
	assert_output --partial "$n/$n runs match"
}

@test "g-micro-drift under native-fifo stops with a clear error naming the stuck job" {
	run sim-run --policy "$ROOT/configs/policies/native-fifo.json" --input "$ROOT/tests/data/sim/drift.trace.ndjson"
	assert_failure 1
	assert_output --partial "sim-run: cannot make progress"
	assert_output --partial "'c' needs 1 GPU of model 'D' (0.99999999999999989 free)"
}
