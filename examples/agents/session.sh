#!/bin/sh
# session.sh WORKDIR [TRACE] — a worked agent session without an LLM. A scripted Analyst and
# Strategist choose 3 candidates for one trace window; the Simulation Agent, SLO Auditor and
# Manager run them through schednav-mcp (each with its own profile); plan-check verifies the
# stage receipts into controller-selections/v1. It ends approval_pending: only a person
# settles the ranking, with approve(1), which no agent profile can reach.
# Default trace: Chronus MIX1 on a seeded 200-GPU Philly subset, evaluation [3600, 5400] s.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
SCHEDNAV_BIN=${SCHEDNAV_BIN:-$root/bin}
SCHEDNAV_CONFIGS=${SCHEDNAV_CONFIGS:-$root/configs}
export SCHEDNAV_BIN SCHEDNAV_CONFIGS
. "$here/mcp.sh"
work=$1
WORKSPACE=$work/workspace
export WORKSPACE
tasks=$work/agent-tasks
project=scripted-session-1
space=$root/configs/action_spaces/static-v1.json
slo=schednav-demo-slo-v1
mkdir -p "$WORKSPACE/traces" "$WORKSPACE/run-configs" "$tasks"

if [ $# -ge 2 ]; then
	cp "$2" "$WORKSPACE/traces/window.ndjson.zst"
else
	"$SCHEDNAV_BIN/trace-import" csv --map "$root/configs/maps/chronus-philly.json" \
		--nodes-file "$root/tests/data/philly-cluster_machine_list.zst" --node-subset-gpus 200 --seed 1 \
		"$root/tests/data/chronus-trace_job_Philly_MIX1.csv.zst" -o "$work/mix1.ndjson.zst"
	"$SCHEDNAV_BIN/trace-window" --eval-start 3600 --eval-end 5400 --warmup-start 1800 -i "$work/mix1.ndjson.zst" \
		-o "$WORKSPACE/traces/window.ndjson.zst"
fi
echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/window.ndjson.zst"}' > "$WORKSPACE/run-configs/window.json"

echo "analyst: workload summary through the bridge"
sha_a=$("$here/analyst.sh" window "$tasks" analyst-1 "$project")
echo "strategist: 3 declared candidates"
sha_s=$("$here/strategist.sh" "$tasks/analyst-1/stage-1.json" "$tasks" strategist-1 "$project" "$space")
ids=$(jq -c .candidate_action_ids "$tasks/strategist-1/stage-1.json")
reason=$(jq -r .reason_code "$tasks/strategist-1/stage-1.json")
obs=$(jq -r .observation_fingerprint "$tasks/analyst-1/stage-1.json")
echo "  candidates: $ids ($reason)"

metrics='[]'
for action in $(printf '%s' "$ids" | jq -r '.[]'); do
	echo "simulation: $action"
	ref=$(mcp_call simulation simulate_policy "$(jq -cn --arg a "$action" '{run_config_id: "window", action_id: $a}')" | jq -r .result.metrics_ref)
	metrics=$(printf '%s' "$metrics" | jq -c --arg r "$ref" '. + [$r]')
done
audits='[]'
for ref in $(printf '%s' "$metrics" | jq -r '.[]'); do
	echo "auditor: $ref"
	a=$(mcp_call auditor audit_slo "$(jq -cn --arg m "$ref" --arg s "$slo" '{metrics_ref: $m, slo_spec_id: $s, baseline_action_id: "native-fifo"}')")
	audits=$(printf '%s' "$audits" | jq -c --arg r "$(printf '%s' "$a" | jq -r .result.audit_ref)" '. + [$r]')
done
echo "manager: neutral comparison, then the declared hierarchy"
mcp_call manager compare_policies "$(jq -cn --argjson m "$metrics" '{metrics_refs: $m}')" > "$work/comparison.json"
mcp_call manager rank_policies "$(jq -cn --argjson m "$metrics" --argjson a "$audits" --arg s "$slo" \
	'{metrics_refs: $m, audit_refs: $a, slo_spec_id: $s}')" > "$work/ranking.json"

# the agents' decision for this window, checked against their stage receipts
{
	echo '{"type":"header","schema":"schednav.agent-decisions/1","tool":"session.sh","version":"0.2.0","inputs":[],"params":{}}'
	jq -cn --arg o "$obs" --argjson ids "$ids" --arg r "$reason" --arg sa "$sha_a" --arg ss "$sha_s" \
		'{type: "agent_decision", window_id: "window", observation_fingerprint: $o, candidate_action_ids: $ids, reason_code: $r,
		  llm_call_count: 2, agent_stage_receipts: [
		    {role: "Workload Analyst", worker_id: "workload-analyst", task_id: "analyst-1", output_fingerprint: $sa},
		    {role: "Scheduling Strategist", worker_id: "scheduling-strategist", task_id: "strategist-1", output_fingerprint: $ss}]}'
} | "$SCHEDNAV_BIN/stream-seal" -o "$work/decisions.ndjson"
printf '%s\n%s\n' '{"type":"header","schema":"schednav.windows/1","tool":"session.sh","version":"0.2.0","inputs":[],"params":{}}' \
	'{"type":"window","window_id":"window"}' | "$SCHEDNAV_BIN/stream-seal" -o "$work/windows.ndjson"
"$SCHEDNAV_BIN/plan-check" --adaptive --mode multi_agent --controller-id scripted-agent --project "$project" --model scripted-v1 \
	--framework scripted --tasks "$tasks" --action-space "$space" --windows "$work/windows.ndjson" \
	-o "$work/selections.ndjson" "$work/decisions.ndjson"
"$SCHEDNAV_BIN/schednav-mcp" --verify-log --workspace "$WORKSPACE"

status=$(jq -r .result.selection_status "$work/ranking.json")
frontier=$(jq -r '.result.selected_action_ids | join(", ")' "$work/ranking.json")
echo "decision: $status: $frontier"
echo "outcome: $(jq -r .result.outcome "$work/ranking.json") (a person approves; no agent can):"
# the tool as this shell reaches it: bin/approve from the top of the clone
case $SCHEDNAV_BIN in
"$PWD"/*) approve=${SCHEDNAV_BIN#"$PWD"/}/approve ;;
*) approve=$SCHEDNAV_BIN/approve ;;
esac
for id in $(jq -r '.result.selected_action_ids[]' "$work/ranking.json"); do
	echo "  $approve --ranking $WORKSPACE/$(jq -r .result.ranking_ref "$work/ranking.json") --action $id --by 'YOUR NAME' --reason 'WHY' --log $work/approvals.ndjson"
done
