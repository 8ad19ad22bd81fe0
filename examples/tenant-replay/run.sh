#!/bin/sh
# tenant-replay/run.sh OUTDIR — one day replayed with the tenant controller inside the
# simulator (docs/tenant-controller.md), beside the same policy without it. The trace is the
# shipped v2026 profile drawn by trace-synth (one GPU pool at half the load, days 0-36), so
# day 36 has the 864 h of history the controller trains on; the controller forecasts every
# (pool, tenant) series from the past only and gates Spot starts by its quotas.
set -eu
[ $# -eq 1 ] || { echo "usage: sh examples/tenant-replay/run.sh OUTDIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${SCHEDNAV_BIN:-$root/bin}
out=$1
mkdir -p "$out"
"$bin/trace-synth" --no-progress --profile "$root/configs/profiles/alibaba-spot-gpu-v2026.json" --gpu-model GPU-series-2 \
	--days 0-36 --load-factor 0.5 -o "$out/synth.ndjson.zst"
"$bin/trace-window" --eval-start 3110400 --eval-end 3196799 --warmup-start 0 --no-warmup-spot \
	-i "$out/synth.ndjson.zst" -o "$out/day36.ndjson.zst"
policy="$root/configs/studies/predictive-multiwindow/predictive-tenant-linear-g3600-b09-d0000.json"
"$bin/sim-run" --no-progress --policy "$policy" -i "$out/day36.ndjson.zst" -o "$out/plain.result.ndjson.zst"
"$bin/sim-run" --no-progress --policy "$policy" --controller "$root/configs/controllers/schednav-tenant-linear-v2.json" \
	-i "$out/day36.ndjson.zst" -o "$out/tenant.result.ndjson.zst"
for r in plain tenant; do
	"$bin/metrics" -i "$out/$r.result.ndjson.zst" -o "$out/$r.metrics.ndjson"
done
echo "controller: $(zstdcat "$out/tenant.result.ndjson.zst" | jq -c 'select(.type == "control_report") | {update_count, trained_at_seconds: .model.trained_at_seconds, wape: .forecast_evaluation.wape, coverage: .forecast_evaluation.guarantee_quantile_coverage, spot_quota_gpus_mean: .spot_quota_gpus.mean}')"
for r in plain tenant; do
	echo "$r: $(jq -c 'select(.type == "metrics") | {allocation_rate_mean, hp_jct_p95_seconds, spot_jct_p95_seconds}' "$out/$r.metrics.ndjson")"
done
"$bin/report" --title 'day 36: the tenant controller' -o "$out/report.html" "$out/tenant.result.ndjson.zst"
echo "report: $out/report.html"
