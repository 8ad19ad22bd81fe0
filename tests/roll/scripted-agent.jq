# scripted-agent.jq — a deterministic stand-in for an agent on the rolling decision protocol
# (schednav.rolling-decision-protocol/1): one decision_request in, one decision out.
# Run by roll as   --decider 'exec:jq -c --unbuffered -f tests/roll/scripted-agent.jq'
# Rule "scripted-agent-v1": among the candidates whose scenario evidence passed every hard
# constraint, take the most stress scenarios passed, then the highest allocation, then the
# controller's recommendation, then the smallest id; with none passing, the safety action.
# It reads only the request (past-only by construction) and never names anything else.
. as $req
| [$req.candidates[] | select(.hard_slo_passed)] as $ok
| (if ($ok | length) == 0 then
     {id: $req.required_safety_action_id, why: "no-candidate-passed"}
   else
     ($ok | sort_by([-(.stress_scenario_pass_count), -(.allocation_rate_mean // 0),
                     (if .action_id == $req.recommended_action_id then 0 else 1 end), .action_id])
          | .[0]) as $best
     | {id: $best.action_id, why: "stress-\($best.stress_scenario_pass_count)-then-allocation"}
   end) as $pick
| {type: "decision", request_id: $req.request_id, action_id: $pick.id,
   reason_code: "scripted-agent-v1:\($pick.why)", llm_call_count: 0}
