#!/usr/bin/env bats
load helper
load run_cases

POL="$ROOT/configs/policies"
SMALL="$ROOT/tests/data/sim/preemption-small.trace.ndjson"
WARM="$ROOT/tests/data/sim/warmup-window.trace.ndjson"

setup() {
	TMP="$BATS_TEST_TMPDIR"
	sim-run --policy "$POL/native-preemptive-0000.json" --input "$WARM" > "$TMP/result"
}

@test "metrics: --help matches the man page; a bad option exits 2" {
	assert_tool_invariants metrics
}

@test "metrics: one record, documented key order, schema-valid, fingerprints chained" {
	metrics --input "$TMP/result" > "$TMP/m"
	[ "$(wc -l < "$TMP/m")" -eq 3 ]
	sed -n 2p "$TMP/m" > "$TMP/rec"
	assert_schema "$TMP/rec"
	want="type action_id scheduler spot_guarantee_seconds checkpoint_interval_seconds policy_preemption_overhead_seconds hp_preemption_delay_seconds spot_eviction_budget_rate preemption_victim_strategy placement_strategy policy policy_fingerprint trace_id trace_fingerprint dataset source engine evaluation_start evaluation_end result_fingerprint node_count capacity_gpus simulation_start simulation_end allocation_rate_mean allocated_gpu_seconds warmup_allocated_gpu_seconds evaluation_allocated_gpu_seconds drain_allocated_gpu_seconds hp_job_count hp_completed_count hp_completion_rate hp_jct_mean_seconds hp_jct_p50_seconds hp_jct_p95_seconds hp_queue_mean_seconds hp_queue_p50_seconds hp_queue_p95_seconds hp_preemption_count hp_preempted_job_count spot_job_count spot_completed_count spot_completion_rate spot_jct_mean_seconds spot_jct_p50_seconds spot_jct_p95_seconds spot_queue_mean_seconds spot_queue_p50_seconds spot_queue_p95_seconds spot_preemption_count spot_preempted_job_count spot_preempted_job_rate spot_run_count spot_eviction_rate_per_run preemption_event_count preemption_added_gpu_seconds preemption_rollback_seconds preemption_overhead_seconds spot_guarantee_success_rate spot_guarantee_succeeded_count spot_guarantee_failed_count hp_preempted_job_rate preempted_job_count preemption_events_during_evaluation_window preemption_events_during_drain spot_runs_during_evaluation_window spot_runs_during_drain preemption_ledger_consistent spot_run_ledger_consistent spot_guarantee_ledger_consistent"
	run -0 jq -r 'keys_unsorted | join(" ")' "$TMP/rec"
	assert_output "$want"
	rfp=$(tail -n1 "$TMP/result" | jq -r .fingerprint)
	run -0 jq -r '.result_fingerprint' "$TMP/rec"
	assert_output "$rfp"
	run -0 jq -r '.inputs[0].fingerprint' <(head -n1 "$TMP/m")
	assert_output "$rfp"
}

@test "metrics: the §3.8 golden values, int 0 preemption totals under fifo" {
	sim-run --policy "$POL/native-fifo.json" --input "$SMALL" > "$TMP/r"
	metrics < "$TMP/r" > "$TMP/m"
	run -0 jq -c 'select(.type=="metrics") | [.hp_jct_p95_seconds, .hp_queue_mean_seconds, .allocation_rate_mean, .spot_eviction_rate_per_run, .spot_guarantee_ledger_consistent, .dataset]' "$TMP/m"
	assert_output '[10,8,1,0,true,"unit-fixture"]'
	# kinds matter: floats stay floats, the empty preemption totals are the integer 0
	grep -q '"hp_jct_p95_seconds":10.0,' "$TMP/m"
	grep -q '"allocation_rate_mean":1.0,' "$TMP/m"
	grep -q '"preemption_added_gpu_seconds":0,"preemption_rollback_seconds":0,"preemption_overhead_seconds":0,' "$TMP/m"
	grep -q '"hp_job_count":1,' "$TMP/m"
}

@test "metrics: after an eviction the totals are floats" {
	sim-run --policy "$POL/native-preemptive-0000.json" --input "$SMALL" > "$TMP/r"
	metrics < "$TMP/r" > "$TMP/m"
	grep -q '"preemption_added_gpu_seconds":164.0,"preemption_rollback_seconds":2.0,"preemption_overhead_seconds":80.0,' "$TMP/m"
	grep -q '"spot_eviction_rate_per_run":0.5,' "$TMP/m"
}

@test "metrics: nulls, never 0, when a class has no job" {
	sim-run --policy "$POL/native-preemptive-3600.json" --input "$ROOT/tests/data/sim/hp-only.trace.ndjson" > "$TMP/r"
	metrics < "$TMP/r" > "$TMP/m"
	for k in spot_completion_rate spot_jct_mean_seconds spot_jct_p50_seconds spot_jct_p95_seconds spot_queue_mean_seconds spot_queue_p95_seconds spot_preempted_job_rate spot_eviction_rate_per_run spot_guarantee_success_rate; do
		grep -q "\"$k\":null," "$TMP/m" || fail "$k is not null"
	done
	grep -q '"spot_job_count":0,' "$TMP/m"
	grep -q '"spot_run_count":0,' "$TMP/m"
	grep -q '"hp_queue_p95_seconds":8.55,' "$TMP/m"
	grep -q '"dataset":"hp-only",' "$TMP/m"
}

@test "metrics: job_result lines read by the fast path or by the JSON parser give the same record" {
	# the fast path takes job_result lines exactly as sim-run writes them; move each line's
	# "type" to the end (the parser reads it), or spell a count as 0.0 / a time with 17 digits
	metrics --input "$TMP/result" > "$TMP/fast"
	grep -c '^{"type":"job_result"' "$TMP/result" > "$TMP/n"
	[ "$(cat "$TMP/n")" -gt 3 ]
	sed -e '/^{"type":"job_result",/s/^{"type":"job_result",\(.*\)}$/{\1,"type":"job_result"}/' "$TMP/result" | grep -v '"type":"end"' |
		stream-seal -o "$TMP/moved"
	[ "$(grep -c '^{"type":"job_result"' "$TMP/moved")" -eq 0 ]
	metrics --input "$TMP/moved" > "$TMP/slow"
	diff <(sed -n 2p "$TMP/fast" | jq -S 'del(.result_fingerprint)') <(sed -n 2p "$TMP/slow" | jq -S 'del(.result_fingerprint)')
	# a count the fast path declines (not an integer) is the parser's error, as before
	sed '0,/"run_count":1,/s//"run_count":1.0,/' "$TMP/result" | grep -v '"type":"end"' | stream-seal -o "$TMP/real"
	run metrics --input "$TMP/real"
	assert_failure 1
	assert_output --regexp "^metrics: $TMP/real:[0-9]+: job_result: 'run_count' must be an integer >= 1, not 1 written as a real number$"
	# an unsorted job_result on the fast path gets the same message as on the slow one
	awk 'NR == 2 { held = $0; next } NR == 3 { print; print held; next } { print }' "$TMP/result" | grep -v '"type":"end"' | stream-seal -o "$TMP/unsorted"
	run metrics --input "$TMP/unsorted"
	assert_failure 1
	assert_output --partial "not sorted by job_id or duplicate"
}

@test "metrics: the error cases (tests/cases/metrics/*.case)" {
	sim-run -p "$ROOT/configs/policies/native-fifo.json" -c "$ROOT/configs/controllers/predictive-spot-v1.json" \
		-i "$ROOT/tests/data/sim/micro-quota.trace.ndjson" > "$TMP/c"
	run_cases metrics result="$TMP/result" controlled="$TMP/c"
}

@test "metrics: zstd in and out, chunked input, byte-identical reruns" {
	metrics -i "$TMP/result" > "$TMP/a"
	zstd -q -c "$TMP/result" > "$TMP/r.zst"
	metrics -o "$TMP/b.zst" < "$TMP/r.zst"
	zstd -q -d -c "$TMP/b.zst" > "$TMP/b"
	feed_chunked "$TMP/result" metrics > "$TMP/c"
	metrics -i "$TMP/result" > "$TMP/d"
	cmp "$TMP/a" "$TMP/d"
	diff <(sans_header "$TMP/b") <(sans_header "$TMP/c")
	diff <(sans_header "$TMP/a") <(sans_header "$TMP/c")
	[ "$(sed -n 2p "$TMP/a")" = "$(sed -n 2p "$TMP/c")" ]
}

@test "metrics: the predictive_control block only for a controlled run, and only with its control_report" {
	CTRL="$ROOT/configs/controllers/predictive-spot-v1.json"
	sim-run -p "$ROOT/configs/policies/native-fifo.json" -c "$CTRL" -i "$ROOT/tests/data/sim/micro-quota.trace.ndjson" > "$TMP/c"
	metrics -i "$TMP/c" -o "$TMP/c.m"
	run -0 jq -c 'select(.type == "metrics") | .predictive_control | [.available, .update_count, .total_runtime_update_count, .evidence_window_seconds]' "$TMP/c.m"
	assert_output '[true,673,864,{"start":0,"end":201600}]'
	metrics -i "$TMP/result" -o "$TMP/result.m"
	run -0 jq -c 'select(.type == "metrics") | has("predictive_control")' "$TMP/result.m"
	assert_output false
	# (a controlled stream without its report, a report with wrong types: tests/cases/metrics/control*.case)
	# a control record in a plain stream
	{ grep -v '"type":"end"' "$TMP/result"; grep '"type":"control_report"' "$TMP/c"; } | stream-seal > "$TMP/stray"
	run metrics -i "$TMP/stray"
	assert_failure 1
	assert_output --partial "control_report in a result stream without a controller"
}

@test "metrics: control_decision lines skimmed or parsed give the same record; what the skim declines gets the parser's message" {
	CTRL="$ROOT/configs/controllers/predictive-spot-v1.json"
	sim-run -p "$ROOT/configs/policies/native-fifo.json" -c "$CTRL" -i "$ROOT/tests/data/sim/micro-quota.trace.ndjson" > "$TMP/c"
	metrics -i "$TMP/c" > "$TMP/fast"
	# "type" moved to the end of every control_decision line: the skim declines, the parser reads
	sed -e '/^{"type":"control_decision",/s/^{"type":"control_decision",\(.*\)}$/{\1,"type":"control_decision"}/' "$TMP/c" |
		grep -v '"type":"end"' | stream-seal -o "$TMP/moved"
	[ "$(grep -c '^{"type":"control_decision"' "$TMP/moved")" -eq 0 ]
	[ "$(grep -c '"type":"control_decision"}$' "$TMP/moved")" -eq 864 ]
	metrics -i "$TMP/moved" > "$TMP/slow"
	diff <(sed -n 2p "$TMP/fast" | jq -S 'del(.result_fingerprint)') <(sed -n 2p "$TMP/slow" | jq -S 'del(.result_fingerprint)')
	# (a duplicate key, a number out of range, a NUL escape: declined, and the parser's error
	# on that line: tests/cases/metrics/control-decision-*.case)
	# a skimmed control_decision in a plain stream is refused as before
	{ grep -v '"type":"end"' "$TMP/result"; grep -m1 '^{"type":"control_decision"' "$TMP/c"; } | stream-seal > "$TMP/stray"
	run metrics -i "$TMP/stray"
	assert_failure 1
	assert_output --regexp "^metrics: $TMP/stray:[0-9]+: control_decision in a result stream without a controller$"
}

# issue 36: the physical model's placement records and the metrics record's placement block
# (docs/simulator.md §3.13, the hand-computed case of fragmentation-small).
FRAG="$ROOT/tests/data/sim/fragmentation-small.trace.ndjson"

@test "metrics: a physical placement_strategy writes placement samples and a summary; metrics carries them as 'placement'" {
	jq '.placement_strategy = "largest-free" | .action_id = "lf"' "$POL/native-fifo.json" > "$TMP/p.json"
	sim-run --policy "$TMP/p.json" --input "$FRAG" > "$TMP/r"
	run -0 jq -c 'select(.type=="placement_sample") | [.time_seconds, .allocated_gpus, .free_gpus, .fragmented_gpus, .fragmentation_ratio]' "$TMP/r"
	assert_output '[0,2,6,1.5,0.25]
[2,2.5,5.5,1.625,0.29545454545454547]
[12,2,6,1.5,0.25]
[100,4,4,0,0]
[110,0,8,0,0]'
	metrics --input "$TMP/r" > "$TMP/m"
	grep -v '"type":"header"\|"type":"end"' "$TMP/r" > "$TMP/r.body"
	assert_schema "$TMP/m" "$TMP/r.body"
	run -0 jq -c 'select(.type=="metrics") | [.placement_strategy, .placement.sample_count, .placement.fragmented_gpus_mean, .placement.fragmented_gpus_max, .placement.allocation_ratio_mean, .placement.unplaced_fragmentation_job_count, .placement.unplaced_capacity_job_count]' "$TMP/m"
	assert_output '["largest-free",5,1.3750000000000002,1.625,0.27840909090909094,1,0]'
	# the pool model writes none, and its metrics record has no placement block
	sim-run --policy "$POL/native-fifo.json" --input "$FRAG" > "$TMP/pool"
	run -1 grep -c '"type":"placement_' "$TMP/pool"
	assert_output 0
	run -0 sh -c "metrics --input '$TMP/pool' | jq -c 'select(.type==\"metrics\") | [.placement_strategy, has(\"placement\")]'"
	assert_output '["deterministic_best_fit",false]'
}

@test "metrics: a physical result without its placement_summary, and a placement_sample in a pool result, are refused at PATH:LINE" {
	jq '.placement_strategy = "largest-free" | .action_id = "lf"' "$POL/native-fifo.json" > "$TMP/p.json"
	sim-run --policy "$TMP/p.json" --input "$FRAG" > "$TMP/r"
	grep -v '"type":"placement_summary"\|"type":"end"' "$TMP/r" | stream-seal > "$TMP/nosum"
	run -1 metrics --input "$TMP/nosum" -o "$TMP/out"
	assert_output "metrics: $TMP/nosum:15: result stream of a physical placement_strategy has no placement_summary record"
	assert [ ! -e "$TMP/out" ]
	sim-run --policy "$POL/native-fifo.json" --input "$FRAG" > "$TMP/pool0"
	grep -v '"type":"end"' "$TMP/pool0" > "$TMP/pool"
	grep -m1 placement_sample "$TMP/r" >> "$TMP/pool"
	stream-seal "$TMP/pool" > "$TMP/bad"
	run -1 metrics --input "$TMP/bad"
	assert_output "metrics: $TMP/bad:10: placement_sample in a result stream of the pool model (placement_strategy 'deterministic_best_fit')"
}
