#!/bin/sh
# analyst.sh RUN_CONFIG TASK_DIR TASK_ID PROJECT — a scripted Workload Analyst: it reads the
# past-only workload summary through the bridge (analyst profile) and writes its
# agent-stage-output/v1 (regime, short-vs-long change, HP queue/SLO risk, forecast risk,
# uncertainty, recommended traits). It never recommends a policy. Prints the stage's SHA-256.
set -eu
. "$(dirname "$0")/mcp.sh"
run_config=$1 tasks=$2 task=$3 project=$4
summary=$(mcp_call analyst analyze_workload "$(jq -cn --arg r "$run_config" '{run_config_id: $r}')" | jq -c .result.workload_summary)
task_meta "$tasks" "$task" workload-analyst "$project"
printf '%s' "$summary" | jq -c --arg t "$task" '
	.regime_signals as $s | .class_profile as $p |
	{schema_version: "schednav.agent-stage-output/v1", observation_fingerprint: .workload_fingerprint,
	 role: "Workload Analyst", worker_id: "workload-analyst", task_id: $t, model_id: "scripted-v1",
	 analysis: {
	   regime: .regime_label,
	   short_vs_long_change: (if $p.HP.peak_active_pressure > 1.5 * $p.HP.mean_active_pressure then "bursty" else "steady" end),
	   hp_queue_slo_risk: (if $s.hp_peak_active_pressure >= 0.9 then "high" elif $s.combined_peak_active_pressure >= 0.75 then "moderate" else "low" end),
	   forecast_risk: "not-assessed",
	   uncertainty: (if (.population.HP.job_count + .population.Spot.job_count) < 100 then "high" else "low" end),
	   recommended_traits: ([if $s.hp_peak_active_pressure >= 0.9 then "hp-protection" else empty end,
	                         if ($s.spot_requested_gpu_share // 0) >= 0.3 then "spot-guarantees" else empty end])}}' \
	> "$tasks/$task/stage-1.json"
sha256sum "$tasks/$task/stage-1.json" | cut -d' ' -f1
