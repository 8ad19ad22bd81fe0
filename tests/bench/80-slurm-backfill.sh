#!/bin/sh
# Backfill against a live Slurm (issue 37, docs/slurm-import.md section 8): the local Slurm of
# tests/slurm/start-local.sh is switched to sched/backfill (then priority/multifactor), the
# 200-job workload of tests/slurm/backfill-live.sh runs on it (about ten minutes each), and
# each job's start is compared with its conservative-backfill replay. The cluster is put back
# to the default (strict FIFO) configuration afterwards, whatever happened.
# Not in make check: it takes minutes and Slurm's timing depends on the machine's load.
# Needs root and the Slurm packages (start-local.sh --install); prints a skip line otherwise.
set -eu
cd "$(dirname "$0")/../.."
echo "## Backfill against a live Slurm (issue 37)"
echo
if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null; then
	echo "Skipped: needs root and Slurm (tests/slurm/start-local.sh --install)."
	exit 0
fi
restore() { sh tests/slurm/start-local.sh >/dev/null 2>&1 || echo "80-slurm-backfill: could not restore the default Slurm config" >&2; }
trap restore EXIT
echo "The 200-job workload of tests/slurm/backfill-live.sh on the local Slurm (one node, 8 GPUs)"
echo "under sched/backfill (bf_interval=2, bf_resolution=5), replayed with"
echo "configs/policies/slurm-live-backfill.json and slurm-live-multifactor.json. \"decision\" starts"
echo "from Slurm's own state at every instant; \"as-imported\""
echo "replays each job's Elapsed; \"hand-off\" adds the seconds Slurm took to act on each release"
echo "(docs/slurm-import.md section 8)."
echo
for mode in backfill multifactor; do
	sh tests/slurm/start-local.sh --scheduler "$mode" >/dev/null 2>&1
	sh tests/slurm/backfill-live.sh | sed -n '/^|/p;/^### /p' | sed 's/^### \(.*\)$/**\1**\n/'
	echo
done
