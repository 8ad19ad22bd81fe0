#!/bin/sh
# A full study end to end: configs/studies/native-multiwindow.json (Chronus MIX1, five native
# arms, 2 repetitions) with `make -j2 holdout` in a fresh work directory. Prints one
# Markdown section. STUDY_BENCH_BIN overrides the tool directory (default bin/);
# STUDY_BENCH_WORK keeps the study's files in that (empty) directory; SCHEDNAV_SHARED names
# the shared data directory when it is not ../shared (the config's paths are then
# rewritten into a copy of the config with the same name).
# The machine is shared: the load averages before and after the run are printed with the time.
set -eu
cd "$(dirname "$0")/../.."
study=configs/studies/native-multiwindow.json
shared=${SCHEDNAV_SHARED:-../shared}
echo "## Study: native multi-window (make -j2 holdout)"
echo
if [ ! -f "$shared/data/philly-chronus/trace_job_Philly_MIX1.csv" ]; then
	echo "Skipped: needs ../shared/data (Chronus MIX1 and the Philly machine list)."
	exit 0
fi
# STUDY_BENCH_WORK: an empty directory to keep the study in (else a temporary one).
if [ -n "${STUDY_BENCH_WORK:-}" ]; then
	work=$STUDY_BENCH_WORK
	mkdir -p "$work"
	[ -z "$(ls -A "$work")" ] || { echo "40-study.sh: '$work' is not empty" >&2; exit 1; }
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
bin=${STUDY_BENCH_BIN:-$(pwd)/bin}
if [ "$shared" != ../shared ]; then
	mkdir "$work/config"
	jq --arg s "${shared%/}/" 'walk(if type == "string" then sub("^\\.\\./shared/"; $s) else . end)' "$study" > "$work/config/native-multiwindow.json"
	study=$work/config/native-multiwindow.json
fi
# The load averages (1, 5, 15 min) of the machine around the timed run.
load() { uptime | sed 's/.*load average: *//'; }
load_before=$(load)
start=$(date +%s.%N)
make --no-print-directory -j2 holdout STUDY=$study STUDY_WORK="$work" STUDY_BIN="$bin" >"$work/log" 2>&1 ||
	{ tail -20 "$work/log" >&2; exit 1; }
end=$(date +%s.%N)
load_after=$(load)
sw=$work/native-multiwindow
ncal=$(jq '.calibration.window_ids | length' "$sw/evidence.json")
nhold=$(jq '.holdout.window_ids | length' "$sw/evidence.json")
sims=$(find "$sw" -name 'rep-*.result.ndjson.zst' | wc -l)
noop_load_before=$(load)
noop_start=$(date +%s.%N)
make --no-print-directory -q holdout STUDY=$study STUDY_WORK="$work" STUDY_BIN="$bin"
noop_end=$(date +%s.%N)
echo "Chronus MIX1 (Philly-derived, 30,940 jobs) on a seeded 800-GPU Philly machine subset,"
echo "450-s windows with 1,800 s of warm-up: $ncal calibration + $nhold holdout windows, arms"
echo "native-fifo, native-preemptive-3600, native-preemptive-g3600-b09-{d0000,d0900,loss-aware},"
echo "2 repetitions each: $sims simulations, every pair fingerprint-identical."
echo
echo "| step | wall time | \`uptime\` load averages (1, 5, 15 min) before / after |"
echo "|---|---|---|"
printf '| `make -j2 holdout` from scratch (import, scan, %s slices, %s simulations, metrics, audits, rankings, receipts, selection, lock, evidence) | %.1f s | %s / %s |\n' \
	$((ncal + nhold)) "$sims" "$(awk "BEGIN{print $end - $start}")" "$load_before" "$load_after"
printf '| `make -q holdout` afterwards (nothing to do) | %.2f s | %s / %s |\n' "$(awk "BEGIN{print $noop_end - $noop_start}")" "$noop_load_before" "$(load)"
echo
echo "The machine ($(nproc) cores) may be shared: the run itself accounts for a load of about 2, more"
echo "means other jobs took CPU time from it, so compare wall times only at similar load."
echo
echo "Evidence status: \`$(jq -r .evidence_status "$sw/evidence.json")\`. The printed summary:"
echo
echo '```'
cat "$sw/summary.txt" | sed "s|$work|work|"
echo '```'
