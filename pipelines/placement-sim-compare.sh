#!/bin/sh
# placement-sim-compare.sh — issue 36 item 5: the v2023 default pod list, with its real times,
# through sim-run on the pool model and on the physical node model (largest-free, best-fit,
# fgd), under HP-first preemption (native-preemptive-3600); prints the queueing and eviction
# table of docs/placement.md ("The simulator on the node model").
#
#   sh pipelines/placement-sim-compare.sh [DATA_DIR [WORK_DIR]]
#
# DATA_DIR holds openb_node_list_gpu_node.csv and openb_pod_list_default.csv (default
# ../shared/data/alibaba-gpu-v2023); WORK_DIR (default a temporary directory, removed) gets the
# traces, results and metrics. Two clusters: the whole one (1,213 nodes, 6,212 GPUs), and a
# small one, every KEEP-th node in node order (KEEP, default 150) plus the first G3 node (the
# only shape with the CPU and memory of the largest pods), where the same pods contend.
# Deterministic: the same inputs print the same bytes.
set -eu
DATA=${1:-../shared/data/alibaba-gpu-v2023}
KEEP=${KEEP:-150}
if [ $# -ge 2 ]; then W=$2; mkdir -p "$W"; else W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; fi
POLICY=configs/policies/native-preemptive-3600.json
STRATEGIES="deterministic_best_fit largest-free best-fit fgd"

trace-import alibaba-v2023 --nodes "$DATA/openb_node_list_gpu_node.csv" --pods "$DATA/openb_pod_list_default.csv" \
	--resources --no-progress -o "$W/full.trace.ndjson"
# the small cluster: the header, the kept nodes, every job; resealed
jq -c --argjson k "$KEEP" -n '
	[inputs | select(.type != "end")] as $r
	| ([$r[] | select(.type == "node")]) as $nodes
	| ([$nodes | to_entries[] | select(.key % $k == 0 or (.value.gpu_model == "G3" and .key == ([$nodes | to_entries[] | select(.value.gpu_model == "G3") | .key] | min))) | .value]) as $kept
	| ($r[] | select(.type == "header")), $kept[], ($r[] | select(.type == "job"))' "$W/full.trace.ndjson" > "$W/small.body"
stream-seal "$W/small.body" > "$W/small.trace.ndjson"

row() {   # cluster strategy metrics-file
	jq -r --arg c "$1" --arg s "$2" 'select(.type == "metrics") |
		def r(x): if x == null then "–" else (x * 100 | round / 100 | tostring) end;
		"| \($c) | \($s) | \(r(.hp_queue_mean_seconds)) | \(r(.hp_queue_p95_seconds)) | \(r(.spot_queue_mean_seconds)) | \(r(.spot_queue_p95_seconds)) | \(.preemption_event_count) | \(.spot_preempted_job_count) | \(r(.placement.fragmented_gpus_mean)) | \(if .placement then (.placement.unplaced_fragmentation_job_count | tostring) else "–" end) | \(if .placement then (.placement.unplaced_capacity_job_count | tostring) else "–" end) |"' "$3"
}

echo "| cluster | placement | HP queue mean s | HP queue p95 s | Spot queue mean s | Spot queue p95 s | evictions | Spot jobs evicted | fragmented GPUs (mean) | refused for fragmentation | waited for capacity |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for c in full small; do
	nodes=$(grep -c '"type":"node"' "$W/$c.trace.ndjson")
	gpus=$(jq -s '[.[] | select(.type == "node") | .gpu_count] | add' "$W/$c.trace.ndjson")
	for s in $STRATEGIES; do
		sim-run --no-progress --policy "$POLICY" --placement "$s" -i "$W/$c.trace.ndjson" -o "$W/$c.$s.result.ndjson"
		metrics -i "$W/$c.$s.result.ndjson" -o "$W/$c.$s.metrics.ndjson"
		row "$c ($nodes nodes, $gpus GPUs)" "$s" "$W/$c.$s.metrics.ndjson"
	done
done
