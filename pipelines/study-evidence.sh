#!/bin/sh
# study-evidence.sh SW STUDY_CONFIG 'CAL_WINDOWS' 'HOLD_WINDOWS' — the study's receipt.
# Writes SW/evidence.json (the fingerprint chain, per-window decisions, per-arm summaries of
# both partitions, the evidence status; no trace rows) and SW/summary.txt (one screen).
set -eu
sw=$1 config=$2 cal=$3 hold=$4
files="$sw/selection-lock.ndjson $sw/calibration/selection.ndjson $sw/calibration/summary.ndjson $sw/holdout/summary.ndjson $sw/windows.ndjson"
receipts=
for w in $cal; do receipts="$receipts $sw/calibration/$w/window.ndjson"; done
for w in $hold; do receipts="$receipts $sw/holdout/$w/window.ndjson"; done
# One stream-verify call verifies every file and prints the fingerprints of the first five.
fps=$(stream-verify --print-fingerprint $files $receipts)
fp() { echo "$fps" | sed -n "$1p"; }

zstdcat -qf $receipts "$sw/selection-lock.ndjson" "$sw/calibration/selection.ndjson" |
	jq -c 'select(.type == "window_result" or .type == "selection-lock" or .type == "selection")' | jq -s --arg study "$(basename "$config" .json)" --arg config "$config" \
	--arg trace_fp "$(cat "$sw/trace.fp")" --arg windows_fp "$(fp 5)" \
	--arg lock_fp "$(fp 1)" --arg selection_fp "$(fp 2)" \
	--arg cal_summary_fp "$(fp 3)" --arg hold_summary_fp "$(fp 4)" '
def r9: . * 1e9 | round / 1e9;
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
         spot_jct_p95_seconds: ($rows | map(.spot_jct_p95_seconds | select(. != null)) | stats),
         spot_eviction_rate_per_run: ($rows | map(.spot_eviction_rate_per_run | select(. != null)) | stats)} ];
(map(select(.type == "window_result" and .partition == "calibration"))) as $cal
| (map(select(.type == "window_result" and .partition == "holdout"))) as $hold
| (map(select(.type == "selection-lock")) | first) as $lock
| (map(select(.type == "selection")) | first) as $sel
| ($lock.selected_action_ids) as $chosen
| (if $lock.selection_status == "no_eligible_arm" then "no_calibration_eligible_arm"
   elif $lock.selection_status == "tie_requires_human_approval" then "holdout_tie_requires_human_approval"
   elif all($hold[]; .policies[] | select(.action_id == $chosen[0]) | .hard_slo_passed) then "holdout_passed"
   else "holdout_rejected" end) as $status
| {schema_version: "schednav.study-evidence/v1", study: $study, config: $config,
   evidence_status: $status,
   fingerprints: {design: $lock.design_fingerprint, trace: $trace_fp, windows: $windows_fp,
                  calibration_summary: $cal_summary_fp, selection: $selection_fp,
                  selection_lock: $lock_fp, selection_lock_record: $lock.fingerprint,
                  holdout_summary: $hold_summary_fp},
   calibration: {window_ids: ($cal | map(.window_id)), selection_status: $sel.selection_status,
                 selected_action_ids: $sel.selected_action_ids, stages: $sel.stages,
                 candidates: $sel.candidates, arms: partition_summary($cal)},
   lock: {selection_status: $lock.selection_status, selected_action_ids: $chosen,
          human_approval_required: $lock.human_approval_required,
          holdout_output_count_at_freeze: $lock.holdout_output_count_at_freeze},
   holdout: {window_ids: ($hold | map(.window_id)),
             selected_arm_hard_slo_passed_windows: (if ($chosen | length) == 1 then
               [$hold[] | .policies[] | select(.action_id == $chosen[0] and .hard_slo_passed)] | length else null end),
             arms: partition_summary($hold)},
   windows: ($cal + $hold | map(del(.type)))}' > "$sw/evidence.json.tmp"
mv "$sw/evidence.json.tmp" "$sw/evidence.json"

jq -r '
def pad($n): tostring | . + (" " * ([$n - length, 0] | max));
def f6: if . == null then "-" else (. * 1e6 | round / 1e6 | tostring) end;
(.holdout.arms | map({key: .action_id, value: .}) | from_entries) as $h
| ([42, (.calibration.arms[] | .action_id | length + 2)] | max) as $w
| "study \(.study): \(.calibration.window_ids | length) calibration + \(.holdout.window_ids | length) holdout windows, \(.calibration.arms | length) arms",
  "calibration: \(.calibration.selection_status) \(.calibration.selected_action_ids | join(", "))",
  "lock: \(.fingerprints.selection_lock)  design \(.fingerprints.design)",
  "",
  ("arm" | pad($w)) + ("cal pass" | pad(10)) + ("hold pass" | pad(11)) + ("hold alloc" | pad(12)) + "vs baseline +/=/-",
  (.calibration.arms[] | . as $c | $h[.action_id] as $x
   | (.action_id | pad($w)) + ("\(.hard_slo_passed_windows)/\(.windows)" | pad(10))
     + ("\($x.hard_slo_passed_windows)/\($x.windows)" | pad(11)) + ($x.allocation_rate_mean.mean | f6 | pad(12))
     + "\($x.allocation_vs_baseline_counts.above)/\($x.allocation_vs_baseline_counts.equal)/\($x.allocation_vs_baseline_counts.below)"),
  "",
  "evidence: \(.evidence_status)"' "$sw/evidence.json" > "$sw/summary.txt.tmp"
echo "receipt: $sw/evidence.json" >> "$sw/summary.txt.tmp"
mv "$sw/summary.txt.tmp" "$sw/summary.txt"
