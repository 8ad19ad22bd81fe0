#!/bin/sh
# trace-import slurm throughput and peak memory on a generated 1,000,000-row sacct -P file
# (tests/gen-sacct.py: half jobs, half their .batch steps, requeued, cancelled and array jobs
# among them; about 200 MB, written to a temporary directory and deleted afterwards).
# Prints one Markdown section. MB/s is given against wall time and against CPU time (user +
# system): on a shared machine the second is the one another run can reproduce.
set -eu
cd "$(dirname "$0")/../.."
BIN=${SCHEDNAV_BIN:-bin}
ROWS=${SLURM_BENCH_ROWS:-1000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/schednav-bench-slurm.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 tests/gen-sacct.py --rows "$ROWS" --seed 1 "$tmp"
bytes=$(wc -c < "$tmp/sacct.txt")
# Three runs; the one with the least CPU time is reported (on a shared machine the others
# measure the neighbours' cache and memory traffic as much as the import).
: > "$tmp/times"
for _ in 1 2 3; do
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$BIN/trace-import" slurm --jobs "$tmp/sacct.txt" --nodes "$tmp/nodes.txt" \
		--class qos:scavenger=Spot --class qos:normal=HP -o "$tmp/out.ndjson" 2>"$tmp/err" || {
		cat "$tmp/err" >&2
		exit 1
	}
	cat "$tmp/time" >> "$tmp/times"
done
jobs=$(grep -c '"type":"job"' "$tmp/out.ndjson")
cpus=$(awk '{ printf "%s%.2f", (NR > 1 ? ", " : ""), $2 + $3 }' "$tmp/times")
# four numbers, split on purpose
# shellcheck disable=SC2046
set -- $(awk '{ c = $2 + $3; if (NR == 1 || c < best) { best = c; line = $0 } } END { print line }' "$tmp/times")
echo "## trace-import slurm"
echo
echo "One import of a generated sacct -P file (\`tests/gen-sacct.py --rows $ROWS --seed 1\`: every second"
echo "row a job, the other its .batch step; 1 job in 50 requeued, 1 in 100 cancelled before it started,"
echo "1 in 40 an array task) with 1,000 nodes of 8 GPUs, output written to a file. The load average"
echo "when it ran: $(cut -d' ' -f1-3 /proc/loadavg). Three runs, CPU s $cpus; the table gives the one with"
echo "the least CPU time."
echo
echo "| rows | MB | jobs kept | wall s | CPU s (user + sys) | rows/s (CPU) | MB/s (wall) | MB/s (CPU) | peak RSS MiB |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
awk -v r="$ROWS" -v b="$bytes" -v j="$jobs" -v w="$1" -v u="$2" -v s="$3" -v m="$4" 'BEGIN {
	c = u + s; if (c < 0.01) c = 0.01; if (w < 0.01) w = 0.01
	printf "| %d | %.1f | %d | %.2f | %.2f | %.0f | %.1f | %.1f | %.0f |\n", r, b / 1e6, j, w, c, r / c, b / 1e6 / w, b / 1e6 / c, m / 1024
}'
echo
echo "The file is read one line at a time. Memory holds one record per job id (id, times, GPUs and"
echo "interned model, tenant, QOS and partition names), never the file: the steps are counted and"
echo "dropped at once. The SHA-256 of the input that the header records is OpenSSL's (libcrypto:"
echo "the CPU's SHA extensions where it has them), and the job-id table, the records and the jobs"
echo "are kept in huge-page blocks (a page fault costs much on a virtual machine)."
