#!/bin/sh
# Run every benchmark script tests/bench/NN-*.sh; each prints one Markdown section.
# The sections, with the machine they ran on, become docs/performance.md.
set -eu
cd "$(dirname "$0")/../.."
out=docs/performance.md
tmp=$out.tmp
{
	echo "# Performance"
	echo
	echo "Written by \`make bench\` ($(date -u +%Y-%m-%d)). Machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo),"
	echo "$(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo), $(uname -sr)."
	echo
	echo "The fuzzing of every reader (executions, coverage, crashes found and fixed) is in"
	echo "[fuzzing.md](fuzzing.md); it is run by \`make fuzz\`, not by \`make bench\`."
	echo
	for s in tests/bench/[0-9]*.sh; do
		[ -e "$s" ] || continue
		echo "running $s" >&2
		sh "$s"
		echo
	done
} > "$tmp"
mv "$tmp" "$out"
echo "wrote $out" >&2
