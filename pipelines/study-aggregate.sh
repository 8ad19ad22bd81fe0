#!/bin/sh
# study-aggregate.sh OUT RECEIPT... — the multi-window summary of a partition.
set -eu
out=$1
shift
aggregate -o "$out" "$@"
