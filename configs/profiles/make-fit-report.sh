#!/bin/sh
# Regenerate docs/trace-synth-fit.md: the fit report of the full-scale synthetic trace
# (seed 1, load factor 1) against the shipped Alibaba spot-GPU profile /2, then the
# trace-fidelity(1) reports of the /3 profile's seeds 1, 2 and 3. Run after `make`.
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=docs/trace-synth-fit.md
bin/trace-synth --profile configs/profiles/alibaba-spot-gpu-v2026.json --seed 1 \
	--report "$tmp/fit.md" > /dev/null
p3=configs/profiles/alibaba-spot-gpu-v2026-v3.json
{
	cat "$tmp/fit.md"
	cat <<'TEXT'

# Profile /3: the fidelity targets of issue 18, seeds 1, 2 and 3

`configs/profiles/alibaba-spot-gpu-v2026-v3.json` (schednav.synth-profile/3) gives every GPU
model its published hourly requested-GPU concurrency; `trace-synth` draws each model's jobs so
that its pool follows that series (docs/profiles.md). The tables below are `trace-fidelity`
reports (trace-fidelity(1)) of the full 184-day traces, one per seed:
`trace-synth --profile configs/profiles/alibaba-spot-gpu-v2026-v3.json --seed N`.

Fitting rule: every parameter of the /3 generator and profile was chosen from the workload
tables and the fidelity figures below, never from a policy outcome (allocation, queueing,
frontiers). Three numbers are inferred rather than published, each with its derivation in the
profile: the per-model Spot share (GPU-series-2 26 %, the others 9.9 %), the Spot/HP
GPUs-per-job ratio (0.42) and GPU-series-2's 14-day cap on generated jobs (its real 30-day
slice peak equals its whole-trace peak, issue 18). The real job rows' GPU models are inferred
too (the tables do not name them).

Targets (issue 18): hourly r >= 0.95; the daily peak within 10 % on >= 90 % of days;
GPU-seconds within 2 %; duration and GPU-demand bucket shares within 2 points; the >= 6 h
GPU-seconds share per class within 3 points; GPU-series-2: 112 +- 10 eligible days and a
median slice ratio >= 0.95.

What holds for all three seeds: hourly r >= 0.95 for A10, A100, GPU-series-1, H800 and
GPU-series-2 (0.966-0.967 on GPU-series-2); the daily peak within 10 % on >= 90 % of days for
A10 (100 %), A100 (94.6-95.7 %) and GPU-series-1 (91.3-92.4 %); GPU-seconds within 2 % for
A10, GPU-series-1, H800 and GPU-series-2 (+1.0 %); GPU-series-2's eligible days (120-121) and
median slice ratio (0.979-0.980); the GPU-demand bucket shares (within 1.1 points); the
duration buckets 10-60 min, 1-6 h, 6-24 h and 1-3 days (within 1.7 points); the long-job
GPU-seconds share of HP (+1.0 points) and of Spot (+0.4 to +1.5 points).

How the generator gets there (docs/trace-synth.1): each model's arrivals are paced by the
share of its own published concurrency still ahead (not by the all-model arrivals), so a
pool's jobs come when its load does; a small HP job (at most 1 % of the hour's published
load) aimed at 1 h - 3 days, and every Spot job past its hour, keeps its drawn length where
a look-ahead finds room under the published series in every hour it touches.

What does not hold (the gaps, with their numbers):
- A800 (8,799 jobs, 176 GPUs): hourly r 0.89-0.90; its GPU-seconds 3.7-4.0 % short.
- A100: GPU-seconds 3.2 % over (short jobs arriving when the pool's published load is met
  still count in their hour).
- Daily peak within 10 %: 83-86 % of days for GPU-series-2, 78-82 % for H800 and 64-66 %
  for A800. The error's median is within 1 % (A800 -5 to -6 %); the misses fall on both sides
  (GPU-series-2: 10th percentile -10 to -12 %, 90th +6 %): short, when the big gangs that
  make a published peak are not drawn in the hour it needs them; over, when short jobs
  arrive at a pool whose published load is already met.
- Duration buckets: 0-1 min jobs are 4.6 points over and 1-10 min 2.0 points over (2.01 on
  seed 3), > 3 days 4.0 points under: the load of long jobs is carried by fewer, larger
  jobs than the table's (a long job only starts where the published series has room).
- GPU-series-2's eligible days (120-121) sit near the top of 112 +- 10.
- The Spot/HP GPUs-per-job ratio is 0.45-0.80 per model against the inferred 0.42; the Spot
  share is 8.0-12.1 % against 9.9 % (29.7-30.5 % against 26 % on GPU-series-2).

TEXT
	for s in 1 2 3; do
		bin/trace-synth --profile "$p3" --seed "$s" -o "$tmp/s$s.nd"
		bin/trace-fidelity --profile "$p3" --markdown "$tmp/f$s.md" -o /dev/null "$tmp/s$s.nd"
		echo "## Seed $s"
		echo
		sed -e '1d' -e 's/^# /### /' "$tmp/f$s.md"
		echo
	done
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out" >&2
