#!/usr/bin/env bats
# Issue 37, the live backfill comparison (docs/slurm-import.md section 8), on its recordings:
# tests/data/slurm/backfill-live/ holds the sacct exports of the two runs that
# tests/slurm/backfill-live.sh made on the local Slurm (sched/backfill with priority/basic,
# then priority/multifactor). The live run itself is make bench's (tests/bench/80-*), never
# make check's: it takes minutes and Slurm's timing depends on the machine. Here the
# comparison script is checked on the recordings: the same numbers as the docs, every time.
load helper

LIVE="$DATA/slurm/backfill-live"
CMP="$ROOT/tests/slurm/backfill-compare.py"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

# import MODE: the recorded run's trace, as backfill-live.sh imports it
import() {
	trace-import slurm --jobs "$LIVE/sacct-$1.txt" --nodes "$LIVE/nodes.txt" \
		--class qos:high=HP --class qos:normal=Spot -o "$TMP/$1.nd" || fail "trace-import failed"
}

# compare MODE: the script's JSON summary of the recorded run
compare() {
	python3 "$CMP" --mode "$1" --sacct "$LIVE/sacct-$1.txt" --trace "$TMP/$1.nd" --sim-run "$BIN/sim-run" \
		--policy "$ROOT/configs/policies/slurm-live-$1.json" --work "$TMP" --json > "$TMP/$1.json" || fail "backfill-compare failed"
}

@test "backfill-compare: the recorded sched/backfill run gives the numbers of docs/slurm-import.md section 8" {
	import backfill
	compare backfill
	run -0 jq -r '[.tolerance_seconds, (.replays | .decision.within, .decision.jobs, .decision.instants_agreeing, .decision.instants,
		.decision.instants_end_after_pass, .decision.slurm_out_of_order, .decision.replay_too, ."decision, ends first".within,
		."as-imported".within, ."hand-off".within)] | @tsv' "$TMP/backfill.json"
	assert_output "$(printf '5\t187\t200\t195\t219\t76\t111\t99\t180\t28\t100')"
}

@test "backfill-compare: the recorded priority/multifactor run gives the numbers of docs/slurm-import.md section 8" {
	import multifactor
	compare multifactor
	run -0 jq -r '[.tolerance_seconds, (.replays | .decision.within, .decision.jobs, .decision.instants_agreeing, .decision.instants,
		.decision.instants_end_after_pass, .decision.slurm_out_of_order, .decision.replay_too, ."decision, ends first".within,
		."as-imported".within, ."hand-off".within)] | @tsv' "$TMP/multifactor.json"
	assert_output "$(printf '5\t194\t200\t190\t207\t79\t92\t89\t180\t51\t126')"
}

@test "backfill-compare: a sacct row with a field too many, or a trace of other jobs, is refused with its place" {
	import backfill
	sed '3s/$/|extra/' "$LIVE/sacct-backfill.txt" > "$TMP/bad.txt"
	run -1 python3 "$CMP" --mode backfill --sacct "$TMP/bad.txt" --trace "$TMP/backfill.nd" --sim-run "$BIN/sim-run" \
		--policy "$ROOT/configs/policies/slurm-live-backfill.json" --work "$TMP"
	assert_output "backfill-compare: $TMP/bad.txt:3: 16 fields, the header has 15"
	head -n 100 "$LIVE/sacct-backfill.txt" > "$TMP/part.txt"
	run -1 python3 "$CMP" --mode backfill --sacct "$TMP/part.txt" --trace "$TMP/backfill.nd" --sim-run "$BIN/sim-run" \
		--policy "$ROOT/configs/policies/slurm-live-backfill.json" --work "$TMP"
	assert_output "backfill-compare: $TMP/backfill.nd: the trace's jobs are not the jobs of $TMP/part.txt that ran"
}

@test "backfill-compare: on the recorded runs the per-model plan and the all-model plan start every job at the same time (whole_nodes, plan times slurm)" {
	for m in backfill multifactor; do
		import "$m"
		sim-run --policy "$ROOT/configs/policies/slurm-live-$m.json" --input "$TMP/$m.nd" -o "$TMP/fast.nd" || fail "sim-run failed"
		# jobs of any model ("*") take the all-model plan; the node keeps its model
		sed 's/"gpu_model":"tesla","tenant"/"gpu_model":"*","tenant"/' "$TMP/$m.nd" | grep -v '"type":"end"' | stream-seal > "$TMP/any.nd"
		sim-run --policy "$ROOT/configs/policies/slurm-live-$m.json" --input "$TMP/any.nd" -o "$TMP/full.nd" || fail "sim-run failed"
		run -0 jq -r 'select(.type == "job_result") | "\(.job_id) \(.start_time_seconds)"' "$TMP/fast.nd"
		fast="$output"
		run -0 jq -r 'select(.type == "job_result") | "\(.job_id) \(.start_time_seconds)"' "$TMP/full.nd"
		[ "$(printf '%s\n' "$fast" | wc -l)" -eq 200 ] || fail "$m: not 200 jobs"
		assert_output "$fast"
	done
}
