#!/bin/sh
# trace-synth at full scale: the whole Alibaba spot-GPU profile (466,867 jobs, 4,278 nodes).
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
profile=configs/profiles/alibaba-spot-gpu-v2026.json
run() { # run NAME OUT ARGS...: best wall time of 3 runs, in seconds
	name=$1 out=$2; shift 2
	best=
	for i in 1 2 3; do
		t0=$(date +%s.%N)
		bin/trace-synth --profile "$profile" "$@" -o "$tmp/$out"
		t1=$(date +%s.%N)
		best=$(echo "$t0 $t1 $best" | awk '{ t = $2 - $1; if ($3 == "" || t < $3) print t; else print $3 }')
	done
	bytes=$(stat -c %s "$tmp/$out")
	jobs=$(tail -n 1 "$tmp/$out" 2>/dev/null | sed -n 's/.*"records":\([0-9]*\).*/\1/p')
	[ -n "$jobs" ] || jobs=$(zstdcat "$tmp/$out" | tail -n 1 | sed -n 's/.*"records":\([0-9]*\).*/\1/p')
	printf '| %s | %s | %.2f | %.1f |\n' "$name" "$jobs" "$best" "$(echo "$bytes" | awk '{ print $1 / 1048576 }')"
}
echo "## trace-synth"
echo
echo "Full-scale synthetic trace from \`$profile\` (best of 3 runs, wall clock)."
echo
echo "| run | records | seconds | output MiB |"
echo "|---|---:|---:|---:|"
run "full trace, NDJSON" full.ndjson
run "full trace, zstd" full.ndjson.zst
run "full trace + fit report" full2.ndjson --report "$tmp/fit.md"
run "load factor 2" f2.ndjson --load-factor 2
run "one week, A10 only" week.ndjson --days 30-36 --gpu-model A10
profile=configs/profiles/alibaba-spot-gpu-v2026-v3.json
echo
echo "Profile /3 (\`$profile\`: each model follows its published hourly concurrency), same runs:"
echo
echo "| run | records | seconds | output MiB |"
echo "|---|---:|---:|---:|"
run "/3 full trace, NDJSON" full3.ndjson
run "/3 full trace, zstd" full3.ndjson.zst
run "/3 load factor 2" f32.ndjson --load-factor 2
run "/3 one week, GPU-series-2 only" week3.ndjson --days 30-36 --gpu-model GPU-series-2
