#!/bin/sh
# slurm-sim.sh COMMAND... — SIM_LAUNCHER=slurm: run one simulation recipe as a Slurm job
# step with srun (one task, one CPU), in the same directory, and return its exit status.
# Make keeps the graph (make -jN runs N at once); Slurm places them. The command reads and
# writes the study's files by path, so work/ (and bin/) must be on a filesystem the compute
# nodes share. SLURM_SIM_ARGS adds srun options (e.g. '--partition=cpu --account=proj
# --time=10'). Inside an allocation (salloc/sbatch) srun starts a step of it; outside one,
# each call is a job of its own.
set -eu
command -v srun >/dev/null || { echo "study: SIM_LAUNCHER=slurm but 'srun' is not on PATH" >&2; exit 1; }
# shellcheck disable=SC2086 # SLURM_SIM_ARGS is a list of options
exec srun --quiet --ntasks=1 --cpus-per-task=1 --kill-on-bad-exit=1 --job-name=schednav-sim \
	--chdir="$(pwd)" ${SLURM_SIM_ARGS:-} "$@"
