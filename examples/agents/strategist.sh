#!/bin/sh
# strategist.sh ANALYST_STAGE TASK_DIR TASK_ID PROJECT ACTION_SPACE — a scripted Scheduling
# Strategist: from the Analyst's stage it picks 3 declared action ids, the safety action
# first, and one reason_code line. No placement, no winner. Prints the stage's SHA-256.
set -eu
. "$(dirname "$0")/mcp.sh"
stage=$1 tasks=$2 task=$3 project=$4 space=$5
task_meta "$tasks" "$task" scheduling-strategist "$project"
jq -c --arg t "$task" --slurpfile space "$space" '
	.analysis as $a | $space[0].safety_action_id as $safe |
	(if $a.hp_queue_slo_risk == "high" then
		{ids: [$safe, "native-preemptive-3600", "native-preemptive-g3600-b09-d0000"], reason: "hp-pressure-high-protect-hp"}
	 elif ($a.recommended_traits | index("spot-guarantees")) then
		{ids: [$safe, "native-preemptive-g3600-b09-d0000", "native-preemptive-g3600-b09-loss-aware"], reason: "spot-share-high-guarantee-spot"}
	 else
		{ids: [$safe, "native-preemptive-g3600-b09-d0000", "native-preemptive-g3600-b09-d0900"], reason: "balanced-bounded-preemption"}
	 end) as $pick |
	{schema_version: "schednav.agent-stage-output/v1", observation_fingerprint: .observation_fingerprint,
	 role: "Scheduling Strategist", worker_id: "scheduling-strategist", task_id: $t, model_id: "scripted-v1",
	 candidate_action_ids: $pick.ids, reason_code: $pick.reason}' "$stage" > "$tasks/$task/stage-1.json"
sha256sum "$tasks/$task/stage-1.json" | cut -d' ' -f1
