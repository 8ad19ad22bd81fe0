#!/bin/sh
# study-forecast-quality.sh SW PARTITION 'WINDOWS' ARM... — the forecast quality table of the
# predictive arms over one partition's windows: scored points, MAE, WAPE, mean error
# (actual - mu: positive = under-forecast), P90 coverage and pinball loss at p = 0.9,
# pooled over the windows with each window weighted by its scored points (WAPE: total
# absolute error over total actual, from the tenant family's forecast_evaluation_sums, else
# recovered from the window's values). Reads the `predictive_control` block of each arm's
# metrics (arms without one are skipped). Writes SW/forecast-quality-PARTITION.json and .md.
set -eu
sw=$1 part=$2 windows=$3
shift 3
files=
for arm in "$@"; do
	for w in $windows; do
		files="$files $sw/$part/$w/$arm/metrics.ndjson.zst"
	done
done
stream-verify $files
zstdcat -qf $files | jq -c 'select(.type == "metrics")' | jq -s --arg part "$part" '
def r6: . * 1e6 | round / 1e6;
def r9: . * 1e9 | round / 1e9;
[ .[] | select(.predictive_control != null and .predictive_control.forecast_evaluation != null)
  | .predictive_control as $pc | $pc.forecast_evaluation as $f
  | {arm: .action_id, controller_id: $pc.controller_id, estimator: ($pc.estimator // $pc.model // "seasonal-gaussian-v1"),
     n: ($f.scored_point_count // $f.evaluated_point_count // 0), mae: $f.mae_gpus, wape: $f.wape,
     me: $f.mean_error_gpus, cov: $f.guarantee_quantile_coverage, pin: $f.pinball_loss,
     abs: $pc.forecast_evaluation_sums.absolute_error_gpus, act: $pc.forecast_evaluation_sums.actual_gpus} ]
| group_by(.arm)
| map(. as $rows | ($rows | map(select(.n > 0))) as $s | ($s | map(.n) | add // 0) as $n
      | {arm: $rows[0].arm, controller_id: $rows[0].controller_id, estimator: $rows[0].estimator,
         windows: ($rows | length), scored_points: $n,
         mae_gpus: (if $n > 0 then ($s | map(.n * .mae) | add) / $n | r6 else null end),
         wape: (if ($s | all(.act != null)) then
                  ($s | map(.act) | add) as $act
                  | if $n > 0 and $act > 0 then ($s | map(.abs) | add) / $act | r9 else null end
                else
                  ($s | map(select(.wape != null and .wape > 0)) | map(.n * .mae / .wape) | add) as $act
                  | if $n > 0 and $act != null and $act > 0 then ($s | map(.n * .mae) | add) / $act | r9 else null end
                end),
         mean_error_gpus: (if $n > 0 then ($s | map(.n * .me) | add) / $n | r6 else null end),
         p90_coverage: (if $n > 0 then ($s | map(.n * .cov) | add) / $n | r9 else null end),
         pinball_loss: (if $n > 0 then ($s | map(.n * .pin) | add) / $n | r6 else null end)})
| {type: "forecast_quality", partition: $part, arms: .}' > "$sw/forecast-quality-$part.json.tmp"
mv "$sw/forecast-quality-$part.json.tmp" "$sw/forecast-quality-$part.json"
jq -r '"| arm | controller | estimator | windows | scored points | MAE (GPUs) | WAPE | mean error (GPUs) | P90 coverage | pinball |",
       "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
       (.arms[] | "| \(.arm) | \(.controller_id) | \(.estimator) | \(.windows) | \(.scored_points) | \(.mae_gpus) | \(.wape) | \(.mean_error_gpus) | \(.p90_coverage) | \(.pinball_loss) |")' \
	"$sw/forecast-quality-$part.json" > "$sw/forecast-quality-$part.md.tmp"
mv "$sw/forecast-quality-$part.md.tmp" "$sw/forecast-quality-$part.md"
