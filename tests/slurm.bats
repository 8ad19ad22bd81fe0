#!/usr/bin/env bats
# Studies through Slurm (SIM_LAUNCHER=slurm, pipelines/slurm-sim.sh): the small adaptive study
# and the tiny holdout study with every simulation sent to Slurm by srun, compared stream by
# stream with a local run of the same config. Needs a reachable Slurm cluster whose nodes see
# this tree (tests/slurm/start-local.sh brings up a single-node one here; .ci/run does); without
# one every test skips, saying so.

load helper

slurm_reachable() {
	if ! command -v srun >/dev/null || ! command -v sinfo >/dev/null; then
		return 1
	fi
	sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)'
}

require_slurm() {
	slurm_reachable || skip "no Slurm reachable (tests/slurm/start-local.sh starts a single-node one as root)"
}

# Jobs slurmctld has accepted so far (sdiag's counter since it started).
jobs_submitted() { sdiag | sed -n 's/^Jobs submitted: *//p'; }

study_make() {   # study_make STUDY WORKDIR [make args...]
	local study=$1 work=$2
	shift 2
	make -C "$ROOT" --no-print-directory STUDY="$study" STUDY_WORK="$work" STUDY_BIN="$BIN" "$@"
}

# Every stream under two study directories has the same fingerprint (headers name work paths,
# bodies do not) and the receipts are byte-identical.
same_study() {   # same_study NAME DIR_A DIR_B
	local files
	files=$(cd "$2/$1" && find . \( -name '*.ndjson' -o -name '*.ndjson.zst' \) | sort)
	[ "$(echo "$files" | wc -l)" -gt 40 ] || fail "too few streams to compare"
	(cd "$2/$1" && stream-verify -p $files) > "$BATS_TEST_TMPDIR/fps.a" || fail "a stream of '$2' does not verify"
	(cd "$3/$1" && stream-verify -p $files) > "$BATS_TEST_TMPDIR/fps.b" || fail "a stream of '$3' does not verify"
	diff <(paste -d' ' <(echo "$files") "$BATS_TEST_TMPDIR/fps.a") \
	     <(paste -d' ' <(echo "$files") "$BATS_TEST_TMPDIR/fps.b") || fail "streams of '$3' differ from '$2'"
	cmp "$2/$1/evidence.json" "$3/$1/evidence.json"
	cmp "$2/$1/summary.txt" "$3/$1/summary.txt" 2>/dev/null ||
		diff <(sed "s|$2|W|" "$2/$1/summary.txt") <(sed "s|$3|W|" "$3/$1/summary.txt")
}

setup() {
	T="$BATS_TEST_TMPDIR"
}

@test "slurm: the adaptive study through Slurm gives the local run's streams and evidence, byte for byte" {
	require_slurm
	study_make configs/studies/adaptive-tiny.json "$T/local" -j2 adaptive > /dev/null
	before=$(jobs_submitted)
	run study_make configs/studies/adaptive-tiny.json "$T/slurm" -j2 SIM_LAUNCHER=slurm adaptive
	assert_success
	# every simulation command went through the launcher, and Slurm ran that many jobs
	[ "$(grep -c '^sh pipelines/slurm-sim.sh sim-run ' <<< "$output")" -eq 100 ]
	[ "$(grep -c '^sim-run ' <<< "$output")" -eq 0 ]
	[ $(( $(jobs_submitted) - before )) -ge 100 ] || fail "slurmctld accepted only $(( $(jobs_submitted) - before )) jobs"
	same_study adaptive-tiny "$T/local" "$T/slurm"
	run -0 jq -r .evidence_status "$T/slurm/adaptive-tiny/evidence.json"
	assert_output adaptive_evaluated
}

@test "slurm: the holdout study through Slurm gives the local run's streams and evidence" {
	require_slurm
	study_make configs/studies/tiny.json "$T/local" -j2 holdout > /dev/null
	run study_make configs/studies/tiny.json "$T/slurm" -j2 SIM_LAUNCHER=slurm holdout
	assert_success
	[ "$(grep -c '^sh pipelines/slurm-sim.sh sim-run ' <<< "$output")" -eq 24 ]
	same_study tiny "$T/local" "$T/slurm"
}

@test "slurm: the rolling ablation study through Slurm (roll and sim-run as srun jobs) gives the local run's results and evidence" {
	require_slurm
	cd "$ROOT"
	local study=tests/data/roll/tiny-ablation.json
	make -s -j2 rolling-ablation ROLLING_STUDY=$study ROLLING_WORK="$T/local" ROLLING_BIN="$BIN" > /dev/null
	run make --no-print-directory -j2 rolling-ablation ROLLING_STUDY=$study ROLLING_WORK="$T/slurm" ROLLING_BIN="$BIN" SIM_LAUNCHER=slurm
	assert_success
	# 3 days x 5 arms x 2 repetitions, the three rolling arms through roll
	[ "$(grep -c '^sh pipelines/slurm-sim.sh roll ' <<< "$output")" -eq 18 ]
	[ "$(grep -c '^sh pipelines/slurm-sim.sh sim-run ' <<< "$output")" -eq 12 ]
	[ "$(grep -c '^\(roll\|sim-run\) ' <<< "$output")" -eq 0 ]
	local files
	files=$(cd "$T/local/tiny-ablation" && find . -name 'rep-*.result.ndjson.zst' | sort)
	[ "$(echo "$files" | wc -l)" -eq 30 ]
	(cd "$T/local/tiny-ablation" && stream-verify -p $files) > "$T/fps.local"
	(cd "$T/slurm/tiny-ablation" && stream-verify -p $files) > "$T/fps.slurm"
	diff "$T/fps.local" "$T/fps.slurm" || fail "results through Slurm differ from the local run's"
	# the evidence header names its work directory; the body is the evidence
	[ "$(stream-verify -p "$T/local/tiny-ablation/evidence.ndjson")" = "$(stream-verify -p "$T/slurm/tiny-ablation/evidence.ndjson")" ] || fail "evidence differs"
}

@test "slurm: SLURM_SIM_ARGS reaches srun; a failing simulation fails its recipe" {
	require_slurm
	cd "$ROOT"
	run env SLURM_SIM_ARGS=--partition=debug sh pipelines/slurm-sim.sh echo slurm-ran
	assert_success
	assert_output slurm-ran
	run env SLURM_SIM_ARGS=--partition=no-such-partition sh pipelines/slurm-sim.sh true
	assert_failure 1
	assert_output --partial "invalid partition"
	run sh pipelines/slurm-sim.sh sim-run --policy configs/policies/native-fifo.json -i /nonexistent -o "$T/r.nd"
	assert_failure 1   # sim-run's own status, through srun
	assert_output --partial "sim-run: "
	[ ! -e "$T/r.nd" ]
}

@test "slurm: without srun on PATH the launcher says so" {
	cd "$ROOT"
	run env PATH=/nonexistent /bin/sh pipelines/slurm-sim.sh true
	assert_failure 1
	assert_output "study: SIM_LAUNCHER=slurm but 'srun' is not on PATH"
}
