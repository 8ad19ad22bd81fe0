#!/usr/bin/env bats
# trace-analyze: the original's workload summary on every golden case (3600 s and 900 s),
# a hand-computed trace, the options, hostile input, and the cutoff leakage test.

load helper
load run_cases

setup() {
	T="$BATS_TEST_TMPDIR"
	stream-seal -i "$ROOT/tests/cases/trace-analyze/small.body" -o "$T/small.nd"
}

summary() { jq -c "select(.type == \"workload_summary\") | $2" "$1"; }

@test "trace-analyze: invariants (--help matches the man page, bad option exits 2)" {
	assert_tool_invariants trace-analyze
	run trace-analyze -V
	assert_success
	assert_output --partial "writes: schednav.workload/1"
}

@test "trace-analyze: the error cases (tests/cases/trace-analyze/*.case)" {
	run_cases trace-analyze
}

@test "trace-analyze: every golden case equals the original's summary at 3600 s and 900 s" {
	require_shared
	local n=0 ok=0 failures=""
	for dir in "$GOLDEN"/cases/*/; do
		local case
		case=$(basename "$dir")
		trace-import canonical "$dir" -o "$T/$case.nd" || fail "import of $case failed"
		for interval in 3600 900; do
			n=$((n + 1))
			trace-analyze --sample-interval "$interval" "$T/$case.nd" -o "$T/$case.$interval.wl" || fail "trace-analyze failed on $case"
			if out=$(python3 "$ROOT/tests/analyze-golden.py" "$GOLDEN/expected-analyze.json" "$case" "$interval" "$T/$case.$interval.wl"); then
				ok=$((ok + 1))
			else
				failures="$failures
$out"
			fi
		done
	done
	echo "# trace-analyze golden: $ok/$n summaries match" >&3
	[ "$n" -eq 54 ] || fail "expected 27 cases x 2 intervals, ran $n"
	[ "$ok" -eq "$n" ] || fail "$ok/$n match:$failures"
}

@test "trace-analyze: a hand-computed trace" {
	trace-analyze --sample-interval 3600 "$T/small.nd" -o "$T/out.nd"
	assert_schema "$T/out.nd"
	# window [0, 7200] (first to last submit); samples 0, 3600, 7200
	[ "$(summary "$T/out.nd" '.window_seconds')" = '{"start":0,"end":7200}' ]
	[ "$(summary "$T/out.nd" '.capacity_gpus')" = 10 ]
	# HP active: t=0 j01 (4), t=3600 j01+j03 (5), t=7200 j05 (1, j01 ended at 7200)
	[ "$(summary "$T/out.nd" '.population.HP.sampled_active_requested_gpus')" = '{"mean":3.333333,"p50":4,"p95":4.9,"max":5,"cv":0.509902}' ]
	# Spot active: t=0 none, t=3600 none (j02 ends at 3600), t=7200 j04 (3)
	[ "$(summary "$T/out.nd" '.population.Spot.sampled_active_requested_gpus.max')" = 3 ]
	# arrivals: bucket floor(submit/3600) capped at 2: HP 4 | 1 | 1, Spot 2 | 3 | 0
	[ "$(summary "$T/out.nd" '.population.Spot.arrival_requested_gpus')" = '{"mean":1.666667,"p50":2,"p95":2.9,"max":3,"cv":0.748331}' ]
	[ "$(summary "$T/out.nd" '[.population.HP.job_count, .population.HP.requested_gpus, .population.HP.requested_gpu_hours]')" = '[3,6,8.044444]' ]
	[ "$(summary "$T/out.nd" '.regime_signals')" = '{"spot_requested_gpu_share":0.454545,"hp_peak_active_pressure":0.5,"spot_peak_active_pressure":0.3,"combined_peak_active_pressure":0.5,"dominant_arrival_type":"HP"}' ]
	# our class profile: 3 HP arrivals over 2 h; HP mean pressure 10/3/10; two tenants 5 + 1 of 6
	[ "$(summary "$T/out.nd" '.class_profile.HP | [.requested_gpu_share, .arrivals_per_hour, .peak_active_pressure, .mean_active_pressure]')" = '[0.545455,1.5,0.5,0.333333]' ]
	[ "$(summary "$T/out.nd" '.class_profile.HP.tenant_concentration')" = '{"tenant_count":2,"top_tenant_requested_gpu_share":0.833333,"herfindahl_index":0.722222}' ]
	[ "$(summary "$T/out.nd" '.class_profile.HP.gpu_model_mix')" = '{"A100":{"job_count":2,"requested_gpus":5,"requested_gpu_share":0.833333},"V100":{"job_count":1,"requested_gpus":1,"requested_gpu_share":0.166667}}' ]
	[ "$(summary "$T/out.nd" '.regime_label')" = '"balanced"' ]
	[ "$(summary "$T/out.nd" '.workload_fingerprint | test("^[0-9a-f]{32}$")')" = true ]
}

@test "trace-analyze: a window with carry-in; --eval-start/--eval-end override the defaults" {
	trace-analyze --eval-start 3600 --eval-end 7200 --sample-interval 1800 "$T/small.nd" -o "$T/w.nd"
	[ "$(summary "$T/w.nd" '.window_seconds')" = '{"start":3600,"end":7200}' ]
	[ "$(summary "$T/w.nd" '.sample_interval_seconds')" = 1800 ]
	# j01 (submitted at 0, runs to 7200) is carried in; j02 ended exactly at 3600, so not
	[ "$(summary "$T/w.nd" '.class_profile.HP.carry_in')" = '{"job_count":1,"requested_gpus":4}' ]
	[ "$(summary "$T/w.nd" '.class_profile.Spot.carry_in')" = '{"job_count":0,"requested_gpus":0}' ]
	[ "$(summary "$T/w.nd" '.population.HP.job_count')" = 2 ]
}

@test "trace-analyze: option values are checked" {
	for bad in 59 86401 x 3600.5; do
		run trace-analyze --sample-interval "$bad" "$T/small.nd"
		assert_failure 2
	done
	run trace-analyze --sample-interval 60 "$T/small.nd" -o "$T/60.nd"
	assert_success
	run trace-analyze --eval-start 100 --eval-end 50 "$T/small.nd"
	assert_failure 1
	assert_output --partial "expected 0 <= start <= end"
	run trace-analyze --eval-start nan "$T/small.nd"
	assert_failure 2
	run trace-analyze "$T/small.nd" "$T/small.nd"
	assert_failure 2
}

@test "trace-analyze: empty, truncated and edited input fail with exit 1 and no output file" {
	run trace-analyze -o "$T/o.nd" < /dev/null
	assert_failure 1
	[ ! -e "$T/o.nd" ] || fail "partial output left behind"
	head -n 4 "$T/small.nd" > "$T/trunc.nd"
	run trace-analyze "$T/trunc.nd" -o "$T/o.nd"
	assert_failure 1
	assert_output --regexp "^trace-analyze: .*trunc.nd:[0-9]+: "
	[ ! -e "$T/o.nd" ] || fail "partial output left behind"
	sed '4s/"gpus":4/"gpus":5/' "$T/small.nd" > "$T/edited.nd"
	run trace-analyze "$T/edited.nd"
	assert_failure 1
	assert_output --partial "fingerprint"
	# the same stream fed 1..31 bytes at a time gives the same record
	trace-analyze "$T/small.nd" > "$T/whole.nd"
	feed_chunked "$T/small.nd" trace-analyze > "$T/chunked.nd"
	cmp <(sans_header "$T/whole.nd") <(sans_header "$T/chunked.nd")
}

@test "trace-analyze: --cutoff reads only the past (same past, different futures, same record)" {
	local S=4500
	# Chronus MIX1 (tests/data) on a seeded 200-GPU Philly subset, evaluation window [3600, 18000]
	trace-import csv --map "$ROOT/configs/maps/chronus-philly.json" --nodes-file "$DATA/philly-cluster_machine_list.zst" \
		--node-subset-gpus 200 --seed 1 "$DATA/chronus-trace_job_Philly_MIX1.csv.zst" -o "$T/full.nd"
	trace-window --eval-start 3600 --eval-end 18000 -i "$T/full.nd" -o "$T/past.nd"
	# the future variant: later jobs changed, and jobs still running at S run longer
	zstdcat -f "$T/past.nd" | sed '$d' | python3 -c '
import json, sys
S = float(sys.argv[1])
for line in sys.stdin:
    rec = json.loads(line)
    if rec.get("type") == "job" and rec["submit"] > S:
        rec["gpus"] *= 2; rec["duration"] += 777
    elif rec.get("type") == "job" and rec["submit"] + rec["duration"] > S:
        rec["duration"] += 1234
    else:
        sys.stdout.write(line); continue   # untouched lines keep their bytes
    print(json.dumps(rec, separators=(",", ":")))
' "$S" | stream-seal -o "$T/future.nd"
	! cmp -s "$T/past.nd" "$T/future.nd" || fail "the variant did not change the trace"
	trace-analyze --cutoff "$S" "$T/past.nd" -o "$T/a.nd"
	trace-analyze --cutoff "$S" "$T/future.nd" -o "$T/b.nd"
	sans_header "$T/a.nd" > "$T/a"
	sans_header "$T/b.nd" > "$T/b"
	cmp "$T/a" "$T/b" || fail "the cutoff summary depends on the future: $(diff "$T/a" "$T/b" | head -c 600)"
	# without the cutoff the two traces do differ, so the test has teeth
	trace-analyze "$T/past.nd" -o "$T/c.nd"
	trace-analyze "$T/future.nd" -o "$T/d.nd"
	if cmp -s <(sans_header "$T/c.nd") <(sans_header "$T/d.nd"); then fail "the variant is invisible even without a cutoff"; fi
	# the window ends at the cutoff and the full-trace fingerprint is withheld
	[ "$(summary "$T/a.nd" '[.window_seconds.end, .cutoff_seconds, .trace_fingerprint]')" = "[$S,$S,null]" ]
	run trace-analyze --cutoff "$S" --eval-end 5000 "$T/past.nd"
	assert_failure 1
	assert_output --partial "after the cutoff"
}

@test "trace-analyze: --cutoff censors what is not yet known" {
	# at 3650: j01 (0..7200) and j03 (3600..3700) still run; only j02 has completed
	trace-analyze --cutoff 3650 "$T/small.nd" -o "$T/c.nd"
	[ "$(summary "$T/c.nd" '[.population.HP.job_count, .population.HP.duration_seconds.max, .class_profile.HP.running_at_cutoff_job_count]')" = '[2,null,2]' ]
	# GPU-hours so far: 4 GPUs x 3650 s + 1 GPU x 50 s
	[ "$(summary "$T/c.nd" '.population.HP.requested_gpu_hours')" = 4.069444 ]
	[ "$(summary "$T/c.nd" '.population.Spot.duration_seconds.max')" = 1800 ]
}

@test "trace-analyze: --saturation and --capacity (issue 34): hand-computed pools, flagged not rescaled" {
	trace-analyze --saturation "$T/small.nd" -o "$T/sat.nd"
	assert_schema "$T/sat.nd"
	# without the option the stream is the summary alone, byte for byte as before
	trace-analyze "$T/small.nd" -o "$T/plain.nd"
	run -0 jq -c 'select(.type == "pool_saturation")' "$T/plain.nd"
	assert_output ""
	# hours 0..2 (first to last submit); A100 (8 GPUs): j01 4 GPUs in hours 0-1, j05 1 in hour 2;
	# V100 (2 GPUs): j02 2 in hour 0, j03 1 in hour 1; j04 (any model) belongs to no pool
	run -0 jq -c 'select(.type == "pool_saturation") | [.gpu_model, .capacity_gpus, .hours, .mean_demand_gpus,
		.peak_demand_gpus, .demand_over_capacity, .hours_above_capacity, .saturated, .capacity_source]' "$T/sat.nd"
	assert_output "$(printf '%s\n' '["A100",8,3,3,4,0.375,0,false,"the trace'"'"'s nodes"]' '["V100",2,3,1,2,0.5,0,false,"the trace'"'"'s nodes"]')"
	# an explicit capacity is the only way a pool changes, and it is recorded
	trace-analyze --capacity A100=3 --capacity V100=1 "$T/small.nd" -o "$T/cap.nd"
	assert_schema "$T/cap.nd"
	run -0 jq -c 'select(.type == "header") | .params | [.saturation, .capacity]' "$T/cap.nd"
	assert_output '[true,{"A100":3,"V100":1}]'
	run -0 jq -c 'select(.type == "pool_saturation") | [.gpu_model, .capacity_gpus, .demand_over_capacity,
		.hours_above_capacity, .hours_above_capacity_share, .saturated, .capacity_source]' "$T/cap.nd"
	assert_output "$(printf '%s\n' '["A100",3,1,2,0.666667,true,"--capacity (explicit)"]' '["V100",1,1,1,0.333333,false,"--capacity (explicit)"]')"
	run -0 jq -r 'select(.type == "pool_saturation" and .saturated) | .meaning' "$T/cap.nd"
	assert_output "demand is above capacity in 66.7 % of the window's hours (1.00x over the window) by touched hours, but the offered load is 0.89: jobs shorter than an hour are counted whole hours, and the queue is bounded"
	# the offered load: GPU-seconds in hours 0..2 over capacity x 10,800 s. A100 (4x7200 +
	# 60) / (8x10800) = 0.334028, V100 (2x1800 + 100) / (2x10800) = 0.171296; at the explicit
	# 3 and 1 GPUs 0.890741 and 0.342593: touched hours flag the A100 pool, its queue is bounded
	run -0 jq -c 'select(.type == "pool_saturation") | [.gpu_model, .offered_load, .queue_unbounded]' "$T/sat.nd" "$T/cap.nd"
	assert_output "$(printf '%s\n' '["A100",0.334028,false]' '["V100",0.171296,false]' '["A100",0.890741,false]' '["V100",0.342593,false]')"
	# at 2 GPUs the A100 pool's 28,860 GPU-seconds exceed 2 x 10,800: 1.336111, unbounded
	trace-analyze --capacity A100=2 "$T/small.nd" -o "$T/cap2.nd"
	run -0 jq -c 'select(.type == "pool_saturation" and .gpu_model == "A100") | [.offered_load, .queue_unbounded, .saturated]' "$T/cap2.nd"
	assert_output '[1.336111,true,true]'
	run -0 jq -r 'select(.type == "pool_saturation" and .gpu_model == "A100") | .meaning' "$T/cap2.nd"
	assert_output "demand is above capacity in 66.7 % of the window's hours (1.50x over the window, offered load 1.34): the queue has no bound, so whole-pool queue percentiles measure the trace's length, not the policy"
	# the summary record is the same with and without the option
	cmp <(jq -c 'select(.type == "workload_summary")' "$T/plain.nd") <(jq -c 'select(.type == "workload_summary")' "$T/sat.nd")
}

@test "trace-analyze: --capacity and --saturation refuse what they cannot honour" {
	run trace-analyze --capacity H100=8 "$T/small.nd" -o "$T/out.nd"
	assert_failure 1
	assert_output "trace-analyze: $T/small.nd: --capacity: no GPU model 'H100' in the trace"
	assert_no_output "$T/out.nd"
	run trace-analyze --capacity A100 "$T/small.nd" -o "$T/out.nd"
	assert_failure 2
	assert_line --index 0 "trace-analyze: --capacity wants MODEL=GPUS (at most 64 of them)"
	run trace-analyze --capacity A100=0 "$T/small.nd" -o "$T/out.nd"
	assert_failure 2
	assert_line --index 0 "trace-analyze: --capacity GPUS must be 1..100000000"
	run trace-analyze --saturation --cutoff 3600 "$T/small.nd" -o "$T/out.nd"
	assert_failure 2
	assert_line --index 0 "trace-analyze: --saturation reads whole jobs: not with --cutoff"
	assert_no_output "$T/out.nd"
}
