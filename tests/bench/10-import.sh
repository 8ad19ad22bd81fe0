#!/bin/sh
# trace-import throughput (rows/s, MB/s) and peak RSS on the largest real inputs and on a
# generated multi-gigabyte Philly-format job log (written to a temporary directory at bench
# time, deleted afterwards). Prints one Markdown section.
set -eu
cd "$(dirname "$0")/../.."
BIN=${SCHEDNAV_BIN:-bin}
SHARED=${SCHEDNAV_SHARED:-../shared}
[ -d "$SHARED/data" ] || SHARED=/work/shared
LOG_BYTES=${IMPORT_BENCH_LOG_BYTES:-2000000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/schednav-bench-import.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# run LABEL ROWS BYTES CMD...: time one import, print a table row
run() {
	label=$1 rows=$2 bytes=$3
	shift 3
	/usr/bin/time -f '%e %M' -o "$tmp/time" "$@" -o "$tmp/out.ndjson" 2>"$tmp/err" >/dev/null || {
		cat "$tmp/err" >&2
		exit 1
	}
	set -- $(cat "$tmp/time")
	jobs=$(grep -c '"type":"job"' "$tmp/out.ndjson")
	awk -v l="$label" -v r="$rows" -v b="$bytes" -v s="$1" -v m="$2" -v j="$jobs" 'BEGIN {
		if (s < 0.01) s = 0.01
		printf "| %s | %d | %.1f | %d | %.2f | %.0f | %.1f | %.0f |\n", l, r, b / 1e6, j, s, r / s, b / 1e6 / s, m / 1024
	}'
}

echo "## trace-import"
echo
echo "Wall time and peak resident memory (GNU time) of one import, output written to a file."
echo "Rows are source records (CSV rows or job-log array elements)."
echo
echo "| input | rows | MB | jobs kept | seconds | rows/s | MB/s | peak RSS MiB |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
V23="$SHARED/data/alibaba-gpu-v2023"
if [ -f "$V23/openb_pod_list_default.csv" ]; then
	rows=$(($(wc -l < "$V23/openb_pod_list_default.csv") - 1))
	run "alibaba-v2023 default pod list" "$rows" "$(wc -c < "$V23/openb_pod_list_default.csv")" \
		"$BIN/trace-import" alibaba-v2023 --nodes "$V23/openb_node_list_gpu_node.csv" --pods "$V23/openb_pod_list_default.csv"
fi
zstdcat tests/data/chronus-trace_job_Philly_MIX1.csv.zst > "$tmp/mix1.csv"
rows=$(($(wc -l < "$tmp/mix1.csv") - 1))
run "csv: Chronus MIX1, full Philly machine list" "$rows" "$(wc -c < "$tmp/mix1.csv")" \
	"$BIN/trace-import" csv --map configs/maps/chronus-philly.json --nodes-file tests/data/philly-cluster_machine_list.zst "$tmp/mix1.csv"
# Generate a 100 MB piece once, then repeat it with distinct job ids (Python alone would
# take minutes for 2 GB): every copy renames application_<cluster>_N, so ids stay unique.
piece=${IMPORT_BENCH_PIECE_BYTES:-100000000}
[ "$LOG_BYTES" -lt "$piece" ] && piece=$LOG_BYTES
python3 tests/gen-philly-log.py --bytes "$piece" --seed 1 "$tmp/piece.json"
copies=$(( (LOG_BYTES + piece - 1) / piece ))
{
	echo "["
	k=1
	while [ "$k" -le "$copies" ]; do
		sed -e '1d;$d' -e "s/\"application_1506638472019_/\"application_$((1506638472019 + k))_/" "$tmp/piece.json"
		[ "$k" -lt "$copies" ] && echo ","
		k=$((k + 1))
	done
	echo "]"
} > "$tmp/log.json"
rm -f "$tmp/piece.json"
rows=$(grep -c '"jobid"' "$tmp/log.json")
run "philly: generated job log (synthetic)" "$rows" "$(wc -c < "$tmp/log.json")" \
	"$BIN/trace-import" philly --machines tests/data/philly-cluster_machine_list.zst --job-log "$tmp/log.json" --class HP
rm -f "$tmp/log.json"
echo
echo "The Philly log is scanned one array element at a time from 64 KiB chunks, so memory"
echo "holds the jobs kept (id, times, demand) and one raw record, not the file."
