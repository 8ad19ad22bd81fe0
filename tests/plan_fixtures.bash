# Fixtures for plan-check: agent task directories (meta.json + stage outputs), receipts and
# decision streams, built the way an agent host exports them.

SPACE="$ROOT/configs/action_spaces/static-v1.json"
OBS1=11111111111111111111111111111111
OBS2=22222222222222222222222222222222
IDS1='["native-fifo","native-preemptive-3600","native-preemptive-g3600-b09-d0000"]'
IDS2='["native-fifo","native-preemptive-g3600-b09-d0000","native-preemptive-g3600-b09-loss-aware"]'
MASK='{"masked":true,"content":"withheld-for-causal-ablation"}'
ANALYSIS='{"regime":"hp-constrained","short_vs_long_change":"rising","hp_queue_slo_risk":"high","forecast_risk":"moderate","uncertainty":"low","recommended_traits":["preemption"]}'

# meta TASKS TASK WORKER [PROJECT] [STATUS]
meta() {
	mkdir -p "$1/$2"
	jq -cn --arg t "$2" --arg w "$3" --arg p "${4:-proj-1}" --arg s "${5:-completed}" \
		'{task_id: $t, project_id: $p, assigned_to: $w, status: $s, room_id: ("room-" + $t)}' > "$1/$2/meta.json"
}

# analyst TASKS TASK OBS [ANALYSIS] [MODEL]: the Analyst's stage file; prints its SHA-256.
analyst() {
	meta "$1" "$2" workload-analyst
	jq -cn --arg t "$2" --arg o "$3" --argjson a "${4:-$ANALYSIS}" --arg m "${5:-scripted-v1}" \
		'{schema_version: "schednav.agent-stage-output/v1", observation_fingerprint: $o, role: "Workload Analyst",
		  worker_id: "workload-analyst", task_id: $t, model_id: $m, analysis: $a}' > "$1/$2/stage-1.json"
	sha256sum "$1/$2/stage-1.json" | cut -d' ' -f1
}

# strategist TASKS TASK OBS IDS REASON: the Strategist's stage file; prints its SHA-256.
strategist() {
	meta "$1" "$2" scheduling-strategist
	jq -cn --arg t "$2" --arg o "$3" --argjson ids "$4" --arg r "$5" \
		'{schema_version: "schednav.agent-stage-output/v1", observation_fingerprint: $o, role: "Scheduling Strategist",
		  worker_id: "scheduling-strategist", task_id: $t, model_id: "scripted-v1", candidate_action_ids: $ids, reason_code: $r}' \
		> "$1/$2/stage-1.json"
	sha256sum "$1/$2/stage-1.json" | cut -d' ' -f1
}

# receipt ROLE TASK SHA
receipt() {
	local worker=scheduling-strategist
	[ "$1" = "Workload Analyst" ] && worker=workload-analyst
	jq -cn --arg r "$1" --arg w "$worker" --arg t "$2" --arg f "$3" '{role: $r, worker_id: $w, task_id: $t, output_fingerprint: $f}'
}

# decision OBS IDS REASON CALLS RECEIPT...: one agent_decision line.
decision() {
	local obs="$1" ids="$2" reason="$3" calls="$4"
	shift 4
	printf '%s\n' "$@" | jq -sc --arg o "$obs" --argjson ids "$ids" --arg r "$reason" --argjson n "$calls" \
		'{type: "agent_decision", observation_fingerprint: $o, candidate_action_ids: $ids, reason_code: $r, llm_call_count: $n,
		  agent_stage_receipts: .}'
}

# seal_decisions FILE < lines: a schednav.agent-decisions/1 stream.
seal_decisions() {
	{ echo '{"type":"header","schema":"schednav.agent-decisions/1","tool":"test","version":"0.2.0","inputs":[],"params":{}}'; cat; } | stream-seal -o "$1"
}

# A valid two-decision multi_agent fixture in $T/tasks and $T/decisions.nd.
two_decisions() {
	local sa1 ss1 sa2 ss2
	sa1=$(analyst "$T/tasks" a1 $OBS1)
	ss1=$(strategist "$T/tasks" s1 $OBS1 "$IDS1" "hp-pressure-high")
	sa2=$(analyst "$T/tasks" a2 $OBS2)
	ss2=$(strategist "$T/tasks" s2 $OBS2 "$IDS2" "spot-share-high")
	{
		decision $OBS1 "$IDS1" hp-pressure-high 2 "$(receipt "Workload Analyst" a1 "$sa1")" "$(receipt "Scheduling Strategist" s1 "$ss1")"
		decision $OBS2 "$IDS2" spot-share-high 2 "$(receipt "Workload Analyst" a2 "$sa2")" "$(receipt "Scheduling Strategist" s2 "$ss2")"
	} > "$T/decisions.lines"
	seal_decisions "$T/decisions.nd" < "$T/decisions.lines"
}

ROLLING=(--rolling --controller-id ctl-1 --project proj-1 --model scripted-v1)

# check MODE [ARGS...]: plan-check on $T/decisions.nd
check() {
	local mode="$1"
	shift
	plan-check "${ROLLING[@]}" --mode "$mode" --tasks "$T/tasks" --action-space "$SPACE" "$@" "$T/decisions.nd"
}
