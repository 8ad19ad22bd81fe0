#!/bin/sh
# sim-run on the physical node model (issue 36, docs/simulator.md §3.13): the pool model's
# replay time with the option off against a build from before it (SCHEDNAV_BIN_BEFORE, a bin/
# directory; the row is left out without it), target within 5 %; and the node model's cost on
# the v2023 default pod list (real times, whole cluster) per strategy. CPU s = user + sys of
# the child, best of 3. Prints one Markdown section.
set -eu
cd "$(dirname "$0")/../.."
BIN=${SCHEDNAV_BIN:-$PWD/bin}
BEFORE=${SCHEDNAV_BIN_BEFORE:-}
SHARED=${SCHEDNAV_SHARED:-$PWD/../shared}
WORK=${TMPDIR:-/tmp}/schednav-bench-placement-sim
mkdir -p "$WORK"

cpu() { # BIN POLICY TRACE [ARGS...] -> best-of-3 CPU seconds
	python3 - "$@" <<'PY'
import resource, subprocess, sys
best = None
for _ in range(3):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.argv[1] + "/sim-run", "--no-progress", "--policy", sys.argv[2], "--input", sys.argv[3], "-o", "/dev/null"] + sys.argv[4:], check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    c = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    best = c if best is None else min(best, c)
print("%.2f" % best)
PY
}

echo "## sim-run on the physical node model (issue 36)"
echo
[ -s "$WORK/trace-synth-v2026-s1.ndjson.zst" ] ||
	"$BIN/trace-synth" --profile configs/profiles/alibaba-spot-gpu-v2026.json --seed 1 -o "$WORK/trace-synth-v2026-s1.ndjson.zst"
echo "The pool model (\`deterministic_best_fit\`, the default) on the trace-synth v2026 seed-1 trace"
echo "(466,867 jobs), native-fifo, CPU s best of 3:"
echo
echo "| build | CPU s | × before |"
echo "|---|---:|---:|"
after=$(cpu "$BIN" configs/policies/native-fifo.json "$WORK/trace-synth-v2026-s1.ndjson.zst")
if [ -n "$BEFORE" ]; then
	before=$(cpu "$BEFORE" configs/policies/native-fifo.json "$WORK/trace-synth-v2026-s1.ndjson.zst")
	echo "| before (SCHEDNAV_BIN_BEFORE) | $before | 1.00 |"
	echo "| this build | $after | $(echo "$after $before" | awk '{printf "%.3f", $1 / $2}') |"
else
	echo "| this build | $after | – |"
fi
echo
D="$SHARED/data/alibaba-gpu-v2023"
if [ ! -f "$D/openb_pod_list_default.csv" ]; then
	echo "The v2023 rows are skipped: they need ../shared/data/alibaba-gpu-v2023."
	exit 0
fi
"$BIN/trace-import" alibaba-v2023 --nodes "$D/openb_node_list_gpu_node.csv" --pods "$D/openb_pod_list_default.csv" --resources \
	--no-progress -o "$WORK/v2023-default.ndjson"
echo "The v2023 default pod list (6,100 GPU pods, 1,213 nodes, real times) under native-preemptive-3600:"
echo
echo "| placement_strategy | CPU s |"
echo "|---|---:|"
for s in deterministic_best_fit largest-free random dot-product gpu-clustering gpu-packing best-fit fgd; do
	echo "| $s | $(cpu "$BIN" configs/policies/native-preemptive-3600.json "$WORK/v2023-default.ndjson" --placement "$s") |"
done
