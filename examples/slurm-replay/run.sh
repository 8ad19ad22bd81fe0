#!/bin/sh
# slurm-replay/run.sh OUTDIR — replay a Slurm cluster's own history (docs/slurm-import.md):
# sacct -P and scontrol show node -o output (here the fixture of tests/data/slurm/, every job
# state Slurm writes) with a declared class map (the scavenger QOS is Spot, the rest HP),
# three catalogue policies, metrics, an SLO audit against FIFO, the ranking and the decision.
# For your own cluster, export sacct.txt and nodes.txt as docs/slurm-import.md (1.) shows
# and pass them instead: sh examples/slurm-replay/run.sh OUTDIR sacct.txt nodes.txt.
set -eu
[ $# -eq 1 ] || [ $# -eq 3 ] || { echo "usage: sh examples/slurm-replay/run.sh OUTDIR [SACCT NODES]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${SCHEDNAV_BIN:-$root/bin}
out=$1
jobs=${2:-$root/tests/data/slurm/sacct-states.txt}
nodes=${3:-$root/tests/data/slurm/nodes.txt}
mkdir -p "$out"
"$bin/trace-import" slurm --jobs "$jobs" --nodes "$nodes" \
	--class qos:scavenger=Spot --class qos:normal=HP --class qos:high=HP -o "$out/cluster.trace.ndjson"
echo "import: $(jq -c 'select(.type == "header") | .skipped_rows' "$out/cluster.trace.ndjson")"
for p in native-fifo native-preemptive-3600 native-preemptive-g3600-b09-loss-aware; do
	"$bin/sim-run" --policy "$root/configs/policies/$p.json" -i "$out/cluster.trace.ndjson" -o "$out/$p.result.ndjson.zst"
	"$bin/metrics" -i "$out/$p.result.ndjson.zst" -o "$out/$p.metrics.ndjson"
done
slo="$root/configs/slos/schednav-demo-slo-v1.json"
"$bin/slo-audit" --slo "$slo" --baseline "$out/native-fifo.metrics.ndjson" -o "$out/audit.ndjson" "$out"/*.metrics.ndjson
"$bin/rank" --slo "$slo" -o "$out/ranking.ndjson" "$out"/*.metrics.ndjson "$out/audit.ndjson"
"$bin/decision-table" --approve-program "$bin/approve" "$out"/*.metrics.ndjson "$out/audit.ndjson" "$out/ranking.ndjson"
