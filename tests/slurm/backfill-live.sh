#!/bin/sh
# backfill-live.sh [--jobs N] [--keep DIR] [--json] — the live comparison of issue 37
# (docs/slurm-import.md section 8): submit a contended workload to the local Slurm that
# tests/slurm/start-local.sh --scheduler backfill (or multifactor) brought up, wait for it,
# export it with sacct, import it with trace-import slurm, replay it with the conservative
# backfill policy that has the Slurm run's parameters (configs/policies/slurm-live-backfill.json,
# or slurm-live-multifactor.json when slurmctld runs priority/multifactor), and compare every
# job's start with tests/slurm/backfill-compare.py. Prints the comparison as Markdown on
# stdout (--json: the compare's JSON summary, for tests/backfill-live.bats); the files
# (workload.txt, jobids.txt, sacct.txt, nodes.txt, meta.txt, the trace, the result) stay in DIR.
#
# Only the workload is compared: the ids sbatch gave its jobs are written to DIR/jobids.txt.
# sacct exports every job of every user from the first submit on (sacct-all.txt); sacct.txt
# keeps the workload's jobs and every other job that held GPUs and ended (a job someone else
# ran meanwhile on a shared Slurm held GPUs and had its place in the queue, so it stays in the
# replay's state, with class HP when its QOS is high, else Spot). The others are dropped, each
# counted in meta.txt (dropped_*): a job without GPUs, one that never started, one still
# running at the export. backfill-compare.py --ids counts only the workload's jobs and lists
# the others (--others), so they are reported, never silently mixed in.
#
# The workload (deterministic, the same on every run): N jobs (default 200) submitted one
# after the other as fast as sbatch goes, each `sleep S` with S from 2 to 9 s, 1 to 8 GPUs
# (most 1 or 2), a time limit of 1, 2, 3 or 5 minutes (always longer than the sleep), QOS
# normal or high (1 in 3), account acct-a or acct-b. It keeps the 8 GPUs busy for about five
# minutes. QOS scavenger is not used: high preempts it, and Slurm's preemption is not what the
# replay's is (section 6).
#
# Exit 0 (whatever the agreement), 77 when no Slurm runs sched/backfill, 75 when the queue is
# not empty after a minute, 2 on a bad option, 1 otherwise. Takes about eight minutes and
# depends on the machine's load: tests/backfill-live.bats runs it when the Slurm is in its mode,
# and make bench (tests/bench/80-slurm-backfill.sh).
set -eu
cd "$(dirname "$0")/../.."
BIN=${SCHEDNAV_BIN:-$PWD/bin}
njobs=200
dir=
json=
while [ $# -gt 0 ]; do
	case "$1" in
	--jobs|--keep) [ $# -ge 2 ] || { echo "backfill-live: $1 needs a value" >&2; exit 2; } ;;
	esac
	case "$1" in
	--jobs) njobs=$2; shift ;;
	--keep) dir=$2; shift ;;
	--json) json=--json ;;
	*) echo "usage: backfill-live.sh [--jobs N] [--keep DIR] [--json]" >&2; exit 2 ;;
	esac
	shift
done
case $njobs in ''|*[!0-9]*) echo "backfill-live: --jobs wants a whole number, not '$njobs'" >&2; exit 2 ;; esac
say() { echo "backfill-live: $*" >&2; }
command -v sbatch >/dev/null && sinfo -h >/dev/null 2>&1 || { say "no Slurm is up (tests/slurm/start-local.sh)"; exit 77; }
sched=$(scontrol show config | awk '$1 == "SchedulerType" { print $3 }')
prio=$(scontrol show config | awk '$1 == "PriorityType" { print $3 }')
[ "$sched" = sched/backfill ] || { say "slurmctld runs $sched: start it with start-local.sh --scheduler backfill"; exit 77; }
case $prio in
priority/multifactor) mode=multifactor ;;
*) mode=backfill ;;
esac
# a job that is just ending (start-local.sh's test job after a restart) gets a minute
for _ in $(seq 30); do [ -z "$(squeue -h)" ] && break; sleep 2; done
# another's jobs on a shared Slurm: exit 75 (EX_TEMPFAIL), try again later
[ -z "$(squeue -h)" ] || { say "the queue is not empty: wait for those jobs first"; exit 75; }
[ -n "$dir" ] || dir=$(mktemp -d "${TMPDIR:-/tmp}/backfill-live.XXXXXX")
mkdir -p "$dir"
say "$mode run: $njobs jobs, files in $dir"

# the workload: a fixed linear congruential sequence, so every run submits the same jobs
awk -v n="$njobs" 'BEGIN {
	x = 12345
	split("1 1 1 1 1 2 2 3 4 8", g, " "); split("1 2 3 5", l, " ")
	for (i = 1; i <= n; i++) {
		x = (x * 1103515245 + 12345) % 2147483648; gp = g[int(x / 65536) % 10 + 1]
		x = (x * 1103515245 + 12345) % 2147483648; s = 2 + int(x / 65536) % 8
		x = (x * 1103515245 + 12345) % 2147483648; lim = l[int(x / 65536) % 4 + 1]
		x = (x * 1103515245 + 12345) % 2147483648; q = (int(x / 65536) % 3 == 0) ? "high" : "normal"
		x = (x * 1103515245 + 12345) % 2147483648; a = (int(x / 65536) % 2 == 0) ? "acct-a" : "acct-b"
		print gp, s, lim, q, a
	}
}' > "$dir/workload.txt"
first=
last=
: > "$dir/jobids.txt"
since=$(TZ=UTC date +%Y-%m-%dT%H:%M:%S)
while read -r gp s lim q a; do
	id=$(sbatch --parsable -J bf -o /dev/null -e /dev/null --gres="gpu:tesla:$gp" -n 1 -t "$lim" \
		--qos="$q" -A "$a" --wrap "sleep $s" </dev/null)
	case $id in ''|*[!0-9]*) say "sbatch gave '$id', not a job id"; exit 1 ;; esac
	echo "$id" >> "$dir/jobids.txt"
	[ -n "$first" ] || first=$id
	last=$id
done < "$dir/workload.txt"
say "submitted jobs $first to $last; waiting"
while [ -n "$(squeue -h -j "$(seq -s, "$first" "$last")" 2>/dev/null)" ]; do sleep 5; done
# accounting lags the controller: wait until every job has its End
fmt=JobID,JobIDRaw,Submit,Start,End,Elapsed,Timelimit,State,NNodes,AllocTRES,ReqTRES,Account,User,QOS,Partition
for _ in $(seq 60); do
	TZ=UTC SLURM_TIME_FORMAT=standard sacct --allusers --duplicates --parsable2 -X -S "$since" -E now \
		--format "$fmt" > "$dir/sacct-all.txt"
	# the workload's jobs, and the others that held GPUs, started and ended
	awk -F'|' 'NR == FNR { ours[$1] = 1; next } FNR == 1 || ($1 in ours) ||
		($10 ~ /gres\/gpu=/ && $4 ~ /^[0-9]/ && $5 ~ /^[0-9]/)' "$dir/jobids.txt" "$dir/sacct-all.txt" > "$dir/sacct.txt"
	# every job of the workload done (a foreign job in the range may still run: it is not waited for)
	[ "$(awk -F'|' 'NR == FNR { ours[$1] = 1; next } FNR > 1 && ($1 in ours) && $5 != "Unknown" && $8 == "COMPLETED"' \
		"$dir/jobids.txt" "$dir/sacct.txt" | wc -l)" -eq "$njobs" ] && break
	sleep 2
done
scontrol show node -o > "$dir/nodes.txt"
{
	echo "mode=$mode"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "slurm=$(sinfo -V)"
	echo "scheduler=$sched"
	echo "priority=$prio"
	echo "scheduler_parameters=$(scontrol show config | awk '$1 == "SchedulerParameters" { print $3 }')"
	echo "jobs=$njobs"
	echo "first=$first"
	echo "last=$last"
	echo "load=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "others_kept=$(($(wc -l < "$dir/sacct.txt") - 1 - njobs))"
	awk -F'|' 'NR == FNR { ours[$1] = 1; next } FNR > 1 && !($1 in ours) {
		if ($10 !~ /gres\/gpu=/) g++; else if ($4 !~ /^[0-9]/) p++; else if ($5 !~ /^[0-9]/) r++ }
		END { printf "dropped_without_gpus=%d\ndropped_never_started=%d\ndropped_still_running=%d\n", g, p, r }' \
		"$dir/jobids.txt" "$dir/sacct-all.txt"
	echo "cpus=$(nproc)"
} > "$dir/meta.txt"
"$BIN/trace-import" slurm --jobs "$dir/sacct.txt" --nodes "$dir/nodes.txt" \
	--class qos:high=HP --class qos:normal=Spot --class '*=Spot' -o "$dir/trace.ndjson"
python3 tests/slurm/backfill-compare.py --mode "$mode" --sacct "$dir/sacct.txt" --trace "$dir/trace.ndjson" \
	--ids "$dir/jobids.txt" --others \
	--sim-run "$BIN/sim-run" --policy "configs/policies/slurm-live-$mode.json" --work "$dir" $json
