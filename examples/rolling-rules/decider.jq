# decider.jq — a rule-based decider on roll's decision protocol
# (schednav.rolling-decision-protocol/1): one decision_request in, one decision out, read from
# the request only (past-only by construction). Run by roll as
#   --decider 'exec:jq -c --unbuffered -f examples/rolling-rules/decider.jq'
# Rule "spot-guard-v1":
#   1. A candidate is eligible when its past-only scenarios passed every hard constraint and
#      it did no worse than the safety action there (as many stress scenarios passed, an
#      allocation at least as high).
#   2. While Spot jobs hold GPUs at the cutoff, take the eligible preemptive action (the
#      shortest HP preemption delay, then the smallest id): an HP job that arrives can take
#      those GPUs back at once instead of waiting out the Spot runs.
#   3. Otherwise (no Spot running, or no eligible preemptive candidate) the safety action.
. as $req
| ($req.candidates[] | select(.action_id == $req.required_safety_action_id)) as $safe
| ($req.observation.scheduler_state.running.spot_gpus // 0) as $spot
| [$req.candidates[]
   | select(.hard_slo_passed
            and .stress_scenario_pass_count >= $safe.stress_scenario_pass_count
            and (.allocation_rate_mean // 0) >= ($safe.allocation_rate_mean // 0)
            and .control_profile.scheduler == "priority_preemptive")]
| sort_by([.control_profile.hp_preemption_delay_seconds, .action_id]) as $preemptive
| (if $spot > 0 and ($preemptive | length) > 0 then
     {id: $preemptive[0].action_id, why: "spot-running-\($spot)-gpus"}
   elif $spot > 0 then
     {id: $safe.action_id, why: "no-eligible-preemptive"}
   else
     {id: $safe.action_id, why: "no-spot-running"}
   end) as $pick
| {type: "decision", request_id: $req.request_id, action_id: $pick.id,
   reason_code: "spot-guard-v1:\($pick.why)", llm_call_count: 0}
