# rolling-summary.jq — the evidence table of a rolling ablation study (roll-ablation output).
# Called with --slurpfile sat SATURATION.ndjson (trace-analyze --saturation), --arg model (the
# study's GPU model, "" for every pool), --arg sat_args (the --capacity options given) and
# --arg queue_figures ("yes" keeps the whole-pool queue figures of a saturated pool).
# Numbers with a fixed count of decimals (no raw floats, no 1e-05): "-" for null.
def fixed($d): if . == null then "-" else
    ((. * pow(10; $d)) | round) as $n
    | ($n | fabs | tostring) as $s
    | (if ($s | length) <= $d then ("0" * ($d + 1 - ($s | length))) + $s else $s end) as $p
    | (if $n < 0 then "-" else "" end) + $p[0:($p | length) - $d] + (if $d > 0 then "." + $p[($p | length) - $d:] else "" end)
  end;
def pct: if . == null then "-" else (. * 100 | fixed(2)) + "%" end;
def num: fixed(1);
[$sat[] | select(.type == "pool_saturation" and ($model == "" or .gpu_model == $model))] as $pools
| (any($pools[]; .queue_unbounded) and $queue_figures != "yes") as $backlog
| (map(select(.type == "rolling_ablation_summary"))[0]) as $s
| (map(select(.type == "rolling_closeout"))[0]) as $c
| (map(select(.type == "rolling_ablation_record"))) as $r
| ((["arm", "role", "pass/windows", "mean allocation", "mean Spot p95 JCT s", "mean evictions/run", "scenario sims", "agent vs arm"],
    ($s.arms | to_entries[] | [.key, .value.role, "\(.value.hard_slo_pass_count)/\(.value.window_count)",
       (.value.mean_metrics.allocation_rate_mean | pct), (if $backlog then "unbounded backlog" else .value.mean_metrics.spot_jct_p95_seconds | num end),
       (.value.mean_metrics.spot_eviction_rate_per_run | fixed(5)), (.value.candidate_simulation_count | tostring),
       ($s.agent_pairwise_hierarchy[.key] // "-")])) | @tsv),
  "",
  "per window (hard SLO pass):",
  ($r | group_by(.window_id)[] | "\(.[0].window_id): " + (map("\(.arm_id)=\(if .hard_slo_passed then "pass" else "FAIL(" + (.failed_hard_constraints | join(",")) + ")" end)") | join(" "))),
  "",
  "agent_superiority_gate: \($s.agent_superiority_gate)",
  "agent_vs_ordinary_gate: \($s.agent_vs_ordinary_gate)",
  "analyst_causal_value_gate: \($s.analyst_causal_value_gate)",
  "closeout: eligible=\($c.eligible_arm_ids) recommended=\($c.recommended_arm_id) claim_supported=\($c.claim_supported) \($c.project_status)/\($c.outcome) production_change_applied=\($c.production_change_applied)",
  (if any($pools[]; .queue_unbounded) or $sat_args != "" then
     "",
     ($pools[] | "pool \(.gpu_model) (\(.capacity_gpus) GPUs, \(.capacity_source)): offered load \(.offered_load * 100 | round / 100)x, "
       + "demand above capacity in \(.hours_above_capacity_share * 1000 | round / 10) % of \(.hours) hours (\(.demand_over_capacity * 100 | round / 100)x)"
       + (if .queue_unbounded then ": SATURATED" else "" end)),
     (if any($pools[]; .queue_unbounded) then
        "a saturated pool\u0027s queue has no bound: whole-pool queue percentiles measure the trace length, not the policy",
        "whole-pool queue figures: " + (if $backlog then "unbounded backlog (QUEUE_FIGURES=yes reports them)" else "reported (QUEUE_FIGURES=yes)" end)
      else empty end),
     (if $sat_args != "" then "capacity: \($sat_args) (the simulations run on the trace\u0027s nodes)" else empty end)
   else empty end)
