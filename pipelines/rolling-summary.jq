# rolling-summary.jq — the evidence table of a rolling ablation study (roll-ablation output).
# Numbers with a fixed count of decimals (no raw floats, no 1e-05): "-" for null.
def fixed($d): if . == null then "-" else
    ((. * pow(10; $d)) | round) as $n
    | ($n | fabs | tostring) as $s
    | (if ($s | length) <= $d then ("0" * ($d + 1 - ($s | length))) + $s else $s end) as $p
    | (if $n < 0 then "-" else "" end) + $p[0:($p | length) - $d] + (if $d > 0 then "." + $p[($p | length) - $d:] else "" end)
  end;
def pct: if . == null then "-" else (. * 100 | fixed(2)) + "%" end;
def num: fixed(1);
(map(select(.type == "rolling_ablation_summary"))[0]) as $s
| (map(select(.type == "rolling_closeout"))[0]) as $c
| (map(select(.type == "rolling_ablation_record"))) as $r
| ((["arm", "role", "pass/windows", "mean allocation", "mean Spot p95 JCT s", "mean evictions/run", "scenario sims", "agent vs arm"],
    ($s.arms | to_entries[] | [.key, .value.role, "\(.value.hard_slo_pass_count)/\(.value.window_count)",
       (.value.mean_metrics.allocation_rate_mean | pct), (.value.mean_metrics.spot_jct_p95_seconds | num),
       (.value.mean_metrics.spot_eviction_rate_per_run | fixed(5)), (.value.candidate_simulation_count | tostring),
       ($s.agent_pairwise_hierarchy[.key] // "-")])) | @tsv),
  "",
  "per window (hard SLO pass):",
  ($r | group_by(.window_id)[] | "\(.[0].window_id): " + (map("\(.arm_id)=\(if .hard_slo_passed then "pass" else "FAIL(" + (.failed_hard_constraints | join(",")) + ")" end)") | join(" "))),
  "",
  "agent_superiority_gate: \($s.agent_superiority_gate)",
  "agent_vs_ordinary_gate: \($s.agent_vs_ordinary_gate)",
  "analyst_causal_value_gate: \($s.analyst_causal_value_gate)",
  "closeout: eligible=\($c.eligible_arm_ids) recommended=\($c.recommended_arm_id) claim_supported=\($c.claim_supported) \($c.project_status)/\($c.outcome) production_change_applied=\($c.production_change_applied)"
