#!/usr/bin/env bats
# plan-check: a valid rolling plan and adaptive selections, and a test or a case file
# (tests/cases/plan-check/) per rule of the spec's plan collection (agents.md): task meta, one
# stage hashing to its receipt, the Strategist equal to the decision, the Analyst mask, no
# reuse, roles, budget, reason, windows.

load helper
load plan_fixtures
load run_cases

# The error cases (tests/cases/plan-check/*.case) read one valid two-decision fixture: its
# task directory, its decision stream, and the same decisions for two evaluation windows.
setup_file() {
	export FX="$BATS_FILE_TMPDIR/fx"
	local T="$FX"
	mkdir -p "$T/tasks"
	two_decisions
	echo '{"type":"header","schema":"schednav.windows/1","tool":"test","version":"0.2.0","inputs":[],"params":{}}
{"type":"window","window_id":"day-0001"}
{"type":"window","window_id":"day-0002"}' | stream-seal -o "$T/windows.nd"
	jq -c 'if .observation_fingerprint == "'$OBS1'" then .window_id = "day-0001" else .window_id = "day-0002" end' "$T/decisions.lines" \
		| seal_decisions "$T/adaptive.nd"
}

setup() {
	T="$BATS_TEST_TMPDIR"
	mkdir -p "$T/tasks"
}

@test "plan-check: invariants (--help matches the man page, bad option exits 2)" {
	assert_tool_invariants plan-check
}

@test "plan-check: the error cases (tests/cases/plan-check/*.case)" {
	run_cases plan-check fx="$FX"
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
	# (none matching, another model, is tests/cases/plan-check/stage-model-differs.case)
	two_decisions
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

@test "plan-check: a masked Analyst stage equal to the mask passes" {
	# (an Analyst stage that is not the mask: tests/cases/plan-check/masked-analyst-carries-workload.case)
	two_decisions
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

@test "plan-check: a single_agent plan needs only the Strategist" {
	# (the refusals of missing roles, LLM call counts and wrong workers are case files)
	two_decisions
	local ss1
	ss1=$(sha256sum "$T/tasks/s1/stage-1.json" | cut -d' ' -f1)
	decision $OBS1 "$IDS1" hp-pressure-high 2 "$(receipt "Scheduling Strategist" s1 "$ss1")" | seal_decisions "$T/decisions.nd"
	run check single_agent -o "$T/single.nd"
	assert_success
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
	# (a missing receipt under --require-isolation: tests/cases/plan-check/isolation-required-missing.case)
	two_decisions
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
	# (the refusals, a window without or with two selections, one outside the evaluation
	# windows, a control character in its id, six candidates, are case files: adaptive-*.case)
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
