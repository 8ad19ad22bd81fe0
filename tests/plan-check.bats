#!/usr/bin/env bats
# plan-check: a valid rolling plan and adaptive selections, and one test per rule of the spec's
# plan collection (agents.md): task meta, one stage hashing to its receipt, the Strategist
# equal to the decision, the Analyst mask, no reuse, roles, budget, reason, windows.

load helper
load plan_fixtures

setup() {
	T="$BATS_TEST_TMPDIR"
	mkdir -p "$T/tasks"
}

# redo: rewrite the decisions stream from edited lines
redo() { seal_decisions "$T/decisions.nd" < "$T/decisions.lines"; }

@test "plan-check: invariants (--help matches the man page, bad option exits 2)" {
	assert_tool_invariants plan-check
	run plan-check --rolling --mode solo --controller-id c --project p --tasks "$T" --action-space "$SPACE"
	assert_failure 2
	run plan-check --rolling --adaptive --mode single_agent --controller-id c --project p --tasks "$T" --action-space "$SPACE"
	assert_failure 2
	run plan-check --rolling --mode single_agent --project p --tasks "$T" --action-space "$SPACE"
	assert_failure 2
}

@test "plan-check: a valid multi_agent rolling plan" {
	two_decisions
	check multi_agent -o "$T/plan.nd"
	assert_schema "$T/plan.nd"
	run -0 jq -c 'select(.type == "rolling_agent_plan") | [.schema_version, .controller_id, .mode, .model_id, .source,
		(.decisions | length), .verified_stage_receipt_count, .source_anomalies, has("required_candidate_action_id")]' "$T/plan.nd"
	assert_output '["schednav.rolling-agent-plan/v1","ctl-1","multi_agent","scripted-v1",{"framework":"AgentTeams","project_id":"proj-1"},2,4,[],false]'
	# the same inputs give the same bytes
	check multi_agent -o "$T/again.nd"
	cmp <(sans_header "$T/plan.nd") <(sans_header "$T/again.nd")
}

@test "plan-check: empty and truncated decision streams fail with exit 1" {
	run plan-check "${ROLLING[@]}" --mode single_agent --tasks "$T/tasks" --action-space "$SPACE" < /dev/null
	assert_failure 1
	assert_output --partial "no agent_decision records"
	two_decisions
	head -n 2 "$T/decisions.nd" > "$T/cut.nd"
	run plan-check "${ROLLING[@]}" --mode multi_agent --tasks "$T/tasks" --action-space "$SPACE" "$T/cut.nd"
	assert_failure 1
	assert_output --regexp "cut.nd:[0-9]+: "
}

@test "plan-check: the task meta must match (project, worker, task id, status)" {
	two_decisions
	meta "$T/tasks" a1 workload-analyst proj-2
	run check multi_agent
	assert_failure 1
	assert_output "plan-check: task 'a1': meta.json does not match (project_id)"
	meta "$T/tasks" a1 scheduling-strategist
	run check multi_agent
	assert_failure 1
	assert_output "plan-check: task 'a1': meta.json does not match (assigned_to)"
	meta "$T/tasks" a1 workload-analyst proj-1 draft
	run check multi_agent
	assert_failure 1
	assert_output "plan-check: task 'a1': meta.json does not match (status)"
	meta "$T/tasks" a1 workload-analyst
	jq -c '.task_id = "other"' "$T/tasks/a1/meta.json" > "$T/m"
	mv "$T/m" "$T/tasks/a1/meta.json"
	run check multi_agent
	assert_failure 1
	assert_output "plan-check: task 'a1': meta.json does not match (task_id)"
}

@test "plan-check: exactly one stage output must match the receipt" {
	two_decisions
	run check multi_agent --model other-model
	assert_failure 1
	assert_output --partial "task 'a1': expected one stage output matching the receipt"
	assert_output --partial "found 0"
	cp "$T/tasks/a1/stage-1.json" "$T/tasks/a1/stage-2.json"
	run check multi_agent
	assert_failure 1
	assert_output --partial "found 2"
}

@test "plan-check: the stage's bytes must hash to its receipt" {
	two_decisions
	# same content, different bytes: one more space
	sed -i 's/"analysis":/"analysis": /' "$T/tasks/a2/stage-1.json"
	run check multi_agent
	assert_failure 1
	assert_output --regexp "a2/stage-1.json: the stage's SHA-256 [0-9a-f]{64} is not its receipt's [0-9a-f]{64}$"
}

@test "plan-check: the Strategist's ids and reason must equal the decision" {
	two_decisions
	sed -i '1s/"reason_code":"hp-pressure-high"/"reason_code":"something-else"/' "$T/decisions.lines"
	redo
	run check multi_agent
	assert_failure 1
	assert_output --partial "s1/stage-1.json: the Strategist's candidate_action_ids or reason_code differ from decision 1"
	two_decisions
	# the same set in another order is another decision
	sed -i '2s/"candidate_action_ids":\["native-fifo","native-preemptive-g3600-b09-d0000"/"candidate_action_ids":["native-preemptive-g3600-b09-d0000","native-fifo"/' "$T/decisions.lines"
	redo
	run check multi_agent
	assert_failure 1
	assert_output --partial "differ from decision 2"
}

@test "plan-check: a masked Analyst must equal the mask" {
	two_decisions
	run check multi_agent_masked
	assert_failure 1
	assert_output --partial "a1/stage-1.json: the masked Analyst stage carries workload information"
	local sa1 sa2 ss1 ss2
	sa1=$(analyst "$T/tasks" a1 $OBS1 "$MASK")
	sa2=$(analyst "$T/tasks" a2 $OBS2 "$MASK")
	ss1=$(sha256sum "$T/tasks/s1/stage-1.json" | cut -d' ' -f1)
	ss2=$(sha256sum "$T/tasks/s2/stage-1.json" | cut -d' ' -f1)
	{
		decision $OBS1 "$IDS1" hp-pressure-high 2 "$(receipt "Workload Analyst" a1 "$sa1")" "$(receipt "Scheduling Strategist" s1 "$ss1")"
		decision $OBS2 "$IDS2" spot-share-high 2 "$(receipt "Workload Analyst" a2 "$sa2")" "$(receipt "Scheduling Strategist" s2 "$ss2")"
	} | seal_decisions "$T/decisions.nd"
	run check multi_agent_masked -o "$T/plan.nd"
	assert_success
}

@test "plan-check: no stage may be reused" {
	two_decisions
	local sa1 ss1
	sa1=$(sha256sum "$T/tasks/a1/stage-1.json" | cut -d' ' -f1)
	ss1=$(sha256sum "$T/tasks/s1/stage-1.json" | cut -d' ' -f1)
	decision $OBS1 "$IDS1" hp-pressure-high 3 "$(receipt "Workload Analyst" a1 "$sa1")" "$(receipt "Workload Analyst" a1 "$sa1")" \
		"$(receipt "Scheduling Strategist" s1 "$ss1")" | seal_decisions "$T/decisions.nd"
	run check multi_agent
	assert_failure 1
	assert_output --partial "the stage of task 'a1' is reused (decision 1)"
}

@test "plan-check: each mode needs its roles, and an LLM call per role" {
	two_decisions
	local ss1
	ss1=$(sha256sum "$T/tasks/s1/stage-1.json" | cut -d' ' -f1)
	decision $OBS1 "$IDS1" hp-pressure-high 2 "$(receipt "Scheduling Strategist" s1 "$ss1")" | seal_decisions "$T/decisions.nd"
	run check multi_agent
	assert_failure 1
	assert_output "plan-check: $T/decisions.nd:2: decision 1: the multi_agent plan needs a Workload Analyst receipt"
	run check single_agent -o "$T/single.nd"
	assert_success
	decision $OBS1 "$IDS1" hp-pressure-high 0 "$(receipt "Scheduling Strategist" s1 "$ss1")" | seal_decisions "$T/decisions.nd"
	run check single_agent
	assert_failure 1
	assert_output --partial "llm_call_count must be an integer >= 1"
	two_decisions
	sed -i '1s/"llm_call_count":2/"llm_call_count":1/' "$T/decisions.lines"
	redo
	run check multi_agent
	assert_failure 1
	assert_output --partial "decision 1: llm_call_count must be an integer >= 2"
	# a receipt naming the wrong worker for its role
	two_decisions
	sed -i '1s/"worker_id":"workload-analyst"/"worker_id":"scheduling-strategist"/' "$T/decisions.lines"
	redo
	run check multi_agent
	assert_failure 1
	assert_output --partial "the Workload Analyst receipt names worker 'scheduling-strategist'"
}

@test "plan-check: a rolling decision takes exactly 3 declared, distinct candidates including the safety action" {
	two_decisions
	for ids in '["native-fifo","native-preemptive-3600"]' \
		'["native-fifo","native-preemptive-3600","native-preemptive-3600"]' \
		'["native-fifo","native-preemptive-3600","make-it-fast"]' \
		'["native-preemptive-3600","native-preemptive-g3600-b09-d0000","native-preemptive-g3600-b09-d0900"]'; do
		decision $OBS1 "$ids" r 2 '{}' | seal_decisions "$T/decisions.nd"
		run check multi_agent
		assert_failure 1
		assert_output --regexp "exactly 3|appears twice|not a declared action|must include the safety action 'native-fifo'"
	done
	decision $OBS1 '["native-fifo","native-preemptive-g3600-b09-d0000","native-preemptive-g3600-b09-d0900"]' r 2 '{}' | seal_decisions "$T/decisions.nd"
	run check multi_agent --required-action native-preemptive-3600
	assert_failure 1
	assert_output --partial "must include the safety action 'native-preemptive-3600'"
}

@test "plan-check: reason_code is one line of at most 256 bytes; observations are unique" {
	two_decisions
	decision $OBS1 "$IDS1" "$(printf 'two\nlines')" 2 '{}' | seal_decisions "$T/decisions.nd"
	run check multi_agent
	assert_failure 1
	assert_output --partial "reason_code must be one non-empty line of at most 256 bytes"
	decision $OBS1 "$IDS1" "$(head -c 257 /dev/zero | tr '\0' x)" 2 '{}' | seal_decisions "$T/decisions.nd"
	run check multi_agent
	assert_failure 1
	assert_output --partial "reason_code must be one non-empty line"
	two_decisions
	sed -n 1p "$T/decisions.lines" > "$T/dup"
	sed -n 1p "$T/decisions.lines" >> "$T/dup"
	seal_decisions "$T/decisions.nd" < "$T/dup"
	run check multi_agent
	assert_failure 1
	assert_output "plan-check: $T/decisions.nd:3: decision 2: observation '$OBS1' appears twice"
}

@test "plan-check: a meta.json ending in a literal \\n is read, listed in source_anomalies and never rewritten" {
	two_decisions
	printf '%s\\n' "$(cat "$T/tasks/s2/meta.json")" > "$T/tasks/s2/meta.json.new"
	mv "$T/tasks/s2/meta.json.new" "$T/tasks/s2/meta.json"
	cp "$T/tasks/s2/meta.json" "$T/meta.before"
	check multi_agent -o "$T/plan.nd"
	[ "$(jq -c 'select(.type == "rolling_agent_plan") | .source_anomalies' "$T/plan.nd")" = '["s2"]' ]
	cmp "$T/meta.before" "$T/tasks/s2/meta.json"
}

@test "plan-check: context isolation receipts (v2 fresh room) are verified when present and required on request" {
	two_decisions
	run check multi_agent --require-isolation
	assert_failure 1
	assert_output "plan-check: task 'a1': no context-isolation.json"
	isolation() {   # TASK WORKER OBS DISPATCHED
		python3 - "$T/tasks/$1/context-isolation.json" "$1" "$2" "$3" "$4" <<'PY'
import hashlib, json, sys
path, task, worker, obs, dispatched = sys.argv[1:]
r = {"schema_version": "schednav.agentteams-context-isolation/2", "project_id": "proj-1", "task_id": task,
     "worker_id": worker, "scope": "one-controller-one-observation", "observation_fingerprint": obs,
     "assignment_context_verified": True, "cross_window_context_visible": False,
     "worker_private_room_id": "room-" + task, "project_room_id": "room-project",
     "isolation_method": "fresh-private-room-single-assignment", "fresh_room_created_for_task": True,
     "assignment_context_evidence": "fresh-private-room-single-assignment",
     "fresh_room_verified_at": "2026-01-01T00:00:00Z", "assignment_dispatched_at": dispatched}
r["receipt_fingerprint"] = hashlib.sha256(json.dumps(r, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
json.dump(r, open(path, "w"))
PY
	}
	isolation a1 workload-analyst $OBS1 2026-01-01T00:00:05Z
	isolation s1 scheduling-strategist $OBS1 2026-01-01T00:00:05Z
	isolation a2 workload-analyst $OBS2 2026-01-01T00:00:05Z
	isolation s2 scheduling-strategist $OBS2 2026-01-01T00:00:05Z
	run check multi_agent --require-isolation -o "$T/plan.nd"
	assert_success
	isolation s2 scheduling-strategist $OBS2 2025-12-31T23:59:59Z
	run check multi_agent
	assert_failure 1
	assert_output "plan-check: task 's2': the assignment was dispatched before the room was verified"
	isolation s2 scheduling-strategist $OBS1 2026-01-01T00:00:05Z
	run check multi_agent
	assert_failure 1
	assert_output --partial "task 's2': context isolation is not verified"
	isolation s2 scheduling-strategist $OBS2 2026-01-01T00:00:05Z
	sed -i 's/"room-project"/"room-s2"/' "$T/tasks/s2/context-isolation.json"
	run check multi_agent
	assert_failure 1
	assert_output --partial "is not a verified v1/v2 receipt"
}

@test "plan-check: adaptive controller-selections cover every evaluation window exactly once" {
	two_decisions
	echo '{"type":"header","schema":"schednav.windows/1","tool":"test","version":"0.2.0","inputs":[],"params":{}}
{"type":"window","window_id":"day-0001"}
{"type":"window","window_id":"day-0002"}' | stream-seal -o "$T/windows.nd"
	jq -c 'if .observation_fingerprint == "'$OBS1'" then .window_id = "day-0001" else .window_id = "day-0002" end' "$T/decisions.lines" \
		| seal_decisions "$T/decisions.nd"
	local A=(--adaptive --mode multi_agent --controller-id agent-1 --project proj-1 --model scripted-v1 --tasks "$T/tasks" --action-space "$SPACE" --windows "$T/windows.nd")
	plan-check "${A[@]}" -o "$T/sel.nd" "$T/decisions.nd"
	assert_schema "$T/sel.nd"
	[ "$(jq -c 'select(.type == "controller_selections") | [.schema_version, .safety_action_id, [.selections[].window_id]]' "$T/sel.nd")" = \
	  '["schednav.controller-selections/v1","native-fifo",["day-0001","day-0002"]]' ]
	jq -c 'select(.window_id == "day-0001")' <(jq -c 'if .observation_fingerprint == "'$OBS1'" then .window_id = "day-0001" else .window_id = "day-0002" end' "$T/decisions.lines") \
		| seal_decisions "$T/one.nd"
	run plan-check "${A[@]}" "$T/one.nd"
	assert_failure 1
	assert_output "plan-check: evaluation window 'day-0002' has no selection"
	jq -c '.window_id = "day-0009"' <(sed -n 1p "$T/decisions.lines") | seal_decisions "$T/bad.nd"
	run plan-check "${A[@]}" "$T/bad.nd"
	assert_failure 1
	assert_output --partial "window 'day-0009' is not an evaluation window"
	jq -c '.window_id = "day-0001"' "$T/decisions.lines" | seal_decisions "$T/twice.nd"
	run plan-check "${A[@]}" "$T/twice.nd"
	assert_failure 1
	assert_output "plan-check: $T/twice.nd:3: decision 2: window 'day-0001' appears twice"
	# a window id follows the identifier rule (docs/hardening.md), named at its line
	jq -c '.window_id = "day-0001\u0007"' <(sed -n 1p "$T/decisions.lines") | seal_decisions "$T/ctl.nd"
	run plan-check "${A[@]}" "$T/ctl.nd"
	assert_failure 1
	assert_output "plan-check: $T/ctl.nd:2: decision 1: agent_decision record: 'window_id' 'day-0001\x07' contains a control character"
	jq -c '.window_id = "day-0001" | .candidate_action_ids = ["native-fifo","native-preemptive-3600","native-preemptive-g3600-b09-d0000","native-preemptive-g3600-b09-d0900","native-preemptive-g3600-b09-loss-aware","native-fifo"]' \
		<(sed -n 1p "$T/decisions.lines") | seal_decisions "$T/six.nd"
	run plan-check "${A[@]}" "$T/six.nd"
	assert_failure 1
	assert_output --partial "a selection takes 3 to 5 candidate action ids"
}

@test "plan-check: context isolation receipts in the id's old spelling (agentteams-context-isolation/v2) are verified too" {
	two_decisions
	isolation() {   # TASK WORKER OBS SCHEMA
		python3 - "$T/tasks/$1/context-isolation.json" "$1" "$2" "$3" "$4" <<'PY'
import hashlib, json, sys
path, task, worker, obs, schema = sys.argv[1:]
r = {"schema_version": schema, "project_id": "proj-1", "task_id": task,
     "worker_id": worker, "scope": "one-controller-one-observation", "observation_fingerprint": obs,
     "assignment_context_verified": True, "cross_window_context_visible": False,
     "worker_private_room_id": "room-" + task, "project_room_id": "room-project",
     "isolation_method": "fresh-private-room-single-assignment", "fresh_room_created_for_task": True,
     "assignment_context_evidence": "fresh-private-room-single-assignment",
     "fresh_room_verified_at": "2026-01-01T00:00:00Z", "assignment_dispatched_at": "2026-01-01T00:00:05Z"}
r["receipt_fingerprint"] = hashlib.sha256(json.dumps(r, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
json.dump(r, open(path, "w"))
PY
	}
	all() {
		isolation a1 workload-analyst $OBS1 "$1"
		isolation s1 scheduling-strategist $OBS1 "$1"
		isolation a2 workload-analyst $OBS2 "$1"
		isolation s2 scheduling-strategist $OBS2 "$1"
	}
	all schednav.agentteams-context-isolation/v2
	run check multi_agent --require-isolation -o "$T/old.nd"
	[ "$status" -eq 0 ]
	all schednav.agentteams-context-isolation/2
	run check multi_agent --require-isolation -o "$T/new.nd"
	[ "$status" -eq 0 ]
	cmp "$T/old.nd" "$T/new.nd"
	# another spelling is not a receipt
	isolation s2 scheduling-strategist $OBS2 schednav.agentteams-context-isolation/V2
	run check multi_agent --require-isolation -o "$T/bad.nd"
	[ "$status" -eq 1 ]
	assert_output "plan-check: task 's2': context-isolation.json is not a verified v1/v2 receipt"
	assert_no_output "$T/bad.nd"
}
