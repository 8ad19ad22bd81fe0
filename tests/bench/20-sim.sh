#!/bin/sh
# sim-run throughput: wall time, events/s and peak RSS per policy on the largest golden
# case, Chronus Philly MIX1 (full Philly machine list and a seeded ~500-GPU subset), a
# 466,867-job synthetic trace on the Alibaba v2026 inventory (load ~0.75) and the full
# trace-synth v2026 trace (seed 1, heavily overloaded: large queues).
# Prints one Markdown section. Events = arrivals + completions + evictions.
set -eu
cd "$(dirname "$0")/../.."
BIN=${SCHEDNAV_BIN:-$PWD/bin}
SHARED=${SCHEDNAV_SHARED:-$PWD/../shared}
WORK=${TMPDIR:-/tmp}/schednav-bench-sim
mkdir -p "$WORK"
POLICIES="native-fifo native-preemptive-g3600-b09-d0000"

measure() { # trace policy -> "wall_s rss_kib events cpu_s"
	python3 - "$BIN/sim-run" "$1" "configs/policies/$2.json" "$WORK/out.ndjson" <<'PY'
import resource, subprocess, sys, time, json
# children waited for before this point (python's own start-up helpers) are subtracted
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
t = time.monotonic()
subprocess.run([sys.argv[1], "--policy", sys.argv[3], "--input", sys.argv[2], "-o", sys.argv[4]], check=True)
wall = time.monotonic() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
rss, cpu = ru.ru_maxrss, (ru.ru_utime + ru.ru_stime) - (r0.ru_utime + r0.ru_stime)
ev = 0
for line in open(sys.argv[4]):
    if '"type":"job_result"' in line: ev += 2
    elif '"type":"preemption"' in line: ev += 1
print("%.2f %d %d %.2f" % (wall, rss, ev, cpu))
PY
}

row() { # label trace
	for p in $POLICIES; do
		set -- "$1" "$2" $(measure "$2" "$p")
		printf '| %s | %s | %s | %s | %s | %.0f | %s |\n' "$1" "$p" "$5" "$3" "$6" "$(echo "$5 $6" | awk '{print $1/$2}')" "$(( $4 / 1024 ))"
		set -- "$1" "$2"
	done
}

echo "## sim-run"
echo
echo "One process, one core. Wall time includes reading the trace and writing the result and"
echo "depends on what else runs on the machine; CPU s (user + sys) is the steadier figure."
echo
echo "| trace | policy | events | wall s | CPU s | events per CPU s | peak RSS MiB |"
echo "|---|---|---|---|---|---|---|"
notes=""
# largest golden case (by job count)
if [ -d "$SHARED/golden/cases" ]; then
	big=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["cases"]; print(max(d, key=lambda c: d[c]["job_count"]))' "$SHARED/golden/expected-golden.json")
	if "$BIN/trace-import" canonical "$SHARED/golden/cases/$big" -o "$WORK/golden.ndjson" 2>/dev/null; then
		row "golden $big" "$WORK/golden.ndjson"
	else
		notes="$notes- golden $big: skipped, \`trace-import canonical\` is not available in this build.\n"
	fi
fi
mix1="$SHARED/data/philly-chronus/trace_job_Philly_MIX1.csv"
machines=tests/data/philly-cluster_machine_list.zst
if [ -f "$mix1" ] && "$BIN/trace-import" csv --map configs/maps/chronus-philly.json --nodes-file "$machines" \
	"$mix1" -o "$WORK/mix1.ndjson" 2>/dev/null; then
	row "Chronus Philly MIX1, full Philly machine list" "$WORK/mix1.ndjson"
	if "$BIN/trace-import" csv --map configs/maps/chronus-philly.json --nodes-file "$machines" \
		--node-subset-gpus 500 --seed 1 "$mix1" -o "$WORK/mix1-500.ndjson" 2>/dev/null; then
		row "Chronus Philly MIX1, seeded 500-GPU subset" "$WORK/mix1-500.ndjson"
	fi
else
	notes="$notes- Chronus Philly MIX1: skipped, needs $mix1 and \`trace-import csv\`.\n"
fi
nodes="$SHARED/data/alibaba-spot-gpu-v2026/node_info_df.csv"
if [ -f "$nodes" ]; then
	if [ ! -s "$WORK/synth-466867.ndjson" ]; then
		cc -std=c11 -O2 -ffp-contract=off -D_DEFAULT_SOURCE -Ilib -DSCHEDNAV_VERSION='"0.1.0"' -o "$WORK/gen-spot-synth" \
			tests/bench/gen-spot-synth.c build/libschednav.a -lzstd -lxxhash -lyajl -lmd -lm
		"$WORK/gen-spot-synth" "$nodes" 466867 1 > "$WORK/synth-466867.ndjson"
	fi
	row "synthetic 466,867 jobs, v2026 nodes" "$WORK/synth-466867.ndjson"
fi
if [ -f configs/profiles/alibaba-spot-gpu-v2026.json ]; then
	[ -s "$WORK/trace-synth-v2026-s1.ndjson.zst" ] ||
		"$BIN/trace-synth" --profile configs/profiles/alibaba-spot-gpu-v2026.json --seed 1 -o "$WORK/trace-synth-v2026-s1.ndjson.zst"
	row "trace-synth v2026 seed 1 (overloaded)" "$WORK/trace-synth-v2026-s1.ndjson.zst"
fi
[ -z "$notes" ] || { echo; printf '%b' "$notes"; }
rm -f "$WORK/out.ndjson"
