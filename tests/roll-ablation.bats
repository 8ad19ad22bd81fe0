#!/usr/bin/env bats
# The rolling ablation study as a Make graph (pipelines/rolling.mk) on a small study:
# days 36-38 of the shipped v2026 profile's pool GPU-series-2 at half the load, the tenant
# controller as the inner predictor, the five arms (ordinary FIFO, the fixed
# tenant-predictive policy, the workload rule, the scripted exec: agent, the oracle), two
# repetitions each, evidence, gates and a closeout that waits for a person.
load helper

STUDY=tests/data/roll/tiny-ablation.json

setup_file() {
	W="$BATS_FILE_TMPDIR/work"
	cd "$ROOT"
	make -s rolling-ablation ROLLING_STUDY="$STUDY" ROLLING_WORK="$W" ROLLING_BIN="$BIN" PROGRESS=yes > "$BATS_FILE_TMPDIR/summary.out" \
		2> "$BATS_FILE_TMPDIR/progress.err"
}

setup() {
	W="$BATS_FILE_TMPDIR/work"
	E="$W/tiny-ablation/evidence.ndjson"
	cd "$ROOT"
}

@test "roll-ablation: --help matches the man page; a bad option exits 2" {
	assert_tool_invariants roll-ablation
}

@test "rolling ablation: one record per (window, arm), each from two identical repetitions, audited against the window's ordinary FIFO" {
	run -0 jq -s '[.[] | select(.type == "rolling_ablation_record")] | length' "$E"
	assert_output 15
	for w in day-036 day-037 day-038; do
		for a in ordinary-fifo fixed-tenant-predictive rolling-workload-rule rolling-exec-agent posthoc-catalog-oracle; do
			f1=$(stream-verify -p "$W/tiny-ablation/$w/$a/rep-1.result.ndjson.zst")
			f2=$(stream-verify -p "$W/tiny-ablation/$w/$a/rep-2.result.ndjson.zst")
			[ "$f1" = "$f2" ] || fail "$w/$a: repetitions differ"
			[ "$(cat "$W/tiny-ablation/$w/$a/result.fp")" = "$f1" ]
		done
	done
	fifo=$(jq -r 'select(.type == "rolling_ablation_record" and .arm_id == "ordinary-fifo" and .window_id == "day-037") | .metrics_fingerprint' "$E")
	run -0 jq -r 'select(.type == "rolling_ablation_record" and .window_id == "day-037") | .audited_against_metrics_fingerprint' "$E"
	for l in "${lines[@]}"; do [ "$l" = "$fifo" ] || fail "audited against $l, not the window's FIFO"; done
	run -0 jq -r 'select(.type == "rolling_ablation_record" and .arm_id == "posthoc-catalog-oracle") | [.deployable, .rolling.non_deployable] | @tsv' "$E"
	assert_line --index 0 "false	true"
	run -0 jq -r 'select(.type == "rolling_ablation_record" and .arm_id == "rolling-workload-rule") | .rolling.candidate_simulation_count' "$E"
	assert_line --index 0 72   # 12 decisions a day x 3 candidates x 2 scenarios
}

@test "roll-ablation: -i FILE equals the FILE operand inside a --window group (tests/cli.bats names this test)" {
	local d="$W/tiny-ablation" op=() in=() w f
	for w in day-036 day-037 day-038; do
		op+=(--window "$w" "$d/$w/audit.ndjson.zst")
		in+=(--window "$w" -i "$d/$w/audit.ndjson.zst")
		for f in "$d/$w"/*/metrics.ndjson.zst; do op+=("$f"); in+=(-i "$f"); done
	done
	roll-ablation --study "$STUDY" "${op[@]}" -o "$BATS_TEST_TMPDIR/op.nd"
	roll-ablation --study "$STUDY" "${in[@]}" -o "$BATS_TEST_TMPDIR/in.nd"
	cmp "$BATS_TEST_TMPDIR/op.nd" "$BATS_TEST_TMPDIR/in.nd"
	run roll-ablation --study "$STUDY" -i "$d/day-036/audit.ndjson.zst"
	assert_failure 2
	assert_line --index 0 "roll-ablation: a FILE before the first --window"
}

@test "rolling ablation: gates with their exact conditions, and a closeout that waits for a person" {
	run -0 jq -r 'select(.type == "rolling_ablation_summary") | [.agent_superiority_gate, .agent_vs_ordinary_gate, .analyst_causal_value_gate] | @tsv' "$E"
	assert_output "not_established	not_established	incomplete"
	run -0 jq -r 'select(.type == "rolling_closeout") | [.project_status, .outcome, .production_change_applied, .human_approval_required, .claim_supported] | @tsv' "$E"
	assert_output "completed	approval_pending	false	true	false"
	# the oracle is never eligible and never compared
	run -0 jq -r 'select(.type == "rolling_closeout") | .eligible_arm_ids | index("posthoc-catalog-oracle")' "$E"
	assert_output null
	run -0 jq -r 'select(.type == "rolling_ablation_summary") | .agent_pairwise_hierarchy | has("posthoc-catalog-oracle")' "$E"
	assert_output false
	grep -q "closeout: .*approval_pending production_change_applied=false" "$BATS_FILE_TMPDIR/summary.out"
}

@test "rolling ablation: the summary table prints its numbers with fixed decimals, never raw floats" {
	run -0 sed -n '2,6p' "$BATS_FILE_TMPDIR/summary.out"
	[ "${#lines[@]}" -eq 5 ] || fail "expected 5 arm rows: $output"
	local l
	for l in "${lines[@]}"; do
		# allocation 2 decimals and %, Spot p95 1 decimal, evictions per run 5 decimals
		[[ "$l" =~ ^[a-z-]+$'\t'[a-z]+$'\t'[0-9]+/[0-9]+$'\t'[0-9]+\.[0-9]{2}%$'\t'[0-9]+\.[0-9]$'\t'[0-9]+\.[0-9]{5}$'\t'[0-9]+$'\t' ]] ||
			fail "row not in the fixed format: $l"
	done
}

@test "rolling ablation: every record matches its schema; a second make does nothing" {
	assert_schema "$E"
	run make -q "$W/tiny-ablation/evidence.ndjson" ROLLING_STUDY="$STUDY" ROLLING_WORK="$W" ROLLING_BIN="$BIN"
	assert_success
}

@test "rolling ablation: a repetition that differs stops the study at the determinism gate" {
	cp -a "$W" "$BATS_TEST_TMPDIR/w"
	d="$BATS_TEST_TMPDIR/w/tiny-ablation/day-036/rolling-workload-rule"
	zstdcat "$d/rep-2.result.ndjson.zst" | grep -v '"type":"end"' | sed '2s/"queue_seconds":/"queue_seconds":1/' | stream-seal -o "$d/rep-2.result.ndjson.zst"
	rm -f "$d/result.fp"
	run make -s "$BATS_TEST_TMPDIR/w/tiny-ablation/evidence.ndjson" ROLLING_STUDY="$STUDY" ROLLING_WORK="$BATS_TEST_TMPDIR/w" ROLLING_BIN="$BIN"
	assert_failure 2
	assert_output --partial "determinism gate: window 'day-036' arm 'rolling-workload-rule'"
}

@test "rolling ablation: a config with an unknown key or a window inside the predictor's history is refused" {
	jq '.colour = "blue"' "$STUDY" > bad.json
	run jq -r -f pipelines/rolling-config.jq bad.json
	assert_failure 5
	assert_output --partial "unknown key 'colour'"
	jq '.minimum_history_hours = 900' "$STUDY" > early.json
	run jq -r -f pipelines/rolling-config.jq early.json
	assert_failure 5
	assert_output --partial "before minimum_history_hours"
	rm -f bad.json early.json
}

# Issue 19, defect 1, for the rolling study: every value is a file name or identifier of the
# documented characters, a checked number, or one shell-quoted word.
@test "rolling ablation: config values that could reach the shell are refused; a decider arrives as one intact word" {
	local T="$BATS_TEST_TMPDIR" edit
	for edit in \
		".decider_timeout_seconds = \"1;touch $T/pwned\"" \
		".history_seconds = \"0);touch $T/pwned;((0\"" \
		".slo = \"configs/slos/schednav-demo-slo-v1.json;touch $T/pwned\"" \
		".inner_controller = \"x\$(touch $T/pwned)\"" \
		".rolling_config = \"-x\"" \
		".gpu_model = \"A10 \`touch $T/pwned\`\"" \
		".arms[0].policy = \"configs/policies/native-fifo.json;touch $T/pwned\"" \
		".arms[2].candidates = [\"native-fifo;touch $T/pwned\"]" \
		".arms[3].decider = \"exec:x\\n\\ttouch $T/pwned\""; do
		jq "$edit" "$STUDY" > "$T/evil.json"
		run jq -r -f pipelines/rolling-config.jq "$T/evil.json"
		assert_failure 5
		assert_output --regexp "rolling study config: .*(must be|control character)"
	done
	# A decider with '$', '#' and quotes reaches roll as one word, expanded by neither make nor sh.
	local decider="exec:sh -c 'echo \$HOME' # \"q\" \$(touch $T/pwned)"
	jq --arg d "$decider" '.arms[3].decider = $d' "$STUDY" > "$T/quoted.json"
	run make -n --no-print-directory "$T/w/quoted/day-036/rolling-exec-agent/rep-1.result.ndjson.zst" \
		ROLLING_STUDY="$T/quoted.json" ROLLING_WORK="$T/w" ROLLING_BIN="$BIN"
	assert_success
	assert_output --partial "--decider 'exec:sh -c '\\''echo \$HOME'\\'' # \"q\" \$(touch $T/pwned)' --arm-id rolling-exec-agent"
	[ ! -e "$T/pwned" ]
}

# A key set to false is a value, never "not given" (jq's `A // DEFAULT` took the default for
# false): both the Make graph's reader and roll-ablation check it.
@test "rolling ablation: a false (or a wrong type) is a value that is checked, never a missing key that takes its default" {
	local T="$BATS_TEST_TMPDIR" edit want
	while IFS='|' read -r edit want; do
		jq "$edit" "$STUDY" > "$T/f.json"
		run jq -r -f pipelines/rolling-config.jq "$T/f.json"
		assert_failure 5
		assert_output --partial "rolling study config: $want"
	done <<'EDITS'
.history_seconds = false|'history_seconds' must be an integer in 0..1000000000
.decider_timeout_seconds = false|'decider_timeout_seconds' must be a number in (0, 86400]
.minimum_history_hours = false|'minimum_history_hours' must be a number in [0, 1000000]
.windows.day_seconds = false|windows needs integer first_day >= 0, count in 1..64, day_seconds >= 3600
.repetitions = false|'repetitions' must be an integer in 2..10
.slo = false|'slo' must be a file name
.rolling_config = false|'rolling_config' must be a file name
.trace.files = false|trace.files must be a list of file names
.trace = false|'trace' must be an object, not false
.arms[1].controller = "yes"|arm 'fixed-tenant-predictive': 'controller' must be true or false, not "yes"
EDITS
	# roll-ablation reads the same keys the same way, before any stream
	jq '.repetitions = false' "$STUDY" > "$T/r.json"
	run -1 roll-ablation --study "$T/r.json" --window day-036 /dev/null -o "$T/r.nd"
	assert_output "roll-ablation: $T/r.json: 'repetitions' must be an integer in 2..10, not false"
	jq '.arms[1].controller = false' "$STUDY" > "$T/c.json"
	run -1 roll-ablation --study "$T/c.json" --window day-036 /dev/null -o "$T/c.nd"
	assert_output "roll-ablation: 1 windows given, the study declares 3"
	jq '.arms[1].controller = "yes"' "$STUDY" > "$T/c.json"
	run -1 roll-ablation --study "$T/c.json" --window day-036 /dev/null -o "$T/c.nd"
	assert_output "roll-ablation: $T/c.json: arm 'fixed-tenant-predictive': 'controller' must be true or false, not \"yes\""
	[ ! -e "$T/r.nd" ] || fail "a partial r.nd"
	[ ! -e "$T/c.nd" ] || fail "a partial c.nd"
}

@test "rolling ablation: PROGRESS=yes prints simulations done/total, the last one all done" {
	n=$(find "$W/tiny-ablation" -name 'rep-*.result.ndjson.zst' | wc -l)
	run -0 grep '^rolling:tiny-ablation: simulations ' "$BATS_FILE_TMPDIR/progress.err"
	# at most one line per simulation (two that end together under -j share one), rising
	[ "${#lines[@]}" -ge 1 ] && [ "${#lines[@]}" -le "$n" ] || fail "expected at most $n progress lines: $output"
	assert_line --index $((${#lines[@]} - 1)) "rolling:tiny-ablation: simulations $n/$n (100%), all done"
	run -0 sh -c "grep '^rolling:tiny-ablation: simulations ' '$BATS_FILE_TMPDIR/progress.err' | sed 's|.*simulations \([0-9]*\)/.*|\1|' | sort -n -c -u"
}

@test "rolling ablation: a study config in the id's old spelling (rolling-ablation-study/v1) is read by the Make graph and by roll-ablation alike" {
	local T="$BATS_TEST_TMPDIR" d="$W/tiny-ablation" args=() w f
	sed 's|"schednav.rolling-ablation-study/1"|"schednav.rolling-ablation-study/v1"|' "$STUDY" > "$T/old.json"
	run -0 grep -c '"schednav.rolling-ablation-study/v1"' "$T/old.json"
	assert_output 1
	run jq -r -f pipelines/rolling-config.jq "$T/old.json"
	[ "$status" -eq 0 ]
	local old="$output"
	run -0 jq -r -f pipelines/rolling-config.jq "$STUDY"
	[ "$output" = "$old" ]
	for w in day-036 day-037 day-038; do
		args+=(--window "$w" "$d/$w/audit.ndjson.zst")
		for f in "$d/$w"/*/metrics.ndjson.zst; do args+=("$f"); done
	done
	run roll-ablation --study "$T/old.json" "${args[@]}" -o "$T/old.nd"
	[ "$status" -eq 0 ]
	roll-ablation --study "$STUDY" "${args[@]}" -o "$T/new.nd"
	cmp <(sans_header "$T/old.nd") <(sans_header "$T/new.nd")
	# another spelling is refused by both, naming the new id
	sed 's|"schednav.rolling-ablation-study/1"|"schednav.rolling-ablation-study/v2"|' "$STUDY" > "$T/v2.json"
	run jq -r -f pipelines/rolling-config.jq "$T/v2.json"
	assert_failure 5
	assert_output --partial "schema_version must be 'schednav.rolling-ablation-study/1'"
	run roll-ablation --study "$T/v2.json" "${args[@]}" -o "$T/v2.nd"
	assert_failure 1
	assert_output --partial "schema_version must be 'schednav.rolling-ablation-study/1'"
	assert_no_output "$T/v2.nd"
}
