#!/usr/bin/env bats
# The predictive multi-window study in small (configs/studies/predictive-tiny.json): the
# full study's six arms and its rules (windows after 844 h of history, chronological
# calibration then holdout, two repetitions, the lock, the forecast quality table) on 43
# days of the synthetic v2026 trace at half load. The full study
# (configs/studies/predictive-multiwindow.json) runs outside `make check`.

load helper

STUDY=configs/studies/predictive-tiny.json
ARMS="native-fifo native-preemptive-g3600-b09-d0000 predictive-aggregate-g3600-b09-d0000 predictive-tenant-linear-g3600-b09-d0000 predictive-tenant-seasonal-g3600-b09-d0000 predictive-tenant-linear-bypass-g3600-b09-d0000"

setup_file() {
	export REF="$BATS_FILE_TMPDIR/ref"
	make -C "$ROOT" --no-print-directory STUDY=$STUDY STUDY_WORK="$REF" STUDY_BIN="${SCHEDNAV_BIN:-$ROOT/bin}" -j2 study >"$BATS_FILE_TMPDIR/ref.log" 2>&1 ||
		{ cat "$BATS_FILE_TMPDIR/ref.log" >&3; return 1; }
}

setup() {
	S="$REF/predictive-tiny"
}

@test "predictive study: make study writes the evidence: 2 + 2 chronological windows after 844 h, six arms, a lock" {
	run -0 jq -r '[.evidence_status, (.calibration.window_ids | join(" ")), (.holdout.window_ids | join(" ")), (.calibration.arms | map(.action_id) | join(" "))] | join("|")' "$S/evidence.json"
	assert_output --regexp "^(no_calibration_eligible_arm|holdout_passed|holdout_tie_requires_human_approval|holdout_rejected)\|day-0036 day-0037\|day-0038 day-0039\|$ARMS\$"
	# every window starts after the readiness gate: 844 h = 3,038,400 s
	run -0 jq -r '[.windows[] | .evaluation_start >= 3038400] | all' "$S/evidence.json"
	assert_output true
	# the lock was frozen before any holdout output, and the holdout ran against it
	run -0 jq -c 'select(.type == "selection-lock") | [.holdout_output_count_at_freeze, .holdout_outputs_absent]' "$S/selection-lock.ndjson"
	assert_output '[0,true]'
	[ "$(jq -r .fingerprints.selection_lock "$S/evidence.json")" = "$(stream-verify -p "$S/selection-lock.ndjson")" ]
	[ -e "$S/lock-verified" ]
	# no trace rows in the evidence
	run -1 grep -c '"job_id"' "$S/evidence.json"
	assert_output 0
}

@test "predictive study: every (window, arm) ran twice with identical result fingerprints" {
	local n=0 w a
	for w in "$S"/calibration/day-* "$S"/holdout/day-*; do
		for a in $ARMS; do
			[ "$(stream-verify -p "$w/$a/rep-1.result.ndjson.zst")" = "$(stream-verify -p "$w/$a/rep-2.result.ndjson.zst")" ] ||
				fail "$w/$a: the repetitions differ"
			[ "$(cat "$w/$a/result.fp")" = "$(stream-verify -p "$w/$a/rep-1.result.ndjson.zst")" ] || fail "$w/$a: result.fp"
			n=$((n + 1))
		done
	done
	[ "$n" -eq 24 ]
}

@test "predictive study: controller arms run their controller; receipts name it; the controller sees no future arrivals" {
	local w="$S/holdout/day-0038"
	run -0 zstdcat "$w/predictive-tenant-seasonal-g3600-b09-d0000/rep-1.result.ndjson.zst"
	assert_line --regexp '^\{"type":"control_report".*"estimator":"seasonal-conformal-v1"'
	run -0 sh -c "zstdcat '$w/predictive-aggregate-g3600-b09-d0000/rep-1.result.ndjson.zst' | grep -c '\"controller_id\":\"predictive-spot-v1\"'"
	[ "$output" -gt 0 ]
	run -0 jq -c 'select(.type == "window_result") | .policies[] | [.action_id, .controller_id, .future_arrivals_visible_to_controller]' "$w/window.ndjson"
	assert_line '["native-fifo",null,null]'
	assert_line '["predictive-aggregate-g3600-b09-d0000","predictive-spot-v1",false]'
	assert_line '["predictive-tenant-linear-g3600-b09-d0000","schednav-tenant-spot-linear-v2",false]'
	assert_line '["predictive-tenant-seasonal-g3600-b09-d0000","schednav-tenant-spot-seasonal-v2",false]'
	assert_line '["predictive-tenant-linear-bypass-g3600-b09-d0000","schednav-tenant-spot-linear-v2",false]'
	# the bypass arm's policy differs from the enforcing one only by its mode
	diff <(jq -S 'del(.action_id, .predictive_admission_mode)' "$ROOT/configs/studies/predictive-multiwindow/predictive-tenant-linear-g3600-b09-d0000.json") \
	     <(jq -S 'del(.action_id, .predictive_admission_mode)' "$ROOT/configs/studies/predictive-multiwindow/predictive-tenant-linear-bypass-g3600-b09-d0000.json")
	[ "$(jq -r .predictive_admission_mode "$ROOT/configs/studies/predictive-multiwindow/predictive-tenant-linear-bypass-g3600-b09-d0000.json")" = bypass ]
	assert_schema "$w/window.ndjson"
}

@test "predictive study: the forecast quality table has one row per controller arm, pooled over the holdout windows" {
	run -0 jq -c '.arms | map([.arm, .controller_id, .estimator, .windows, (.scored_points > 0)])' "$S/forecast-quality-holdout.json"
	assert_output '[["predictive-aggregate-g3600-b09-d0000","predictive-spot-v1","seasonal-gaussian-v1",2,true],["predictive-tenant-linear-bypass-g3600-b09-d0000","schednav-tenant-spot-linear-v2","tenant-quantile-linear-v1",2,true],["predictive-tenant-linear-g3600-b09-d0000","schednav-tenant-spot-linear-v2","tenant-quantile-linear-v1",2,true],["predictive-tenant-seasonal-g3600-b09-d0000","schednav-tenant-spot-seasonal-v2","seasonal-conformal-v1",2,true]]'
	# pooled exactly: the points add up, WAPE is the summed absolute error over the summed actual
	local arm=predictive-tenant-linear-g3600-b09-d0000
	local pooled
	pooled=$(for w in day-0038 day-0039; do zstdcat "$S/holdout/$w/$arm/metrics.ndjson.zst" | jq -c 'select(.type == "metrics") | .predictive_control.forecast_evaluation_sums'; done |
		jq -s '[(map(.scored_point_count) | add), ((map(.absolute_error_gpus) | add) / (map(.actual_gpus) | add) * 1e9 | round / 1e9)]' | jq -c .)
	run -0 jq -c --arg a $arm '.arms[] | select(.arm == $a) | [.scored_points, .wape]' "$S/forecast-quality-holdout.json"
	assert_output "$pooled"
	run -0 head -1 "$S/forecast-quality-holdout.md"
	assert_output '| arm | controller | estimator | windows | scored points | MAE (GPUs) | WAPE | mean error (GPUs) | P90 coverage | pinball |'
}

@test "predictive study: a second make study does nothing, and the lock is not rewritten" {
	run make -C "$ROOT" --no-print-directory -q STUDY=$STUDY STUDY_WORK="$REF" STUDY_BIN="$BIN" study
	assert_success
	run make -C "$ROOT" --no-print-directory STUDY=$STUDY STUDY_WORK="$REF" STUDY_BIN="$BIN" study-verify
	assert_success
}
