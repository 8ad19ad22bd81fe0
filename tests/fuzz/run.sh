#!/bin/sh
# run.sh DIR SECONDS NAME... — run each libFuzzer harness DIR/fuzz/NAME in turn (one process
# at a time: the machine is shared) for SECONDS, on its corpus DIR/corpus/NAME (started
# from the seeds in DIR/seeds/NAME), with crashes written to tests/fuzz/regressions/NAME/
# (which make check replays). FUZZ_RUNS=N stops each harness after N executions instead,
# or after SECONDS when SECONDS is not empty, whichever comes first (a time cap for slow
# harnesses); FUZZ_MAX_LEN sets the largest input (default 16384 bytes).
# Prints one line per harness and writes the table to DIR/fuzz-results.md:
# executions, coverage (cov = edges, ft = features) and the inputs it saved as crashes.
set -u
DIR=$1
SECONDS_EACH=$2
shift 2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RESULTS="$DIR/fuzz-results.md"
if [ -n "${FUZZ_RUNS:-}" ]; then
	LIMIT="-runs=$FUZZ_RUNS${SECONDS_EACH:+ -max_total_time=$SECONDS_EACH}"
else
	LIMIT="-max_total_time=${SECONDS_EACH:-60}"
fi
# Inputs up to 16 KiB (FUZZ_MAX_LEN): the readers' bugs are structural, and small inputs
# run several times faster. A smaller ASan quarantine keeps fresh-page faults down; leaks
# are still detected. The canonical importer's files go to tmpfs when there is one.
MAX_LEN=${FUZZ_MAX_LEN:-16384}
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}:quarantine_size_mb=16"
[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
{
	echo "| harness | executions | exec/s | cov | ft | corpus | new crash inputs |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
} > "$RESULTS"
status=0
for name in "$@"; do
	corpus="$DIR/corpus/$name"
	regress="$ROOT/tests/fuzz/regressions/$name"
	mkdir -p "$corpus" "$regress"
	before=$(ls "$regress" | wc -l)
	log="$DIR/log/$name.log"
	mkdir -p "$DIR/log"
	"$DIR/fuzz/$name" $LIMIT -max_len="$MAX_LEN" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$regress/" "$corpus" "$DIR/seeds/$name" > "$log" 2>&1
	rc=$?
	after=$(ls "$regress" | wc -l)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	size=$(ls "$corpus" | wc -l)
	new=$((after - before))
	printf '%s: %s executions (%s/s), cov %s ft %s, corpus %s, %s new crash input(s), exit %s\n' \
		"$name" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "$size" "$new" "$rc"
	echo "| $name | ${execs:-?} | ${speed:-?} | ${cov:-?} | ${ft:-?} | $size | $new |" >> "$RESULTS"
	[ "$rc" -eq 0 ] || status=1
done
echo "results: $RESULTS"
exit $status
