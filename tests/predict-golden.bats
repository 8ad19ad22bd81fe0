#!/usr/bin/env bats
# The golden-predictive corpus (../shared/golden-predictive, the original engine's numbers for
# predictive-spot-v1): every (case, policy) through sim-run --controller | metrics (metrics,
# control summary, every retained decision row, expected errors), every cutoff bundle through
# forecast (and quota on it), and the leakage variants. tests/predict-golden-compare.py does
# the comparing and prints N/N.
load helper

PGOLDEN="$SHARED/golden-predictive"

count() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(c[sys.argv[2]]) for c in d["cases"].values() if sys.argv[2] in c))' "$PGOLDEN/expected-predictive.json" "$1"; }

@test "predictive golden: every run of expected-predictive.json matches the original" {
	require_shared
	run python3 "$ROOT/tests/predict-golden-compare.py" "$PGOLDEN" runs
	echo "$output" | tail -n 20
	assert_success
	n=$(count runs)
	assert_output --partial "$n/$n runs match"
}

@test "predictive golden: every cutoff bundle (and quota on it) matches the original" {
	require_shared
	run python3 "$ROOT/tests/predict-golden-compare.py" "$PGOLDEN" bundles
	echo "$output" | tail -n 20
	assert_success
	n=$(count forecasts)
	assert_output --partial "$n/$n bundles match"
}

@test "predictive golden: the leakage variants differ only where the original's do" {
	require_shared
	run python3 "$ROOT/tests/predict-golden-compare.py" "$PGOLDEN" leakage
	echo "$output" | tail -n 20
	assert_success
	n=$(count leakage)
	assert_output --partial "$n/$n leakage checks match"
}

@test "predictive golden: the controller file in configs/ is the corpus's, key for key" {
	require_shared
	diff <(jq -S . "$PGOLDEN/predictive-spot-v1.json") <(jq -S . "$ROOT/configs/controllers/predictive-spot-v1.json")
	fp=$(jq -r .controller_fingerprint "$PGOLDEN/expected-predictive.json")
	forecast -c "$ROOT/configs/controllers/predictive-spot-v1.json" -t 0 "$ROOT/tests/data/sim/micro-quota.trace.ndjson" > "$BATS_TEST_TMPDIR/bundle.nd"
	run -0 jq -r 'select(.type == "observation_bundle") | .controller_fingerprint' "$BATS_TEST_TMPDIR/bundle.nd"
	assert_output "$fp"
}
