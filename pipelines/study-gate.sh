#!/bin/sh
# study-gate.sh WINDOW ARM SLICE OUT REP... — the determinism gate of one (window, arm).
# Every repetition must be a valid result stream made from SLICE, and all must have the
# same fingerprint; OUT then records it. Otherwise the study stops, naming the pair.
# One stream-verify call checks every repetition and prints their fingerprints in order
# (--repetitions: one equal to the first is not parsed line by line a second time).
set -eu
window=$1 arm=$2 slice=$3 out=$4
shift 4
fps=$(stream-verify --print-fingerprint --repetitions --made-from "$slice" "$@")
first= firstrep=
for rep in "$@"; do
	fp=${fps%%"
"*}
	fps=${fps#*"
"}
	if [ -z "$first" ]; then
		first=$fp firstrep=$rep
	elif [ "$fp" != "$first" ]; then
		echo "study: determinism gate: window '$window' arm '$arm': '$rep' has result fingerprint $fp but '$firstrep' has $first" >&2
		exit 1
	fi
done
echo "$first" > "$out.tmp"
mv "$out.tmp" "$out"
