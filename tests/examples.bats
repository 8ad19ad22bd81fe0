#!/usr/bin/env bats
# examples/: every directory's script runs from anywhere with nothing on PATH, writes only into
# the directory it is given and prints what examples/README.md says it prints.
# (examples/agents has its own suite: tests/agents-example.bats.)
load helper

# run_example NAME SCRIPT: run examples/NAME/SCRIPT OUT from a scratch directory, SchedNav off PATH.
run_example() {
	OUT="$BATS_TEST_TMPDIR/out"
	cd "$BATS_TEST_TMPDIR"
	run env PATH="${PATH#"$BIN:"}" SCHEDNAV_BIN="$BIN" sh "$ROOT/examples/$1/$2" "$OUT"
	assert_success
	# nothing written beside OUT
	[ "$(ls -A "$BATS_TEST_TMPDIR")" = out ] || fail "examples/$1 wrote beside OUT: $(ls -A "$BATS_TEST_TMPDIR")"
}

@test "examples/README.md names every example directory, and every one is in it" {
	local d
	for d in "$ROOT"/examples/*/; do
		d=$(basename "$d")
		grep -q "^| \[\`$d/\`\]" "$ROOT/examples/README.md" || fail "examples/README.md does not list $d/"
	done
	run grep -c '^| \[`' "$ROOT/examples/README.md"
	assert_success
	assert_output "$(find "$ROOT/examples" -mindepth 1 -maxdepth 1 -type d | wc -l)"
}

@test "examples/study: calibration selects, the lock holds, holdout passes" {
	run_example study run.sh
	assert_success
	assert_line "study tiny: 2 calibration + 2 holdout windows, 3 arms"
	assert_line "calibration: selected native-fifo"
	assert_line "evidence: holdout_passed"
	[ -f "$OUT/tiny/evidence.json" ] || fail "no evidence receipt"
	run jq -r .evidence_status "$OUT/tiny/evidence.json"
	assert_success
	assert_output holdout_passed
}

@test "examples/rolling-day: two arms of 12 decisions each, metrics and a report" {
	run_example rolling-day run.sh
	assert_success
	assert_line --regexp '^rule: \{"decision_count":12,"selected_action_sequence":\["rolling-fifo-open"(,"[a-z0-9-]+"){11}\]\}$'
	assert_line --regexp '^fixed: \{"decision_count":12,"selected_action_sequence":\["rolling-fifo-open"(,"rolling-fifo-open"){11}\]\}$'
	assert_line "report: $OUT/report.html"
	run grep -c '<svg' "$OUT/report.html"
	assert_success
}

@test "examples/rolling-rules: the rule-based decider leaves the safety action on days 38 and 39, not on day 40" {
	run_example rolling-rules run.sh
	assert_success
	assert_line --regexp '^day 38: 12 decisions, 3 away from rolling-fifo-open: rolling-fifo-open rolling-preemptive-open-d0000 '
	assert_line --regexp '^day 39: 12 decisions, 8 away from rolling-fifo-open: '
	assert_line "day 40: 12 decisions, 0 away from rolling-fifo-open: $(printf 'rolling-fifo-open %.0s' $(seq 11))rolling-fifo-open"
	# every reply came from the decider's rule, none was rejected for the safety action
	run sh -c "zstdcat '$OUT/day39.result.ndjson.zst' | jq -r 'select(.type == \"rolling_decision\") | .decider_reply.reason_code' | sort | uniq -c"
	assert_success
	assert_output "      4 spot-guard-v1:no-spot-running
      1 spot-guard-v1:spot-running-12-gpus
      7 spot-guard-v1:spot-running-8-gpus"
	run jq -r 'select(.type == "metrics") | .rolling_control.rejected_reply_count' "$OUT/day39.metrics.ndjson"
	assert_success
	assert_output 0
}

@test "examples/tenant-replay: the controller's 288 updates and its forecast quality" {
	run_example tenant-replay run.sh
	assert_success
	assert_line --regexp '^controller: \{"update_count":288,"trained_at_seconds":3110434,"wape":0\.[0-9]+,"coverage":0\.[0-9]+,"spot_quota_gpus_mean":[0-9.]+\}$'
	assert_line --regexp '^plain: \{"allocation_rate_mean":'
	assert_line --regexp '^tenant: \{"allocation_rate_mean":'
	assert_line "report: $OUT/report.html"
}

@test "examples/slurm-replay: the fixture's skipped rows, three policies tied, the failed soft constraint named, the approve commands" {
	run_example slurm-replay run.sh
	assert_success
	assert_line 'import: {"job_step":6,"requeued_earlier_record":2,"pending_at_end":2,"running_at_end":1,"cancelled_before_start":2,"never_started":1,"zero_run_time":1,"no_gpus":1,"node_without_gpus":1}'
	assert_line "  native-fifo: allocation-soft-target failed (soft): observed 55.92%, needs >= 80.00%"
	assert_line "decision: tie_requires_human_approval: native-fifo, native-preemptive-3600, native-preemptive-g3600-b09-loss-aware"
	assert_line --regexp "^  .*/approve --ranking .*/ranking.ndjson --action native-preemptive-3600 --by 'YOUR NAME' --reason 'WHY'\$"
	run env SCHEDNAV_BIN="$BIN" sh "$ROOT/examples/slurm-replay/run.sh" "$OUT" only-one-file
	assert_failure 2
	assert_output --partial "usage: sh examples/slurm-replay/run.sh OUTDIR [SACCT NODES]"
}
