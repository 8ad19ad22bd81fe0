#!/bin/sh
# rolling-day/run.sh OUTDIR — one rolling day (docs/rolling.md): every two hours roll
# decides from the past only which declared action the scheduler runs, freezes it, and only
# then lets the simulator advance. The day is day 36 of the shipped v2026 profile (one GPU
# pool at half the load, as make roll-inputs draws it): the execution trace holds HP from
# the origin plus the day's jobs, the workload history both classes from 4 h before the day.
# Two arms: the rule decider and the safety action fixed, then metrics and the report.
set -eu
[ $# -eq 1 ] || { echo "usage: sh examples/rolling-day/run.sh OUTDIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${SCHEDNAV_BIN:-$root/bin}
out=$1
mkdir -p "$out"
"$bin/trace-synth" --no-progress --profile "$root/configs/profiles/alibaba-spot-gpu-v2026.json" --gpu-model GPU-series-2 \
	--days 0-36 --load-factor 0.5 -o "$out/synth.ndjson.zst"
"$bin/trace-window" --eval-start 3110400 --eval-end 3196799 --warmup-start 0 --no-warmup-spot \
	-i "$out/synth.ndjson.zst" -o "$out/exec.ndjson.zst"
"$bin/trace-window" --eval-start 3110400 --eval-end 3196799 --warmup-start 3096000 \
	-i "$out/synth.ndjson.zst" -o "$out/history.ndjson.zst"
config="$root/configs/rolling/rolling-v3.json"
safety=$(jq -r .safety_action_id "$config")
"$bin/roll" --no-progress --config "$config" --history "$out/history.ndjson.zst" --decider rule \
	-o "$out/rule.result.ndjson.zst" "$out/exec.ndjson.zst"
"$bin/roll" --no-progress --config "$config" --history "$out/history.ndjson.zst" --decider "fixed:$safety" \
	-o "$out/fixed.result.ndjson.zst" "$out/exec.ndjson.zst"
for a in rule fixed; do
	"$bin/metrics" -i "$out/$a.result.ndjson.zst" -o "$out/$a.metrics.ndjson"
	echo "$a: $(jq -c 'select(.type == "metrics") | .rolling_control | {decision_count, selected_action_sequence}' "$out/$a.metrics.ndjson")"
done
"$bin/report" --title 'roll: one day, the rule arm' -o "$out/report.html" "$out/rule.result.ndjson.zst"
echo "report: $out/report.html"
