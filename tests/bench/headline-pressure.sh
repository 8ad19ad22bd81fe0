#!/bin/sh
# headline-pressure.sh WORK: the per-day peak pressure (combined, HP, Spot) of the three
# headline studies' days on the /3 and /4 traces (docs/headline-studies.md), by
# tests/bench/class-pressure.py. WORK holds the two adaptive studies' designs, made by
#   make adaptive-design STUDY=configs/studies/adaptive-holdout-v3.json
#   make adaptive-design STUDY=configs/studies/adaptive-holdout.json
# (their traces are the ones every headline config of that profile draws: seed 1,
# GPU-series-2). The predictive days are the strata medoids the studies chose (their
# evidence.json windows), given here; the rolling days are the config's 36-40.
set -eu
cd "$(dirname "$0")/../.."
work=${1:-work}
parts() { # parts DESIGN PARTITION: the partition's window ids, comma-separated
	zstdcat -qf "$1" | jq -r --arg p "$2" 'select(.type == "adaptive_design") | [.windows[] | select(.partition == $p) | .window_id] | join(",")'
}
ids() { for d in "$@"; do printf 'day-%04d,' "$d"; done | sed 's/,$//'; }
for v in 3 4; do
	s=adaptive-holdout$([ "$v" = 3 ] && echo -v3 || true)
	d=$work/$s
	if [ "$v" = 4 ]; then
		# the current /4 trace's medoids (12e7695; the fb5ee98 trace's were 43 51 79 86 104 114
		# and 147 151 152 175 179)
		pc=$(ids 54 63 90 94 99 104) ph=$(ids 106 125 146 147 164)
	else
		pc=$(ids 73 97 110 127 131 138) ph=$(ids 157 161 166 167 172)
	fi
	echo "### /$v"
	echo
	python3 tests/bench/class-pressure.py "$d/trace.ndjson.zst" "$d/windows.ndjson" \
		"adaptive evaluation=$(parts "$d/design.ndjson" evaluation)" "adaptive calibration=$(parts "$d/design.ndjson" calibration)" \
		"predictive calibration=$pc" "predictive holdout=$ph" "rolling days 36-40=$(ids 36 37 38 39 40)" | grep '^|'
	echo
done
