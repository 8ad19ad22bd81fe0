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
	assert_output "$(printf '5\t195\t200\t210\t219\t83\t111\t107\t179\t29\t99')"
}

@test "backfill-compare: the recorded priority/multifactor run gives the numbers of docs/slurm-import.md section 8" {
	import multifactor
	compare multifactor
	run -0 jq -r '[.tolerance_seconds, (.replays | .decision.within, .decision.jobs, .decision.instants_agreeing, .decision.instants,
		.decision.instants_end_after_pass, .decision.slurm_out_of_order, .decision.replay_too, ."decision, ends first".within,
		."as-imported".within, ."hand-off".within)] | @tsv' "$TMP/multifactor.json"
	assert_output "$(printf '5\t196\t200\t201\t207\t81\t92\t89\t183\t40\t119')"
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

@test "backfill-compare: on the recorded runs the per-model plan and the all-model plan start every job at the same time (whole_nodes, plan times slurm, with and without a grid phase)" {
	for m in backfill multifactor backfill-phase multifactor-phase; do
		pol="$ROOT/configs/policies/slurm-live-${m%-phase}.json"
		if [ "$m" != "${m%-phase}" ]; then
			jq '.backfill_resolution_phase_seconds = 3' "$pol" > "$TMP/$m.json"
			pol="$TMP/$m.json"
		fi
		import "${m%-phase}"
		sim-run --policy "$pol" --input "$TMP/${m%-phase}.nd" -o "$TMP/fast.nd" || fail "sim-run failed"
		# jobs of any model ("*") take the all-model plan; the node keeps its model
		sed 's/"gpu_model":"tesla","tenant"/"gpu_model":"*","tenant"/' "$TMP/${m%-phase}.nd" | grep -v '"type":"end"' | stream-seal > "$TMP/any.nd"
		sim-run --policy "$pol" --input "$TMP/any.nd" -o "$TMP/full.nd" || fail "sim-run failed"
		run -0 jq -r 'select(.type == "job_result") | "\(.job_id) \(.start_time_seconds)"' "$TMP/fast.nd"
		fast="$output"
		run -0 jq -r 'select(.type == "job_result") | "\(.job_id) \(.start_time_seconds)"' "$TMP/full.nd"
		[ "$(printf '%s\n' "$fast" | wc -l)" -eq 200 ] || fail "$m: not 200 jobs"
		assert_output "$fast"
	done
}

# The runs of tests/slurm/backfill-live.sh recorded under runs/ (each: its sacct export, nodes,
# the workload's job ids, meta.txt with the mode, date and load), replayed offline: the numbers
# of docs/slurm-import.md section 8 (runs/expected.tsv), and the target, >= 95 % of the
# workload's jobs within the tolerance in the decision replay, on every recorded run.
RUNS="$LIVE/runs"

# replay_run NAME: the run's import and the compare's JSON in $TMP/NAME.json
replay_run() {
	local d="$RUNS/$1" mode
	mode=$(sed -n 's/^mode=//p' "$d/meta.txt")
	case $mode in backfill|multifactor) ;; *) fail "$d/meta.txt: mode '$mode'" ;; esac
	trace-import slurm --jobs "$d/sacct.txt" --nodes "$d/nodes.txt" \
		--class qos:high=HP --class qos:normal=Spot --class '*=Spot' -o "$TMP/$1.nd" || fail "$1: trace-import failed"
	mkdir -p "$TMP/$1"
	python3 "$CMP" --mode "$mode" --sacct "$d/sacct.txt" --trace "$TMP/$1.nd" --ids "$d/jobids.txt" --sim-run "$BIN/sim-run" \
		--policy "$ROOT/configs/policies/slurm-live-$mode.json" --work "$TMP/$1" --json > "$TMP/$1.json" || fail "$1: backfill-compare failed"
}

@test "backfill-compare: every recorded live run (runs/) gives its numbers, and >= 95 % of its jobs within 5 s in the decision replay" {
	n=0
	while IFS='	' read -r name mode dec cyc first imp hand agree inst late quiet others; do
		[ "$name" != run ] || continue
		replay_run "$name"
		run -0 jq -r '[.mode, (.replays | .decision.within, ."decision, a cycle every second".within, ."decision, ends first".within,
			."as-imported".within, ."hand-off".within, .decision.instants_agreeing, .decision.instants,
			.decision.instants_end_after_pass, .decision.instants_no_cycle), (.others | length)] | @tsv' "$TMP/$name.json"
		assert_output "$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s' "$mode" "$dec" "$cyc" "$first" "$imp" "$hand" "$agree" "$inst" "$late" "$quiet" "$others")"
		run -0 jq -r '.replays.decision | "\(.within) \(.jobs)"' "$TMP/$name.json"
		[ "$output" = "$dec 200" ] || fail "$name: $output"
		[ $((dec * 100)) -ge $((200 * 95)) ] || fail "$name: $dec of 200 within 5 s, under 95 %"
		n=$((n + 1))
	done < "$RUNS/expected.tsv"
	[ "$n" -ge 8 ] || fail "only $n recorded runs"
	# both modes are recorded
	run -0 cut -f 2 "$RUNS/expected.tsv"
	assert_line multifactor
	assert_line backfill
}

@test "backfill-compare: a job that is not the workload's (--ids) is listed under others and counted nowhere; a bad id list is refused with its place" {
	name=$(awk -F'\t' 'NR == 2 { print $1 }' "$RUNS/expected.tsv")
	d="$RUNS/$name"
	mode=$(sed -n 's/^mode=//p' "$d/meta.txt")
	replay_run "$name"
	# a foreign job (QOS scavenger, another account) submitted and run after the workload, on a
	# shared Slurm: its id is in the export, not in jobids.txt
	python3 - "$d/sacct.txt" > "$TMP/shared.txt" <<'PY' || fail "could not add the foreign job"
import sys, datetime
rows = open(sys.argv[1], encoding="utf-8").read().splitlines()
last = max(r.split("|")[4] for r in rows[1:])
t = datetime.datetime.strptime(last, "%Y-%m-%dT%H:%M:%S") + datetime.timedelta(seconds=10)
r = rows[-1].split("|")
r[0] = r[1] = "99999"
r[2] = r[3] = t.strftime("%Y-%m-%dT%H:%M:%S")
r[4] = (t + datetime.timedelta(seconds=3)).strftime("%Y-%m-%dT%H:%M:%S")
r[5], r[7], r[13] = "00:00:03", "COMPLETED", "scavenger"
print("\n".join(rows + ["|".join(r)]))
PY
	run -0 tail -n 1 "$TMP/shared.txt"
	assert_output --partial '99999|99999|'
	trace-import slurm --jobs "$TMP/shared.txt" --nodes "$d/nodes.txt" \
		--class qos:high=HP --class qos:normal=Spot --class '*=Spot' -o "$TMP/shared.nd" || fail "trace-import failed"
	python3 "$CMP" --mode "$mode" --sacct "$TMP/shared.txt" --trace "$TMP/shared.nd" --ids "$d/jobids.txt" --sim-run "$BIN/sim-run" \
		--policy "$ROOT/configs/policies/slurm-live-$mode.json" --work "$TMP" --json > "$TMP/shared.json" || fail "backfill-compare failed"
	run -0 jq -c '[.others[].job, .others[].qos]' "$TMP/shared.json"
	assert_output '["99999","scavenger"]'
	run -0 jq -c '.replays | map_values([.jobs, .within])' "$TMP/shared.json"
	assert_output "$(jq -c '.replays | map_values([.jobs, .within])' "$TMP/$name.json")"
	# without --ids it is one of the jobs
	python3 "$CMP" --mode "$mode" --sacct "$TMP/shared.txt" --trace "$TMP/shared.nd" --sim-run "$BIN/sim-run" \
		--policy "$ROOT/configs/policies/slurm-live-$mode.json" --work "$TMP" --json > "$TMP/all.json" || fail "backfill-compare failed"
	run -0 jq -c '[.replays.decision.jobs, (.others | length)]' "$TMP/all.json"
	assert_output '[201,0]'
	# the Markdown report lists it with --others
	run -0 python3 "$CMP" --mode "$mode" --sacct "$TMP/shared.txt" --trace "$TMP/shared.nd" --ids "$d/jobids.txt" --others \
		--sim-run "$BIN/sim-run" --policy "$ROOT/configs/policies/slurm-live-$mode.json" --work "$TMP"
	assert_line "Jobs of the export that are not the workload's (in the replays' state, not counted): 1"
	assert_line --regexp '^- 99999: QOS scavenger, submit [0-9]+, start [0-9]+, end [0-9]+$'
	# an id list with a word, or with a job the export does not have
	{ head -n 2 "$d/jobids.txt"; echo '1; rm -rf /'; } > "$TMP/bad-ids.txt"
	run -1 python3 "$CMP" --mode "$mode" --sacct "$d/sacct.txt" --trace "$TMP/$name.nd" --ids "$TMP/bad-ids.txt" \
		--sim-run "$BIN/sim-run" --policy "$ROOT/configs/policies/slurm-live-$mode.json" --work "$TMP"
	assert_output "backfill-compare: $TMP/bad-ids.txt:3: not a job id: '1; rm -rf /'"
	{ head -n 2 "$d/jobids.txt"; echo 99998; } > "$TMP/bad-ids.txt"
	run -1 python3 "$CMP" --mode "$mode" --sacct "$d/sacct.txt" --trace "$TMP/$name.nd" --ids "$TMP/bad-ids.txt" \
		--sim-run "$BIN/sim-run" --policy "$ROOT/configs/policies/slurm-live-$mode.json" --work "$TMP"
	assert_output "backfill-compare: $TMP/bad-ids.txt:3: job 99998 is not a job of the sacct export that ran"
}
