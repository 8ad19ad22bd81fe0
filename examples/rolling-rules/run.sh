#!/bin/sh
# rolling-rules/run.sh OUTDIR — a rule-based decider that leaves the safety action on some
# days (docs/rolling.md, "Deciders"). decider.jq reads each decision request roll sends and
# answers with its rule "spot-guard-v1": while Spot jobs hold GPUs it takes the preemptive
# action that did no worse than the safety action in the past-only scenarios, otherwise the
# safety action. Three days (38-40) of the shipped v2026 profile's GPU-series-2 pool at full
# load; for each day roll runs the decider, then metrics says which actions were chosen.
set -eu
[ $# -eq 1 ] || { echo "usage: sh examples/rolling-rules/run.sh OUTDIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${SCHEDNAV_BIN:-$root/bin}
out=$1
mkdir -p "$out"
"$bin/trace-synth" --no-progress --profile "$root/configs/profiles/alibaba-spot-gpu-v2026.json" --gpu-model GPU-series-2 \
	--days 0-40 --load-factor 1 -o "$out/synth.ndjson.zst"
config="$root/configs/rolling/rolling-v3.json"
safety=$(jq -r .safety_action_id "$config")
for day in 38 39 40; do
	start=$((day * 86400))
	end=$((start + 86399))
	"$bin/trace-window" --eval-start "$start" --eval-end "$end" --warmup-start 0 --no-warmup-spot \
		-i "$out/synth.ndjson.zst" -o "$out/day$day.exec.ndjson.zst"
	"$bin/trace-window" --eval-start "$start" --eval-end "$end" --warmup-start $((start - 14400)) \
		-i "$out/synth.ndjson.zst" -o "$out/day$day.history.ndjson.zst"
	"$bin/roll" --no-progress --config "$config" --history "$out/day$day.history.ndjson.zst" \
		--decider "exec:jq -c --unbuffered -f $root/examples/rolling-rules/decider.jq" \
		-o "$out/day$day.result.ndjson.zst" "$out/day$day.exec.ndjson.zst"
	"$bin/metrics" -i "$out/day$day.result.ndjson.zst" -o "$out/day$day.metrics.ndjson"
	jq -r --arg day "$day" --arg safety "$safety" 'select(.type == "metrics") | .rolling_control
		| "day \($day): \(.decision_count) decisions, \([.selected_action_sequence[] | select(. != $safety)] | length) away from \($safety): \(.selected_action_sequence | join(" "))"' \
		"$out/day$day.metrics.ndjson"
done
