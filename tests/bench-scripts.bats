#!/usr/bin/env bats
# The committed scripts behind docs/headline-studies.md's per-class peak pressure and per-day
# counts (tests/bench/class-pressure.py, tests/bench/study-days.py), on the tiny study's trace
# (24 A100 GPUs, 7 hours): checked against an independent jq computation and against a
# hand-edited input.
load helper

setup() {
	cd "$ROOT"
	TR=tests/data/study/tiny.trace.ndjson.zst
	trace-scan --day-seconds 3600 --sample-seconds 600 --min-hp 20 --min-spot 20 --pressure-strata 1 --share-strata 1 \
		-i "$TR" -o "$BATS_TEST_TMPDIR/w.nd"
	IDS=window-0000,window-0001,window-0002,window-0003,window-0004,window-0005
}

# peak CLASS: each window's peak of the class's running GPUs (submit <= t < submit + duration,
# t every 600 s from the window's start) over the 24 GPUs, 6 decimals, one a line
peak() {
	zstdcat "$TR" | jq -rs --arg c "$1" '[.[] | select(.type == "job" and .class == $c)] as $j
		| range(0; 6) as $w | [range(0; 6) as $k | ($w * 3600 + $k * 600) as $t
		  | [$j[] | select(.submit <= $t and $t < .submit + .duration) | .gpus] | add // 0] | max / 24
		| . * 1e6 | round / 1e6'
}

@test "bench-scripts: class-pressure.py: combined peaks are trace-scan's, HP and Spot peaks an independent count's" {
	run -0 python3 tests/bench/class-pressure.py "$TR" "$BATS_TEST_TMPDIR/w.nd" "all=$IDS"
	local out=$output
	run -0 jq -r 'select(.type == "class_peak_pressure") | .combined' <<< "$(grep '^{' <<< "$out")"
	assert_output "$(jq -r 'select(.type == "window") | .peak_pressure' "$BATS_TEST_TMPDIR/w.nd")"
	run -0 jq -r 'select(.type == "class_peak_pressure") | .hp' <<< "$(grep '^{' <<< "$out")"
	assert_output "$(peak HP)"
	run -0 jq -r 'select(.type == "class_peak_pressure") | .spot' <<< "$(grep '^{' <<< "$out")"
	assert_output "$(peak Spot)"
	run -0 grep -c '^| all | 6 | ' <<< "$out"
}

@test "bench-scripts: class-pressure.py refuses a windows file whose peak is not the trace's" {
	jq -c 'if .type == "window" and .window_id == "window-0002" then .peak_pressure = 0.5 else . end' "$BATS_TEST_TMPDIR/w.nd" > "$BATS_TEST_TMPDIR/bad.nd"
	run -1 python3 tests/bench/class-pressure.py "$TR" "$BATS_TEST_TMPDIR/bad.nd" "all=$IDS"
	assert_output "class-pressure: window-0002: combined peak 0.958333 is not trace-scan's 0.5"
}

@test "bench-scripts: study-days.py counts a receipt's days; a receipt without the baseline arm is refused" {
	cat > "$BATS_TEST_TMPDIR/ev.json" <<'JSON'
{"windows": [
 {"window_id": "d1", "partition": "calibration", "baseline_action_id": "fifo", "policies": [
   {"action_id": "fifo", "allocation_rate_mean": 0.5, "spot_eviction_rate_per_run": 0, "hard_slo_passed": true, "failed_constraint_ids": []},
   {"action_id": "pre", "allocation_rate_mean": 0.5, "spot_eviction_rate_per_run": 0.1, "hard_slo_passed": true, "failed_constraint_ids": []}]},
 {"window_id": "d2", "partition": "evaluation", "baseline_action_id": "fifo", "policies": [
   {"action_id": "fifo", "allocation_rate_mean": 0.5, "spot_eviction_rate_per_run": 0, "hard_slo_passed": false, "failed_constraint_ids": ["hp-p95-queue-seconds"]},
   {"action_id": "pre", "allocation_rate_mean": 0.6, "spot_eviction_rate_per_run": 0, "hard_slo_passed": false, "failed_constraint_ids": ["hp-p95-queue-seconds"]}]}]}
JSON
	run -0 python3 tests/bench/study-days.py "$BATS_TEST_TMPDIR/ev.json"
	assert_line --index 2 '| calibration | 1 | 0 | 1 | 0 | 1 | 0 |'
	assert_line --index 3 '| evaluation | 1 | 1 | 0 | 1 | 0 | 1 |'
	run -1 python3 tests/bench/study-days.py "$BATS_TEST_TMPDIR/ev.json" native-fifo
	assert_output "study-days: $BATS_TEST_TMPDIR/ev.json: window d1 has no arm native-fifo"
}
