#!/usr/bin/env bats
# The adaptive holdout study end to end (pipelines/study.mk, `make adaptive`) on
# configs/studies/adaptive-tiny.json: 10 one-hour windows, 6 calibration + 4 evaluation, the
# five catalogue actions twice each, the scripted agent's selections in tests/adaptive/. One
# reference run is made in setup_file; tests that change things work on copies (cp -a keeps
# file times, so Make sees a copy exactly as the original).

load helper

STUDY=configs/studies/adaptive-tiny.json

study_make() {   # study_make WORKDIR [make args...]
	local work=$1
	shift
	make -C "$ROOT" --no-print-directory STUDY="${CONFIG:-$STUDY}" STUDY_WORK="$work" STUDY_BIN="$BIN" "$@"
}

setup_file() {
	export REF="$BATS_FILE_TMPDIR/ref"
	make -C "$ROOT" --no-print-directory STUDY=$STUDY STUDY_WORK="$REF" STUDY_BIN="${SCHEDNAV_BIN:-$ROOT/bin}" -j2 adaptive \
		>"$BATS_FILE_TMPDIR/ref.log" 2>&1 || { cat "$BATS_FILE_TMPDIR/ref.log" >&3; return 1; }
}

setup() {
	T="$BATS_TEST_TMPDIR"
	S="$REF/adaptive-tiny"
}

# config_with JQ: a copy of the study config edited by JQ (paths stay relative to the tree).
config_with() {
	mkdir -p "$T/cfg"
	jq "$1" "$ROOT/$STUDY" > "$T/cfg/adaptive-tiny.json"
	CONFIG="$T/cfg/adaptive-tiny.json"
}

@test "adaptive: the reference run writes the benchmark and a receipt without trace rows" {
	run -0 jq -r .evidence_status "$S/evidence.json"
	assert_output adaptive_evaluated
	[ "$(jq -c '[(.calibration.window_ids | length), (.evaluation.window_ids | length)]' "$S/evidence.json")" = '[6,4]' ]
	[ "$(jq -r '[.adaptive.benchmark[].controller_id] | join(" ")' "$S/evidence.json")" = "fifo best_static workload_rule agent catalog_oracle" ]
	[ "$(jq -c '.adaptive.benchmark | map(.candidate_evaluation_count)' "$S/evidence.json")" = '[4,4,12,17,20]' ]
	[ "$(jq -c '.adaptive.controllers | map([.controller_id, .model_id, .candidate_evaluations])' "$S/evidence.json")" = '[["workload-rule-v1",null,12],["scripted-agent-v1","scripted-v1",17]]' ]
	# the chain: each fingerprint is that of the file it names
	[ "$(jq -r .fingerprints.controllers "$S/evidence.json")" = "$(stream-verify -p "$S/controllers.ndjson")" ]
	[ "$(jq -r .fingerprints.adaptive_evaluation "$S/evidence.json")" = "$(stream-verify -p "$S/evaluation/adaptive.ndjson")" ]
	[ "$(jq -r .fingerprints.evaluation_summary "$S/evidence.json")" = "$(stream-verify -p "$S/evaluation/summary.ndjson")" ]
	[ "$(jq -r .fingerprints.adaptive_design "$S/evidence.json")" = "$(jq -r 'select(.type == "adaptive_design") | .design_fingerprint' "$S/controllers.ndjson")" ]
	# the benchmark in the receipt is the tool's, without its per-window lists
	[ "$(jq -c '.adaptive.benchmark' "$S/evidence.json")" = "$(jq -sc 'map(select(.type == "adaptive_controller") | del(.type, .windows))' "$S/evidence.json" "$S/evaluation/adaptive.ndjson")" ]
	run -1 grep -c '"job_id"\|"type":"job"' "$S/evidence.json"
	assert_output 0
	run -0 cat "$S/summary.txt"
	assert_output --partial "adaptive benchmark over the 4 evaluation windows"
	assert_output --regexp "workload_rule +12 +40%"
	assert_output --partial "evidence: adaptive_evaluated"
}

@test "adaptive: every stream is schema-valid; the best static arm was chosen by the best-static rule" {
	files=$(find "$S" \( -name '*.ndjson' -o -name '*.ndjson.zst' \) ! -name 'rep-*' | sort)
	echo "$files" | grep -q 'controllers.ndjson$'
	echo "$files" | grep -q 'evaluation/adaptive.ndjson$'
	assert_schema $files
	[ "$(jq -r 'select(.type == "selection") | .rule' "$S/calibration/selection.ndjson")" = calibration-best-static/v1 ]
	[ "$(jq -c 'select(.type == "selection") | .window_ids' "$S/calibration/selection.ndjson")" = \
	  "$(jq -c 'select(.type == "adaptive_design") | [.windows[] | select(.partition == "calibration") | .window_id]' "$S/controllers.ndjson")" ]
}

@test "adaptive: every simulation ran twice with one fingerprint; the design came before any of them" {
	[ "$(find "$S" -name 'rep-*.result.ndjson.zst' | wc -l)" -eq 100 ]
	for fp in $(find "$S" -name result.fp); do
		d=$(dirname "$fp")
		[ "$(stream-verify -p "$d/rep-1.result.ndjson.zst")" = "$(cat "$fp")" ]
		[ "$(stream-verify -p "$d/rep-2.result.ndjson.zst")" = "$(cat "$fp")" ]
	done
	[ "$(find "$S" -name result.fp | wc -l)" -eq 50 ]
	# the design and both controllers' selections are older than every simulation
	run -0 find "$S" -name 'rep-*.result.ndjson.zst' ! -newer "$S/controllers.ndjson"
	assert_output ""
	# the lock (calibration summary + best static) is older than every evaluation file
	[ -n "$(find "$S/evaluation" -type f)" ]
	run -0 find "$S/evaluation" -type f ! -newer "$S/selection-lock.ndjson"
	assert_output ""
	run -0 jq -c 'select(.type == "selection-lock") | [.holdout_output_count_at_freeze, .holdout_outputs_absent]' "$S/selection-lock.ndjson"
	assert_output "[0,true]"
	# the lock covers the controllers, by their stream fingerprint
	[ "$(cat "$S/controllers.fp")" = "$(stream-verify -p "$S/controllers.ndjson")" ]
	[ "$(jq -c --arg p "$S/controllers.fp" 'select(.type == "header") | .inputs | any(.path == $p)' "$S/selection-lock.ndjson")" = true ]
}

@test "adaptive: a re-run is a no-op and study-verify recomputes every gate, receipt and the benchmark" {
	cp -a "$REF" "$T/w"
	run study_make "$T/w" -q adaptive
	assert_success
	run study_make "$T/w" adaptive
	assert_success
	assert_output --partial "Nothing to be done"
	run study_make "$T/w" study-verify
	assert_success
	assert_output --partial "every fingerprint"
	# a benchmark edited and resealed is caught
	b="$T/w/adaptive-tiny/evaluation/adaptive.ndjson"
	sed '2s/"frontier_coverage_window_count":[0-9]*/"frontier_coverage_window_count":0/' "$b" | stream-seal -o "$b.new"
	mv "$b.new" "$b"
	touch -r "$S/evaluation/adaptive.ndjson" "$b"
	run study_make "$T/w" study-verify
	assert_failure 2   # make: a recipe failed
	assert_output --partial "adaptive.ndjson' does not match its design, selection and receipts"
}

@test "adaptive: invalid or missing agent selections stop the study before any simulation" {
	# the committed selections with one window dropped (and the stream resealed)
	jq -c 'if .type == "controller_selections" then .selections |= .[1:] else . end' "$ROOT/tests/adaptive/agent-selections.ndjson" |
		grep -v '"type":"end"' | stream-seal -o "$T/bad.nd"
	config_with ".adaptive.agent_selections = \"$T/bad.nd\""
	run study_make "$T/b" -j2 adaptive
	assert_failure 2   # make: a recipe failed
	assert_output --partial "adaptive-design: $T/bad.nd: controller 'scripted-agent-v1': 'selections_fingerprint' does not verify"
	[ -z "$(find "$T/b" -name 'rep-*' -o -name 'slice.*')" ] || fail "a slice or a simulation ran before the agent's selections were valid"
	config_with ".adaptive.agent_selections = \"$T/none.nd\""
	run study_make "$T/n" -j2 adaptive
	assert_failure 2   # make: a recipe failed
	assert_output --partial "study: no agent selections '$T/none.nd': make adaptive-design STUDY="
	[ -f "$T/n/adaptive-tiny/design.ndjson" ]
	[ -z "$(find "$T/n" -name 'rep-*' -o -name 'slice.*')" ]
	# make adaptive on a holdout study's config is misuse
	run make -C "$ROOT" --no-print-directory STUDY=configs/studies/tiny.json STUDY_WORK="$T/t" STUDY_BIN="$BIN" adaptive
	assert_failure 2
	assert_output --partial "needs a config with an \"adaptive\" section"
}

@test "adaptive: the controllers cannot change once evaluation output exists" {
	cp -a "$REF" "$T/w"
	# another valid agent file for the same design: the rule's sets plus native-preemptive-3600
	"$ROOT/tests/adaptive/scripted-agent" "$S/design.ndjson" "$T/other.nd" '[$rule + ["native-preemptive-3600"] | unique, "other"]' 
	! cmp -s <(sans_header "$T/other.nd") <(sans_header "$ROOT/tests/adaptive/agent-selections.ndjson") || fail "the edit changed nothing"
	config_with ".adaptive.agent_selections = \"$T/other.nd\""
	run study_make "$T/w" adaptive
	assert_failure 2   # make: a recipe failed
	assert_output --partial "study-lock: refusing to rewrite lock"
	assert_output --partial "holdout outputs exist"
	# without evaluation output the new selections are accepted (calibration is not simulated again)
	rm -r "$T/w/adaptive-tiny/evaluation" "$T/w/adaptive-tiny/evidence.json" "$T/w/adaptive-tiny/lock-verified"
	run study_make "$T/w" -j2 adaptive
	assert_success
	[ "$(grep -c '^sim-run .*/calibration/' <<< "$output")" -eq 0 ] || fail "calibration was simulated again"
	[ "$(grep -c '^sim-run .*/evaluation/' <<< "$output")" -eq 40 ]
	assert_output --partial "evidence: adaptive_evaluated"
}

@test "adaptive: no leakage: the same past with another future gives the same calibration, thresholds and best static" {
	# every job submitted after the last calibration window (window-0005 ends at 21599 s) runs half as long
	zstdcat -qf "$ROOT/tests/data/study/adaptive.trace.ndjson.zst" | sed '$d' |
		jq -c 'if .type == "job" and .submit >= 21600 then .duration = (.duration / 2 | floor | . + 0.0) else . end' |
		stream-seal -o "$T/future.trace.ndjson.zst"
	[ "$(stream-verify -p "$T/future.trace.ndjson.zst")" != "$(stream-verify -p "$ROOT/tests/data/study/adaptive.trace.ndjson.zst")" ]
	config_with ".trace.stream = \"$T/future.trace.ndjson.zst\" | .adaptive.agent_selections = \"$T/agent.nd\""
	study_make "$T/f" adaptive-design > /dev/null
	"$ROOT/tests/adaptive/scripted-agent" "$T/f/adaptive-tiny/design.ndjson" "$T/agent.nd"
	run study_make "$T/f" -j2 adaptive
	assert_success
	F="$T/f/adaptive-tiny"
	for f in calibration/summary.ndjson calibration/selection.ndjson; do
		[ "$(stream-verify -p "$F/$f")" = "$(stream-verify -p "$S/$f")" ] || fail "'$f' differs: the calibration saw the future"
	done
	q='select(.type == "adaptive_design") | [.workload_rule, [.windows[] | select(.partition == "calibration")], .split]'
	[ "$(jq -c "$q" "$F/controllers.ndjson")" = "$(jq -c "$q" "$S/controllers.ndjson")" ]
	# the evaluation days did change
	[ "$(stream-verify -p "$F/evaluation/summary.ndjson")" != "$(stream-verify -p "$S/evaluation/summary.ndjson")" ]
}

@test "adaptive: the committed agent selections of the full-scale study on the v3 trace fit its design" {
	# the design of configs/studies/adaptive-holdout-v3.json (trace-synth v3 + trace-scan of the
	# 184-day trace, without any simulation; the /3 config kept beside the /4 default)
	run make -C "$ROOT" --no-print-directory STUDY=configs/studies/adaptive-holdout-v3.json STUDY_WORK="$T/full" STUDY_BIN="$BIN" adaptive-design
	assert_success
	D="$T/full/adaptive-holdout-v3/design.ndjson"
	[ "$(jq -c 'select(.type == "adaptive_design") | [.split.calibration_window_count, .split.evaluation_window_count, .capacity_gpus]' "$D")" = '[64,44,976]' ]
	"$ROOT/tests/adaptive/scripted-agent" "$D" "$T/agent.nd"
	[ "$(sans_header "$T/agent.nd")" = "$(sans_header "$ROOT/configs/studies/adaptive-holdout-v3.agent.ndjson")" ] ||
		fail "configs/studies/adaptive-holdout-v3.agent.ndjson is stale: regenerate it with tests/adaptive/scripted-agent"
	adaptive-design --policy "$ROOT/configs/policies/native-fifo.json" --policy "$ROOT/configs/policies/native-preemptive-3600.json" \
		--policy "$ROOT/configs/policies/native-preemptive-g3600-b09-d0000.json" --policy "$ROOT/configs/policies/native-preemptive-g3600-b09-d0900.json" \
		--policy "$ROOT/configs/policies/native-preemptive-g3600-b09-loss-aware.json" \
		--agent "$ROOT/configs/studies/adaptive-holdout-v3.agent.ndjson" -o "$T/ctl.nd" "$T/full/adaptive-holdout-v3/windows.ndjson"
}

@test "adaptive: the committed agent selections of the full-scale study on the v2 trace fit its design" {
	run make -C "$ROOT" --no-print-directory STUDY=configs/studies/adaptive-holdout-v2.json STUDY_WORK="$T/full" STUDY_BIN="$BIN" adaptive-design
	assert_success
	D="$T/full/adaptive-holdout-v2/design.ndjson"
	[ "$(jq -c 'select(.type == "adaptive_design") | [.split.calibration_window_count, .split.evaluation_window_count, .capacity_gpus]' "$D")" = '[42,29,976]' ]
	"$ROOT/tests/adaptive/scripted-agent" "$D" "$T/agent.nd"
	[ "$(sans_header "$T/agent.nd")" = "$(sans_header "$ROOT/configs/studies/adaptive-holdout-v2.agent.ndjson")" ] ||
		fail "configs/studies/adaptive-holdout-v2.agent.ndjson is stale: regenerate it with tests/adaptive/scripted-agent"
}

@test "adaptive: killed midway, then resumed in another directory: the same streams and evidence" {
	K="$T/k"
	setsid make -C "$ROOT" --no-print-directory STUDY=$STUDY STUDY_WORK="$K" STUDY_BIN="$BIN" -j2 adaptive >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 400); do
		[ "$(find "$K" -name '*.result.ndjson.zst' 2>/dev/null | wc -l)" -ge 30 ] && break
		sleep 0.05
	done
	kill -9 -- -"$pid"
	wait "$pid" || true
	[ ! -f "$K/adaptive-tiny/evidence.json" ]
	run study_make "$K" -j2 adaptive
	assert_success
	files=$(cd "$S" && find . \( -name '*.ndjson' -o -name '*.ndjson.zst' \) | sort)
	[ "$(echo "$files" | wc -l)" -gt 100 ]
	(cd "$S" && stream-verify -p $files) > "$BATS_TEST_TMPDIR/fps.1"
	(cd "$K/adaptive-tiny" && stream-verify -p $files) > "$BATS_TEST_TMPDIR/fps.2"
	diff "$BATS_TEST_TMPDIR/fps.1" "$BATS_TEST_TMPDIR/fps.2"
	cmp "$S/evidence.json" "$K/adaptive-tiny/evidence.json"
	if cmp -s "$S/selection-lock.ndjson" "$K/adaptive-tiny/selection-lock.ndjson"; then fail "the lock's header should name its own paths"; fi
	[ "$(stream-verify -p "$S/selection-lock.ndjson")" = "$(stream-verify -p "$K/adaptive-tiny/selection-lock.ndjson")" ]
}

@test "adaptive: the committed agent selections of the full-scale study (the default, on the /4 trace) fit its design" {
	run make -C "$ROOT" --no-print-directory STUDY=configs/studies/adaptive-holdout.json STUDY_WORK="$T/full" STUDY_BIN="$BIN" adaptive-design
	assert_success
	D="$T/full/adaptive-holdout/design.ndjson"
	[ "$(jq -c 'select(.type == "adaptive_design") | [.split.calibration_window_count, .split.evaluation_window_count, .capacity_gpus]' "$D")" = '[79,54,976]' ]
	"$ROOT/tests/adaptive/scripted-agent" "$D" "$T/agent.nd"
	[ "$(sans_header "$T/agent.nd")" = "$(sans_header "$ROOT/configs/studies/adaptive-holdout.agent.ndjson")" ] ||
		fail "configs/studies/adaptive-holdout.agent.ndjson is stale: regenerate it with tests/adaptive/scripted-agent"
}
