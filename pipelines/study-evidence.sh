#!/bin/sh
# study-evidence.sh SW STUDY_CONFIG 'CAL_WINDOWS' 'HOLD_WINDOWS' [PART] — the study's receipt.
# Writes SW/evidence.json (the fingerprint chain, per-window decisions, per-arm summaries of
# both partitions, the evidence status; no trace rows) and SW/summary.txt (one screen).
# PART is the second partition: holdout (default) or evaluation (an adaptive study, whose
# receipt adds the design, the controllers and the adaptive benchmark of
# SW/evaluation/adaptive.ndjson without its per-window lists).
set -eu
sw=$1 config=$2 cal=$3 hold=$4 part=${5:-holdout}
files="$sw/selection-lock.ndjson $sw/calibration/selection.ndjson $sw/calibration/summary.ndjson $sw/$part/summary.ndjson $sw/windows.ndjson"
adaptive=
if [ "$part" = evaluation ]; then
	adaptive="$sw/controllers.ndjson $sw/evaluation/adaptive.ndjson"
fi
receipts=
for w in $cal; do receipts="$receipts $sw/calibration/$w/window.ndjson"; done
for w in $hold; do receipts="$receipts $sw/$part/$w/window.ndjson"; done
# One stream-verify call verifies every file and prints the fingerprints of the first five
# (seven for an adaptive study).
fps=$(stream-verify --print-fingerprint $files $adaptive $receipts)
fp() { echo "$fps" | sed -n "$1p"; }

# Pool saturation (issue 34), with the saturation code of trace-analyze(1): when the study
# trace's offered load is above a pool's capacity (GPU-seconds over capacity x span: its queue
# has no bound), or a capacity was given explicitly (CAPACITY), the receipt says so and the
# arms' whole-pool queue figures (p95 JCT over the partition) become "unbounded_backlog"
# unless QUEUE_FIGURES=yes. Nothing changes on a bounded pool at its own capacity (the
# touched-hour ratio alone does not flag: it overstates jobs shorter than an hour).
sat='[]'
rm -f "$sw/evidence.json" "$sw/summary.txt"   # a failure below leaves no stale receipt
if [ -n "${SAT_TRACE:-}" ]; then
	# shellcheck disable=SC2086 # SAT_ARGS is a list of --capacity MODEL=GPUS
	sat=$(trace-analyze --saturation ${SAT_ARGS:-} "$SAT_TRACE")
	sat=$(printf '%s\n' "$sat" | jq -cs '[.[] | select(.type == "pool_saturation")] as $p
		| if any($p[]; .queue_unbounded or .capacity_source != "the trace\u0027s nodes") then $p else [] end')
fi

zstdcat -qf $receipts "$sw/selection-lock.ndjson" "$sw/calibration/selection.ndjson" $adaptive |
	jq -c 'select(.type == "window_result" or .type == "selection-lock" or .type == "selection" or .type == "adaptive_design" or .type == "rule_selections" or .type == "controller_selections" or .type == "adaptive_controller")' |
	jq -s --arg study "$(basename "$config" .json)" --arg config "$config" --arg part "$part" \
	--arg trace_fp "$(cat "$sw/trace.fp")" --arg windows_fp "$(fp 5)" \
	--arg lock_fp "$(fp 1)" --arg selection_fp "$(fp 2)" \
	--arg cal_summary_fp "$(fp 3)" --arg hold_summary_fp "$(fp 4)" \
	--arg controllers_fp "$(if [ -n "$adaptive" ]; then fp 6; fi)" --arg adaptive_fp "$(if [ -n "$adaptive" ]; then fp 7; fi)" \
	--argjson sat "$sat" --arg queue_figures "${QUEUE_FIGURES:-}" --arg sat_args "${SAT_ARGS:-}" '
(any($sat[]; .queue_unbounded) and $queue_figures != "yes") as $backlog
| def r9: . * 1e9 | round / 1e9;
def stats: if length == 0 then null else sort as $s | ($s | length) as $n
  | {mean: (add / $n | r9), median: (if $n % 2 == 1 then $s[($n - 1) / 2] else ($s[$n / 2 - 1] + $s[$n / 2]) / 2 end | r9),
     min: ($s[0] | r9), max: ($s[-1] | r9)} end;
# Per-arm summary over a partition: pass counts, failures per constraint, allocation and its
# difference to the baseline arm in the same window (+/=/- counted exactly).
def partition_summary($ws):
  ($ws[0].policies | map(.action_id)) as $arms
  | [ $arms[] as $arm
      | [ $ws[] | . as $w | (.policies[] | select(.action_id == $arm)) as $p
          | (.policies[] | select(.action_id == $w.baseline_action_id)) as $b
          | $p + {delta: (if $p.allocation_rate_mean == null or $b.allocation_rate_mean == null then null
                          else $p.allocation_rate_mean - $b.allocation_rate_mean end)} ] as $rows
      | {action_id: $arm, windows: ($rows | length),
         hard_slo_passed_windows: ($rows | map(select(.hard_slo_passed)) | length),
         failures_per_constraint: ($rows | map(.failed_constraint_ids[]) | group_by(.) | map({key: .[0], value: length}) | from_entries),
         allocation_rate_mean: ($rows | map(.allocation_rate_mean | select(. != null)) | stats),
         allocation_minus_baseline: ($rows | map(.delta | select(. != null)) | stats),
         allocation_vs_baseline_counts: {above: ($rows | map(select(.delta != null and .delta > 0)) | length),
                                          equal: ($rows | map(select(.delta == 0)) | length),
                                          below: ($rows | map(select(.delta != null and .delta < 0)) | length)},
         spot_jct_p95_seconds: (if $backlog then "unbounded_backlog" else ($rows | map(.spot_jct_p95_seconds | select(. != null)) | stats) end),
         spot_eviction_rate_per_run: ($rows | map(.spot_eviction_rate_per_run | select(. != null)) | stats)} ];
(map(select(.type == "window_result" and .partition == "calibration"))) as $cal
| (map(select(.type == "window_result" and .partition == $part))) as $hold
| (map(select(.type == "selection-lock")) | first) as $lock
| (map(select(.type == "selection")) | first) as $sel
| ($lock.selected_action_ids) as $chosen
| (map(select(.type == "adaptive_design")) | first) as $design
| (if $part == "evaluation" then
     (if $lock.selection_status == "selected" then "adaptive_evaluated"
      else "adaptive_evaluated_best_static_\($lock.selection_status)" end)
   elif $lock.selection_status == "no_eligible_arm" then "no_calibration_eligible_arm"
   elif $lock.selection_status == "tie_requires_human_approval" then "holdout_tie_requires_human_approval"
   elif all($hold[]; .policies[] | select(.action_id == $chosen[0]) | .hard_slo_passed) then "holdout_passed"
   else "holdout_rejected" end) as $status
| {schema_version: "schednav.study-evidence/v1", study: $study, config: $config,
   evidence_status: $status,
   fingerprints: ({design: $lock.design_fingerprint, trace: $trace_fp, windows: $windows_fp,
                  calibration_summary: $cal_summary_fp, selection: $selection_fp,
                  selection_lock: $lock_fp, selection_lock_record: $lock.fingerprint,
                  ($part + "_summary"): $hold_summary_fp}
                 + (if $design then {adaptive_design: $design.design_fingerprint, controllers: $controllers_fp,
                                     adaptive_evaluation: $adaptive_fp} else {} end)),
   calibration: {window_ids: ($cal | map(.window_id)), selection_status: $sel.selection_status,
                 selected_action_ids: $sel.selected_action_ids, stages: $sel.stages,
                 candidates: $sel.candidates, arms: partition_summary($cal)},
   lock: {selection_status: $lock.selection_status, selected_action_ids: $chosen,
          human_approval_required: $lock.human_approval_required,
          holdout_output_count_at_freeze: $lock.holdout_output_count_at_freeze},
   ($part): {window_ids: ($hold | map(.window_id)),
             selected_arm_hard_slo_passed_windows: (if ($chosen | length) == 1 then
               [$hold[] | .policies[] | select(.action_id == $chosen[0] and .hard_slo_passed)] | length else null end),
             arms: partition_summary($hold)}}
  + (if $design then {adaptive: {
       design: ($design | {design_fingerprint, trace_id, trace_fingerprint, capacity_gpus, window_rule, carry_in,
                           baseline_action_id, actions, split, workload_rule}),
       controllers: [.[] | select(.type == "rule_selections" or .type == "controller_selections")
                     | {controller_id, model_id: (.model_id // null),
                        fingerprint: (.fingerprint // .selections_fingerprint),
                        candidate_evaluations: ((.windows // .selections) | map(.candidate_action_ids | length) | add)}],
       best_static: {selection_status: $lock.selection_status, selected_action_ids: $chosen},
       benchmark: [.[] | select(.type == "adaptive_controller") | del(.type, .windows)]}} else {} end)
  + (if ($sat | length) > 0 then {saturation: {
       pools: [$sat[] | del(.type)],
       capacity_args: $sat_args,
       queue_figures: (if $backlog then "unbounded_backlog" elif any($sat[]; .queue_unbounded) then "reported (QUEUE_FIGURES=yes)" else "reported" end),
       meaning: "a saturated pool has a queue without a bound: its whole-pool queue percentiles measure the trace length, not the policy"}}
     else {} end)
  + {windows: ($cal + $hold | map(del(.type)))}' > "$sw/evidence.json.tmp"
mv "$sw/evidence.json.tmp" "$sw/evidence.json"

# The SLO's severities, to name a failed constraint hard or soft (none when unreadable).
slo=$(jq -r '.slo // empty' "$config")
severity=$(if [ -n "$slo" ] && [ -r "$slo" ]; then jq -c '[.constraints[]? | {key: .id, value: .severity}] | from_entries' "$slo"; else echo '{}'; fi)
jq -r --arg part "$part" --argjson severity "$severity" '
def pad($n): tostring | . + (" " * ([$n - length, 0] | max));
# "ID N/W (hard), ..." over a partition summary of one arm, or "none"
def failed: . as $a | .failures_per_constraint | to_entries
  | if length == 0 then "none" else map("\(.key) \(.value)/\($a.windows)" + (if $severity[.key] then " (\($severity[.key]))" else "" end)) | join(", ") end;
def pp: if . == null then "-" else (. * 1e6 | round / 1e4 | tostring) end;   # a rate as percentage points, 4 digits
def f6: if . == null then "-" else (. * 1e6 | round / 1e6 | tostring) end;
(.[$part].arms | map({key: .action_id, value: .}) | from_entries) as $h
| ([42, (.calibration.arms[] | .action_id | length + 2)] | max) as $w
| "study \(.study): \(.calibration.window_ids | length) calibration + \(.[$part].window_ids | length) \($part) windows, \(.calibration.arms | length) arms",
  "calibration: \(.calibration.selection_status) \(.calibration.selected_action_ids | join(", "))",
  "lock: \(.fingerprints.selection_lock)  design \(.fingerprints.design)",
  "",
  ("arm" | pad($w)) + ("cal pass" | pad(10)) + ("\($part[:4]) pass" | pad(11)) + ("\($part[:4]) alloc" | pad(12)) + "vs baseline +/=/-",
  (.calibration.arms[] | . as $c | $h[.action_id] as $x
   | (.action_id | pad($w)) + ("\(.hard_slo_passed_windows)/\(.windows)" | pad(10))
     + ("\($x.hard_slo_passed_windows)/\($x.windows)" | pad(11)) + ($x.allocation_rate_mean.mean | f6 | pad(12))
     + "\($x.allocation_vs_baseline_counts.above)/\($x.allocation_vs_baseline_counts.equal)/\($x.allocation_vs_baseline_counts.below)"),
  (if .calibration.selection_status == "no_eligible_arm" then
     "",
     "no arm passed every hard SLO on every calibration window; the constraints each arm failed, in windows:",
     (.calibration.arms[] | $h[.action_id] as $x
      | "  \(.action_id)", "    calibration: \(failed)", (if $x then "    \($part): \($x | failed)" else empty end))
   else empty end),
  (if .adaptive then
     "",
     "adaptive benchmark over the \(.evaluation.window_ids | length) evaluation windows (uplift and regret in percentage points):",
     ("controller" | pad(16)) + ("evaluations" | pad(13)) + ("reduction" | pad(11)) + ("feasible" | pad(10)) + ("coverage" | pad(10))
       + ("exact" | pad(8)) + ("uplift range vs FIFO" | pad(22)) + ("lower +/=/-" | pad(13)) + "regret mean",
     (.adaptive.benchmark[] | . as $c
      | (.controller_id | pad(16)) +
        (if .status != "evaluated" then .status + ": " + ($c.source.kind) else
          ("\(.candidate_evaluation_count)" | pad(13)) + ("\(.evaluation_reduction_vs_catalogue * 1000 | round / 10)%" | pad(11))
          + ("\(.hard_slo_feasible_window_count)/\(.evaluation_window_count)" | pad(10))
          + ("\(.frontier_coverage_window_count)/\(.catalogue_feasible_window_count)" | pad(10))
          + ("\(.frontier_exact_match_window_count)/\(.catalogue_feasible_window_count)" | pad(8))
          + ("\(.allocation_uplift_vs_fifo.mean_lower_bound | pp) to \(.allocation_uplift_vs_fifo.mean_upper_bound | pp)" | pad(22))
          + ("\(.allocation_uplift_vs_fifo.lower_bound_positive_window_count)/\(.allocation_uplift_vs_fifo.lower_bound_equal_window_count)/\(.allocation_uplift_vs_fifo.lower_bound_negative_window_count)" | pad(13))
          + (.allocation_regret_vs_catalogue_best.mean | pp) end)),
     "best static on calibration: \(.adaptive.best_static.selection_status) \(.adaptive.best_static.selected_action_ids | join(", "))"
   else empty end),
  (if .saturation then
     "",
     (.saturation.pools[] | "pool \(.gpu_model) (\(.capacity_gpus) GPUs, \(.capacity_source)): offered load \(.offered_load * 100 | round / 100)x, "
       + "demand above capacity in \(.hours_above_capacity_share * 1000 | round / 10) % of \(.hours) hours (\(.demand_over_capacity * 100 | round / 100)x)"
       + (if .queue_unbounded then ": SATURATED" else "" end)),
     (if any(.saturation.pools[]; .queue_unbounded) then
        "a saturated pool\u0027s queue has no bound: whole-pool queue percentiles measure the trace length, not the policy",
        "whole-pool queue figures: " + (if .saturation.queue_figures == "unbounded_backlog" then "unbounded backlog (QUEUE_FIGURES=yes reports them)" else .saturation.queue_figures end)
      else empty end)
   else empty end),
  "",
  "evidence: \(.evidence_status)"' "$sw/evidence.json" > "$sw/summary.txt.tmp"
echo "receipt: $sw/evidence.json" >> "$sw/summary.txt.tmp"
mv "$sw/summary.txt.tmp" "$sw/summary.txt"
