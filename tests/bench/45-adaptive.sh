#!/bin/sh
# The adaptive holdout study at full scale (configs/studies/adaptive-holdout.json: the 184-day
# synthetic /4 trace (ADAPTIVE_BENCH_STUDY=configs/studies/adaptive-holdout-v3.json: the /3 one, -v2.json: the v2 one), its GPU-series-2 pool, every eligible day, five actions twice each) from scratch
# with `make -j2 adaptive`, then, when a Slurm cluster is reachable, again with
# SIM_LAUNCHER=slurm (evidence compared byte for byte). Every recipe runs under
# tests/bench/timed-shell, so the study's own run gives each step's CPU; from those, the
# critical path and a projection on N nodes. Prints one Markdown section.
# ADAPTIVE_BENCH_WORK keeps the study in that (empty) directory; ADAPTIVE_BENCH_BIN overrides bin/;
# ADAPTIVE_BENCH_SLURM=no skips the Slurm run.
# The machine is shared: load averages are printed beside each wall time.
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd)
study=${ADAPTIVE_BENCH_STUDY:-configs/studies/adaptive-holdout.json}
# the pool (trace-synth --gpu-model) and profile the study's trace is drawn from
pool=$(jq -r '.trace.synth as $a | $a[($a | index("--gpu-model")) + 1]' "$study")
profile=$(jq -r '.trace.synth as $a | $a[($a | index("--profile")) + 1]' "$study")
seed=$(jq -r '.trace.synth as $a | if ($a | index("--seed")) then $a[($a | index("--seed")) + 1] else "1" end' "$study")
bin=${ADAPTIVE_BENCH_BIN:-$root/bin}
if [ -n "${ADAPTIVE_BENCH_WORK:-}" ]; then
	work=$ADAPTIVE_BENCH_WORK
	mkdir -p "$work"
	[ -z "$(ls -A "$work")" ] || { echo "45-adaptive.sh: '$work' is not empty" >&2; exit 1; }
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
load() { uptime | sed 's/.*load average: *//'; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# run NAME [make args...]: the study into $work/NAME with every recipe timed into $work/NAME.times
run() {
	name=$1
	shift
	mkdir -p "$work/$name"
	: > "$work/$name.times"
	load_before=$(load)
	start=$(now)
	TIMED_SHELL_LOG="$work/$name.times" make --no-print-directory -j2 adaptive STUDY="$study" STUDY_WORK="$work/$name" \
		STUDY_BIN="$bin" SHELL="$root/tests/bench/timed-shell" "$@" > "$work/$name.log" 2>&1 ||
		{ tail -20 "$work/$name.log" >&2; exit 1; }
	wall=$(since "$start")
	load_after=$(load)
	cpu=$(awk '{ s += $1 + $2 } END { printf "%.0f", s }' "$work/$name.times")
}

echo "## Study: adaptive holdout at full scale (make -j2 adaptive)"
echo
run local
sw=$work/local/$(basename "$study" .json)
ncal=$(jq '.calibration.window_ids | length' "$sw/evidence.json")
neval=$(jq '.evaluation.window_ids | length' "$sw/evidence.json")
sims=$(find "$sw" -name 'rep-*.result.ndjson.zst' | wc -l)
jobs=$(zstdcat -qf "$sw/trace.ndjson.zst" | grep -c '"type":"job"')
local_wall=$wall local_cpu=$cpu local_load="$load_before / $load_after"
noop_before=$(load)
noop_start=$(now)
make --no-print-directory -q adaptive STUDY="$study" STUDY_WORK="$work/local" STUDY_BIN="$bin"
noop_wall=$(awk -v a="$noop_start" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
noop_load="$noop_before / $(load)"
echo "\`$study\`: the 184-day trace of \`trace-synth\` (profile \`$profile\`,"
echo "seed $seed), its $pool pool ($(jq -r .adaptive.design.capacity_gpus "$sw/evidence.json") GPUs, $jobs jobs), every eligible day:"
echo "$ncal calibration + $neval evaluation days, each with its 30-day HP+Spot carry-in drained to"
echo "completion, five actions twice: $sims simulations, every pair fingerprint-identical."
echo
echo "| run | wall time | CPU (user + sys, every recipe) | \`uptime\` load averages before / after |"
echo "|---|---|---|---|"
printf '| `make -j2 adaptive` from scratch, local | %s s | %s s | %s |\n' "$local_wall" "$local_cpu" "$local_load"
printf '| `make -q adaptive` afterwards (nothing to do) | %s s | | %s |\n' "$noop_wall" "$noop_load"
slurm=
if [ "${ADAPTIVE_BENCH_SLURM:-yes}" != no ] && command -v sinfo >/dev/null && sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
	nodes=$(sinfo -h -o %D | head -n 1)
	cpus=$(sinfo -h -o %C | head -n 1 | awk -F/ '{print $4}')
	run slurm SIM_LAUNCHER=slurm
	same=no
	cmp -s "$sw/evidence.json" "$work/slurm/$(basename "$study" .json)/evidence.json" && same=yes
	printf '| `make -j2 adaptive SIM_LAUNCHER=slurm`, local Slurm (%s node, %s CPUs) | %s s | %s s (Make side only: the simulations ran in slurmstepd) | %s / %s |\n' \
		"$nodes" "$cpus" "$wall" "$cpu" "$load_before" "$load_after"
	slurm=$work/slurm.times
	echo
	echo "Evidence through Slurm byte-identical to the local run's: $same."
else
	echo
	echo "No Slurm reachable: the Slurm run was skipped (tests/slurm/start-local.sh starts one)."
fi
echo
echo "Make keeps 2 jobs running (-j2); the run itself accounts for a load of about 2, more means"
echo "other jobs took CPU time from it, so the CPU column is the steadier figure."
echo
echo "### Where the CPU goes (from the run's own recipes)"
echo
echo "| step | recipes | CPU s total | CPU s each (mean) | wall s each (mean) |"
echo "|---|---:|---:|---:|---:|"
awk '{ n[$4]++; c[$4] += $1 + $2; w[$4] += $3 } END { for (k in n) printf "| %s | %d | %.1f | %.3f | %.3f |\n", k, n[k], c[k], c[k] / n[k], w[k] / n[k] }' \
	"$work/local.times" | sort -t'|' -k4 -rn
echo
mean() { awk -v s="$1" '$4 == s { c += $1 + $2; n++ } END { printf "%.3f", n ? c / n : 0 }' "$2"; }
meanw() { awk -v s="$1" '$4 == s { c += $3; n++ } END { printf "%.3f", n ? c / n : 0 }' "$2"; }
t=$work/local.times
t_sim=$(mean sim-run "$t")
nwin=$((ncal + neval))
# Make-side CPU per window: everything that is not a simulation and runs once per window
t_window=$(awk -v w=$nwin '$4 ~ /^(trace-window|study-gate.sh|metrics|slo-audit|rank|study-receipt.sh)$/ { c += $1 + $2 } END { printf "%.3f", c / w }' "$t")
t_serial=$(awk '$4 ~ /^(trace-synth|trace-scan|adaptive-design|stream-verify|jq|aggregate|study-select|study-lock|study-lock-verify|adaptive-eval|study-evidence.sh|other)$/ { c += $3 } END { printf "%.1f", c }' "$t")
# one window's chain (wall of each step) and the serial steps between the phases
t_chain=$(awk '$4 ~ /^(trace-window|sim-run|study-gate.sh|metrics|slo-audit|rank|study-receipt.sh)$/ { w[$4] += $3; n[$4]++ } END { for (k in w) s += w[k] / n[k]; printf "%.2f", s }' "$t")
t_crit=$(awk -v s="$t_serial" -v c="$t_chain" 'BEGIN { printf "%.1f", s + 2 * c }')
# srun's own cost per simulation: 20 empty jobs one after the other, and 20 steps of one allocation
o=0 o_step=
if [ -n "$slurm" ]; then
	o=$(s=$(now); for _ in $(seq 20); do srun --quiet -n1 -c1 true; done; awk -v a="$s" -v b="$(now)" 'BEGIN { printf "%.3f", (b - a) / 20 }')
	o_step=$(salloc --quiet -n1 sh -c 's=$(date +%s.%N); for i in $(seq 20); do srun --quiet -n1 -c1 true; done; e=$(date +%s.%N); awk -v a="$s" -v b="$e" "BEGIN { printf \"%.3f\", (b - a) / 20 }"')
fi
echo "Per simulation $t_sim CPU-s; per window $t_window CPU-s of Make-side work (slice, gates,"
echo "metrics, audit, ranking, receipt); serial steps (trace, scan, design, summaries, selection,"
echo "lock, benchmark, evidence) $t_serial s; one window's chain $t_chain s."
if [ -n "$slurm" ]; then
	echo "srun's own cost on the idle-ish local Slurm: ${o} s per simulation as a job of its own, ${o_step} s as a"
	echo "step of an allocation (20 empty runs each). The wall time per simulation recipe was"
	echo "$(meanw sim-run-slurm "$slurm") s through Slurm and $(meanw sim-run "$t") s locally: at this load the queueing for the two"
	echo "CPUs hides it (both runs kept two simulations going)."
fi
echo
echo "### Projection on N nodes"
echo
echo "Critical path T0 = serial steps + one calibration and one evaluation window's chain = $t_crit s."
echo "With N nodes of C cores for the $sims simulations (each $t_sim s plus srun's $o s) and L cores"
echo "on the machine that runs make for the Make-side work ($nwin windows x $t_window s):"
echo "T(N) = T0 + max($sims x ($t_sim + $o) / (N x C), $nwin x $t_window / L)."
echo
echo "| N nodes x C cores for simulations | L = 2 (make on this machine) | L = 8 | L = 32 (make on a compute node) |"
echo "|---|---:|---:|---:|"
for nc in 1:32 2:32 4:32 16:32 64:32; do
	awk -v n=${nc%:*} -v c=${nc#*:} -v s=$sims -v ts="$t_sim" -v o="$o" -v w=$nwin -v tw="$t_window" -v t0="$t_crit" 'BEGIN {
		a = s * (ts + o) / (n * c)
		printf "| %d x %d |", n, c
		split("2 8 32", L, " ")
		for (i = 1; i <= 3; i++) { m = w * tw / L[i]; printf " %.0f s |", t0 + (a > m ? a : m) }
		printf "\n" }'
done
echo
echo "The Make-side work (slices, gates, metrics, audits, receipts: $(awk -v w=$nwin -v tw="$t_window" 'BEGIN { printf "%.0f", w * tw }') CPU-s) is about as large as"
echo "the simulations' ($(awk -v s=$sims -v ts="$t_sim" 'BEGIN { printf "%.0f", s * ts }') CPU-s) and stays on the machine that runs make: past one node the"
echo "study is bounded by that machine's cores, not by the cluster (docs/studies.md, \"What scales\"). The"
echo "model takes the CPU means of this (loaded) run as each step's cost on a dedicated core."
echo
echo "### The benchmark next to the original's"
echo
echo "The trace is synthetic (drawn from the profile's aggregate tables of the real trace, not its"
echo "jobs), the pool is $pool and the agent is the scripted stand-in, not deepseek-v4-flash: a"
echo "comparison of shape, not of numbers (docs/headline-studies.md)."
echo
echo "Each cell: ours / the original's published figure (docs/adaptive-holdout-evaluation.md of the"
echo "original: 45 evaluation days, 41 with a hard-pass action; regret was published for two rows)."
echo
echo "| controller | evaluations | reduction | feasible days | frontier coverage | exact frontier | mean uplift range vs FIFO, pp | lower bound +/=/- | mean regret, pp |"
echo "|---|---|---|---|---|---|---|---|---|"
jq -r '
def pp: if . == null then "-" else (. * 1e6 | round / 1e4 | tostring) end;
{fifo: ["45", "80.0%", "40/45", "36/41", "-", "0.0000", "0/40/0", "-"], best_static: ["45", "80.0%", "40/45", "36/41", "-", "0.0000", "0/40/0", "-"],
 workload_rule: ["135", "40.0%", "41/45", "39/41", "-", "+0.0807 to +0.1051", "4/37/0", "0.1507"],
 agent: ["185", "17.8%", "41/45", "41/41", "27/41", "+0.2092 to +0.2571", "5/36/0", "0.0014"],
 catalog_oracle: ["225", "0.0%", "41/45", "41/41", "41/41", "+0.2092 to +0.2592", "5/36/0", "-"]} as $orig
| .adaptive.benchmark[] | . as $c | $orig[.controller_id] as $o
| if .status != "evaluated" then "| \(.controller_id) | \(.status) | | | | | | | |" else
  "| \(.controller_id) | \(.candidate_evaluation_count) / \($o[0]) | \(.evaluation_reduction_vs_catalogue * 1000 | round / 10)% / \($o[1]) | \(.hard_slo_feasible_window_count)/\(.evaluation_window_count) / \($o[2]) | \(.frontier_coverage_window_count)/\(.catalogue_feasible_window_count) / \($o[3]) | \(.frontier_exact_match_window_count)/\(.catalogue_feasible_window_count) / \($o[4]) | \(.allocation_uplift_vs_fifo.mean_lower_bound | pp) to \(.allocation_uplift_vs_fifo.mean_upper_bound | pp) / \($o[5]) | \(.allocation_uplift_vs_fifo.lower_bound_positive_window_count)/\(.allocation_uplift_vs_fifo.lower_bound_equal_window_count)/\(.allocation_uplift_vs_fifo.lower_bound_negative_window_count) / \($o[6]) | \(.allocation_regret_vs_catalogue_best.mean | pp) / \($o[7]) |" end' "$sw/evidence.json"
echo
# how often the five actions differ at all: days on which their mean allocations are not all equal
differ() { jq --arg p "$1" '[.windows[] | select(.partition == $p) | [.policies[].allocation_rate_mean] | unique | length > 1] | map(select(.)) | length' "$sw/evidence.json"; }
preempt=$(zstdcat -qf "$sw"/evaluation/*/*/metrics.ndjson.zst | jq -s '[.[] | select(.type == "metrics") | .preemption_event_count] | add')
calfail=$(jq -r '[.calibration.arms[] | "\(.action_id | sub("native-"; "")) \(.hard_slo_passed_windows)/\(.windows)"] | join(", ")' "$sw/evidence.json")
echo "Separation: the five actions allocate differently on $(differ evaluation) of the $neval evaluation"
echo "days and $(differ calibration) of the $ncal calibration days; the evaluation days' simulations record"
echo "$preempt preemptions in all. Calibration hard passes: $calfail."
echo "The original's GPU-series-2 pool: 4 of 45 evaluation days without any hard pass, FIFO off"
echo "5 of 41 oracle frontiers."
echo
echo "Best static on calibration: \`$(jq -r '.adaptive.best_static | "\(.selection_status) \(.selected_action_ids | join(", "))"' "$sw/evidence.json")\`"
echo "(the original: native-fifo). Evidence status: \`$(jq -r .evidence_status "$sw/evidence.json")\`."
