#!/usr/bin/env bats
# forecast: the past-only cutoff bundle. Leakage on our own trace (no ../shared needed):
# same prefix + different futures give the same bundle; another trace id changes only the
# trace id and the two fingerprints that hash it.
load helper
load run_cases

CTRL="$ROOT/configs/controllers/predictive-spot-v1.json"
WARM="$ROOT/tests/data/sim/warmup-window.trace.ndjson"
VARIANT="$ROOT/tests/cases/forecast/future-variant.py"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

bundle() { sed -n 2p "$1"; }

@test "forecast: --help matches the man page; a bad option exits 2; -V names the schemas" {
	assert_tool_invariants forecast
	run forecast -V
	assert_success
	assert_output --partial "writes: schednav.forecast/1"
}

@test "forecast: a cutoff at the first arrival is accepted" {
	first=$(jq -r 'select(.type == "job") | .submit' "$WARM" | head -n 1)
	run forecast -c "$CTRL" -t "$first" "$WARM"
	assert_success
}

@test "forecast: the error cases (tests/cases/forecast/*.case)" {
	run_cases forecast ctrl="$CTRL" warm="$WARM"
}

@test "forecast: the bundle record, its fingerprints and no full-trace fingerprint" {
	forecast -c "$CTRL" -t 90000 "$WARM" > "$TMP/f"
	assert_schema "$TMP/f"
	run -0 jq -c 'select(.type == "observation_bundle") | [.trace_id, .cutoff_time_seconds, .controller_fingerprint[:8],
		.observation_snapshot.cutoff_time_seconds, (.demand_forecast.points | length), (.spot_quota_plan.spot_quota_gpus_by_guarantee_hour | keys),
		.information_boundary.full_trace_fingerprint_exposed]' "$TMP/f"
	assert_output '["g-syn-warmup-window",90000,"efe5a0c8",90000,4,["1","2","4"],false]'
	# the whole trace's fingerprint appears nowhere in the output, header included
	full=$(tail -n 1 "$WARM" | jq -r .fingerprint)
	run -1 grep -c "$full" "$TMP/f"
	assert_output 0
	# the history ends at the cutoff's hour and starts on an hour boundary
	run -0 jq -c 'select(.type == "observation_bundle") | .observation_snapshot | [.history_window_seconds.start, .history_window_seconds.end,
		(.hourly_max_hp_requested_gpus[-1].time_seconds), (.hourly_max_hp_requested_gpus | length)]' "$TMP/f"
	assert_output '[0,90000,90000,26]'
}

@test "forecast: leakage: the same prefix with other futures gives the same bytes; another trace id changes only its names" {
	python3 "$VARIANT" "$WARM" 90000 | stream-seal -o "$TMP/same.nd"
	python3 "$VARIANT" "$WARM" 90000 --trace-id other-future | stream-seal -o "$TMP/other.nd"
	# the variants really differ after the cutoff
	! cmp -s <(jq -c 'select(.type == "job")' "$WARM") <(jq -c 'select(.type == "job")' "$TMP/same.nd") || fail "variant equals the base"
	forecast -c "$CTRL" -t 90000 < "$WARM" > "$TMP/base"
	forecast -c "$CTRL" -t 90000 < "$TMP/same.nd" > "$TMP/same"
	forecast -c "$CTRL" -t 90000 < "$TMP/other.nd" > "$TMP/other"
	cmp "$TMP/base" "$TMP/same"
	run -0 python3 -c '
import json, sys
a, b = (json.loads(open(p).read().splitlines()[1]) for p in sys.argv[1:])
print(sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k)))' "$TMP/base" "$TMP/other"
	assert_output "['observation_bundle_fingerprint', 'observed_prefix_fingerprint', 'trace_id']"
}

@test "forecast: two runs are byte-identical; zstd and 1-31-byte chunked input change nothing" {
	forecast -c "$CTRL" -t 100000 "$WARM" > "$TMP/a"
	forecast -c "$CTRL" -t 100000 "$WARM" > "$TMP/b"
	cmp "$TMP/a" "$TMP/b"
	feed_chunked "$WARM" forecast -c "$CTRL" -t 100000 > "$TMP/c"
	zstd -q -c "$WARM" | forecast -c "$CTRL" -t 100000 -o "$TMP/d.zst"
	diff <(sans_header "$TMP/a") <(sans_header "$TMP/c")
	diff <(sans_header "$TMP/c") <(sans_header "$TMP/d.zst")
}
