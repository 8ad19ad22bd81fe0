#!/bin/sh
# trace-analyze on the full-size synthetic spot trace (466,867 jobs) at three sample intervals,
# and what a schednav-mcp call adds to running the same tools directly.
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin/trace-synth --profile configs/profiles/alibaba-spot-gpu-v2026.json --seed 7 -o "$tmp/full.ndjson.zst"
best() { # best wall seconds and peak RSS MiB of 3 runs of a command
	b= r=
	for i in 1 2 3; do
		/usr/bin/time -f '%e %M' -o "$tmp/time" "$@" > /dev/null
		set -- "$@"
		b=$(awk -v b="$b" '{ if (b == "" || $1 < b) print $1; else print b }' "$tmp/time")
		r=$(awk '{ printf "%.0f", $2 / 1024 }' "$tmp/time")
	done
	echo "$b $r"
}
echo "## trace-analyze and schednav-mcp"
echo
echo "trace-analyze on the full-size synthetic v2026 trace (466,867 jobs, \`trace-synth --seed 7\`, zstd), best of 3 runs:"
echo "each job adds its GPUs to the one run of samples it covers, so the cost is reading the stream plus (job, covered sample) pairs."
echo
echo "| sample interval | samples | wall s | peak RSS MiB |"
echo "|---:|---:|---:|---:|"
for i in 3600 900 60; do
	set -- $(best bin/trace-analyze --sample-interval "$i" -o "$tmp/wl.ndjson" "$tmp/full.ndjson.zst")
	n=$(bin/trace-analyze --sample-interval "$i" "$tmp/full.ndjson.zst" | sed -n 2p | jq '.window_seconds | ((.end - .start) / '"$i"' | floor) + 1')
	printf '| %s | %s | %s | %s |\n' "$i" "$n" "$1" "$2"
done
echo
# one simulate_policy call through the bridge against sim-run + metrics directly (MIX1 window)
w=$tmp/ws
mkdir -p "$w/traces" "$w/run-configs"
bin/trace-import csv --map configs/maps/chronus-philly.json --nodes-file tests/data/philly-cluster_machine_list.zst \
	--node-subset-gpus 200 --seed 1 tests/data/chronus-trace_job_Philly_MIX1.csv.zst -o "$tmp/mix1.ndjson.zst"
bin/trace-window --eval-start 3600 --eval-end 18000 --warmup-start 1800 -i "$tmp/mix1.ndjson.zst" -o "$w/traces/w.ndjson.zst"
echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/w.ndjson.zst"}' > "$w/run-configs/w.json"
direct() { bin/sim-run --policy configs/policies/native-preemptive-3600.json --input "$w/traces/w.ndjson.zst" -o "$tmp/r.zst" && bin/metrics -i "$tmp/r.zst" -o "$tmp/m"; }
bridge() {
	k=$1
	printf '%s\n%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}' \
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"simulate_policy\",\"arguments\":{\"run_config_id\":\"w\",\"action_id\":\"native-preemptive-3600\",\"idempotency_key\":\"bench-$k-0000\"}}}" |
		SCHEDNAV_CONFIGS=configs bin/schednav-mcp --profile simulation --workspace "$w" > /dev/null
}
t() { t0=$(date +%s.%N); "$@"; t1=$(date +%s.%N); echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }'; }
d1=$(t direct); d2=$(t direct); b1=$(t bridge 1); b2=$(t bridge 2); r=$(t bridge 2)
echo "One \`simulate_policy\` (Chronus MIX1, 200 GPUs, evaluation 3600-18000 s), two runs each, wall seconds:"
echo
echo "| path | run 1 | run 2 |"
echo "|---|---:|---:|"
echo "| sim-run + metrics directly | $d1 | $d2 |"
echo "| schednav-mcp tools/call (new task: spawn both, verify both streams, task + audit fsyncs) | $b1 | $b2 |"
echo "| schednav-mcp replay of a stored task (same key) | $r | - |"
