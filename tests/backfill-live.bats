#!/usr/bin/env bats
# Issue 37 item 5, live: the 200-job workload of tests/slurm/backfill-live.sh on the local Slurm,
# each job's start compared with its decision replay (docs/slurm-import.md section 8), and the
# target asserted: at least 95 % of the workload's jobs within the derived tolerance, for
# sched/backfill with priority/basic and for priority/multifactor.
#
# Each test runs the mode the controller runs now and, by default, never reconfigures it (the
# Slurm may be shared): `sh tests/slurm/start-local.sh --scheduler backfill` (or multifactor)
# first, and `sh tests/slurm/start-local.sh` afterwards for the default. Without a Slurm, or
# with one in another mode, the test skips and says why. A run takes about eight minutes.
# SCHEDNAV_BACKFILL_LIVE_SWITCH=yes (set by .ci/run, whose Slurm is the test's own) lets each
# test switch a Slurm that start-local.sh configured to its mode and put the default back
# afterwards, pass or fail; a Slurm whose config start-local.sh did not write is never touched.
# SCHEDNAV_BACKFILL_LIVE_KEEP=DIR keeps each run's files in DIR/MODE (to record the run,
# tests/data/slurm/backfill-live/runs/).
load helper

setup() {
	TMP="$BATS_TEST_TMPDIR"
	SWITCHED=no
}

# put the default (strict FIFO) config back when this test switched the scheduler
teardown() {
	[ "$SWITCHED" = yes ] || return 0
	sh "$ROOT/tests/slurm/start-local.sh" >"$TMP/restore.log" 2>&1 ||
		fail "start-local.sh could not put the default scheduler back: $(cat "$TMP/restore.log")"
}

# running_mode: the mode slurmctld runs (backfill, multifactor, or its SchedulerType)
running_mode() {
	local sched prio
	sched=$(scontrol show config | awk '$1 == "SchedulerType" { print $3 }')
	prio=$(scontrol show config | awk '$1 == "PriorityType" { print $3 }')
	case "$sched $prio" in
	"sched/backfill priority/multifactor") echo multifactor ;;
	"sched/backfill "*) echo backfill ;;
	*) echo "$sched" ;;
	esac
}

# switch_to MODE: with SCHEDNAV_BACKFILL_LIVE_SWITCH=yes, restart the local Slurm in MODE when
# start-local.sh wrote its config (teardown puts the default back); else change nothing
switch_to() {
	[ "${SCHEDNAV_BACKFILL_LIVE_SWITCH:-}" = yes ] || return 0
	grep -q '^# written by SchedNav tests/slurm/start-local.sh' /etc/slurm/slurm.conf 2>/dev/null ||
		skip "SCHEDNAV_BACKFILL_LIVE_SWITCH=yes, but /etc/slurm/slurm.conf was not written by start-local.sh: not ours to change"
	SWITCHED=yes
	sh "$ROOT/tests/slurm/start-local.sh" --scheduler "$1" >"$TMP/switch.log" 2>&1 ||
		fail "start-local.sh --scheduler $1 failed: $(cat "$TMP/switch.log")"
}

# live MODE: skip unless slurmctld runs sched/backfill in MODE, else run the workload and leave
# the compare's JSON in $TMP/live.json
live() {
	command -v sbatch >/dev/null && sinfo -h >/dev/null 2>&1 ||
		skip "no Slurm is up (sh tests/slurm/start-local.sh --scheduler $1, as root)"
	local have
	have=$(running_mode)
	if [ "$have" != "$1" ]; then
		switch_to "$1"
		have=$(running_mode)
	fi
	[ "$have" = "$1" ] || skip "slurmctld runs $have, not $1 (sh tests/slurm/start-local.sh --scheduler $1, then back with sh tests/slurm/start-local.sh; or SCHEDNAV_BACKFILL_LIVE_SWITCH=yes)"
	local keep="$TMP/run"
	[ -z "${SCHEDNAV_BACKFILL_LIVE_KEEP:-}" ] || keep="$SCHEDNAV_BACKFILL_LIVE_KEEP/$1"
	local rc=0
	SCHEDNAV_BIN="$BIN" sh "$ROOT/tests/slurm/backfill-live.sh" --json --keep "$keep" > "$TMP/live.json" 2> "$TMP/live.err" || rc=$?
	[ "$rc" -ne 75 ] || skip "the Slurm queue held other jobs for a minute (a shared Slurm): $(cat "$TMP/live.err")"
	[ "$rc" -eq 0 ] || fail "backfill-live.sh exited $rc: $(cat "$TMP/live.err")"
	# the numbers, on the terminal with bats --show-output-of-passing-tests
	jq -r '.replays | to_entries[] | "\(.key): \(.value.within) / \(.value.jobs)"' "$TMP/live.json"
}

# at_least_95 MODE: the decision replay's share, and the workload whole
at_least_95() {
	run -0 jq -r '[.mode, .tolerance_seconds, .replays.decision.jobs] | @tsv' "$TMP/live.json"
	assert_output "$(printf '%s\t5\t200' "$1")"
	run -0 jq -r '.replays.decision | "\(.within) \(.jobs)"' "$TMP/live.json"
	local within="${output% *}" jobs="${output#* }"
	[ $((within * 100)) -ge $((jobs * 95)) ] || fail "$1: $within of $jobs jobs within 5 s ($(jq -c '.replays.decision.outside' "$TMP/live.json"))"
}

@test "backfill-live: sched/backfill (priority/basic) on the live Slurm: >= 95 % of the 200 jobs start within 5 s of the decision replay" {
	live backfill
	at_least_95 backfill
}

@test "backfill-live: priority/multifactor on the live Slurm: >= 95 % of the 200 jobs start within 5 s of the decision replay" {
	live multifactor
	at_least_95 multifactor
}

@test "backfill-live: a bad option or value exits 2 with the reason before it touches Slurm" {
	run -2 sh "$ROOT/tests/slurm/backfill-live.sh" --jobs '5; rm -rf /'
	assert_output "backfill-live: --jobs wants a whole number, not '5; rm -rf /'"
	run -2 sh "$ROOT/tests/slurm/backfill-live.sh" --keep
	assert_output "backfill-live: --keep needs a value"
	run -2 sh "$ROOT/tests/slurm/backfill-live.sh" --fast
	assert_output "usage: backfill-live.sh [--jobs N] [--keep DIR] [--json]"
}
