#!/bin/sh
# backfill-live.sh [--jobs N] [--keep DIR] — the live comparison of issue 37
# (docs/slurm-import.md section 8): submit a contended workload to the local Slurm that
# tests/slurm/start-local.sh --scheduler backfill (or multifactor) brought up, wait for it,
# export it with sacct, import it with trace-import slurm, replay it with the conservative
# backfill policy that has the Slurm run's parameters (configs/policies/slurm-live-backfill.json,
# or slurm-live-multifactor.json when slurmctld runs priority/multifactor), and compare every
# job's start with tests/slurm/backfill-compare.py. Prints the comparison as Markdown on
# stdout; the files (sacct.txt, nodes.txt, the trace, the result) stay in DIR.
#
# The workload (deterministic, the same on every run): N jobs (default 200) submitted one
# after the other as fast as sbatch goes, each `sleep S` with S from 2 to 9 s, 1 to 8 GPUs
# (most 1 or 2), a time limit of 1, 2, 3 or 5 minutes (always longer than the sleep), QOS
# normal or high (1 in 3), account acct-a or acct-b. It keeps the 8 GPUs busy for about five
# minutes. QOS scavenger is not used: high preempts it, and Slurm's preemption is not what the
# replay's is (section 6).
#
# Takes minutes and depends on the machine's load: it is run by make bench
# (tests/bench/80-slurm-backfill.sh), never by make check.
set -eu
cd "$(dirname "$0")/../.."
BIN=${SCHEDNAV_BIN:-$PWD/bin}
njobs=200
dir=
while [ $# -gt 0 ]; do
	case "$1" in
	--jobs) njobs=$2; shift ;;
	--keep) dir=$2; shift ;;
	*) echo "usage: backfill-live.sh [--jobs N] [--keep DIR]" >&2; exit 2 ;;
	esac
	shift
done
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
[ -z "$(squeue -h)" ] || { say "the queue is not empty: wait for those jobs first"; exit 1; }
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
while read -r gp s lim q a; do
	id=$(sbatch --parsable -J bf -o /dev/null -e /dev/null --gres="gpu:tesla:$gp" -n 1 -t "$lim" \
		--qos="$q" -A "$a" --wrap "sleep $s" </dev/null)
	[ -n "$first" ] || first=$id
	last=$id
done < "$dir/workload.txt"
say "submitted jobs $first to $last; waiting"
while [ -n "$(squeue -h -j "$(seq -s, "$first" "$last")" 2>/dev/null)" ]; do sleep 5; done
# accounting lags the controller: wait until every job has its End
fmt=JobID,JobIDRaw,Submit,Start,End,Elapsed,Timelimit,State,NNodes,AllocTRES,ReqTRES,Account,User,QOS,Partition
for _ in $(seq 60); do
	TZ=UTC SLURM_TIME_FORMAT=standard sacct --allusers --duplicates --parsable2 -X -j "$(seq -s, "$first" "$last")" \
		--format "$fmt" > "$dir/sacct.txt"
	[ "$(awk -F'|' 'NR > 1 && $5 != "Unknown" && $8 == "COMPLETED"' "$dir/sacct.txt" | wc -l)" -eq "$njobs" ] && break
	sleep 2
done
scontrol show node -o > "$dir/nodes.txt"
"$BIN/trace-import" slurm --jobs "$dir/sacct.txt" --nodes "$dir/nodes.txt" \
	--class qos:high=HP --class qos:normal=Spot -o "$dir/trace.ndjson"
python3 tests/slurm/backfill-compare.py --mode "$mode" --sacct "$dir/sacct.txt" --trace "$dir/trace.ndjson" \
	--sim-run "$BIN/sim-run" --policy "configs/policies/slurm-live-$mode.json" --work "$dir"
