#!/usr/bin/env bats
# Studies as Make pipelines (pipelines/study.mk): calibration → selection-lock → holdout.
# One reference run of configs/studies/tiny.json is made in setup_file; each test works on
# a copy (cp -a keeps file times, so Make sees the copy exactly as the original).

load helper

STUDY=configs/studies/tiny.json

study_make() {   # study_make WORKDIR [make args...]
	local work=$1
	shift
	make -C "$ROOT" --no-print-directory STUDY=$STUDY STUDY_WORK="$work" STUDY_BIN="$BIN" "$@"
}

setup_file() {
	export REF="$BATS_FILE_TMPDIR/ref"
	make -C "$ROOT" --no-print-directory STUDY=$STUDY STUDY_WORK="$REF" STUDY_BIN="${SCHEDNAV_BIN:-$ROOT/bin}" PROGRESS=yes -j2 holdout >"$BATS_FILE_TMPDIR/ref.log" 2>&1 ||
		{ cat "$BATS_FILE_TMPDIR/ref.log" >&3; return 1; }
}

# Every stream under two study directories has the same fingerprint (headers name work
# paths). One stream-verify call per directory verifies and fingerprints all of them.
same_streams() {
	local files n
	files=$(cd "$2" && find tiny -name '*.ndjson' -o -name '*.ndjson.zst' | sort)
	n=$(echo "$files" | wc -l)
	[ "$n" -gt 40 ] || fail "only $n streams compared"
	(cd "$1" && stream-verify -p $files) > "$BATS_TEST_TMPDIR/fps.1" || fail "a stream of '$1' is missing or does not verify"
	(cd "$2" && stream-verify -p $files) > "$BATS_TEST_TMPDIR/fps.2"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/fps.2")" -eq "$n" ]
	diff <(paste -d' ' <(echo "$files") "$BATS_TEST_TMPDIR/fps.2") <(paste -d' ' <(echo "$files") "$BATS_TEST_TMPDIR/fps.1") ||
		fail "streams of '$1' differ from the reference"
	cmp "$1/tiny/evidence.json" "$2/tiny/evidence.json"
}

copy_ref() {
	cp -a "$REF" "$BATS_TEST_TMPDIR/w"
	W="$BATS_TEST_TMPDIR/w"
}

@test "study: the reference run wrote a complete evidence receipt without trace rows" {
	run jq -r '.evidence_status' "$REF/tiny/evidence.json"
	assert_success
	[[ "$output" =~ ^(no_calibration_eligible_arm|holdout_passed|holdout_tie_requires_human_approval|holdout_rejected)$ ]]
	run -0 jq -r '[.windows[].window_id] | join(" ")' "$REF/tiny/evidence.json"
	assert_output "window-0000 window-0001 window-0002 window-0003"
	# The chain: every fingerprint in the receipt is the fingerprint of the file it names.
	[ "$(jq -r .fingerprints.selection_lock "$REF/tiny/evidence.json")" = "$(stream-verify -p "$REF/tiny/selection-lock.ndjson")" ]
	[ "$(jq -r .fingerprints.calibration_summary "$REF/tiny/evidence.json")" = "$(stream-verify -p "$REF/tiny/calibration/summary.ndjson")" ]
	[ "$(jq -r .fingerprints.trace "$REF/tiny/evidence.json")" = "$(stream-verify -p "$ROOT/tests/data/study/tiny.trace.ndjson.zst")" ]
	run -0 jq -r '.windows[0].policies[0].result_fingerprint' "$REF/tiny/evidence.json"
	assert_output "$(cat "$REF/tiny/calibration/window-0000/native-fifo/result.fp")"
	run grep -q '"job_id"' "$REF/tiny/evidence.json"
	assert_failure 1
	# The lock was frozen before any holdout output and names what calibration selected.
	run -0 jq -c 'select(.type == "selection-lock") | [.holdout_output_count_at_freeze, .holdout_outputs_absent]' "$REF/tiny/selection-lock.ndjson"
	assert_output "[0,true]"
	[ "$(jq -c 'select(.type == "selection") | .selected_action_ids' "$REF/tiny/calibration/selection.ndjson")" = \
	  "$(jq -c 'select(.type == "selection-lock") | .selected_action_ids' "$REF/tiny/selection-lock.ndjson")" ]
	run -0 cat "$REF/tiny/summary.txt"
	assert_output --partial "evidence: "
}

@test "study: every stream of the reference run is schema-valid, headers and ends included" {
	local files
	files=$(find "$REF/tiny" \( -name '*.ndjson' -o -name '*.ndjson.zst' \) | sort)
	[ "$(echo "$files" | wc -l)" -gt 40 ]
	echo "$files" | grep -q 'selection-lock.ndjson$'
	echo "$files" | grep -q '/window.ndjson$'
	assert_schema $files
	# a receipt carries each arm's soft-target verdict from its audit (the demo SLO has one)
	run -0 sh -c "zstdcat -qf '$REF'/tiny/*/window-*/window.ndjson | jq -c 'select(.type == \"window_result\") | .policies[].allocation_soft_target_met' | sort -u"
	assert_output --regexp "^(true|false)"
	refute_output --partial null
}

@test "study: PROGRESS=yes prints simulations done/total after each simulation, rising, the last one all done" {
	run -0 grep '^study:tiny: simulations ' "$BATS_FILE_TMPDIR/ref.log"
	# one line per simulation at most (two that end together under -j share one), each count
	# above the one before, the last one 24/24
	[ "${#lines[@]}" -ge 2 ] && [ "${#lines[@]}" -le 24 ] || fail "${#lines[@]} progress lines"
	run -0 sh -c "grep '^study:tiny: simulations ' '$BATS_FILE_TMPDIR/ref.log' | sed 's|.*simulations \([0-9]*\)/24.*|\1|' | sort -n -c -u"
	run -0 grep '^study:tiny: simulations ' "$BATS_FILE_TMPDIR/ref.log"
	assert_line --index $((${#lines[@]} - 1)) "study:tiny: simulations 24/24 (100%), all done"
	assert_line --regexp '^study:tiny: simulations [0-9]+/24 \([0-9]+%\), ETA [0-9]+(s|m[0-9]{2}s)$'
	# off a terminal and without PROGRESS=yes nothing is printed
	run sh "$ROOT/pipelines/progress.sh" auto study:x 0 0 24 "$BATS_FILE_TMPDIR/ref" 'rep-*.result.ndjson.zst'
	assert_success
	assert_output ""
}

@test "study: progress lines of one make run never repeat and never go backwards; a new run starts again" {
	local d="$BATS_TEST_TMPDIR/p" i
	mkdir -p "$d/w1"
	for i in 1 2 3; do : > "$d/w1/rep-$i.result.ndjson.zst"; done
	run -0 sh "$ROOT/pipelines/progress.sh" yes study:x 100 0 10 "$d" 'rep-*.result.ndjson.zst'
	assert_output --regexp '^study:x: simulations 3/10 \(30%\)'
	# a second job that ended with the same count, or a slower one: nothing
	run -0 sh "$ROOT/pipelines/progress.sh" yes study:x 100 0 10 "$d" 'rep-*.result.ndjson.zst'
	assert_output ""
	: > "$d/w1/rep-4.result.ndjson.zst"
	run -0 sh "$ROOT/pipelines/progress.sh" yes study:x 100 0 10 "$d" 'rep-*.result.ndjson.zst'
	assert_output --regexp '^study:x: simulations 4/10 \(40%\)'
	# the next make run (another start) prints its first count again
	run -0 sh "$ROOT/pipelines/progress.sh" yes study:x 200 4 10 "$d" 'rep-*.result.ndjson.zst'
	assert_output "study:x: simulations 4/10 (40%)"
}

@test "study: a second make holdout does nothing (make -q is true)" {
	copy_ref
	run study_make "$W" -q holdout
	assert_success
	run study_make "$W" holdout
	assert_success
	assert_output --partial "Nothing to be done"
	run study_make "$W" study-verify
	assert_success
	assert_output --partial "every fingerprint"
}

@test "study: the lock refuses to be rewritten once holdout output exists" {
	copy_ref
	# A calibration change (another allocation tie band) would change the selection.
	jq '.ranking.allocation_tie_band = 0.5' "$ROOT/configs/slos/schednav-demo-slo-v1.json" > "$BATS_TEST_TMPDIR/slo.json"
	jq --arg slo "$BATS_TEST_TMPDIR/slo.json" '.slo = $slo' "$ROOT/$STUDY" > "$BATS_TEST_TMPDIR/tiny.json"
	run make -C "$ROOT" --no-print-directory STUDY="$BATS_TEST_TMPDIR/tiny.json" STUDY_WORK="$W" STUDY_BIN="$BIN" selection-lock
	assert_failure 2
	assert_output --partial "study-lock: refusing to rewrite lock"
	assert_output --partial "holdout outputs exist"
	# Directly: same inputs are accepted, a lock without holdout output may be created.
	cd "$W/tiny"
	design=$(for f in "$ROOT/$STUDY" "$ROOT/configs/slos/schednav-demo-slo-v1.json" "$ROOT"/configs/policies/native-fifo.json; do printf -- '--design %s ' "$f"; done)
	run study-lock $design --summary calibration/summary.ndjson --selection calibration/selection.ndjson --holdout-dir holdout -o selection-lock.ndjson
	assert_failure 1
	assert_output --partial "'design_fingerprint' would change"
	run study-lock $design --summary calibration/summary.ndjson --selection calibration/selection.ndjson --holdout-dir "$BATS_TEST_TMPDIR/none" -o "$BATS_TEST_TMPDIR/new-lock.ndjson"
	assert_success
	run study-lock $design --summary calibration/summary.ndjson --selection calibration/selection.ndjson --holdout-dir holdout -o "$BATS_TEST_TMPDIR/other-lock.ndjson"
	assert_failure 1
	assert_output --partial "refusing to create lock"
}

@test "study: holdout refuses a lock that does not match the calibration" {
	copy_ref
	# Forge a lock that selects another arm: valid stream, valid own fingerprint.
	lock="$W/tiny/selection-lock.ndjson"
	zstdcat -qf "$lock" | sed '$d' | jq -c 'if .type == "selection-lock" then .selected_action_ids = ["native-preemptive-3600"] | .selection_status = "selected" else . end' \
		> "$BATS_TEST_TMPDIR/forged"
	stream-seal -i "$BATS_TEST_TMPDIR/forged" -o "$lock"
	run study_make "$W" holdout
	assert_failure 2
	assert_output --partial "study-lock: "
	assert_output --regexp "own fingerprint does not verify|does not match the recomputed calibration"
	# A lock of another calibration summary is refused too.
	cp -a "$REF/tiny/selection-lock.ndjson" "$lock"
	touch "$lock"
	zstdcat -qf "$W/tiny/calibration/summary.ndjson" | sed '$d' | sed '2s/"window_count":2/"window_count":3/' > "$BATS_TEST_TMPDIR/sum"
	stream-seal -i "$BATS_TEST_TMPDIR/sum" -o "$W/tiny/calibration/summary.ndjson"
	touch -r "$REF/tiny/calibration/summary.ndjson" "$W/tiny/calibration/summary.ndjson"
	touch "$lock"
	run study_make "$W" holdout
	assert_failure 2
	# the edited record's own fingerprint fails first (study-lock verifies every record it
	# reads); a summary that verified would still not match the lock
	assert_output --regexp "summary\.ndjson:2: aggregate_action record: 'aggregate_fingerprint' does not verify|does not match the recomputed calibration: 'calibration_summary_fingerprint' differs"
}

@test "study: a tampered intermediate is rejected, never silently used" {
	copy_ref
	m="$W/tiny/holdout/window-0002/native-fifo/metrics.ndjson.zst"
	# An edited body: the end fingerprint no longer matches.
	zstdcat -qf "$m" | sed 's/"allocation_rate_mean":0\./"allocation_rate_mean":1./' | zstd -q -c > "$m.new"
	mv "$m.new" "$m"
	run study_make "$W" holdout
	assert_failure 2
	assert_output --partial "fingerprint mismatch"
	# A valid stream from elsewhere: a result of another window. With a new time the gate
	# sees it was not made from this window's slice; with the old time study-verify does.
	W2="$BATS_TEST_TMPDIR/w2"
	mkdir "$W2"
	cp -a "$REF/tiny" "$W2/tiny"
	r="$W2/tiny/holdout/window-0002/native-fifo/rep-1.result.ndjson.zst"
	cp "$W2/tiny/holdout/window-0003/native-fifo/rep-1.result.ndjson.zst" "$r"
	touch -r "$REF/tiny/holdout/window-0002/native-fifo/rep-1.result.ndjson.zst" "$r"
	run study_make "$W2" -q holdout
	assert_success
	run study_make "$W2" study-verify
	assert_failure 2
	assert_output --partial "was not made from"
	touch "$r"
	run study_make "$W2" holdout
	assert_failure 2
	assert_output --partial "stream-verify: '$r' was not made from"
}

@test "study: the nondeterministic test arm fails the determinism gate, naming it" {
	copy_ref
	# Both repetitions of one (window, arm) are simulated again through the test launcher,
	# which perturbs repetition 2 only; everything else is the reference's.
	arm="$W/tiny/calibration/window-0000/native-preemptive-3600"
	rm "$arm"/rep-*.result.ndjson.zst
	run env STUDY_TEST_PERTURB=native-preemptive-3600/rep-2 make -C "$ROOT" --no-print-directory STUDY=$STUDY \
		STUDY_WORK="$W" STUDY_BIN="$BIN" SIM_LAUNCHER="$ROOT/tests/study-perturb" calibration
	assert_failure 2
	assert_output --regexp "study: determinism gate: window 'window-0000' arm 'native-preemptive-3600': '[^']*rep-2.result.ndjson.zst' has result fingerprint [0-9a-f]{32} but '[^']*rep-1.result.ndjson.zst' has [0-9a-f]{32}"
	[ "$(grep -c '^\(sim-run\|.*study-perturb sim-run\) ' <<< "$output")" -eq 2 ] || fail "expected exactly the two repetitions to be simulated again"
	# Without the perturbation the same launcher is transparent.
	run make -C "$ROOT" --no-print-directory STUDY=$STUDY STUDY_WORK="$W" STUDY_BIN="$BIN" \
		SIM_LAUNCHER="$ROOT/tests/study-perturb" calibration
	assert_failure 2   # the perturbed file is still there: its newer twin must be rebuilt by hand
	assert_output --partial "determinism gate: window 'window-0000' arm 'native-preemptive-3600'"
	rm "$arm/rep-2.result.ndjson.zst"
	run make -C "$ROOT" --no-print-directory STUDY=$STUDY STUDY_WORK="$W" STUDY_BIN="$BIN" \
		SIM_LAUNCHER="$ROOT/tests/study-perturb" calibration
	assert_success
	cmp "$arm/result.fp" "$REF/tiny/calibration/window-0000/native-preemptive-3600/result.fp"
	[ "$(stream-verify -p "$W/tiny/calibration/selection.ndjson")" = "$(stream-verify -p "$REF/tiny/calibration/selection.ndjson")" ]
}

@test "study: kill -9 in the middle, then a re-run completes with identical outputs" {
	W="$BATS_TEST_TMPDIR/k"
	setsid make -C "$ROOT" --no-print-directory STUDY=$STUDY STUDY_WORK="$W" STUDY_BIN="$BIN" -j2 holdout >/dev/null 2>&1 &
	pid=$!
	# Wait until some simulations exist, then kill the whole process group.
	for _ in $(seq 200); do
		[ "$(find "$W" -name '*.result.ndjson.zst' 2>/dev/null | wc -l)" -ge 4 ] && break
		sleep 0.05
	done
	kill -9 -- -"$pid"
	wait "$pid" || true
	[ ! -f "$W/tiny/evidence.json" ]
	run study_make "$W" -j2 holdout
	assert_success
	same_streams "$W" "$REF"
	run study_make "$W" -q holdout
	assert_success
}

@test "study: simulations run through GNU parallel give identical outputs" {
	W="$BATS_TEST_TMPDIR/p"
	study_make "$W" calibration-slices
	study_make "$W" -n calibration | grep -E '^sim-run ' > "$BATS_TEST_TMPDIR/cal.jobs"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/cal.jobs")" -eq 12 ]
	(cd "$ROOT" && PATH="$BIN:$PATH" parallel -j2 --halt now,fail=1 < "$BATS_TEST_TMPDIR/cal.jobs")
	run -0 study_make "$W" -n calibration
	refute_output --partial "sim-run "
	study_make "$W" selection-lock holdout-slices
	study_make "$W" -n holdout | grep -E '^sim-run ' > "$BATS_TEST_TMPDIR/hold.jobs"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/hold.jobs")" -eq 12 ]
	(cd "$ROOT" && PATH="$BIN:$PATH" parallel -j2 --halt now,fail=1 < "$BATS_TEST_TMPDIR/hold.jobs")
	study_make "$W" holdout
	same_streams "$W" "$REF"
	# The launcher form: every simulation prefixed by a command (here a GNU parallel
	# semaphore), on the holdout of a copy of the reference's calibration and lock (sem
	# starts a Perl interpreter per simulation: the holdout's 12 show the path).
	W2="$BATS_TEST_TMPDIR/p2"
	mkdir "$W2"
	cp -a "$REF/tiny" "$W2/tiny"
	rm -r "$W2/tiny/holdout" "$W2/tiny/evidence.json" "$W2/tiny/summary.txt" "$W2/tiny/lock-verified"
	run study_make "$W2" -j2 SIM_LAUNCHER="sem --will-cite --fg --id study-bats-$$ -j2" holdout
	assert_success
	[ "$(grep -c '^sem --will-cite .* sim-run ' <<< "$output")" -eq 12 ]
	same_streams "$W2" "$REF"
}

# Every value of a study config that reaches a recipe or $(shell) is
# refused by the file-name / identifier rule or arrives as one intact argument (docs/hardening.md).
@test "study: no study config value reaches the shell: the probe's values are refused before any command runs" {
	local T="$BATS_TEST_TMPDIR" i=0 edit
	local ctl="configs/controllers/predictive-spot-v1.json"
	for edit in \
		".slo = \"configs/slos/schednav-demo-slo-v1.json;touch $T/pwned\"" \
		".slo = \"x\`touch $T/pwned\`\"" \
		".slo = \"x\$(touch $T/pwned)\"" \
		".windows.exclude = [\"w'; touch $T/pwned; '\"]" \
		".trace.stream = \"tests/data/study/tiny.trace.ndjson.zst;touch $T/pwned\"" \
		".arms[2] = {policy: \"native-preemptive-g3600-b09-loss-aware\", controller: \"$ctl;touch $T/pwned\"}" \
		".arms[2] = {policy: \"configs/policies;touch $T/pwned;/native-preemptive-g3600-b09-loss-aware.json\"}" \
		".adaptive = {agent_selections: \"x';touch $T/pwned;'\"} | .windows.rule = \"all-eligible\" | .split = {calibration_fraction: 0.5}" \
		".slo = \"--version\""; do
		i=$((i + 1))
		jq "$edit" "$ROOT/$STUDY" > "$T/evil$i.json"
		run make -C "$ROOT" --no-print-directory STUDY="$T/evil$i.json" STUDY_WORK="$T/w" STUDY_BIN="$BIN" calibration
		assert_failure 2
		assert_output --regexp "study config: .* must be (a file name|an identifier) of letters, digits"
		[ ! -e "$T/pwned" ] || fail "'$edit' ran a command"
		[ ! -e "$T/w/evil$i/config.mk" ]
	done
}

# Every number of a study config is checked for type and range before any command runs:
# repetitions of 10^6 or 10^18 exhausted memory in $(shell seq), a window of -1, 0 or 0.5
# failed later inside the tools (docs/hardening.md, "Study configs", the bounds).
@test "study: every number of a config is range-checked before any command runs (repetitions, windows, split, warm-up)" {
	local T="$BATS_TEST_TMPDIR" i=0 edit want
	while IFS='|' read -r edit want; do
		i=$((i + 1))
		jq "$edit" "$ROOT/$STUDY" > "$T/num$i.json"
		run make -C "$ROOT" --no-print-directory STUDY="$T/num$i.json" STUDY_WORK="$T/w" STUDY_BIN="$BIN" calibration
		assert_failure 2
		assert_output --partial "study config: $want"
		[ ! -e "$T/w/num$i/config.mk" ]
	done <<'EDITS'
.repetitions = 1000000|'repetitions' must be an integer in 2..100, not 1000000
.repetitions = 1e18|'repetitions' must be an integer in 2..100, not 1e+18
.repetitions = 2.5|'repetitions' must be an integer in 2..100, not 2.5
.windows.day_seconds = -1|windows.day_seconds must be an integer in 60..1000000000, not -1
.windows.day_seconds = 0|windows.day_seconds must be an integer in 60..1000000000, not 0
.windows.day_seconds = 0.5|windows.day_seconds must be an integer in 60..1000000000, not 0.5
.windows.sample_seconds = 0|windows.sample_seconds must be an integer in 1..1000000000, not 0
.windows.sample_seconds = 7|windows.day_seconds must be a multiple of windows.sample_seconds
.windows.min_hp = -1|windows.min_hp must be an integer in 0..1000000000, not -1
.windows.min_spot = 0.5|windows.min_spot must be an integer in 0..1000000000, not 0.5
.windows.pressure_strata = 0|windows.pressure_strata must be an integer in 1..100, not 0
.windows.share_strata = 1e9|windows.share_strata must be an integer in 1..100, not 1000000000
.windows.min_history_hours = -1|windows.min_history_hours must be a number in [0, 1000000], not -1
.split = {calibration_windows: 0, holdout_windows: 2}|split.calibration_windows must be an integer in 1..100000, not 0
.split = {calibration_windows: 2, holdout_windows: 0.5}|split.holdout_windows must be an integer in 1..100000, not 0.5
.warmup_seconds = -1|'warmup_seconds' must be a number in [0, 1000000000000], not -1
.warmup_seconds = 1e13|'warmup_seconds' must be a number in [0, 1000000000000], not 10000000000000
EDITS
	[ "$i" -eq 17 ]
}

# A key set to false is a value, never "not given": jq's `A // DEFAULT` took the default for
# false too, so repetitions, baseline, slo, windows.exclude and trace.files of false ran with
# their defaults, and a warmup_spot of "no" or 0 meant yes.
@test "study: a false (or a wrong type) is a value that is checked, never a missing key that takes its default" {
	local T="$BATS_TEST_TMPDIR" i=0 edit want
	while IFS='|' read -r edit want; do
		i=$((i + 1))
		jq "$edit" "$ROOT/$STUDY" > "$T/false$i.json"
		run make -C "$ROOT" --no-print-directory STUDY="$T/false$i.json" STUDY_WORK="$T/w" STUDY_BIN="$BIN" calibration
		assert_failure 2
		assert_output --partial "study config: $want"
		[ ! -e "$T/w/false$i/config.mk" ]
	done <<'EDITS'
.repetitions = false|'repetitions' must be an integer in 2..100, not false
.baseline = false|baseline 'false' is not an arm
.slo = false|'slo' must be a file name of letters, digits, '.', '_', '/', '+', '-' (no part starting with '-'), not false
.windows.exclude = false|windows.exclude must be a list of window ids
.trace.files = false|trace.files must be a list of file names
.trace.stream = false|trace.stream must be a file name of letters
.warmup_spot = "no"|'warmup_spot' must be true or false, not "no"
.warmup_spot = 0|'warmup_spot' must be true or false, not 0
.trace = false|'trace' must be an object, not false
.windows = []|'windows' must be an object, not []
EDITS
	[ "$i" -eq 10 ]
	# warmup_spot false is read as false, true and absent as true
	run -0 jq -r -f "$ROOT/pipelines/study-config.jq" <(jq '.warmup_spot = false' "$ROOT/$STUDY")
	assert_line "WARMUP_SPOT := no"
	run -0 jq -r -f "$ROOT/pipelines/study-config.jq" <(jq '.warmup_spot = true' "$ROOT/$STUDY")
	assert_line "WARMUP_SPOT := yes"
	run -0 jq -r -f "$ROOT/pipelines/study-config.jq" <(jq 'del(.warmup_spot)' "$ROOT/$STUDY")
	assert_line "WARMUP_SPOT := yes"
}

@test "study: a trace-synth argument with shell and make characters arrives as one intact argument" {
	local T="$BATS_TEST_TMPDIR"
	local arg="x;touch $T/pwned \`touch $T/pwned\` \$(touch $T/pwned) \$HOME 'q' \"d\" a\\#b # \\"
	jq --arg arg "$arg" '.trace = {synth: ["--profile", $arg]}' "$ROOT/$STUDY" > "$T/quoted.json"
	run make -C "$ROOT" --no-print-directory STUDY="$T/quoted.json" STUDY_WORK="$T/w" STUDY_BIN="$BIN" calibration
	assert_failure 2
	assert_output --partial "trace-synth: cannot open '$arg'"
	[ ! -e "$T/pwned" ]
}

@test "study: when every arm fails, summary.txt and the report name each arm's failed constraints and on how many windows" {
	local T="$BATS_TEST_TMPDIR"
	# the tiny study against an SLO whose HP p95 queue bound no arm can meet
	jq '.constraints |= map(if .id == "hp-p95-queue-seconds" then .threshold = 0 else . end)' \
		"$ROOT/configs/slos/schednav-demo-slo-v1.json" > "$T/strict-slo.json"
	jq --arg slo "$T/strict-slo.json" '.slo = $slo' "$ROOT/$STUDY" > "$T/allfail.json"
	run make -C "$ROOT" --no-print-directory STUDY="$T/allfail.json" STUDY_WORK="$T/w" STUDY_BIN="${SCHEDNAV_BIN:-$ROOT/bin}" PROGRESS=no -j2 study
	assert_success
	assert_line "no arm passed every hard SLO on every calibration window; the constraints each arm failed, in windows:"
	assert_line "  native-fifo"
	assert_line "    calibration: allocation-soft-target 1/2 (soft), hp-p95-queue-seconds 2/2 (hard)"
	assert_line "    holdout: allocation-soft-target 1/2 (soft), hp-p95-queue-seconds 2/2 (hard)"
	assert_line "  native-preemptive-3600"
	assert_line "evidence: no_calibration_eligible_arm"
	run -0 grep -c '^    calibration: .*hp-p95-queue-seconds 2/2 (hard)' "$T/w/allfail/summary.txt"
	assert_output 3
	# the report of its windows: the same counts over all four windows
	run report --title 'all arms fail' -o "$T/report.html" "$T"/w/allfail/calibration/*/window.ndjson "$T"/w/allfail/holdout/*/window.ndjson
	assert_success
	run -0 grep -c '<h3>SLO constraints not met</h3>' "$T/report.html"
	assert_output 1
	run -0 grep -F '<tr><th>native-fifo</th><td><code>allocation-soft-target</code> 2/4, <code>hp-p95-queue-seconds</code> 4/4</td></tr>' "$T/report.html"
}

@test "study: PLACEMENT=largest-free runs every arm on the physical node model; the config's placement_strategy does the same, and a bad one stops the study" {
	study_make "$BATS_TEST_TMPDIR/p" PLACEMENT=largest-free -j2 calibration > "$BATS_TEST_TMPDIR/p.log" 2>&1 || { cat "$BATS_TEST_TMPDIR/p.log"; false; }
	for arm in native-fifo native-preemptive-3600 native-preemptive-g3600-b09-loss-aware; do
		run -0 sh -c "zstdcat '$BATS_TEST_TMPDIR/p/tiny/calibration/window-0000/$arm/metrics.ndjson.zst' | jq -c 'select(.type==\"metrics\") | [.placement_strategy, (.placement.sample_count > 0)]'"
		assert_output '["largest-free",true]'
	done
	[ -s "$BATS_TEST_TMPDIR/p/tiny/calibration/selection.ndjson" ]
	jq '.placement_strategy = "best-fit" | .placement_seed = 3' "$ROOT/$STUDY" > "$BATS_TEST_TMPDIR/tiny.json"
	run -0 sh -c "jq -r -f '$ROOT/pipelines/study-config.jq' '$BATS_TEST_TMPDIR/tiny.json' | grep '^PLACEMENT'"
	assert_output 'PLACEMENT := best-fit
PLACEMENT_SEED := 3'
	jq '.placement_strategy = "tetris"' "$ROOT/$STUDY" > "$BATS_TEST_TMPDIR/bad.json"
	run -5 jq -r -f "$ROOT/pipelines/study-config.jq" "$BATS_TEST_TMPDIR/bad.json"
	assert_output --partial "study config: 'placement_strategy' must be deterministic_best_fit, largest-free"
}
