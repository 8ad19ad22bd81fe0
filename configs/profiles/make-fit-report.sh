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

What holds for all three seeds: hourly r >= 0.95 for A10 (0.999), A100 (0.976-0.978),
GPU-series-2 (0.975-0.980), GPU-series-1 (0.995) and H800 (0.972-0.973); the daily peak
within 10 % on >= 90 % of days for A10 (100 %), A100 (97.8-98.4 %), GPU-series-2
(95.7-96.7 %) and GPU-series-1 (96.2 %); GPU-seconds within 2 % for every model (A800
+0.63 to +0.64 %, the other five within 0.06 %); every duration bucket (within 0.90 points)
and every GPU-demand bucket (within 1.06 points); the long-job GPU-seconds share of HP
(+1.32 to +1.38 points) and of Spot (+1.17 to +1.96 points); GPU-series-2's eligible days
(117-122) and median slice ratio (0.979-0.980).

How the generator gets there (lib/synth/generate3.c, lib/synth/repair3.c, docs/trace-synth.1):
the draw paces each model's arrivals by the share of its own published concurrency still
ahead (not by the all-model arrivals), so a pool's jobs come when its load does; a job that
fits the hour's deficit fills the published series until it would pass it (a skyline fill),
a small HP job aimed at 1 h - 3 days and a Spot job keep their drawn length where a
look-ahead finds room under the series in every hour they touch. HP durations aim at the
duration buckets' job shares counted over both classes; in a big pool (>= 10 jobs per hour)
an HP job aimed past 3 days takes a small cell and keeps 3-5 days where the series plus 1 %
has room, and an HP job without room aims at the sub-hour buckets or 1-6 h. Then a
deterministic repair pass over the whole population moves the end of generated jobs, each
inside its own duration bucket (so every bucket's, hour's and model's job count stays as
drawn; submit, size, class, model and organization never change; the real rows are fixed):
coordinate descent on the hourly squared error against the published series, a +-5 % band
around each day's published peak, the model's GPU-seconds and its Spot jobs' long and short
GPU-seconds; then single moves on the days whose peak still misses +-10 %; then HP end
seconds within their end hour toward the profile's GPU-seconds. Because the repair sees the
whole population, `--days` and `--gpu-model` cut the same jobs as the full trace.

What does not hold (the gaps, with their numbers):
- A800 (8,799 jobs, 176 GPUs): hourly r 0.938-0.941 (target 0.95).
- Daily peak within 10 %: 87.5-89.7 % of days for H800 and 84.8-88.6 % for A800 (target
  90 %). Their errors' medians are within 4 % (A800 -3.2 to -3.9 %); A800's misses are
  mostly short (10th percentile -10.8 to -15.9 %, 90th +2.2 to +3.3 %), H800's on both
  sides (10th percentile -4.7 to -7.2 %, 90th +7.1 to +8.3 %).
- GPU-series-2's eligible days are 117-122: seed 3's 122 is the upper edge of 112 +- 10.
- The Spot/HP GPUs-per-job ratio is 0.43-1.00 per model against the inferred 0.42 (A10
  1.00, A100 0.97-0.99, GPU-series-2 0.47-0.48); the Spot share is 8.2-11.3 % against 9.9 %
  (28.6-28.8 % against 26 % on GPU-series-2). Neither is one of issue 18's targets.

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
