#!/bin/sh
# trace-synth and trace-fidelity on the /4 profile at full scale (466,867 jobs, 4,278 nodes):
# issue 34's targets, each <= 5 s. Best of 3 runs, wall clock and user CPU.
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
profile=configs/profiles/alibaba-spot-gpu-v2026-v4.json
best() { # best NAME CMD...: best wall and user seconds of 3 runs
	name=$1; shift
	bw= bu=
	for i in 1 2 3; do
		/usr/bin/time -f '%e %U' -o "$tmp/time" "$@"
		read -r w u < "$tmp/time"
		bw=$(echo "$w $bw" | awk '{ if ($2 == "" || $1 < $2) print $1; else print $2 }')
		bu=$(echo "$u $bu" | awk '{ if ($2 == "" || $1 < $2) print $1; else print $2 }')
	done
	printf '| %s | %.2f | %.2f |\n' "$name" "$bw" "$bu"
}
echo "## trace-synth and trace-fidelity, profile /4"
echo
echo "\`$profile\`, seed 1 (466,867 jobs); best of 3 runs. Targets (issue 34): each <= 5 s."
echo
echo "| run | wall s | user s |"
echo "|---|---:|---:|"
best "/4 full trace, NDJSON" bin/trace-synth --profile "$profile" --seed 1 -o "$tmp/t4.ndjson"
best "/4 full trace, zstd" bin/trace-synth --profile "$profile" --seed 1 -o "$tmp/t4.ndjson.zst"
best "trace-fidelity, /4 figures (NDJSON + Markdown)" bin/trace-fidelity --profile "$profile" --markdown "$tmp/f.md" -o "$tmp/f.ndjson" "$tmp/t4.ndjson"
