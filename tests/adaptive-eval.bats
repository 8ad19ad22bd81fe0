#!/usr/bin/env bats
# adaptive-eval: the adaptive holdout benchmark (studies.md §4) on small hand-made evaluation
# windows whose outcomes are chosen per window (tests/adaptive_fixtures.bash `receipt`), a design
# of eight windows (four calibration, then one per workload-rule quadrant) and a best-static
# selection made by the real tools. Differences of doubles are computed here by python3.

load helper
load adaptive_fixtures
load run_cases

# Actions in catalogue order: fifo, 3600, d0000, d0900, loss-aware. The rule's sets:
#   day-0004 (both high) fifo d0000 loss   day-0005 (pressure) fifo 3600 d0000
#   day-0006 (share) fifo d0900 loss       day-0007 (neither) fifo d0000 d0900
# and the test agent adds 3600 (or d0900 where the rule has 3600).
setup_file() {
	export FX="$BATS_FILE_TMPDIR"
	make_design "$FX"
	agent_stream "$FX/agent.nd" "$FX/design.nd" '[$rule + [if ($rule | index("native-preemptive-3600")) then "native-preemptive-g3600-b09-d0900" else "native-preemptive-3600" end], "test"]'
	adaptive-design $(design_args) --agent "$FX/agent.nd" -o "$FX/ctl.nd" "$FX/scan.nd"
	calibration_selection "$FX" "$FX/tie.nd"
	# FIFO's allocation raised in one calibration window: the others now fail allocation >= FIFO there
	calibration_selection "$FX" "$FX/fifo.nd" day-0000 native-fifo 's/"allocation_rate_mean":0\.25,/"allocation_rate_mean":0.3,/'
	# day-0004: the oracle frontier is {3600, d0000} (0.83 and 0.825 in the band, same p95 and
	#   evictions); the rule has only d0000 of them, FIFO passes lower (0.80)
	window_receipt "$FX/r4.nd" "$FX/design.nd" day-0004 "pass 0.80 100 0" "pass 0.83 100 0.01" "pass 0.825 100 0.01" "pass 0.70 100 0" "fail 0.95 100 0"
	# day-0005: nothing passes
	window_receipt "$FX/r5.nd" "$FX/design.nd" day-0005 "fail 0.9 1 0" "fail 0.9 1 0" "fail 0.9 null null" "fail 0.9 1 0" "fail 0.9 1 0"
	# day-0006: FIFO fails; d0900 (0.88) and loss-aware (0.885) pass, d0900 has the lower p95
	window_receipt "$FX/r6.nd" "$FX/design.nd" day-0006 "fail 0.9 10 0" "fail 0.95 10 0" "fail 0.95 10 0" "pass 0.88 50 0" "pass 0.885 60 0"
	# day-0007: FIFO and 3600 fail; d0000 and d0900 pass 5e-13 above FIFO's allocation, loss-aware 3e-12
	window_receipt "$FX/r7.nd" "$FX/design.nd" day-0007 "fail 0.9 10 0" "fail 0.9 10 0" "pass 0.9000000000005 10 0" "pass 0.9000000000005 10 0" "pass 0.900000000003 10 0"
	adaptive-eval --design "$FX/ctl.nd" --selection "$FX/fifo.nd" -o "$FX/eval.nd" "$FX"/r[4567].nd
}

setup() {
	T="$BATS_TEST_TMPDIR"
}

ctl() {   # ctl CONTROLLER JQ [FILE]: JQ on that controller's record
	jq -c --arg c "$1" "select(.type == \"adaptive_controller\" and .controller_id == \$c) | $2" "${3:-$FX/eval.nd}"
}

win() {   # win CONTROLLER WINDOW JQ [FILE]: JQ on that controller's entry for WINDOW
	ctl "$1" ".windows[] | select(.window_id == \"$2\") | $3" "${4:-$FX/eval.nd}"
}

py() { python3 -c "print(repr($1))"; }

@test "adaptive-eval: --help matches the man page, bad option exits 2, -V names the schemas" {
	assert_tool_invariants adaptive-eval
	run adaptive-eval -V
	assert_success
	assert_output --partial "writes: schednav.adaptive-evaluation/1"
	# no RECEIPT operand: the receipts come on stdin (an empty one: tests/cases/adaptive-eval/empty-stdin.case)
	cat "$FX"/r[4567].nd | adaptive-eval --design "$FX/ctl.nd" --selection "$FX/fifo.nd" > "$BATS_TEST_TMPDIR/stdin.nd"
	[ "$(sans_header "$BATS_TEST_TMPDIR/stdin.nd")" = "$(sans_header "$FX/eval.nd")" ]
}

@test "adaptive-eval: the error cases (tests/cases/adaptive-eval/*.case)" {
	run_cases adaptive-eval fx="$FX"
}

@test "adaptive-eval: five controllers in order, schema-valid, self-fingerprinted, deterministic" {
	[ "$(jq -r 'select(.type == "adaptive_controller") | .controller_id' "$FX/eval.nd" | tr '\n' ' ')" = "fifo best_static workload_rule agent catalog_oracle " ]
	assert_schema "$FX/eval.nd"
	adaptive-eval --design "$FX/ctl.nd" --selection "$FX/fifo.nd" -o "$T/again.nd.zst" "$FX"/r[4567].nd
	cmp "$FX/eval.nd" <(zstdcat "$T/again.nd.zst")
	# the receipts may come in one concatenated input, in any order
	cat "$FX/r7.nd" "$FX/r5.nd" "$FX/r4.nd" "$FX/r6.nd" > "$T/all.nd"
	adaptive-eval --design "$FX/ctl.nd" --selection "$FX/fifo.nd" -o "$T/cat.nd" "$T/all.nd"
	[ "$(sans_header "$T/cat.nd")" = "$(sans_header "$FX/eval.nd")" ]
	[ "$(jq -c 'select(.type == "header") | [.design_fingerprint, .params.allocation_tie_band, (.inputs | length)]' "$FX/eval.nd")" = \
	  "[$(design_rec "$FX/design.nd" .design_fingerprint),0.01,6]" ]
	[ "$(ctl agent '.source')" = "{\"kind\":\"controller_selections\",\"fingerprint\":$(jq -c 'select(.type == "controller_selections") | .selections_fingerprint' "$FX/ctl.nd"),\"controller_id\":\"scripted-agent-v1\",\"model_id\":\"scripted-v1\"}" ]
	[ "$(ctl workload_rule '.source | [.kind, .fingerprint]')" = "[\"rule_selections\",$(jq -c 'select(.type == "rule_selections") | .fingerprint' "$FX/ctl.nd")]" ]
}

@test "adaptive-eval: frontier and oracle frontier follow the hierarchy (band, Spot p95, evictions)" {
	[ "$(win catalog_oracle day-0004 '[.oracle_frontier_action_ids, .frontier_action_ids, .selection_status]')" = \
	  '[["native-preemptive-3600","native-preemptive-g3600-b09-d0000"],["native-preemptive-3600","native-preemptive-g3600-b09-d0000"],"tie_requires_human_approval"]' ]
	[ "$(win workload_rule day-0004 '[.candidate_action_ids, .hard_slo_passed_action_ids, .frontier_action_ids, .selection_status]')" = \
	  '[["native-fifo","native-preemptive-g3600-b09-d0000","native-preemptive-g3600-b09-loss-aware"],["native-fifo","native-preemptive-g3600-b09-d0000"],["native-preemptive-g3600-b09-d0000"],"selected"]' ]
	# the Spot p95 JCT stage: d0900 (50 s) beats loss-aware (60 s) inside the band
	[ "$(win catalog_oracle day-0006 .oracle_frontier_action_ids)" = '["native-preemptive-g3600-b09-d0900"]' ]
	# nothing passes: no frontier anywhere
	[ "$(win agent day-0005 '[.frontier_action_ids, .oracle_frontier_action_ids, .selection_status, .allocation_uplift_vs_fifo]')" = '[[],[],"no_eligible_policy",null]' ]
	# a wider band takes FIFO (0.80 vs 0.83) into the day-0004 frontier, then the eviction stage keeps only it
	adaptive-eval --design "$FX/ctl.nd" --selection "$FX/fifo.nd" --band 0.05 -o "$T/wide.nd" "$FX"/r[4567].nd
	[ "$(win catalog_oracle day-0004 .oracle_frontier_action_ids "$T/wide.nd")" = '["native-fifo"]' ]
}

@test "adaptive-eval: coverage is an intersection with the oracle frontier, exact match an equal set" {
	# day-0004: FIFO misses the oracle frontier; the rule covers it with d0000 only; the agent matches it
	[ "$(win fifo day-0004 '[.frontier_covered, .frontier_exact_match]')" = '[false,false]' ]
	[ "$(win workload_rule day-0004 '[.frontier_covered, .frontier_exact_match]')" = '[true,false]' ]
	[ "$(win agent day-0004 '[.frontier_covered, .frontier_exact_match]')" = '[true,true]' ]
	# day-0007: the rule's frontier {d0000, d0900} lies inside the oracle's {d0000, d0900, loss}: covered, not exact
	[ "$(win workload_rule day-0007 '[.frontier_action_ids, .oracle_frontier_action_ids, .frontier_covered, .frontier_exact_match]')" = \
	  '[["native-preemptive-g3600-b09-d0000","native-preemptive-g3600-b09-d0900"],["native-preemptive-g3600-b09-d0000","native-preemptive-g3600-b09-d0900","native-preemptive-g3600-b09-loss-aware"],true,false]' ]
	# two empty frontiers are neither covered nor exact
	[ "$(win catalog_oracle day-0005 '[.frontier_covered, .frontier_exact_match]')" = '[false,false]' ]
	# counts over the windows where the catalogue has a hard pass (4, 6, 7)
	run -0 jq -r 'select(.type == "adaptive_controller") | "\(.controller_id) \(.catalogue_feasible_window_count) \(.hard_slo_feasible_window_count) \(.frontier_coverage_window_count) \(.frontier_coverage_rate) \(.frontier_exact_match_window_count) \(.frontier_exact_match_rate)"' "$FX/eval.nd"
	assert_output "fifo 3 1 0 0 0 0
best_static 3 1 0 0 0 0
workload_rule 3 3 3 1 1 0.333333333
agent 3 3 3 1 2 0.666666667
catalog_oracle 3 3 3 1 3 1"
	[ "$(ctl workload_rule .selection_status_counts)" = '{"selected":2,"tie_requires_human_approval":1,"no_eligible_policy":1}' ]
}

@test "adaptive-eval: the uplift range is [min, max] of the frontier's allocation minus FIFO's, counted with eps 1e-12" {
	[ "$(win agent day-0004 .allocation_uplift_vs_fifo)" = "{\"lower_bound\":$(py '0.825 - 0.80'),\"upper_bound\":$(py '0.83 - 0.80')}" ]
	[ "$(win workload_rule day-0006 .allocation_uplift_vs_fifo)" = "{\"lower_bound\":$(py '0.88 - 0.9'),\"upper_bound\":$(py '0.88 - 0.9')}" ]
	[ "$(win catalog_oracle day-0007 .allocation_uplift_vs_fifo)" = "{\"lower_bound\":$(py '0.9000000000005 - 0.9'),\"upper_bound\":$(py '0.900000000003 - 0.9')}" ]
	# FIFO has no frontier where it fails: no uplift there
	[ "$(win fifo day-0006 .allocation_uplift_vs_fifo)" = null ]
	# the rule: +0.025 (positive), -0.02 (negative), +5e-13 (within eps: equal)
	[ "$(ctl workload_rule .allocation_uplift_vs_fifo)" = \
	  "{\"mean_lower_bound\":$(py 'round(((0.825 - 0.80) + (0.88 - 0.9) + (0.9000000000005 - 0.9)) / 3, 9)'),\"mean_upper_bound\":$(py 'round(((0.825 - 0.80) + (0.88 - 0.9) + (0.9000000000005 - 0.9)) / 3, 9)'),\"maximum_upper_bound\":$(py '0.825 - 0.80'),\"lower_bound_positive_window_count\":1,\"lower_bound_equal_window_count\":1,\"lower_bound_negative_window_count\":1}" ]
	[ "$(ctl fifo .allocation_uplift_vs_fifo)" = '{"mean_lower_bound":0,"mean_upper_bound":0,"maximum_upper_bound":0,"lower_bound_positive_window_count":0,"lower_bound_equal_window_count":1,"lower_bound_negative_window_count":0}' ]
	grep -q '"maximum_upper_bound":0.0,' "$FX/eval.nd"
}

@test "adaptive-eval: regret is the catalogue's best hard-pass allocation minus the candidates' best" {
	[ "$(win fifo day-0004 '[.candidate_best_hard_pass_allocation, .catalogue_best_hard_pass_allocation, .allocation_regret_vs_catalogue_best, .catalogue_best_allocation_covered]')" = \
	  "[0.8,0.83,$(py '0.83 - 0.80'),false]" ]
	[ "$(win workload_rule day-0004 .allocation_regret_vs_catalogue_best)" = "$(py '0.83 - 0.825')" ]
	[ "$(win workload_rule day-0006 '[.allocation_regret_vs_catalogue_best, .catalogue_best_allocation_covered]')" = '[0,true]' ]
	# 2.5e-12 is more than eps: not covered
	[ "$(win workload_rule day-0007 '[.allocation_regret_vs_catalogue_best, .catalogue_best_allocation_covered]')" = "[$(py '0.900000000003 - 0.9000000000005'),false]" ]
	# no candidate passes (FIFO on day-0006) or nothing passes (day-0005): no regret, not averaged
	[ "$(win fifo day-0006 '[.candidate_best_hard_pass_allocation, .allocation_regret_vs_catalogue_best]')" = '[null,null]' ]
	[ "$(win agent day-0005 '[.catalogue_best_hard_pass_allocation, .allocation_regret_vs_catalogue_best]')" = '[null,null]' ]
	r="[$(py '0.83 - 0.825'), 0.0, $(py '0.900000000003 - 0.9000000000005')]"
	[ "$(ctl workload_rule '[.allocation_regret_vs_catalogue_best, .catalogue_best_allocation_covered_window_count]')" = \
	  "[{\"mean\":$(py "round(sum($r) / 3, 9)"),\"max\":$(py "max($r)"),\"p95\":$(py "round(sorted($r)[1] + (sorted($r)[2] - sorted($r)[1]) * 0.9, 9)")},1]" ]
	[ "$(ctl catalog_oracle '[.allocation_regret_vs_catalogue_best, .catalogue_best_allocation_covered_window_count]')" = '[{"mean":0,"max":0,"p95":0},3]' ]
}

@test "adaptive-eval: evaluations and their reduction against windows x catalogue" {
	run -0 jq -r 'select(.type == "adaptive_controller") | "\(.controller_id) \(.candidate_evaluation_count) \(.evaluation_reduction_vs_catalogue) \(.candidate_count_per_window | [.mean, .min, .max] | join(" "))"' "$FX/eval.nd"
	assert_output "fifo 4 0.8 1 1 1
best_static 4 0.8 1 1 1
workload_rule 12 0.4 3 3 3
agent 16 0.2 4 4 4
catalog_oracle 20 0 5 5 5"
}

@test "adaptive-eval: the best static arm is evaluated when selected; a tie is recorded, not evaluated" {
	[ "$(jq -c 'select(.type == "selection") | [.selection_status, .selected_action_ids]' "$FX/fifo.nd")" = '["selected",["native-fifo"]]' ]
	[ "$(ctl best_static '[.status, .source.kind, .source.fingerprint]')" = "[\"evaluated\",\"calibration_selection\",$(jq -c 'select(.type == "selection") | .fingerprint' "$FX/fifo.nd")]" ]
	[ "$(ctl best_static 'del(.controller_id, .source, .fingerprint)')" = "$(ctl fifo 'del(.controller_id, .source, .fingerprint)')" ]
	adaptive-eval --design "$FX/ctl.nd" --selection "$FX/tie.nd" -o "$T/tie.nd" "$FX"/r[4567].nd
	[ "$(jq -r 'select(.type == "selection") | .selection_status' "$FX/tie.nd")" = tie_requires_human_approval ]
	[ "$(ctl best_static '[.status, .candidate_evaluation_count, .frontier_coverage_window_count, .windows]' "$T/tie.nd")" = '["tie_requires_human_approval",null,null,[]]' ]
	assert_schema "$T/tie.nd"
	# the other controllers do not depend on it
	[ "$(ctl agent . "$T/tie.nd")" = "$(ctl agent .)" ]
}

@test "adaptive-eval: inputs that do not belong together are refused" {
	refuse() {   # refuse MESSAGE ARGS...
		local msg=$1
		shift
		run adaptive-eval -o "$T/out.nd" "$@"
		assert_failure 1
		assert_output --partial "$msg"
		[ ! -e "$T/out.nd" ]
	}
	# (a missing or second receipt, a receipt of another policy, baseline or window, an edited
	# design, rule or agent selections, a design without --agent, an edited selection:
	# tests/cases/adaptive-eval/*.case; the refusals here need receipts or selections made anew)
	window_receipt "$T/cal.nd" "$FX/design.nd" day-0001 "pass 1 1 0" "pass 1 1 0" "pass 1 1 0" "pass 1 1 0" "pass 1 1 0"
	refuse "window 'day-0001' (partition 'calibration') is not an evaluation window of the design" --design "$FX/ctl.nd" --selection "$FX/fifo.nd" "$FX"/r[4567].nd "$T/cal.nd"
	# a hard pass with a null ranking metric cannot be ranked
	window_receipt "$T/r6n.nd" "$FX/design.nd" day-0006 "fail 0.9 10 0" "fail 0.95 10 0" "fail 0.95 10 0" "pass 0.88 null 0" "pass 0.885 60 0"
	refuse "action 'native-preemptive-g3600-b09-d0900' passes the hard SLOs but its 'spot_jct_p95_seconds' is null" --design "$FX/ctl.nd" --selection "$FX/fifo.nd" "$FX"/r[457].nd "$T/r6n.nd"
	sel() {   # sel OUT PREFIX ARGS...: study-select over the cached calibration windows, ids PREFIXday-000N
		local out=$1 prefix=$2 w a
		shift 2
		study-select "$@" $(for w in day-0000 day-0001 day-0002 day-0003; do printf -- '--window %s ' "$prefix$w"
			for a in $ACTIONS; do printf '%s ' "$FX/cal/$w/$a.metrics.nd"; done; printf '%s ' "$FX/cal/$w/audit.nd"; done) -o "$out"
	}
	sel "$T/sel-x.nd" x --rule best-static
	refuse "the selection was not made on the design's calibration windows (in order)" --design "$FX/ctl.nd" --selection "$T/sel-x.nd" "$FX"/r[4567].nd
	sel "$T/sel-a.nd" ""
	refuse "the selection's rule is 'calibration-all-windows-hard-pass/v1', not 'calibration-best-static/v1'" --design "$FX/ctl.nd" --selection "$T/sel-a.nd" "$FX"/r[4567].nd
}

@test "adaptive-eval: a receipt fed 1-31 bytes at a time on stdin gives the same evaluation" {
	# (empty input, a truncated or edited stream: tests/cases/adaptive-eval/*.case)
	feed_chunked "$FX/r4.nd" adaptive-eval --design "$FX/ctl.nd" --selection "$FX/fifo.nd" - "$FX"/r[567].nd > "$T/chunked.nd"
	[ "$(sans_header "$T/chunked.nd")" = "$(sans_header "$FX/eval.nd")" ]
}
