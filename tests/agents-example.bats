#!/usr/bin/env bats
# examples/agents: the scripted Analyst and Strategist drive schednav-mcp from a trace window
# to an audited, ranked, approval_pending outcome; plan-check accepts their receipts.

load helper

@test "examples/agents: a scripted session ends audited, ranked and approval_pending" {
	local w="$BATS_TEST_TMPDIR/session"
	run env SCHEDNAV_BIN="$BIN" sh "$ROOT/examples/agents/session.sh" "$w"
	assert_success
	assert_output --partial "outcome: approval_pending"
	assert_output --regexp "decision: (selected|tie_requires_human_approval|no_eligible_policy): "
	local printed
	printed=$(printf '%s\n' "$output" | grep -m 1 "^  [^ ]*approve --ranking " || true)
	# the strategist's 3 candidates, the safety action first, all simulated and audited
	[ "$(jq -c '.candidate_action_ids | length, .[0]' "$w/agent-tasks/strategist-1/stage-1.json" | paste -sd' ')" = '3 "native-fifo"' ]
	[ "$(jq -r .outcome "$w/workspace/.schednav-mcp/audit.ndjson" | sort | uniq -c | awk '{print $1, $2}')" = "9 succeeded" ]
	[ "$(jq -r .operation "$w/workspace/.schednav-mcp/audit.ndjson" | paste -sd' ')" = \
	  "analyze_workload simulate_policy simulate_policy simulate_policy audit_slo audit_slo audit_slo compare_policies rank_policies" ]
	[ "$(jq -r '[.profile] | .[]' "$w/workspace/.schednav-mcp/audit.ndjson" | sort -u | paste -sd' ')" = "analyst auditor manager simulation" ]
	# the stage files validate, and plan-check turned them into verified selections
	python3 - "$ROOT/schemas/agent_stage_output.schema.json" "$w"/agent-tasks/*/stage-1.json <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for p in sys.argv[2:]:
    jsonschema.validate(json.load(open(p)), schema)
PY
	assert_schema "$w/selections.ndjson"
	[ "$(jq -c 'select(.type == "controller_selections") | [.verified_stage_receipt_count, .selections[0].candidate_action_ids]' "$w/selections.ndjson")" = \
	  "[2,$(jq -c .candidate_action_ids "$w/agent-tasks/strategist-1/stage-1.json")]" ]
	# nothing was approved: a person still can, with approve(1) and the printed ranking
	[ ! -e "$w/approvals.ndjson" ] || fail "an approval was recorded without a person"
	local ranking action
	ranking="$w/workspace/$(jq -r .result.ranking_ref "$w/ranking.json")"
	action=$(jq -r '.result.selected_action_ids[0] // empty' "$w/ranking.json")
	if [ -n "$action" ]; then
		# the command the session printed runs as printed (bin/approve of the build tree)
		[ -n "$printed" ] || fail "no approve command printed"
		eval "$printed"
		run approve --verify --log "$w/approvals.ndjson"
		assert_success
		assert_output --partial "1 approval, the chain verifies"
		[ "$(jq -r .action_id "$w/approvals.ndjson")" = "$action" ]
	fi
}
