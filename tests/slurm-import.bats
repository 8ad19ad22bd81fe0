#!/usr/bin/env bats
# trace-import slurm against a real Slurm with accounting (slurmctld, slurmd, slurmdbd on
# MariaDB; tests/slurm/start-local.sh brings it up, .ci/run does): a fixed workload of sleep
# jobs is submitted with sbatch, its sacct and scontrol output imported, replayed and
# measured, and the trace must be the workload. Then the simulator is checked against
# Slurm's strict FIFO (sched/builtin): every job's start in our native-fifo replay against
# the start Slurm recorded (docs/slurm-import.md derives the bound). Waits are on job states
# with generous upper bounds; no time is asserted except through Slurm's recorded times.
# Without that Slurm every test skips, saying why.

load helper

FORMAT=JobID,JobIDRaw,Submit,Start,End,Elapsed,State,NNodes,AllocTRES,ReqTRES,Account,User,QOS,Partition
CLASSES=(--class qos:scavenger=Spot --class qos:normal=HP --class qos:high=HP)

require_accounting() {
	local c
	for c in sbatch squeue scancel scontrol sacct sacctmgr sinfo; do
		command -v "$c" >/dev/null || skip "no Slurm with accounting here ('$c' is not installed; tests/slurm/start-local.sh --install sets one up as root)"
	done
	sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)' || skip "no Slurm node is up (tests/slurm/start-local.sh starts one as root)"
	sacct -n -X -S now >/dev/null 2>&1 || skip "Slurm has no accounting (slurmdbd): tests/slurm/start-local.sh configures it"
	scontrol show node -o | grep -q 'Gres=gpu:tesla:8' || skip "the Slurm node has no Gres=gpu:tesla:8 (not the cluster of tests/slurm/start-local.sh)"
	[ "$(sacctmgr -n -P list qos format=name | grep -cxE 'normal|high|scavenger')" -eq 3 ] ||
		skip "the QOS normal, high and scavenger are missing (tests/slurm/start-local.sh creates them)"
}

setup() {
	T="$BATS_TEST_TMPDIR"
	IDS=()
}

teardown() {
	# nothing of ours stays queued after a failure
	[ ${#IDS[@]} -eq 0 ] || scancel "${IDS[@]}" 2>/dev/null || true
}

# sub ACCOUNT QOS GPUS SECONDS [sbatch args...]: submit one sleep job, its id into IDS and $JOB
sub() {
	local acct=$1 qos=$2 gpus=$3 secs=$4
	shift 4
	JOB=$(sbatch --parsable -p debug -o /dev/null -A "$acct" -q "$qos" --gres="gpu:tesla:$gpus" "$@" --wrap "sleep $secs") ||
		fail "sbatch refused: $acct $qos $gpus $secs $*"
	IDS+=("$JOB")
}

# wait_until SECONDS CMD...: poll CMD until it succeeds, fail after SECONDS of wall time (a
# generous bound: only a broken cluster reaches it)
wait_until() {
	local limit=$(( SECONDS + $1 ))
	shift
	while [ "$SECONDS" -le "$limit" ]; do
		"$@" && return 0
		sleep 0.2
	done
	fail "gave up waiting for: $*"
}
state_is() { [ "$(squeue -h -j "$1" -o %T 2>/dev/null)" = "$2" ]; }
queue_empty() { [ -z "$(squeue -h -j "$(IFS=,; echo "${IDS[*]}")" 2>/dev/null)" ]; }
# the last record of every job (not step) is in a final state: accounting has caught up
accounted() {
	local out
	out=$(sacct -n -X -P -o State -j "$(IFS=,; echo "${IDS[*]}")") || return 1
	[ -n "$out" ] || return 1
	if grep -qE '^(PENDING|RUNNING|REQUEUED|COMPLETING|SUSPENDED)' <<< "$out"; then
		return 1
	fi
}

# dump: wait for the jobs, then their sacct records and the node inventory into $T
dump() {
	wait_until 600 queue_empty
	wait_until 120 accounted
	sacct -a -D -P --format="$FORMAT" -j "$(IFS=,; echo "${IDS[*]}")" > "$T/sacct.txt" || fail "sacct failed"
	scontrol show node -o > "$T/nodes.txt" || fail "scontrol failed"
	IDS=()
}

# a job's field from the imported trace
tr_job() { grep '"type":"job"' "$T/t.nd" | jq -r "select(.job_id == \"$1\") | $2"; }

@test "slurm-import: a submitted workload comes back as its trace (count, GPUs, classes, tenants, durations), replays and is measured" {
	require_accounting
	declare -A gpus=() cls=() tenant=() secs=()
	add() { gpus[$1]=$2; cls[$1]=$3; tenant[$1]=$4; secs[$1]=$5; }
	sub acct-a normal 2 3; add "$JOB" 2 HP acct-a 3
	sub acct-b normal 1 2; add "$JOB" 1 HP acct-b 2
	sub acct-a scavenger 2 4; add "$JOB" 2 Spot acct-a 4
	sub acct-b high 3 2; add "$JOB" 3 HP acct-b 2
	sub acct-b scavenger 1 2 --array=1-3
	for k in 1 2 3; do add "${JOB}_$k" 1 Spot acct-b 2; done
	# cancelled before it starts: held, then cancelled
	sub acct-a normal 1 5 --hold
	held=$JOB
	scancel "$held"
	# cancelled after it started: runs at least 2 s (Slurm's clock), then cancelled
	sub acct-a normal 1 600
	cancelled=$JOB
	wait_until 600 state_is "$cancelled" RUNNING
	sleep 2
	scancel "$cancelled"
	# requeued while it runs; the rerun (SLURM_RESTART_COUNT=1) sleeps 2 s
	JOB=$(sbatch --parsable -p debug -o /dev/null -A acct-b -q normal --gres=gpu:tesla:1 --requeue \
		--wrap 'if [ "${SLURM_RESTART_COUNT:-0}" -eq 0 ]; then sleep 600; else sleep 2; fi') || fail "sbatch refused the requeue job"
	IDS+=("$JOB")
	requeued=$JOB
	add "$requeued" 1 HP acct-b 2
	wait_until 600 state_is "$requeued" RUNNING
	scontrol requeue "$requeued"
	dump

	run trace-import slurm --jobs "$T/sacct.txt" --nodes "$T/nodes.txt" "${CLASSES[@]}" -o "$T/t.nd"
	assert_success
	# the workload: 8 sleep jobs + the cancelled-after-start one; the held one is skipped
	[ "$(grep -c '"type":"job"' "$T/t.nd")" -eq 9 ] || fail "$(grep '"type":"job"' "$T/t.nd")"
	[ "$(head -n 1 "$T/t.nd" | jq -r .skipped_rows.cancelled_before_start)" -eq 1 ]
	[ "$(head -n 1 "$T/t.nd" | jq -r .skipped_rows.requeued_earlier_record)" -ge 1 ]
	[ "$(head -n 1 "$T/t.nd" | jq -c .source.kept_job_kinds)" = '{"array_tasks":3,"heterogeneous_components":0,"heterogeneous_jobs":0,"requeued_jobs":1}' ]
	run -0 grep '"type":"node"' "$T/t.nd"
	assert_output "{\"type\":\"node\",\"node_id\":\"$(hostname -s)\",\"gpu_model\":\"tesla\",\"gpu_count\":8}"
	for id in "${!gpus[@]}"; do
		[ "$(tr_job "$id" '[.gpus, .class, .tenant, .gpu_model] | join(" ")')" = "${gpus[$id]} ${cls[$id]} ${tenant[$id]} tesla" ] ||
			fail "job $id: $(tr_job "$id" .) is not ${gpus[$id]} GPUs, ${cls[$id]}, ${tenant[$id]}"
		# the duration is Slurm's Elapsed of the last attempt, and a sleep of S s ran at least
		# S - 1 s on Slurm's 1-s clock (start and end are truncated to the second)
		elapsed=$(awk -F'|' -v id="$id" '$1 == id { e = $6 } END { split(e, h, ":"); print h[1] * 3600 + h[2] * 60 + h[3] }' "$T/sacct.txt")
		[ "$(tr_job "$id" .duration)" -eq "$elapsed" ] || fail "job $id: duration $(tr_job "$id" .duration), Elapsed $elapsed"
		[ "$elapsed" -ge $((secs[$id] - 1)) ] || fail "job $id: a sleep ${secs[$id]} ran ${elapsed}s"
	done
	[ "$(tr_job "$cancelled" '[.gpus, .class, .tenant] | join(" ")')" = "1 HP acct-a" ]
	[ "$(tr_job "$cancelled" .duration)" -ge 1 ]
	[ -z "$(tr_job "$held" .)" ]
	# submit: relative to the first, in submission order
	[ "$(grep '"type":"job"' "$T/t.nd" | jq -r .submit | sort -n | head -n 1)" -eq 0 ]

	run sim-run --policy "$ROOT/configs/policies/native-fifo.json" -i "$T/t.nd" -o "$T/r.nd"
	assert_success
	[ "$(grep -c '"type":"job_result"' "$T/r.nd")" -eq 9 ]
	run metrics -i "$T/r.nd" -o "$T/m.nd"
	assert_success
	assert_schema "$T/t.nd" "$T/r.nd" "$T/m.nd"
}

@test "slurm-import: strict FIFO: each job's start in the native-fifo replay is Slurm's within the bound Slurm's own latency gives" {
	require_accounting
	# six 4-GPU jobs on 8 GPUs, one submitted per second (distinct Submit seconds, so the
	# order is the job order in both). Equal sizes: no later job can pass a blocked head, so
	# our first-fit fifo and Slurm's strict FIFO start them in the same order.
	order=()
	for s in 3 5 2 4 3 2; do
		sub acct-a normal 4 "$s"
		order+=("$JOB")
		sleep 1
	done
	dump
	run trace-import slurm --jobs "$T/sacct.txt" --nodes "$T/nodes.txt" "${CLASSES[@]}" -o "$T/t.nd"
	assert_success
	run sim-run --policy "$ROOT/configs/policies/native-fifo.json" -i "$T/t.nd" -o "$T/r.nd"
	assert_success
	# Slurm's records in seconds since the first submit (the trace's clock)
	epoch() { date -u -d "$1" +%s; }
	origin=$(epoch "$(awk -F'|' 'NR > 1 && $1 !~ /\./ { print $3 }' "$T/sacct.txt" | sort | head -n 1)")
	declare -a sub_t start_t end_t
	k=0
	for id in "${order[@]}"; do
		IFS='|' read -r _ _ su st en _ < <(grep "^$id|" "$T/sacct.txt")
		sub_t[k]=$(( $(epoch "$su") - origin )); start_t[k]=$(( $(epoch "$st") - origin )); end_t[k]=$(( $(epoch "$en") - origin ))
		k=$((k + 1))
	done
	# ready: when Slurm could have started job k by its own records (submitted, its FIFO
	# predecessor started, and fewer than two earlier 4-GPU jobs still running: the
	# (k-1)-th earliest end among them). latency = start - ready, Slurm's scheduling delay,
	# which a simulator without one does not have: the replay starts each job the sum of the
	# latencies on its chain earlier, so 0 <= Slurm - replay <= the latencies so far.
	cum=0
	: > "$T/diffs"
	for ((k = 0; k < ${#order[@]}; k++)); do
		ready=${sub_t[k]}
		[ "$k" -eq 0 ] || [ "${start_t[k-1]}" -le "$ready" ] || ready=${start_t[k-1]}
		if [ "$k" -ge 2 ]; then
			freed=$(printf '%s\n' "${end_t[@]:0:k}" | sort -n | sed -n "$((k - 1))p")
			[ "$freed" -le "$ready" ] || ready=$freed
		fi
		latency=$(( start_t[k] - ready ))
		[ "$latency" -ge 0 ] || fail "job ${order[k]}: Slurm started it ${latency}s before it could start (not strict FIFO?)"
		cum=$(( cum + latency ))
		sim=$(grep '"type":"job_result"' "$T/r.nd" | jq -r "select(.job_id == \"${order[k]}\") | .start_time_seconds | floor")
		diff=$(( start_t[k] - sim ))
		echo "job $((k + 1)) (${order[k]}): submit ${sub_t[k]} s, Slurm start ${start_t[k]} s, replay start $sim s, difference $diff s, Slurm latency $latency s, bound $cum s" >> "$T/diffs"
		[ "$diff" -ge 0 ] && [ "$diff" -le "$cum" ] || fail "job $((k + 1)) outside the bound: $(cat "$T/diffs")"
	done
	sed "s/^/# /" "$T/diffs" >&3
}
