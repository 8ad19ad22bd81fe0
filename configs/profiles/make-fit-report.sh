#!/bin/sh
# Regenerate docs/trace-synth-fit.md: the fit report of the full-scale synthetic trace
# (seed 1, load factor 1) against the shipped Alibaba spot-GPU profile. Run after `make`.
set -eu
cd "$(dirname "$0")/../.."
bin/trace-synth --profile configs/profiles/alibaba-spot-gpu-v2026.json --seed 1 \
	--report docs/trace-synth-fit.md > /dev/null
echo "wrote docs/trace-synth-fit.md" >&2
