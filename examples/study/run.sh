#!/bin/sh
# study/run.sh OUTDIR — a whole study, small: the Make graph of pipelines/study.mk on the
# tiny config (configs/studies/tiny.json: 4 one-hour windows of tests/data/study/tiny.trace,
# 2 calibration then 2 holdout, three native arms, every simulation twice). Calibration
# selects an arm, the selection is locked, holdout checks the locked arm; OUTDIR/tiny/ holds
# every intermediate, summary.txt (one screen) and evidence.json (the fingerprint chain).
set -eu
[ $# -eq 1 ] || { echo "usage: sh examples/study/run.sh OUTDIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
make -C "$root" --no-print-directory -j2 study STUDY=configs/studies/tiny.json STUDY_WORK="$out" PROGRESS=no \
	${SCHEDNAV_BIN:+STUDY_BIN="$SCHEDNAV_BIN"} > "$out/make.log"
cat "$out/tiny/summary.txt"
