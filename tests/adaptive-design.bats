#!/usr/bin/env bats
# adaptive-design: the frozen design of an adaptive holdout study (studies.md §4), from
# hand-made trace-scan streams (tests/adaptive_fixtures.bash) whose signals are chosen per test,
# and from the real scan of the small adaptive study trace. Expected numbers are computed
# here independently (python3: int(n*f), statistics.median).

load helper
load adaptive_fixtures
load run_cases

# The error cases (tests/cases/adaptive-design/*.case) read: an 8-window scan and its design
# (make_design), a 3-window scan, a stratified scan of the small adaptive study trace, and the
# scripted agent's selections for the design.
setup_file() {
	export FX="$BATS_FILE_TMPDIR/fx"
	mkdir -p "$FX"
	make_design "$FX"
	scan_stream "$FX/s3.nd" 0.5 0.1 0.6 0.2 0.7 0.3
	trace-scan --day-seconds 3600 --sample-seconds 600 --pressure-strata 1 --share-strata 1 \
		-i "$ROOT/tests/data/study/adaptive.trace.ndjson.zst" -o "$FX/strat.nd"
	agent_stream "$FX/one.nd" "$FX/design.nd"
}

setup() {
	T="$BATS_TEST_TMPDIR"
}

@test "adaptive-design: --help matches the man page, bad option exits 2, -V names the schemas" {
	assert_tool_invariants adaptive-design
	run adaptive-design -V
	assert_success
	assert_output --partial "writes: schednav.adaptive-design/1"
}

@test "adaptive-design: the error cases (tests/cases/adaptive-design/*.case): usage, too few windows, stratified scans, bad --exclude, the rule's catalogue, empty, truncated and edited input, agent selections" {
	run_cases adaptive-design fx="$FX"
}

@test "adaptive-design: the cut is int(f*n), chronological, calibration first" {
	for n in 4 5 7 10 112; do
		for f in 0.6 0.5 0.75 0.9; do
			args=()
			for i in $(seq "$n"); do args+=(0.5 0.2); done
			scan_stream "$T/s.nd" "${args[@]}"
			run adaptive-design $(catalogue_args) --calibration-fraction "$f" -o "$T/d.nd" "$T/s.nd"
			want=$(python3 -c "import sys; print(int($n * $f))")
			if [ "$want" -lt 1 ] || [ "$want" -ge "$n" ]; then
				assert_failure 1
				assert_output --partial "leaves a partition empty"
				continue
			fi
			assert_success
			[ "$(design_rec "$T/d.nd" '[.split.calibration_window_count, .split.evaluation_window_count]')" = "[$want,$((n - want))]" ] ||
				fail "n=$n f=$f: expected $want calibration windows"
			# the first $want windows (by start) are calibration, the rest evaluation
			[ "$(design_rec "$T/d.nd" '[.windows[] | .partition] | (.[:'"$want"'] | unique) + (.['"$want"':] | unique)')" = '["calibration","evaluation"]' ]
			[ "$(design_rec "$T/d.nd" '[.windows[].start] == ([.windows[].start] | sort)')" = true ]
		done
	done
	# the original's study: 112 eligible days → 67 calibration, 45 evaluation
	[ "$(python3 -c 'print(int(112 * 0.6))')" -eq 67 ]
}

@test "adaptive-design: --exclude leaves a window out of the design" {
	scan_stream "$T/s.nd" 0.5 0.1 0.6 0.2 0.7 0.3 0.8 0.4 0.9 0.5
	run adaptive-design $(catalogue_args) --exclude day-0001 -o "$T/d.nd" "$T/s.nd"
	assert_success
	[ "$(design_rec "$T/d.nd" '[.windows[].window_id] | join(" ")')" = '"day-0000 day-0002 day-0003 day-0004"' ]
	[ "$(design_rec "$T/d.nd" '.window_rule.excluded_window_ids')" = '["day-0001"]' ]
}

@test "adaptive-design: thresholds are the calibration medians of peak pressure and Spot share" {
	# odd calibration count (int(0.6*5) = 3): the middle value; evaluation values never count
	scan_stream "$T/s.nd" 0.9 0.3 0.2 0.1 0.5 0.7 9.0 0.9 9.0 0.9
	adaptive-design $(catalogue_args) -o "$T/d.nd" "$T/s.nd"
	[ "$(design_rec "$T/d.nd" '[.workload_rule.peak_pressure_threshold, .workload_rule.spot_share_threshold]')" = '[0.5,0.3]' ]
	# even calibration count (int(0.6*7) = 4): the mean of the two middle values, as Python's statistics.median
	scan_stream "$T/s.nd" 0.909836 0.165147 0.909837 0.165148 0.1 0.9 1.2 0.01 5 0.5 5 0.5 5 0.5
	adaptive-design $(catalogue_args) -o "$T/d.nd" "$T/s.nd"
	want=$(python3 -c 'import statistics as s; print(repr(s.median([0.909836, 0.909837, 0.1, 1.2])), repr(s.median([0.165147, 0.165148, 0.9, 0.01])))')
	got=$(grep -o '"peak_pressure_threshold":[^,]*,"spot_share_threshold":[^}]*' "$T/d.nd" | sed 's/"peak_pressure_threshold"://; s/,"spot_share_threshold":/ /')
	[ "$got" = "$want" ] || fail "thresholds $got, expected $want"
	# each window keeps its signals and gets warmup_start = max(0, start - S)
	[ "$(design_rec "$T/d.nd" '.windows[1] | [.start, .end, .warmup_start, .peak_pressure, .mean_pressure, .spot_share]')" = '[86400,172799,0,0.909837,0.909837,0.165148]' ]
	adaptive-design $(catalogue_args) --warmup-seconds 3600 --no-warmup-spot -o "$T/d2.nd" "$T/s.nd"
	[ "$(design_rec "$T/d2.nd" '[.windows[1].warmup_start, .carry_in]')" = '[82800,{"warmup_seconds":3600,"warmup_spot":false,"drain":"to_completion"}]' ]
}

@test "adaptive-design: workload-rule-v1 gives each quadrant its candidate set; at the threshold counts as high" {
	# calibration (int(0.6*8) = 4): peaks 0.4 0.5 0.6 0.7 → 0.55, shares 0.1 0.2 0.3 0.4 → 0.25
	# evaluation: both high, pressure only, share only, neither; then exactly at both thresholds
	scan_stream "$T/s.nd" 0.4 0.1 0.5 0.2 0.6 0.3 0.7 0.4  0.9 0.5 0.9 0.1 0.2 0.5 0.2 0.1
	adaptive-design $(catalogue_args) -o "$T/d.nd" "$T/s.nd"
	run -0 jq -r 'select(.type == "rule_selections") | .windows[] | "\(.window_id) \(.reason_code) \(.candidate_action_ids | join(","))"' "$T/d.nd"
	assert_output "day-0004 high-pressure-high-spot-share native-fifo,native-preemptive-g3600-b09-d0000,native-preemptive-g3600-b09-loss-aware
day-0005 high-pressure-lower-spot-share native-fifo,native-preemptive-3600,native-preemptive-g3600-b09-d0000
day-0006 lower-pressure-high-spot-share native-fifo,native-preemptive-g3600-b09-d0900,native-preemptive-g3600-b09-loss-aware
day-0007 lower-pressure-lower-spot-share native-fifo,native-preemptive-g3600-b09-d0000,native-preemptive-g3600-b09-d0900"
	scan_stream "$T/s.nd" 0.4 0.1 0.5 0.2 0.6 0.3 0.7 0.4  0.55 0.25 0.5499999 0.2499999 9 9 9 9
	adaptive-design $(catalogue_args) -o "$T/d.nd" "$T/s.nd"
	run -0 jq -r 'select(.type == "rule_selections") | .windows[:2][] | .reason_code' "$T/d.nd"
	assert_output "high-pressure-high-spot-share
lower-pressure-lower-spot-share"
	rule=$(jq -c 'select(.type == "rule_selections")' "$T/d.nd")
	[ "$(jq -c '[.controller_id, .selection_basis, .schema_version, .design_fingerprint == "'"$(design_rec "$T/d.nd" .design_fingerprint | tr -d '"')"'"]' <<< "$rule")" = '["workload-rule-v1","workload_only","schednav.rule-selections/1",true]' ]
	# (the rule needs the catalogue v3: tests/cases/adaptive-design/rule-needs-catalogue-v3.case)
}

@test "adaptive-design: the design is self-fingerprinted, deterministic and schema-valid; operand, -i and stdin agree" {
	trace-scan --all-eligible --day-seconds 3600 --sample-seconds 600 -i "$ROOT/tests/data/study/adaptive.trace.ndjson.zst" -o "$T/scan.nd"
	adaptive-design $(catalogue_args) -o "$T/a.nd" "$T/scan.nd"
	adaptive-design $(catalogue_args) -i "$T/scan.nd" -o "$T/b.nd.zst"
	adaptive-design $(catalogue_args) < "$T/scan.nd" > "$T/c.nd"
	cmp "$T/a.nd" <(zstdcat "$T/b.nd.zst")
	[ "$(sans_header "$T/a.nd")" = "$(sans_header "$T/c.nd")" ]
	assert_schema "$T/a.nd"
	[ "$(design_rec "$T/a.nd" '[.trace_fingerprint, .windows_fingerprint, .capacity_gpus, (.actions | length), .baseline_action_id]')" = \
	  "[\"$(stream-verify -p "$ROOT/tests/data/study/adaptive.trace.ndjson.zst")\",\"$(stream-verify -p "$T/scan.nd")\",24,5,\"native-fifo\"]" ]
	# the policy fingerprints are the ones metrics reports
	sim-run --policy "$ROOT/configs/policies/native-preemptive-3600.json" -i "$ROOT/tests/data/study/tiny.trace.ndjson.zst" -o "$T/r.nd"
	metrics -i "$T/r.nd" -o "$T/m.nd"
	[ "$(design_rec "$T/a.nd" '.actions[1].policy_fingerprint')" = "$(jq -c 'select(.type == "metrics") | .policy_fingerprint' "$T/m.nd")" ]
	# an edited design no longer verifies (adaptive-eval reads it through the same check)
	stream-verify "$T/a.nd"
}

@test "adaptive-design: the agent's plan-check selections are checked and kept; the scripted agent's file matches its design" {
	make_design "$T"
	agent_stream "$T/agent.nd" "$T/design.nd"
	[ "$(jq -r 'select(.type == "header") | .tool' "$T/agent.nd")" = plan-check ]
	adaptive-design $(design_args) --agent "$T/agent.nd" -o "$T/ctl.nd" "$T/scan.nd"
	[ "$(jq -r 'select(.type == "rule_selections" or .type == "controller_selections") | "\(.type) \(.controller_id)"' "$T/ctl.nd" | tr '\n' ' ')" = \
	  "rule_selections workload-rule-v1 controller_selections scripted-agent-v1 " ]
	# the agent's record is kept byte for byte; every selection observed this design
	[ "$(grep '"type":"controller_selections"' "$T/ctl.nd")" = "$(grep '"type":"controller_selections"' "$T/agent.nd")" ]
	[ "$(jq -c 'select(.type == "controller_selections") | [.selections[].observation_fingerprint] | unique' "$T/ctl.nd")" = \
	  "[$(design_rec "$T/design.nd" .design_fingerprint)]" ]
	# the design record is the same with or without the agent; the header names the agent's stream
	[ "$(design_rec "$T/ctl.nd" .)" = "$(design_rec "$T/design.nd" .)" ]
	[ "$(jq -c 'select(.type == "header") | .inputs[-1] | [.path, .schema, .fingerprint]' "$T/ctl.nd")" = \
	  "[\"$T/agent.nd\",\"schednav.agent-plan/1\",\"$(stream-verify -p "$T/agent.nd")\"]" ]
	assert_schema "$T/ctl.nd" "$T/agent.nd"
	# the committed scripted-agent file of configs/studies/adaptive-tiny.json is what the script writes for that design
	mkdir -p "$T/work"
	make -C "$ROOT" --no-print-directory STUDY=configs/studies/adaptive-tiny.json STUDY_WORK="$T/work" STUDY_BIN="$BIN" adaptive-design > /dev/null
	"$ROOT/tests/adaptive/scripted-agent" "$T/work/adaptive-tiny/design.ndjson" "$T/scripted.nd"
	[ "$(sans_header "$T/scripted.nd")" = "$(sans_header "$ROOT/tests/adaptive/agent-selections.ndjson")" ] ||
		fail "tests/adaptive/agent-selections.ndjson is stale: regenerate it with tests/adaptive/scripted-agent (docs/studies.md)"
}

@test "adaptive-design: agent selections for another design or in two records are refused before anything is written" {
	# each rule of the selections themselves (windows, 3-5 ids, FIFO, catalogue, reason, keys) has
	# its own check in tests/unit/test_adaptive.c: plan-check refuses those before a file exists
	make_design "$T"
	refuse() {   # refuse AGENT MESSAGE
		run adaptive-design $(design_args) --agent "$1" -o "$T/out.nd" "$T/scan.nd"
		assert_failure 1
		assert_output --partial "$2"
		[ ! -e "$T/out.nd" ] || fail "an output was written for '$1'"
	}
	# the same windows, another design (another carry-in): every selection observed that one
	adaptive-design $(design_args) --warmup-seconds 3600 -o "$T/other.nd" "$T/scan.nd"
	agent_stream "$T/for-other.nd" "$T/other.nd"
	refuse "$T/for-other.nd" "controller 'scripted-agent-v1': window 'day-0004': observed '$(design_rec "$T/other.nd" .design_fingerprint | tr -d '"')', not this design ('$(design_rec "$T/design.nd" .design_fingerprint | tr -d '"')')"
	# two records (edited, truncated, none and the rule's record are case files: agent-*.case)
	agent_stream "$T/one.nd" "$T/design.nd"
	{ sed '$d' "$T/one.nd"; sed -n 2p "$T/one.nd"; } | stream-seal -o "$T/two.nd"
	refuse "$T/two.nd" "adaptive-design: $T/two.nd:3: a second controller_selections record (one agent per file)"
}

@test "adaptive-design: chunked input gives the same design" {
	# (empty, truncated and edited input, a trace instead of a scan: tests/cases/adaptive-design/*.case)
	scan_stream "$T/s.nd" 0.5 0.1 0.6 0.2 0.7 0.3 0.8 0.4
	feed_chunked "$T/s.nd" adaptive-design $(catalogue_args) > "$T/chunked.nd"
	adaptive-design $(catalogue_args) "$T/s.nd" > "$T/whole.nd"
	[ "$(sans_header "$T/chunked.nd")" = "$(sans_header "$T/whole.nd")" ]
}
