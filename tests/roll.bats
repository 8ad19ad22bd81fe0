#!/usr/bin/env bats
# roll: one rolling arm over one evaluation day with the tenant controller as the inner
# predictor. The trace is drawn by trace-synth from the shipped v2026 profile (one GPU pool,
# half the load, days 0-36, as tests/tenant-controller.bats), so the test needs no
# ../shared: day 36 is the evaluation window with 864 h of history before it (the
# controller trains at the window start), HP from the origin, Spot of the day only; the
# workload-history trace starts 4 h before the window.
load helper
load run_cases
bats_require_minimum_version 1.5.0

CFG="$ROOT/configs/rolling/rolling-v3.json"
CTL="$ROOT/configs/controllers/schednav-tenant-linear-v2.json"
AGG="$ROOT/configs/controllers/predictive-spot-v1.json"
DEC="$ROOT/tests/roll"
DAY=86400
T0=$((36 * DAY))

setup_file() {
	local d="$BATS_FILE_TMPDIR/d"
	mkdir -p "$d"
	cd "$d"
	trace-synth --profile "$ROOT/configs/profiles/alibaba-spot-gpu-v2026.json" --gpu-model GPU-series-2 \
		--days 0-36 --load-factor 0.5 -o full.nd
	trace-window --eval-start $T0 --eval-end $((T0 + DAY - 1)) --warmup-start 0 --no-warmup-spot -i full.nd -o exec.nd
	trace-window --eval-start $T0 --eval-end $((T0 + DAY - 1)) --warmup-start $((T0 - 14400)) -i full.nd -o hist.nd
	roll --config "$CFG" --history hist.nd --controller "$CTL" --decider rule -o rule.nd exec.nd
}

setup() {
	D="$BATS_FILE_TMPDIR/d"
	cd "$BATS_TEST_TMPDIR"
}

roll_day() { roll --config "$CFG" --history "$D/hist.nd" --controller "$CTL" "$@"; }

# The rolling records of a result stream, one per line.
rolling() { jq -c 'select(.type == "rolling_observation" or .type == "scenario" or .type == "candidate_evidence" or .type == "rolling_decision")' "$1"; }

@test "roll: the error cases (tests/cases/roll/*.case): usage errors, empty and truncated traces, a plan's stray reply, candidates and configs refused" {
	run_cases roll d="$D"
}

@test "roll: --help matches the man page; a bad option exits 2; -V names the schemas" {
	assert_tool_invariants roll
	run roll -V
	assert_success
	assert_output --partial "schednav.result/1"
}

@test "roll: v3 timing: 12 decisions, 3 candidates x 2 scenarios = 72 simulations, the safety action among them" {
	R="$D/rule.nd"
	[ "$(jq -s '[.[] | select(.type == "rolling_decision")] | length' "$R")" -eq 12 ]
	[ "$(jq -s '[.[] | select(.type == "scenario")] | length' "$R")" -eq 24 ]
	[ "$(jq -s '[.[] | select(.type == "candidate_evidence")] | length' "$R")" -eq 36 ]
	run -0 jq -c 'select(.type == "rolling_report") | [.decision_count, .expected_decision_count, .candidate_simulation_count, .candidate_budget_per_decision, .baseline_action_id, .candidate_scenario_set_id, .deployable]' "$R"
	assert_output '[12,12,72,3,"rolling-fifo-open","dual-forecast-replay-v1",true]'
	run -0 jq -r 'select(.type == "rolling_decision") | [.cutoff_time_seconds, (.candidate_selection.candidate_action_ids | index("rolling-fifo-open") != null), .real_future_execution_frozen_after_selection, .candidate_simulation_count] | @tsv' "$R"
	assert_line --index 0 "$T0	true	true	6"
	assert_line --index 11 "$((T0 + 11 * 7200))	true	true	6"
	# each decision's chain fingerprint names the previous one
	run -0 jq -s -r '[.[] | select(.type == "rolling_decision")] | [range(1; length) as $i | (.[$i].previous_decision_fingerprint == .[$i - 1].decision_fingerprint)] | all' "$R"
	assert_output true
}

@test "roll: metrics, slo-audit and rank read the result stream unchanged" {
	sim-run --policy "$ROOT/configs/policies/native-fifo.json" -i "$D/exec.nd" -o fifo.r
	metrics -i fifo.r -o fifo.m
	sim-run --policy "$ROOT/configs/policies/native-preemptive-3600.json" -i "$D/exec.nd" -o p.r
	metrics -i p.r -o p.m
	metrics -i "$D/rule.nd" -o rule.m
	run -0 jq -c '[.action_id, .rolling_control.decision_count, .rolling_control.deployable, .predictive_control.available]' rule.m
	assert_output --partial '["rolling-v3-live:rule",12,true,true]'
	assert_schema rule.m
	slo-audit --slo "$ROOT/configs/slos/schednav-demo-slo-v1.json" --baseline fifo.m fifo.m p.m rule.m -o audit.nd
	run rank --slo "$ROOT/configs/slos/schednav-demo-slo-v1.json" fifo.m p.m rule.m audit.nd
	assert_success
	assert_output --partial '"type":"ranking"'
}

@test "roll: the same inputs give byte-identical results (the live session is untouched by the scenario forks)" {
	roll_day --decider rule -o again.nd "$D/exec.nd"
	cmp <(sans_header "$D/rule.nd") <(sans_header again.nd)
	# every decision of this day froze the safety action: the plain records equal sim-run's
	run -0 jq -r 'select(.type == "rolling_decision") | .selected_action_id' "$D/rule.nd"
	refute_output --partial "preemptive"
	sim-run --policy "$ROOT/configs/policies/rolling-fifo-open.json" --controller "$CTL" -i "$D/exec.nd" -o plain.nd
	cmp <(jq -c 'select(.type == "job_result" or .type == "run" or .type == "cluster" or .type == "control_decision")' plain.nd) \
	    <(jq -c 'select(.type == "job_result" or .type == "run" or .type == "cluster" or .type == "control_decision")' "$D/rule.nd")
}

@test "roll: --evaluator snapshot (in-memory copies of the session) gives the fork evaluator's bytes" {
	roll_day --decider rule --evaluator snapshot -o snap.nd "$D/exec.nd"
	roll_day --decider rule -o fork.nd "$D/exec.nd"
	cmp fork.nd snap.nd
	roll_day --decider oracle --evaluator snapshot -o snap-oracle.nd "$D/exec.nd"
	roll_day --decider oracle -o fork-oracle.nd "$D/exec.nd"
	cmp fork-oracle.nd snap-oracle.nd
	# (another evaluator is tests/cases/roll/usage-unknown-evaluator.case)
}

@test "roll: no leakage: a different future after 12:00 leaves every record up to the divergence byte-identical" {
	# B = the same trace with every job submitted after day 36, 12:00 (3153600) changed: other
	# durations and GPU counts, one job dropped, two added. History trace likewise.
	for t in exec hist; do
		python3 - "$D/$t.nd" > "$t.b.body" <<-'EOF'
		import json, sys
		head, jobs, dropped = [], [], False
		for line in open(sys.argv[1]):
		    r = json.loads(line)
		    if r["type"] == "end":
		        continue
		    if r["type"] != "job":
		        head.append(line)
		        continue
		    if r["submit"] > 3153600:
		        if not dropped:
		            dropped = True
		            continue
		        r["duration"] = r["duration"] * 3 + 7
		        r["gpus"] = 1.0
		        line = json.dumps(r, separators=(",", ":")) + "\n"
		    jobs.append((r["submit"], r["job_id"], line))
		for r in ({"type": "job", "job_id": "zz-new-1", "submit": 3174000.0, "duration": 9000.0, "gpus": 2.0, "class": "HP", "gpu_model": "GPU-series-2", "tenant": "org-x", "phase": "eval"},
		          {"type": "job", "job_id": "zz-new-2", "submit": 3184000.0, "duration": 100.0, "gpus": 1.0, "class": "Spot", "gpu_model": "GPU-series-2", "tenant": "org-x", "phase": "eval"}):
		    jobs.append((r["submit"], r["job_id"], json.dumps(r, separators=(",", ":")) + "\n"))
		jobs.sort()
		sys.stdout.write("".join(head) + "".join(l for _, _, l in jobs))
		EOF
		stream-seal -i "$t.b.body" -o "$t.b.nd"
	done
	roll --config "$CFG" --history hist.b.nd --controller "$CTL" --decider rule -o b.nd exec.b.nd
	rolling "$D/rule.nd" > a.rec
	rolling b.nd > b.rec
	# decisions at 00:00 .. 10:00 cut before the divergence (12:00 is itself a cutoff with the same past)
	jq -c 'select(.cutoff_time_seconds <= 3153600)' a.rec > a.past
	jq -c 'select(.cutoff_time_seconds <= 3153600)' b.rec > b.past
	[ "$(wc -l < a.past)" -eq "$((7 * 7))" ] || fail "expected 7 decisions x 7 records before the divergence"
	cmp a.past b.past || fail "a record before the divergence depends on the future"
	# and the futures really differ afterwards
	! cmp -s a.rec b.rec || fail "the two futures gave the same records: the test proves nothing"
	# no observation or request holds a future job id
	run -1 grep -c 'zz-new' b.past
	assert_output 0
}

@test "roll: a scenario ends at its horizon: work past cut + H changes no evidence; a censored HP job is no completion failure" {
	# A = the day as is. B = the same traces with one HP job that runs through the first
	# cutoffs (submitted before the history window, started before the day, completing
	# after cut + H of decision 0) made 30,000 s longer: its fate differs only after the
	# horizons of the decisions whose window ends before its completion in A.
	read -r JOB DONE < <(jq -r --argjson t0 $T0 'select(.type == "job_result" and .service_class == "HP"
		and .submit_time_seconds < $t0 - 14400 and .start_time_seconds < $t0
		and .completion_time_seconds > $t0 + 14400 and .completion_time_seconds < $t0 + 86400)
		| "\(.job_id) \(.completion_time_seconds)"' "$D/rule.nd" | head -n 1)
	[ -n "$JOB" ] || fail "the fixture has no HP job running from before the day past the first horizon"
	jq -c --arg id "$JOB" 'select(.type != "end") | if .type == "job" and .job_id == $id then .duration += 30000 else . end' \
		"$D/exec.nd" > exec.b.body
	run -0 grep -c "\"job_id\":\"$JOB\"" exec.b.body
	assert_output 1
	stream-seal -i exec.b.body -o exec.b.nd
	roll --config "$CFG" --history "$D/hist.nd" --controller "$CTL" --decider rule -o b.nd exec.b.nd
	# every measured quantity of every scenario (and the scenario result's fingerprint, which
	# covers every job, run and eviction of the window) of the decisions whose window
	# [cut, cut + 14400] ends before the job's completion in A
	ev() {
		jq -c --argjson done "$DONE" 'select(.type == "candidate_evidence" and .cutoff_time_seconds + 14400 < $done)
			| [.cutoff_time_seconds, .action_id, .hard_slo_passed, .allocation_rate_mean, .spot_jct_p95_seconds,
			   (.scenario_evidence[] | del(.scenario_fingerprint, .metrics_fingerprint, .audit_fingerprint, .audit))]' "$1"
	}
	ev "$D/rule.nd" > a.ev
	ev b.nd > b.ev
	[ "$(wc -l < a.ev)" -ge 6 ] || fail "expected at least 2 decisions x 3 candidates before the job's completion"
	cmp a.ev b.ev || fail "a scenario's evidence depends on work past its horizon"
	# and the longer job really changed the run: its own result, and the records after it
	run -0 jq -r --arg id "$JOB" 'select(.type == "job_result" and .job_id == $id) | .completion_time_seconds' b.nd
	[ "$output" = "$(awk -v d="$DONE" 'BEGIN { printf "%d", d + 30000 }')" ] || fail "the job's completion did not move by 30000 s: $output"
	# a censored HP job is never a completion failure: the scenarios that end with HP jobs
	# still queued or running pass hp-completion-rate with the rate 1
	run -0 jq -c 'select(.type == "candidate_evidence") | .cutoff_time_seconds as $cut | .scenario_evidence[]
		| select(.horizon_censoring.hp_jobs_censored > 0)
		| [.horizon_censoring.simulation_end == $cut + 14400,
		   (.audit.constraints[] | select(.id == "hp-completion-rate") | .passed, .observed)]' "$D/rule.nd"
	[ "$(printf '%s\n' "$output" | wc -l)" -ge 3 ] || fail "no scenario ends with a censored HP job: the test proves nothing"
	run -0 bash -c "printf '%s\n' \"\$1\" | sort -u" _ "$output"
	assert_output '[true,true,1]'
}

@test "roll: an exec: decider that times out, answers garbage, names an outsider or exits: safety action, recorded rejection, no hang" {
	# Only the decider that never answers gets a short timeout: the others answer at once and
	# get a long one, so no outcome depends on how fast the machine starts them.
	for d in slow garbage outsider once; do
		run timeout 600 roll --config "$CFG" --history "$D/hist.nd" --controller "$CTL" --decider "exec:$DEC/$d.sh" \
			--decider-timeout "$([ $d = slow ] && echo 0.3 || echo 60)" -o "$d.nd" "$D/exec.nd"
		assert_success
		run -0 jq -r 'select(.type == "rolling_decision") | [.decider_reply.status, (.decider_reply.rejection_reason // "-"), .selected_action_id, .safety_action_applied_after_rejection] | @tsv' "$d.nd"
		case $d in
		slow) assert_line --index 0 "rejected	timeout	rolling-fifo-open	true"; assert_line --index 11 "rejected	timeout	rolling-fifo-open	true" ;;
		garbage) assert_line --index 0 "rejected	malformed_json	rolling-fifo-open	true" ;;
		outsider) assert_line --index 0 "rejected	action_not_in_candidates	rolling-fifo-open	true" ;;
		once) assert_line --index 0 --partial "accepted	-	"; assert_line --index 1 "rejected	decider_exited	rolling-fifo-open	true"
		      assert_line --index 11 "rejected	decider_exited	rolling-fifo-open	true" ;;
		esac
		run -0 jq -r 'select(.type == "rolling_report") | .rejected_reply_count' "$d.nd"
		case $d in once) assert_output 11 ;; *) assert_output 12 ;; esac
	done
	# the garbage reply is kept as a UTF-8-safe excerpt with its length and fingerprint
	run -0 jq -r 'select(.type == "rolling_decision" and .decision_index == 0) | .decider_reply | [.reply_excerpt, .reply_bytes] | @tsv' garbage.nd
	assert_output "FIFO please, it is obviously best	33"
}

# Five candidates make each request larger than a pipe (64 KiB); the
# decider reads 1000 bytes of the first and stalls until roll has frozen it (timeout).
@test "roll: a request cut off by its timeout is finished before the next one: the decider sees only whole lines" {
	jq --arg dir "$ROOT/configs" '.candidate_budget = 5 | .action_space |= sub("^configs"; $dir) | .slo |= sub("^configs"; $dir) | .inner_predictor |= sub("^configs"; $dir)' "$CFG" > cfg5.json
	run roll --config cfg5.json --history "$D/hist.nd" --controller "$CTL" --decider-timeout 10 --checkpoint cp \
		--candidates rolling-fifo-open,native-fifo,native-preemptive-g3600-b09-d0000,rolling-preemptive-open-d0000,rolling-preemptive-open-loss-aware \
		--decider "exec:$DEC/torn.py $PWD/cp $PWD/torn.log" -o torn.nd "$D/exec.nd"
	assert_success
	run -0 cat torn.log
	assert_output "$(seq 0 11 | sed 's/^/request /')"
	run -0 jq -r 'select(.type == "rolling_decision") | .decider_reply | .rejection_reason // .status' torn.nd
	assert_line --index 0 timeout
	assert_line --index 1 accepted
}

# The man page's "a late reply to an earlier request is discarded".
@test "roll: a second reply to a request is discarded, not taken as the answer to the next one" {
	run roll_day --decider "exec:$DEC/twice.sh" -o twice.nd "$D/exec.nd"
	assert_success
	run -0 jq -r 'select(.type == "rolling_decision") | .decider_reply.status' twice.nd
	assert_output "$(yes accepted | head -n 12)"
}

# Usage counts are bounded per reply (10^12) and in their sums.
@test "roll: usage counts over 10^12 are rejected (2^63 - 1 no longer overflows llm_usage); metrics reads the stream" {
	run roll_day --decider "exec:$DEC/usage.sh 9223372036854775807" -o big.nd "$D/exec.nd"
	assert_success
	run -0 jq -r 'select(.type == "rolling_decision") | .decider_reply | [.rejection_reason, .rejection_detail] | @tsv' big.nd
	assert_line --index 0 "invalid_usage_count	usage counts must be integers in 0..1000000000000"
	run -0 jq -c 'select(.type == "rolling_report") | [.llm_usage.prompt_tokens, .rejected_reply_count]' big.nd
	assert_output "[0,12]"
	run roll_day --decider "exec:$DEC/usage.sh 1000000000000" -o max.nd "$D/exec.nd"
	assert_success
	run -0 jq -c 'select(.type == "rolling_report") | [.llm_usage.prompt_tokens, .rejected_reply_count]' max.nd
	assert_output "[12000000000000,0]"
	run metrics -i big.nd -o big.metrics.nd
	assert_success
}

@test "roll: the scripted agent (exec: jq) is accepted and its reason codes recorded" {
	roll_day --decider "exec:jq -c --unbuffered -f $DEC/scripted-agent.jq" -o agent.nd "$D/exec.nd"
	run -0 jq -r 'select(.type == "rolling_decision") | [.decider_reply.status, .decider_reply.reason_code] | @tsv' agent.nd
	assert_line --index 0 --regexp '^accepted	scripted-agent-v1:'
	refute_output --partial rejected
	# the requests it saw: past-only, no full-trace fingerprint
	fp=$(jq -r 'select(.type == "header") | .trace_fingerprint' "$D/rule.nd")
	cat > tee.sh <<-EOF
	#!/bin/sh
	tee -a "$PWD/requests.ndjson" | jq -c --unbuffered -f "$DEC/scripted-agent.jq"
	EOF
	chmod +x tee.sh
	roll_day --decider "exec:$PWD/tee.sh" -o agent2.nd "$D/exec.nd"
	cmp <(rolling agent.nd) <(rolling agent2.nd)
	[ "$(wc -l < requests.ndjson)" -eq 12 ]
	run -1 grep -c "$fp" requests.ndjson
	assert_output 0
	run -0 jq -r '.observation.information_boundary | [.jobs_with_submit_time_after_cutoff_excluded, .full_trace_fingerprint_exposed] | @tsv' requests.ndjson
	assert_line --index 0 "true	false"
	# every request_id is the request's own fingerprint, and the reply named it
	run -0 jq -r 'select(.request_id != .request_fingerprint) | .decision_index' requests.ndjson
	assert_output ""
}

@test "roll: fixed:ACTION with --candidates; an action outside the candidates is rejected" {
	roll_day --decider fixed:rolling-preemptive-open-d0000 --candidates rolling-fifo-open,rolling-preemptive-open-d0000,native-fifo \
		--arm-id fixed-open -o fixed.nd "$D/exec.nd"
	run -0 jq -r 'select(.type == "rolling_decision") | .selected_action_id' fixed.nd
	assert_line --index 0 rolling-preemptive-open-d0000
	assert_line --index 11 rolling-preemptive-open-d0000
	run -0 jq -r 'select(.type == "header") | .policy.action_id' fixed.nd
	assert_output fixed-open
	# (--candidates without the safety action: tests/cases/roll/candidates-without-safety-action.case)
	roll_day --decider fixed:native-preemptive-g3600-b09-d0000 -o f2.nd "$D/exec.nd"
	run -0 jq -r 'select(.type == "rolling_decision") | .decider_reply.rejection_reason' f2.nd
	assert_line --index 0 action_not_in_candidates
}

@test "roll: the oracle evaluates the whole catalog on the actual future and is marked non-deployable everywhere" {
	roll_day --decider oracle --arm-id posthoc-catalog-oracle -o oracle.nd "$D/exec.nd"
	run -0 jq -c 'select(.type == "rolling_report") | [.candidate_simulation_count, .candidate_budget_per_decision, .deployable, .non_deployable, .candidate_scenario_set_id]' oracle.nd
	assert_output '[60,5,false,true,"actual-future-oracle"]'
	run -0 jq -r 'select(.type == "rolling_decision" or .type == "candidate_evidence") | .non_deployable' oracle.nd
	refute_output --partial false
	run -0 jq -r 'select(.type == "scenario") | [.scenario_profile_id, .future_arrivals_visible, .non_deployable] | @tsv' oracle.nd
	assert_line --index 0 "actual-future	true	true"
	run -0 jq -r 'select(.type == "header") | .params.deployable' oracle.nd
	assert_output false
	metrics -i oracle.nd -o oracle.m
	jq -s -e '.[1].rolling_control.non_deployable == true' oracle.m
}

@test "roll: plan: replays recorded replies and stops at the first unknown request with a planning checkpoint" {
	: > plan.ndjson
	run roll_day --decider plan:plan.ndjson -o cp.nd "$D/exec.nd"
	assert_success
	run -0 jq -r 'select(.type == "rolling_planning_checkpoint") | [.completed_decision_count, .pending_request.decision_index] | @tsv' cp.nd
	assert_output "0	0"
	for k in 1 2 3; do
		jq -c 'select(.type == "rolling_planning_checkpoint") | .pending_request | {type: "decision", request_id, action_id: .recommended_action_id, reason_code: "agent-accepts-recommendation"}' cp.nd >> plan.ndjson
		roll_day --decider plan:plan.ndjson -o cp.nd "$D/exec.nd"
		run -0 jq -r 'select(.type == "rolling_planning_checkpoint") | .completed_decision_count' cp.nd
		assert_output "$k"
	done
	# the replayed decisions equal the rule arm's (same recommendation, same state)
	run -0 jq -r 'select(.type == "rolling_planning_checkpoint") | .completed_request_fingerprints | length' cp.nd
	assert_output 3
}

@test "roll: kill -9 anywhere, --resume: byte-identical to an uninterrupted run" {
	cp "$D/exec.nd" "$D/hist.nd" .
	roll --config "$CFG" --history hist.nd --controller "$CTL" --decider rule -o ref.nd exec.nd
	for t in 0.05 0.12 0.08 0.2 0.1 0.3 0.15 0.25; do
		timeout -s KILL "$t" roll --config "$CFG" --history hist.nd --controller "$CTL" --decider rule --resume ck -o res.nd exec.nd || true
	done
	roll --config "$CFG" --history hist.nd --controller "$CTL" --decider rule --resume ck -o res.nd exec.nd
	cmp ref.nd res.nd
	ls ck/state-0012.ndjson.zst
	stream-verify ck/state-0012.ndjson.zst
	run -0 jq -r 'select(.type == "engine_state") | .state_handoff_fingerprint' <(zstdcat ck/state-0012.ndjson.zst)
	assert_output --regexp '^[0-9a-f]{32}$'
	# the inner predictor's learned state in every state file equals an uninterrupted run's
	roll --config "$CFG" --history hist.nd --controller "$CTL" --decider rule --checkpoint ck2 -o ref2.nd exec.nd
	cmp ref.nd ref2.nd
	for k in 0002 0007 0012; do
		[ -e "ck/state-$k.ndjson.zst" ] || continue
		cmp <(zstdcat "ck/state-$k.ndjson.zst" | grep '"type":"predictor_state"') <(zstdcat "ck2/state-$k.ndjson.zst" | grep '"type":"predictor_state"') ||
			fail "state-$k: the resumed run's predictor state differs"
	done
}

@test "roll: on a backlogged day (thousands of HP jobs queued at every cutoff) kill -9 and --resume are byte-identical, and so are the two evaluators" {
	# the same pool at 6 times the profile's load, Spot from the origin: HP queues for days
	trace-synth --profile "$ROOT/configs/profiles/alibaba-spot-gpu-v2026.json" --gpu-model GPU-series-2 --days 0-4 --load-factor 6 -o full.nd
	local t=$((4 * DAY))
	trace-window --eval-start $t --eval-end $((t + DAY - 1)) --warmup-start 0 -i full.nd -o exec.nd
	trace-window --eval-start $t --eval-end $((t + DAY - 1)) --warmup-start $((t - 14400)) -i full.nd -o hist.nd
	roll --config "$CFG" --history hist.nd --controller "$CTL" --decider rule -o ref.nd exec.nd
	run -0 jq -r 'select(.type == "rolling_observation") | .scheduler_state.queue.job_count' ref.nd
	[ "${#lines[@]}" -eq 12 ] || fail "expected 12 decisions, got ${#lines[@]}"
	for q in "${lines[@]}"; do [ "$q" -ge 4000 ] || fail "a cutoff with only $q queued jobs: not a backlogged day"; done
	# no record lists the backlog job by job (issue 23): the carryover is a count, a
	# fingerprint and a summary per (class, pool, status) that adds up to the queue and the
	# running set, and each scenario's estimates are counted for every carryover job
	run -0 jq -r 'select(.type == "rolling_observation" or .type == "scenario") | tostring | length' ref.nd
	for n in "${lines[@]}"; do [ "$n" -lt 65536 ] || fail "a rolling record of $n bytes at a backlog"; done
	run -0 jq -r 'select(.type == "rolling_observation") | .scheduler_state | [.carryover_job_count, ([.carryover_summary[].job_count] | add), .queue.job_count + .running.job_count, ([.carryover_summary[] | select(.status == "queued") | .job_count] | add)] | @tsv' ref.nd
	[ "${#lines[@]}" -eq 12 ] || fail "expected 12 observations, got ${#lines[@]}"
	for l in "${lines[@]}"; do
		read -r n sum total queued <<<"$l"
		[ "$n" -eq "$sum" ] && [ "$n" -eq "$total" ] && [ "$queued" -ge 4000 ] || fail "carryover count, summary and queue disagree: $l"
	done
	run -0 jq -s -r '(map(select(.type == "rolling_observation")) | map({key: (.cutoff_time_seconds | tostring), value: .scheduler_state.carryover_job_count}) | from_entries) as $n | .[] | select(.type == "scenario") | [.carryover_runtime_estimate_count, $n[.cutoff_time_seconds | tostring], (.carryover_runtime_estimate_summary.job_count_by_estimator_method | add)] | @tsv' ref.nd
	[ "${#lines[@]}" -eq 24 ] || fail "expected 24 scenarios, got ${#lines[@]}"
	for l in "${lines[@]}"; do
		read -r n obs methods <<<"$l"
		[ "$n" -eq "$obs" ] && [ "$n" -eq "$methods" ] || fail "a scenario's estimate count differs from its observation's carryover: $l"
	done
	# kill -9 at fixed points, not after a time: the decider SIGKILLs roll while it waits for
	# the reply to decision 3 (the first run) and to decision 8 (the resumed run), once each
	local dec="exec:$DEC/kill-at.py 3,8 $PWD/killed"
	run roll --config "$CFG" --history hist.nd --controller "$CTL" --decider "$dec" --checkpoint ck -o res.nd exec.nd
	[ "$status" -eq 137 ] || fail "the first run was not killed at decision 3 (status $status): $output"
	[ -e killed.3 ] && [ -e ck/state-0003.ndjson.zst ] && [ ! -e ck/state-0004.ndjson.zst ] && [ ! -e res.nd ] ||
		fail "after the kill at decision 3: $(ls ck)"
	run --separate-stderr roll --config "$CFG" --history hist.nd --controller "$CTL" --decider "$dec" --progress --resume ck -o res.nd exec.nd
	[ "$status" -eq 137 ] || fail "the resumed run was not killed at decision 8 (status $status): $stderr"
	[ "${stderr_lines[0]}" = "roll: resuming after decision 3/12" ] || fail "stderr: $stderr"
	[ -e ck/state-0008.ndjson.zst ] && [ ! -e ck/state-0009.ndjson.zst ] && [ ! -e res.nd ] || fail "after the kill at decision 8: $(ls ck)"
	run --separate-stderr roll --config "$CFG" --history hist.nd --controller "$CTL" --decider "$dec" --progress --resume ck -o res.nd exec.nd
	assert_success
	[ "${stderr_lines[0]}" = "roll: resuming after decision 8/12" ] || fail "stderr: $stderr"
	stream-verify ck/state-0012.ndjson.zst
	# the same arm uninterrupted (every kill has happened: the decider only answers now)
	roll --config "$CFG" --history hist.nd --controller "$CTL" --decider "$dec" -o once.nd exec.nd
	cmp once.nd res.nd
	# it decided as the rule arm did
	run -0 jq -r 'select(.type == "rolling_decision") | [.decision_index, .selected_action_id, .state_handoff_fingerprint] | @tsv' ref.nd
	local want="$output"
	run -0 jq -r 'select(.type == "rolling_decision") | [.decision_index, .selected_action_id, .state_handoff_fingerprint] | @tsv' res.nd
	[ "${#lines[@]}" -eq 12 ] && [ "$output" = "$want" ] || fail "the resumed arm's decisions differ from the rule arm's"
	# the snapshot evaluator copies the live state only; the fork evaluator the whole process
	roll --config "$CFG" --history hist.nd --controller "$CTL" --decider rule --evaluator fork -o fork.nd exec.nd
	cmp ref.nd fork.nd
}

@test "roll: the inner predictor is the rolling config's tenant controller; its state carries across decisions and into checkpoints" {
	# without --controller the rolling config's inner_predictor (the tenant controller) runs
	roll --config "$CFG" --history "$D/hist.nd" --decider rule --checkpoint ck -o dflt.nd "$D/exec.nd"
	cmp <(sans_header "$D/rule.nd") <(sans_header dflt.nd)
	run -0 jq -r 'select(.type == "header") | .controller.schema_version' dflt.nd
	assert_output schednav.tenant-predictive-controller/1
	# each observation after the first cutoff projects the controller's last decision before
	# it: the same per-horizon quotas (summed over pools) and the pool's forecast points
	jq -c 'select(.type == "control_decision") | [.cutoff_time_seconds, .spot_quota_gpus_by_guarantee_hour]' dflt.nd > dec.tsv
	run -0 jq -r --slurpfile d dec.tsv 'select(.type == "rolling_observation" and .predictive_projection != null) | .cutoff_time_seconds as $c
		| ([$d[] | select(.[0] <= $c)] | last | .[1]) as $q
		| [.cutoff_time_seconds, (.predictive_projection.spot_quota_gpus_by_guarantee_hour == $q), (.predictive_projection.forecast_points[0].resource_pool)] | @tsv' dflt.nd
	[ "${#lines[@]}" -ge 11 ] || fail "expected a projection at 11 cutoffs or more, got ${#lines[@]}"
	refute_output --partial false
	assert_line --index 0 --partial "GPU-series-2"
	# its learned state grows in one session: decisions, samples and feedback events never restart
	for k in $(seq -f %04g 1 12); do zstdcat "ck/state-$k.ndjson.zst" | grep '"type":"predictor_state"'; done > ps.nd
	assert_schema ps.nd
	run -0 jq -s -r '[.[] | .decision_count] as $n | [.[] | .pools[0].feedback_event_count] as $f | [.[] | .model.demand_sample_count] as $s
		| [($n | . == sort and .[0] < .[-1]), ($f | . == sort and .[-1] > 0), ($s | . == sort), (.[-1].model.trained)] | @tsv' ps.nd
	assert_output "true	true	true	true"
	# the aggregate family stays selectable, and "none" runs without an inner predictor
	roll_day --decider rule --controller "$AGG" -o agg.nd "$D/exec.nd"
	run -0 jq -r 'select(.type == "header") | .controller.controller_id' agg.nd
	assert_output predictive-spot-v1
	roll_day --decider rule --controller none -o none.nd "$D/exec.nd"
	run -0 jq -r 'select(.type == "rolling_observation") | .predictive_projection' none.nd
	refute_output --partial '{'
}

@test "roll: a rolling config whose inner_predictor is not a readable predictor config is refused" {
	# (one that is not a string: tests/cases/roll/config-inner-predictor-not-string.case; this one
	# stays here because the config's relative paths are read from the source tree)
	jq '.inner_predictor = "configs/controllers/no-such-controller.json"' "$CFG" > bad-path.json
	cd "$ROOT"
	run roll --config "$BATS_TEST_TMPDIR/bad-path.json" --history "$D/hist.nd" --decider rule -o "$BATS_TEST_TMPDIR/x.nd" "$D/exec.nd"
	assert_failure 1
	assert_output --partial "no-such-controller.json"
	assert_no_output "$BATS_TEST_TMPDIR/x.nd"
}

@test "roll: --progress says decision K/12 on stderr (and where --resume starts); --resume removes stale state-*.tmp files, nothing else" {
	run --separate-stderr roll_day --decider rule --progress --checkpoint ck -o a.nd "$D/exec.nd"
	assert_success
	cmp <(sans_header "$D/rule.nd") <(sans_header a.nd)
	[ "${#stderr_lines[@]}" -eq 12 ] || fail "stderr: $stderr"
	[[ "${stderr_lines[0]}" == "roll: decision 1/12 (8%), ETA "* ]] || fail "first line: ${stderr_lines[0]}"
	[[ "${stderr_lines[11]}" == "roll: decision 12/12 (100%) in "* ]] || fail "last line: ${stderr_lines[11]}"
	# quiet when stderr is not a terminal, unless forced; --no-progress wins over a terminal
	run --separate-stderr roll_day --decider rule -o b.nd "$D/exec.nd"
	assert_success
	[ -z "$stderr" ] || fail "stderr: $stderr"
	# on a terminal (script(1), bsdutils, gives one) it is shown by default, redrawn in place
	run script -qec "$(printf '%q ' roll --config "$CFG" --history "$D/hist.nd" --controller "$CTL" --decider rule -o t.nd "$D/exec.nd")" /dev/null
	assert_success
	assert_output --partial "roll: decision 12/12 (100%) in "
	[[ "$output" == *$'\r'"roll: decision 1/12 (8%), ETA "* ]] || fail "not redrawn in place: $output"
	run script -qec "$(printf '%q ' roll --config "$CFG" --history "$D/hist.nd" --controller "$CTL" --decider rule --no-progress -o c.nd "$D/exec.nd")" /dev/null
	assert_success
	assert_output ""
	# a killed run's temporary state files (the writer's pattern) go on --resume; look-alikes stay
	touch ck/state-0013.ndjson.zst.Ab3xZ9.tmp ck/state-0004.ndjson.zst.000000.tmp ck/state-0013.ndjson.zst.toolong1.tmp ck/other.tmp
	rm ck/state-0012.ndjson.zst ck/state-0011.ndjson.zst
	run --separate-stderr roll_day --decider rule --progress --resume ck -o r.nd "$D/exec.nd"
	assert_success
	cmp a.nd r.nd
	[ "${stderr_lines[0]}" = "roll: resuming after decision 10/12" ] || fail "stderr: $stderr"
	[[ "${stderr_lines[1]}" == "roll: decision 11/12 (91%), ETA "* ]] || fail "stderr: $stderr"
	run -0 ls ck
	refute_output --partial "Ab3xZ9"
	refute_output --partial "000000"
	assert_line state-0013.ndjson.zst.toolong1.tmp
	assert_line other.tmp
}

@test "roll: --checkpoint refuses a directory holding a checkpoint; --resume refuses another run's" {
	roll_day --decider rule -o ref.nd "$D/exec.nd"
	roll_day --decider rule --checkpoint ck -o a.nd "$D/exec.nd"
	run roll_day --decider rule --checkpoint ck -o a.nd "$D/exec.nd"
	assert_failure 1
	assert_output --partial "holds a checkpoint already"
	run roll_day --decider oracle --resume ck -o a.nd "$D/exec.nd"
	assert_failure 1
	assert_output --partial "belongs to another run"
	cmp ref.nd a.nd
}

@test "roll: every record of the result, planning-checkpoint and state streams matches its schema" {
	assert_schema "$D/rule.nd"
	: > plan.ndjson
	roll_day --decider plan:plan.ndjson -o cp.nd "$D/exec.nd"
	roll_day --decider oracle --checkpoint ck -o oracle.nd "$D/exec.nd"
	zstdcat ck/state-0003.ndjson.zst > state.nd
	assert_schema cp.nd oracle.nd state.nd
}

@test "roll: a rolling config and action space in the ids' old spelling (rolling-controller/v1, native-action-space/v1) still load, with the same records" {
	sed 's|"schednav.native-action-space/1"|"schednav.native-action-space/v1"|' "$ROOT/configs/action_spaces/rolling-predictive-v3.json" > space.json
	jq --arg s "$BATS_TEST_TMPDIR/space.json" '.schema_version = "schednav.rolling-controller/v1" | .action_space = $s' "$CFG" > old.json
	jq --arg s "$BATS_TEST_TMPDIR/space.json" '.action_space = $s' "$CFG" > new.json
	run -0 grep -c '/v1"' space.json old.json
	assert_output $'space.json:1\nold.json:1'
	local T="$BATS_TEST_TMPDIR"
	cd "$ROOT"   # the configs name the inner predictor relative to the tree
	run roll --config "$T/old.json" --history "$D/hist.nd" --controller "$CTL" --decider rule -o "$T/old.nd" "$D/exec.nd"
	[ "$status" -eq 0 ]
	cp "$ROOT/configs/action_spaces/rolling-predictive-v3.json" "$T/space.json"   # the same path, the new spelling
	run roll --config "$T/new.json" --history "$D/hist.nd" --controller "$CTL" --decider rule -o "$T/new.nd" "$D/exec.nd"
	[ "$status" -eq 0 ]
	cmp <(rolling "$T/old.nd") <(rolling "$T/new.nd")
	# the config's and the action space's fingerprints hash the new spelling whichever was read
	run -0 jq -c 'select(.type == "rolling_report") | [.controller_fingerprint, .action_space_fingerprint]' "$T/old.nd"
	local fps="$output"
	run -0 jq -c 'select(.type == "rolling_report") | [.controller_fingerprint, .action_space_fingerprint]' "$T/new.nd"
	[ "$output" = "$fps" ]
	assert_output --regexp '^\["[0-9a-f]{32}","[0-9a-f]{32}"\]$'
	cmp <(rolling "$T/new.nd") <(rolling "$D/rule.nd")
	# another spelling is refused, naming the new id
	jq '.schema_version = "schednav.rolling-controller/v2"' "$CFG" > "$T/v2.json"
	run roll --config "$T/v2.json" --history "$D/hist.nd" --controller "$CTL" --decider rule -o "$T/x.nd" "$D/exec.nd"
	[ "$status" -eq 1 ]
	assert_output --partial "unsupported schema_version 'schednav.rolling-controller/v2' (expected 'schednav.rolling-controller/1')"
	assert_no_output "$T/x.nd"
}

@test "roll: a decider's own children end with it (its process group): roll 2>&1 | cat returns at once" {
	# wrapper.sh never answers and leaves two 'sleep 1000' children; before, they outlived
	# roll holding its stderr, so a pipe reader waited 1000 s.
	export WRAPPER_PIDS="$PWD/pids"
	run -0 timeout 600 bash -c 'roll --config "$1" --history "$2" --controller "$3" --decider "exec:$4" --decider-timeout 5 -o w.nd "$5" 2>&1 | cat' _ \
		"$CFG" "$D/hist.nd" "$CTL" "$DEC/wrapper.sh" "$D/exec.nd"
	run -0 jq -r 'select(.type == "rolling_decision") | .decider_reply.rejection_reason' w.nd
	assert_line --index 0 timeout
	[ "$(wc -l < pids)" -ge 2 ]
	# every child is gone (a killed orphan is reaped by init a moment later: wait up to 60 s)
	local pid i
	# alive PID: running (not gone, not a zombie waiting for init)
	alive() {
		local st
		st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
		case $st in '' | Z) return 1 ;; *) return 0 ;; esac
	}
	for pid in $(cat pids); do
		for i in $(seq 600); do
			if ! alive "$pid"; then break; fi
			sleep 0.1
		done
		if alive "$pid"; then fail "decider child $pid outlived roll"; fi
	done
}

@test "roll: an action space whose policies use a physical placement_strategy rolls on the node model; mixed strategies are refused" {
	# jobs of more GPUs than a node holds (and no workers field) cannot be placed on nodes
	for f in exec hist; do
		jq -c 'select(.type != "end" and (.type != "job" or .gpus <= 8))' "$D/$f.nd" > "$f.body"
		stream-seal "$f.body" > "$f.nd"
	done
	mkdir -p pol
	for p in native-fifo rolling-fifo-open native-preemptive-g3600-b09-d0000 rolling-preemptive-open-d0000 rolling-preemptive-open-loss-aware; do
		jq '.placement_strategy = "largest-free"' "$ROOT/configs/policies/$p.json" > "pol/$p.json"
	done
	jq '.fixed_execution_controls.placement_strategy = "largest-free" | .profiles |= map(sub("configs/policies/"; "pol/"))' \
		"$ROOT/configs/action_spaces/rolling-predictive-v3.json" > space.json
	jq --arg r "$ROOT" '.action_space = "space.json" | .slo = ($r + "/" + .slo) | .inner_predictor = ($r + "/" + .inner_predictor)' "$CFG" > cfg.json
	run -0 roll --config cfg.json --history hist.nd --controller "$CTL" --decider rule -o phys.nd exec.nd
	run -0 jq -c 'select(.type == "rolling_report") | [.decision_count, .candidate_simulation_count]' phys.nd
	assert_output '[12,72]'
	metrics --input phys.nd > m.nd
	run -0 jq -c 'select(.type == "metrics") | [.placement_strategy, .placement.placement_strategy, (.placement.sample_count > 0), .rolling_control.decision_count]' m.nd
	assert_output '["largest-free","largest-free",true,12]'
	# one action on another strategy: a session cannot change its placement model
	jq '.placement_strategy = "fgd"' "$ROOT/configs/policies/native-fifo.json" > pol/native-fifo.json
	run -1 roll --config cfg.json --history hist.nd --controller "$CTL" --decider rule -o mixed.nd exec.nd
	assert_output --partial "action 'native-fifo' does not keep the fixed execution controls"
}
