#!/bin/sh
# sim-run --controller (predictive-spot-v1) next to the plain replay of the same trace and
# policy: Chronus Philly MIX1 on a seeded ~500-GPU subset, a 466,867-job synthetic trace on
# the Alibaba v2026 inventory (184 days, the full-scale size) and the full trace-synth v2026
# trace (overloaded). CPU s (user + sys of the child) is the best of 3 runs of each, plain and
# controlled interleaved, because the machine is shared. Prints one Markdown section.
set -eu
cd "$(dirname "$0")/../.."
BIN=${SCHEDNAV_BIN:-$PWD/bin}
SHARED=${SCHEDNAV_SHARED:-$PWD/../shared}
WORK=${TMPDIR:-/tmp}/schednav-bench-sim
CTRL=configs/controllers/predictive-spot-v1.json
mkdir -p "$WORK"
POLICIES="native-fifo native-preemptive-g3600-b09-d0000"

measure() { # trace policy -> "plain_cpu ctrl_cpu ctrl_rss_kib decisions"
	python3 - "$BIN/sim-run" "$1" "configs/policies/$2.json" "$CTRL" "$WORK" <<'PY'
import resource, subprocess, sys
sim, trace, policy, ctrl, work = sys.argv[1:]
def cpu(args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, check=True)
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r.ru_utime + r.ru_stime) - (r0.ru_utime + r0.ru_stime), r.ru_maxrss
plain, ctl, rss = [], [], 0
for _ in range(3):
    plain.append(cpu([sim, "--policy", policy, "--input", trace, "-o", work + "/plain.nd"])[0])
    t, m = cpu([sim, "--policy", policy, "--controller", ctrl, "--input", trace, "-o", work + "/ctrl.nd"])
    ctl.append(t)
    rss = max(rss, m)
n = sum(1 for line in open(work + "/ctrl.nd") if '"type":"control_decision"' in line)
print("%.2f %.2f %d %d" % (min(plain), min(ctl), rss, n))
PY
}

row() { # label trace
	for p in $POLICIES; do
		set -- "$1" "$2" $(measure "$2" "$p")
		printf '| %s | %s | %s | %s | %s | +%.0f %% | %s |\n' "$1" "$p" "$6" "$3" "$4" \
			"$(echo "$3 $4" | awk '{print ($2 / $1 - 1) * 100}')" "$(( $5 / 1024 ))"
		set -- "$1" "$2"
	done
}

echo "## sim-run --controller (predictive-spot-v1)"
echo
echo "The aggregate predictive controller inside the event loop (an update every 300 s of"
echo "simulated time, warm-up and drain included; the result stream gains one control_decision"
echo "per update), next to the plain replay of the same trace and policy. CPU s = user + sys,"
echo "best of 3 interleaved runs each (the machine is shared). Target: at most +50 %."
echo
echo "| trace | policy | updates | plain CPU s | controlled CPU s | controller adds | peak RSS MiB |"
echo "|---|---|---|---|---|---|---|"
notes=""
mix1="$SHARED/data/philly-chronus/trace_job_Philly_MIX1.csv"
machines=tests/data/philly-cluster_machine_list.zst
if [ -f "$mix1" ]; then
	[ -s "$WORK/mix1-500.ndjson" ] || "$BIN/trace-import" csv --map configs/maps/chronus-philly.json --nodes-file "$machines" \
		--node-subset-gpus 500 --seed 1 "$mix1" -o "$WORK/mix1-500.ndjson"
	row "Chronus Philly MIX1, seeded 500-GPU subset" "$WORK/mix1-500.ndjson"
else
	notes="$notes- Chronus Philly MIX1: skipped, needs $mix1.\n"
fi
nodes="$SHARED/data/alibaba-spot-gpu-v2026/node_info_df.csv"
if [ -f "$nodes" ]; then
	if [ ! -s "$WORK/synth-466867.ndjson" ]; then
		cc -std=c11 -O2 -ffp-contract=off -D_DEFAULT_SOURCE -Ilib -DSCHEDNAV_VERSION='"0.1.0"' -o "$WORK/gen-spot-synth" \
			tests/bench/gen-spot-synth.c build/libschednav.a -lzstd -lxxhash -lyajl -lmd -lm
		"$WORK/gen-spot-synth" "$nodes" 466867 1 > "$WORK/synth-466867.ndjson"
	fi
	row "synthetic 466,867 jobs, v2026 nodes (184 days)" "$WORK/synth-466867.ndjson"
else
	notes="$notes- synthetic 466,867 jobs: skipped, needs $nodes.\n"
fi
[ -s "$WORK/trace-synth-v2026-s1.ndjson.zst" ] ||
	"$BIN/trace-synth" --profile configs/profiles/alibaba-spot-gpu-v2026.json --seed 1 -o "$WORK/trace-synth-v2026-s1.ndjson.zst"
row "trace-synth v2026 seed 1 (overloaded)" "$WORK/trace-synth-v2026-s1.ndjson.zst"
[ -z "$notes" ] || { echo; printf '%b' "$notes"; }
rm -f "$WORK/plain.nd" "$WORK/ctrl.nd"
