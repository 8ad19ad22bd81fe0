#!/bin/sh
# The two other headline studies at full scale on GPU-series-2 (docs/headline-studies.md): the
# predictive multi-window study (configs/studies/predictive-multiwindow.json: 6 calibration + 5
# holdout days after 844 h of history, six arms) and the rolling ablation
# (configs/studies/rolling-ablation.json: 5 consecutive days, every arm), both on the /4 trace
# (their -v3.json twins: the /3 trace; -v2.json: the v2 trace), each from scratch with
# `make -j2`, one after the other. Prints one Markdown section: wall and CPU time (user + sys of
# every recipe, from make's rusage), the load beside it, each study's table next to the
# original's published counts, and on how many days the arms allocate differently.
# HEADLINE_BENCH_WORK keeps the studies in that (empty) directory; HEADLINE_BENCH_BIN overrides
# bin/ (one directory: the rolling graph names its tools' files as prerequisites);
# HEADLINE_BENCH_PREDICTIVE and HEADLINE_BENCH_ROLLING name other configs (e.g. the same studies
# on another trace).
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd)
pstudy=${HEADLINE_BENCH_PREDICTIVE:-configs/studies/predictive-multiwindow.json}
rstudy=${HEADLINE_BENCH_ROLLING:-configs/studies/rolling-ablation.json}
bin=${HEADLINE_BENCH_BIN:-$root/bin}
if [ -n "${HEADLINE_BENCH_WORK:-}" ]; then
	work=$HEADLINE_BENCH_WORK
	mkdir -p "$work"
	[ -z "$(ls -A "$work")" ] || { echo "46-headline.sh: '$work' is not empty" >&2; exit 1; }
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
load() { uptime | sed 's/.*load average: *//'; }
now() { date +%s.%N; }
arg() { jq -r --arg k "$2" '.trace.synth as $a | if ($a | index($k)) then $a[($a | index($k)) + 1] else "-" end' "$1"; }

# timed NAME TARGET make-args...: one study from scratch; sets wall, cpu, loads
timed() {
	name=$1
	shift
	mkdir -p "$work/$name"
	load_before=$(load)
	start=$(now)
	/usr/bin/time -f '%U %S' -o "$work/$name.rusage" make --no-print-directory -j2 "$@" > "$work/$name.log" 2>&1 ||
		{ tail -20 "$work/$name.log" >&2; exit 1; }
	wall=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
	load_after=$(load)
	cpu=$(awk '{ printf "%.0f", $1 + $2 }' "$work/$name.rusage")
}

echo "## Study: the predictive multi-window study and the rolling ablation at full scale"
echo

timed predictive study STUDY="$pstudy" STUDY_WORK="$work/predictive" STUDY_BIN="$bin"
pw=$work/predictive/$(basename "$pstudy" .json)
p_wall=$wall p_cpu=$cpu p_load="$load_before / $load_after"
p_sims=$(find "$pw" -name 'rep-*.result.ndjson.zst' | wc -l)
timed rolling rolling-ablation ROLLING_STUDY="$rstudy" ROLLING_WORK="$work/rolling" ROLLING_BIN="$bin"
rw=$work/rolling/$(basename "$rstudy" .json)
r_wall=$wall r_cpu=$cpu r_load="$load_before / $load_after"
r_sims=$(find "$rw" -name 'rep-*.result.ndjson.zst' | wc -l)

echo "Traces: \`trace-synth --profile $(arg "$pstudy" --profile) --seed $(arg "$pstudy" --seed)"
echo "--gpu-model $(arg "$pstudy" --gpu-model)\` (predictive) and \`--profile $(arg "$rstudy" --profile) --seed"
echo "$(arg "$rstudy" --seed) --gpu-model $(arg "$rstudy" --gpu-model)\` (rolling), 184 days."
echo
echo "| study | simulations (each run twice) | wall time | CPU (user + sys) | \`uptime\` load averages before / after |"
echo "|---|---:|---|---|---|"
printf '| `make -j2 study STUDY=%s` | %s | %s s | %s s | %s |\n' "$pstudy" "$p_sims" "$p_wall" "$p_cpu" "$p_load"
printf '| `make -j2 rolling-ablation ROLLING_STUDY=%s` | %s (each with its scenario simulations) | %s s | %s s | %s |\n' \
	"$rstudy" "$r_sims" "$r_wall" "$r_cpu" "$r_load"
echo
echo "Make keeps 2 jobs running; a load above 2 means other work shared the two cores, so the CPU"
echo "column is the steadier figure."
echo
echo "### Predictive: ours / the original's published pass counts (real GPU-series-2 pool)"
echo
echo "| arm | calibration pass | holdout pass | holdout mean allocation | holdout vs FIFO +/=/- |"
echo "|---|---|---|---|---|"
jq -r '
{"native-fifo": ["<6/6", "5/5"], "native-preemptive-g3600-b09-d0000": ["<6/6", "5/5"],
 "predictive-aggregate-g3600-b09-d0000": ["<6/6", "0/5"], "predictive-tenant-linear-g3600-b09-d0000": ["<6/6", "1/5"]} as $o
| (.calibration.arms | map({key: .action_id, value: .}) | from_entries) as $c
| .holdout.arms[] | ($o[.action_id] // ["-", "-"]) as $p
| "| \(.action_id) | \($c[.action_id].hard_slo_passed_windows)/\($c[.action_id].windows) / \($p[0]) | \(.hard_slo_passed_windows)/\(.windows) / \($p[1]) | \(.allocation_rate_mean.mean * 1e6 | round / 1e6) | \(.allocation_vs_baseline_counts | "\(.above)/\(.equal)/\(.below)") |"' "$pw/evidence.json"
echo
echo "(The original had four arms: its tenant arm is tenant v1, here the tenant controller with"
echo "each estimator and a bypass arm; \"<6/6\": no arm passed all six calibration windows.)"
echo "Selection: \`$(jq -r '"\(.calibration.selection_status) \(.calibration.selected_action_ids | join(", "))"' "$pw/evidence.json")\`;"
echo "evidence status \`$(jq -r .evidence_status "$pw/evidence.json")\` (the original: \`no_calibration_eligible_arm\`)."
differ() { jq --arg p "$1" '[.windows[] | select(.partition == $p) | [.policies[].allocation_rate_mean] | unique | length > 1] | map(select(.)) | length' "$2"; }
echo "Separation: the arms allocate differently on $(differ calibration "$pw/evidence.json") of $(jq '.calibration.window_ids | length' "$pw/evidence.json")"
echo "calibration and $(differ holdout "$pw/evidence.json") of $(jq '.holdout.window_ids | length' "$pw/evidence.json") holdout days."
echo
echo "### Rolling ablation: ours / the original's published v3 pass counts"
echo
echo "| arm | role | hard-SLO passes | mean allocation | mean Spot p95 JCT s | evictions / run | scenario simulations |"
echo "|---|---|---|---|---|---|---|"
jq -r -s '
{"ordinary-fifo": "5/5", "fixed-tenant-predictive": "2/5", "rolling-workload-rule": "4/5",
 "rolling-exec-agent": "3/5 (single agent)", "posthoc-catalog-oracle": "-"} as $o
| (map(select(.type == "rolling_ablation_summary"))[0]) as $s
| $s.arms | to_entries[]
| "| \(.key) | \(.value.role) | \(.value.hard_slo_pass_count)/\(.value.window_count) / \($o[.key] // "-") | \(.value.mean_metrics.allocation_rate_mean * 1e4 | round / 100)% | \(.value.mean_metrics.spot_jct_p95_seconds * 10 | round / 10) | \(.value.mean_metrics.spot_eviction_rate_per_run) | \(.value.candidate_simulation_count) |"' "$rw/evidence.ndjson"
echo
echo "Gates: $(jq -r -s 'map(select(.type == "rolling_ablation_summary"))[0] | "agent_superiority \(.agent_superiority_gate), agent_vs_ordinary \(.agent_vs_ordinary_gate), analyst_causal_value \(.analyst_causal_value_gate)"' "$rw/evidence.ndjson")"
echo "(the original: every gate not_established)."
rdiff=$(jq -r -s '[map(select(.type == "rolling_ablation_record")) | group_by(.window_id)[] | [.[].metrics.allocation_rate_mean] | unique | length > 1] | map(select(.)) | length' "$rw/evidence.ndjson")
echo "Separation: the arms allocate differently on $rdiff of $(jq -s '[.[] | select(.type == "rolling_ablation_record") | .window_id] | unique | length' "$rw/evidence.ndjson") days."
echo
echo "The traces are synthetic: a comparison of shape with the original's real pool, not of numbers"
echo "(docs/headline-studies.md)."
