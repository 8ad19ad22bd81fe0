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

What holds for all three seeds: every target. Hourly r >= 0.95 for A10 (0.999), A100
(0.975-0.976), GPU-series-2 (0.990-0.991), GPU-series-1 (0.996-0.997), H800 (0.983) and A800
(0.955-0.959); the daily peak within 10 % on >= 90 % of days for A10 (100 %), A100
(97.3-97.8 %), GPU-series-2 (98.9 %), GPU-series-1 (97.8-98.4 %), H800 (90.8-92.9 %) and
A800 (91.8-92.4 %); GPU-seconds within 2 % for every model (A800 +0.63 %, the other five
within 0.01 %); every duration bucket (within 0.94 points) and every GPU-demand bucket
(within 1.06 points); the long-job GPU-seconds share of HP (+1.21 to +1.34 points) and of
Spot (-0.23 to +0.04 points); GPU-series-2's eligible days (107-110) and median slice ratio
(0.982).

How the generator gets there (lib/synth/generate3.c, lib/synth/repair3.c, docs/trace-synth.1):
the draw paces each model's arrivals by the share of its own published concurrency still
ahead (not by the all-model arrivals), so a pool's jobs come when its load does; a model
whose hour is already met is damped to 0.3 of its weight, a big pool (>= 10 jobs per hour)
only to 1, so the big pools take the jobs the small pools have no room for (this lifted
A800's r from 0.94 to 0.95 and the H800 and A800 peaks past 90 %). A job is Spot with its
model's share times the day's Spot weight, (the day's Spot fraction in daily_class_jobs over
the whole trace's)^1.25, divided by that weight's mean on the model's jobs (the jobs drawn so
far, plus the rest at the concurrency-weighted mean of the days still ahead), so each model
keeps its own Spot share (GPU-series-2 25.4-25.5 % against 26 %, the others 9.1-9.5 %
against 9.9 %). The power 1.25 puts Spot on the Spot-heavy days; with the plain fraction
(power 1, no per-model mean) GPU-series-2 had 127-131 days with >= 20 HP and >= 20 Spot
arrivals against the published 112: the floor spreads its jobs more evenly over the days,
and Spot passed 20 arrivals on too many of them (only correcting its drawn share, 32 %
against 26 %, would have left about 126). A job that
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

What does not hold (none of them is one of issue 18's targets):
- The Spot/HP GPUs-per-job ratio is 0.48-1.00 per model against the inferred 0.42 (A10
  1.00, A100 0.94-1.00, GPU-series-2 0.48-0.49).
- The margin of H800's peaks is thin: 90.8-92.9 % of days, one to five days (0.54 points
  each) above the 90 % bound (seeds 4 and 5, not part of the targets, give 90.2 and 89.1 %);
  its misses include single large jobs submitted in one hour (the worst day +61 %), which
  the repair, moving only end times, cannot remove.

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
