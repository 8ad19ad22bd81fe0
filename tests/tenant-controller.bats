#!/usr/bin/env bats
# The tenant predictive controller (predictive.md §2, docs/tenant-controller.md) through
# the tools: sim-run --controller, metrics, forecast and quota; the refusals are case files
# (tests/cases/tenant-controller/, each naming its tool). The traces are drawn by
# trace-synth from the shipped v2026 profile (one GPU pool, half the load, days 0-36), so
# the test needs no ../shared: the controller is ready (844 h) from day 35 on.
load helper
load run_cases

TENANT_LINEAR="$ROOT/configs/controllers/schednav-tenant-linear-v2.json"
TENANT_SEASONAL="$ROOT/configs/controllers/schednav-tenant-seasonal-v1.json"
AGG="$ROOT/configs/controllers/predictive-spot-v1.json"
ARMS="$ROOT/configs/studies/predictive-multiwindow"
POLICY="$ARMS/predictive-tenant-linear-g3600-b09-d0000.json"
BYPASS="$ARMS/predictive-tenant-linear-bypass-g3600-b09-d0000.json"
FIFO="$ROOT/configs/policies/native-fifo.json"
VARIANT="$ROOT/tests/cases/forecast/future-variant.py"
DAY=86400

setup_file() {
	local d="$BATS_FILE_TMPDIR"
	trace-synth --profile "$ROOT/configs/profiles/alibaba-spot-gpu-v2026.json" --gpu-model GPU-series-2 \
		--days 0-36 --load-factor 0.5 -o "$d/trace.nd"
	# day 36: 864 h of history before it, so the controller trains at the window start
	trace-window --eval-start $((36 * DAY)) --eval-end $((37 * DAY - 1)) --no-warmup-spot -i "$d/trace.nd" -o "$d/ready.nd"
	# day 34: 816 h, so it never trains inside the window and every quota stays 0
	trace-window --eval-start $((34 * DAY)) --eval-end $((35 * DAY - 1)) --no-warmup-spot -i "$d/trace.nd" -o "$d/early.nd"
	# the bundle at the start of day 36 (quota's refusal of it is a case)
	forecast -c "$TENANT_LINEAR" -t $((36 * DAY)) -o "$d/bundle.nd" "$d/trace.nd"
}

setup() {
	TMP="$BATS_TEST_TMPDIR"
	TRACE="$BATS_FILE_TMPDIR/trace.nd"
	READY="$BATS_FILE_TMPDIR/ready.nd"
	EARLY="$BATS_FILE_TMPDIR/early.nd"
}

decisions() { grep '"type":"control_decision"' "$1"; }
control_report() { grep '"type":"control_report"' "$1"; }

# Write a file to a command one byte per write (the slowest reader case).
feed_bytewise() {
	local file="$1"; shift
	python3 -c '
import sys
data = open(sys.argv[1], "rb").read()
out = sys.stdout.buffer
for i in range(len(data)):
    out.write(data[i:i+1]); out.flush()
' "$file" | "$@"
}

@test "tenant: sim-run runs the tenant controller: the 300-s grid from the evidence start, the fit there, per-pool quotas, the report" {
	sim-run -p "$POLICY" -c "$TENANT_LINEAR" -i "$READY" -o "$TMP/r.nd"
	assert_schema "$TMP/r.nd"
	local es=$((36 * DAY)) ee=$((37 * DAY - 1))
	run -0 jq -c 'select(.type == "header") | [.controller.schema_version, .controller.controller_id, .controller_fingerprint == .controller_fingerprint]' "$TMP/r.nd"
	assert_output '["schednav.tenant-predictive-controller/1","schednav-tenant-spot-linear-v2",true]'
	# one decision every 300 s of the grid anchored at the first arrival, none before the evidence start
	[ "$(decisions "$TMP/r.nd" | wc -l)" -eq 288 ]
	run -0 sh -c "grep '\"type\":\"control_decision\"' '$TMP/r.nd' | jq -r .cutoff_time_seconds | awk -v es=$es -v ee=$ee 'NR == 1 && (\$1 < es || \$1 >= es + 300) { bad = \"first\" } NR > 1 && \$1 != prev + 300 { bad = \"grid\" } \$1 > ee { bad = \"end\" } { prev = \$1 } END { print bad ? bad : \"ok\" }'"
	assert_output ok
	# the first decision trains (next_retrain starts at the evidence start); one fit per day
	run -0 sh -c "grep '\"type\":\"control_decision\"' '$TMP/r.nd' | jq -c 'select(.training_performed) | [.history_ready, .trained_at_seconds == .cutoff_time_seconds, (.points | length), (.points | map(.resource_pool) | unique)]'"
	assert_output '[true,true,4,["GPU-series-2"]]'
	# every decision: quota per pool and horizon, the aggregate the sum, eta the pool minimum
	run -0 sh -c "grep '\"type\":\"control_decision\"' '$TMP/r.nd' | jq -c 'select(.spot_quota_gpus_by_guarantee_hour != .resource_pools[\"GPU-series-2\"].spot_quota_gpus_by_guarantee_hour or .eta != .resource_pools[\"GPU-series-2\"].feedback.eta_after)' | wc -l"
	assert_output 0
	run -0 sh -c "grep '\"type\":\"control_decision\"' '$TMP/r.nd' | jq -r '.resource_pools[].feedback.reason' | sort -u | tr '\n' ' '"
	assert_output --regexp '^(no_new_events |unchanged |high_eviction |low_eviction_high_queue )+$'
	run -0 sh -c "grep '\"type\":\"control_report\"' '$TMP/r.nd' | jq -c '[.update_count, .total_runtime_update_count, .evidence_window_seconds, .estimator, .model.training.training_generation, .forecast_evaluation.scored_point_count > 0, (.forecast_evaluation | keys), (.admission_diagnostics | keys), .quirks_fixed.q1_eta_on_new_events_only]'"
	assert_output "[288,288,{\"start\":$es,\"end\":$ee},\"tenant-quantile-linear-v1\",1,true,[\"guarantee_quantile_coverage\",\"mae_gpus\",\"mean_error_gpus\",\"pinball_loss\",\"scored_point_count\",\"wape\"],[\"idle_gpu_seconds_while_flagged\",\"maximum_spot_wait_seconds_while_flagged\",\"pool_update_count\",\"starvation_flagged_count\",\"starvation_flagged_fraction\"],true]"
	# metrics carries the summary with the estimator, the scoring sums and the starvation diagnostic
	metrics -i "$TMP/r.nd" -o "$TMP/m.nd"
	assert_schema "$TMP/m.nd"
	run -0 jq -c 'select(.type == "metrics") | .predictive_control | [.available, .estimator, .update_count, .forecast_evaluation == $r[0].forecast_evaluation, .forecast_evaluation_sums.scored_point_count == .forecast_evaluation.scored_point_count, (.admission_diagnostics | type)]' --slurpfile r <(control_report "$TMP/r.nd") "$TMP/m.nd"
	assert_output --partial '[true,"tenant-quantile-linear-v1",288,'
	assert_output --partial ',true,"object"]'
}

@test "tenant: the whole loop is byte-identical between two runs, whole-buffer, 1-byte, 1-31-byte chunked and zstd input" {
	# the header names the input path (stdin or a file): compare bodies past it
	sim-run -p "$POLICY" -c "$TENANT_LINEAR" < "$READY" > "$TMP/a.nd"
	sim-run -p "$POLICY" -c "$TENANT_LINEAR" < "$READY" > "$TMP/b.nd"
	cmp "$TMP/a.nd" "$TMP/b.nd" || fail "two runs differ"
	feed_bytewise "$READY" sim-run -p "$POLICY" -c "$TENANT_LINEAR" > "$TMP/c.nd"
	cmp "$TMP/a.nd" "$TMP/c.nd" || fail "1-byte feeding changed the output"
	feed_chunked "$READY" sim-run -p "$POLICY" -c "$TENANT_LINEAR" > "$TMP/d.nd"
	cmp "$TMP/a.nd" "$TMP/d.nd" || fail "chunked feeding changed the output"
	zstd -q -c "$READY" > "$TMP/t.zst"
	sim-run -p "$POLICY" -c "$TENANT_LINEAR" -i "$TMP/t.zst" -o "$TMP/e.nd.zst"
	diff <(sans_header "$TMP/e.nd.zst") <(sans_header "$TMP/a.nd") || fail "zstd in/out changed the output"
	# the seasonal estimator, the full trace as its own evidence window: also identical
	sim-run -p "$POLICY" -c "$TENANT_SEASONAL" < "$TRACE" > "$TMP/f.nd"
	feed_chunked "$TRACE" sim-run -p "$POLICY" -c "$TENANT_SEASONAL" > "$TMP/g.nd"
	cmp "$TMP/f.nd" "$TMP/g.nd" || fail "seasonal: chunked feeding changed the output"
	[ "$(control_report "$TMP/f.nd" | jq -r .estimator)" = seasonal-conformal-v1 ]
	metrics < "$TMP/a.nd" > "$TMP/m1.nd"
	feed_bytewise "$TMP/a.nd" metrics > "$TMP/m2.nd"
	cmp "$TMP/m1.nd" "$TMP/m2.nd" || fail "metrics: 1-byte feeding changed the output"
}

@test "tenant: the gate holds Spot back only inside the evidence window (quotas 0 before the first fit); bypass runs the controller without it" {
	sim-run -p "$POLICY" -c "$TENANT_LINEAR" -i "$EARLY" -o "$TMP/gate.nd"
	sim-run -p "$BYPASS" -c "$TENANT_LINEAR" -i "$EARLY" -o "$TMP/free.nd"
	local es=$((34 * DAY)) ee=$((35 * DAY - 1))
	# 816 h of history at the window start: never ready, never trained, every quota 0
	run -0 sh -c "grep '\"type\":\"control_decision\"' '$TMP/gate.nd' | jq -c '[.history_ready, .training_performed, .spot_quota_gpus_by_guarantee_hour]' | sort -u"
	assert_output '[false,false,{"1":0,"2":0,"4":0}]'
	# enforce: no Spot job starts inside the window; each decision counts the queued Spot
	# jobs that fit the idle GPUs and that its quota holds back
	run -0 jq -r --argjson es $es --argjson ee $ee 'select(.type == "job_result" and .service_class == "Spot" and .start_time_seconds >= $es and .start_time_seconds < $ee) | .job_id' "$TMP/gate.nd"
	assert_output ''
	local spot_jobs held
	spot_jobs=$(jq -r 'select(.type == "job_result" and .service_class == "Spot") | .job_id' "$TMP/gate.nd" | wc -l)
	[ "$spot_jobs" -gt 5 ] || fail "the window has only $spot_jobs Spot jobs"
	held=$(decisions "$TMP/gate.nd" | jq -s 'map(.resource_pools[].gate.held_spot_jobs) | add')
	[ "$held" -gt 0 ] || fail "no held Spot job counted"
	# after the window the gate is off: every Spot job completes
	run -0 jq -r 'select(.type == "job_result" and .service_class == "Spot" and .completion_time_seconds == null) | .job_id' "$TMP/gate.nd"
	assert_output ''
	# bypass: the same decisions and quotas, but Spot starts inside the window
	[ "$(jq -r --argjson es $es --argjson ee $ee 'select(.type == "job_result" and .service_class == "Spot" and .start_time_seconds >= $es and .start_time_seconds < $ee) | .job_id' "$TMP/free.nd" | wc -l)" -gt 0 ]
	run -0 sh -c "grep '\"type\":\"control_decision\"' '$TMP/free.nd' | jq -c '.resource_pools[].gate.held_spot_jobs' | sort -u"
	assert_output 0
}

@test "tenant: no leakage inside sim-run: the same past with other futures gives the same decisions up to the cutoff" {
	local cut=$((36 * DAY + 9 * 3600))
	python3 "$VARIANT" "$READY" $cut | stream-seal -o "$TMP/future.nd"
	if cmp -s "$READY" "$TMP/future.nd"; then fail "the variant is the same trace"; fi
	sim-run -p "$FIFO" -c "$TENANT_LINEAR" -i "$READY" -o "$TMP/a.nd"
	sim-run -p "$FIFO" -c "$TENANT_LINEAR" -i "$TMP/future.nd" -o "$TMP/b.nd"
	past() { grep '"type":"control_decision"' "$1" | jq -c --argjson cut $cut 'select(.cutoff_time_seconds <= $cut)'; }
	[ "$(past "$TMP/a.nd" | wc -l)" -gt 100 ]
	diff <(past "$TMP/a.nd") <(past "$TMP/b.nd") || fail "a decision before the cutoff saw the future"
	# and the futures do differ afterwards
	! diff -q <(decisions "$TMP/a.nd") <(decisions "$TMP/b.nd") >/dev/null || fail "the futures made no difference at all"
}

@test "tenant: forecast writes the past-only tenant bundle; same prefix, different futures give byte-identical bundles" {
	local cut=$((36 * DAY + 9 * 3600))
	forecast -c "$TENANT_LINEAR" -t $cut < "$TRACE" > "$TMP/a.nd"
	assert_schema "$TMP/a.nd"
	run -0 jq -c 'select(.type == "observation_bundle") | [.controller_id, .observation_snapshot.history.history_ready, .demand_forecast.model.model, (.demand_forecast.points | length), .information_boundary.running_job_durations_exposed, (.spot_quota_plan.spot_quota_gpus_by_resource_pool_and_guarantee_hour | keys)]' "$TMP/a.nd"
	assert_output '["schednav-tenant-spot-linear-v2",true,"tenant-quantile-linear-v1",4,false,["GPU-series-2"]]'
	python3 "$VARIANT" "$TRACE" $cut | stream-seal -o "$TMP/future.nd"
	forecast -c "$TENANT_LINEAR" -t $cut -o "$TMP/b.nd" "$TMP/future.nd"
	cmp <(sed -n 2p "$TMP/a.nd") <(sed -n 2p "$TMP/b.nd") || fail "the bundle saw the future"
	# another trace id changes only the id and the fingerprints that hash it
	python3 "$VARIANT" "$TRACE" $cut --trace-id other | stream-seal -o "$TMP/other.nd"
	forecast -c "$TENANT_LINEAR" -t $cut -o "$TMP/c.nd" "$TMP/other.nd"
	strip() { sed -n 2p "$1" | jq -c 'del(.trace_id, .observed_prefix_fingerprint, .observation_bundle_fingerprint)'; }
	diff <(strip "$TMP/a.nd") <(strip "$TMP/c.nd")
	[ "$(sed -n 2p "$TMP/c.nd" | jq -r .trace_id)" = other ]
	# reruns and chunked input give the same bytes
	feed_chunked "$TRACE" forecast -c "$TENANT_LINEAR" -t $cut > "$TMP/d.nd"
	cmp "$TMP/a.nd" "$TMP/d.nd"
	# (a cutoff off the 60-s or the 300-s grid: tests/cases/tenant-controller/forecast-cutoff-*.case)
}

@test "tenant: the error cases (tests/cases/tenant-controller/*.case): traces, configs and policies the tenant controller cannot serve, forecast cutoffs off its grids, quota given its bundle" {
	run_cases tenant-controller trace="$TRACE" ready="$READY" bundle="$BATS_FILE_TMPDIR/bundle.nd"
}

@test "tenant: a trace the tenant controller cannot serve is refused with a clear error and no output" {
	# trace/1: no tenants
	{ head -1 "$READY" | jq -c '.schema = "schednav.trace/1"'; sed -n '2,$p' "$READY" | grep -v '"type":"end"' | jq -c 'del(.tenant)'; } | stream-seal -o "$TMP/v1.nd"
	run sim-run -p "$POLICY" -c "$TENANT_LINEAR" -i "$TMP/v1.nd" -o "$TMP/o.nd"
	assert_failure 1
	assert_output --partial "requires a schednav.trace/2 trace"
	[ ! -e "$TMP/o.nd" ]
	# (an empty tenant, gpu_model '*' or of no node, a year the china calendar does not cover:
	# tests/cases/tenant-controller/job-*.case, calendar-year-not-covered.case)
	# a year the china calendar does not cover runs with the weekday calendar
	{ head -1 "$READY" | jq -c '.time_origin = "2031-03-01 00:00:00"'; sed -n '2,$p' "$READY" | grep -v '"type":"end"'; } | stream-seal -o "$TMP/2031.nd"
	jq '.business_calendar = "weekday"' "$TENANT_LINEAR" > "$TMP/weekday.json"
	run sim-run -p "$POLICY" -c "$TMP/weekday.json" -i "$TMP/2031.nd" -o "$TMP/o.nd"
	assert_success
}

@test "tenant: the aggregate controller runs a trace the tenant controller serves" {
	# (bad tenant controller configs and policies, quota given a tenant bundle: tests/cases/tenant-controller/*.case)
	# the aggregate controller still runs the same trace
	run sim-run -p "$POLICY" -c "$AGG" -i "$READY" -o "$TMP/agg.nd"
	assert_success
	[ "$(control_report "$TMP/agg.nd" | jq -r .controller_id)" = predictive-spot-v1 ]
}

@test "tenant: metrics refuses a tenant control_report with a value of the wrong type" {
	sim-run -p "$POLICY" -c "$TENANT_LINEAR" -i "$READY" -o "$TMP/r.nd"
	grep -v '"type":"end"' "$TMP/r.nd" | sed '/"type":"control_report"/s/"final_by_resource_pool":{[^}]*}/"final_by_resource_pool":3/' | stream-seal -o "$TMP/bad.nd"
	run metrics -i "$TMP/bad.nd"
	assert_failure 1
	assert_output --partial "control_report: a summary value has the wrong type"
}

@test "tenant: report shows the forecast quality and one control chart per pool; hostile labels stay out of gnuplot's commands and are escaped" {
	# a pool (gpu_model) and a policy id full of HTML and gnuplot syntax
	grep -v '"type":"end"' "$READY" | jq -c 'if .gpu_model then .gpu_model = "GPU<b>\"x'"'"'\\;set output" else . end' | stream-seal -o "$TMP/h.nd"
	jq -c '. + {action_id: "tenant<i>\"'"'"'"}' "$POLICY" > "$TMP/hpol.json"
	sim-run -p "$TMP/hpol.json" -c "$TENANT_LINEAR" -i "$TMP/h.nd" -o "$TMP/r.nd"
	metrics -i "$TMP/r.nd" -o "$TMP/m.nd"
	sim-run -p "$POLICY" -c "$AGG" -i "$READY" -o "$TMP/agg.nd"
	metrics -i "$TMP/agg.nd" -o "$TMP/magg.nd"
	# a gnuplot that keeps a copy of its script and data files
	mkdir "$TMP/seen"
	printf '#!/bin/sh\ncp "$(dirname "$1")"/*.gp "$(dirname "$1")"/*.dat "%s/seen/"\nexec gnuplot "$@"\n' "$TMP" > "$TMP/gp"
	chmod +x "$TMP/gp"
	report --gnuplot "$TMP/gp" -o "$TMP/p.html" "$TMP/r.nd" "$TMP/m.nd" "$TMP/agg.nd" "$TMP/magg.nd"
	# the tenant chart has four panels, the aggregate's three; both in the page
	[ "$(grep -c 'data-chart="control-[01]"' "$TMP/p.html")" -eq 2 ]
	grep -q 'layout 4,1' "$TMP/seen/charts.gp" || fail "no four-panel chart"
	grep -q 'layout 3,1' "$TMP/seen/charts.gp" || fail "no three-panel chart"
	# the forecast quality table: one row per controlled metrics record, labels escaped
	run -0 grep -c '<td>seasonal-gaussian-v1</td>\|<td>tenant-quantile-linear-v1</td>' "$TMP/p.html"
	assert_output 2
	grep -q 'tenant&lt;i&gt;&quot;&#39;' "$TMP/p.html" || fail "the policy id is not escaped"
	grep -q 'pool GPU&lt;b&gt;&quot;x&#39;\\;set output:' "$TMP/p.html" || fail "the pool name is not escaped"
	run -1 grep -c 'GPU<b>\|tenant<i>' "$TMP/p.html"
	assert_output 0
	# no label from the input in gnuplot's command language: the pool name nowhere in the
	# script, the policy id not in the control charts' commands (the other charts' titles
	# are the hardening branch's to move into data files); both in the data files only
	run -1 grep -c 'GPU<b>' "$TMP/seen/charts.gp"
	assert_output 0
	run -0 sh -c "awk '/^reset/ { keep = 0 } /control-[0-9]+\\.svg/ { keep = 1 } keep' '$TMP/seen/charts.gp' | grep -c 'tenant<i>\\|columnheader'"
	[ "$output" -eq 7 ] || fail "control charts: $output plot lines"
	run -1 sh -c "awk '/^reset/ { keep = 0 } /control-[0-9]+\\.svg/ { keep = 1 } keep' '$TMP/seen/charts.gp' | grep -c 'tenant<i>'"
	assert_output 0
	grep -q '"actual HP demand (running HP GPUs)"' "$TMP/seen/control-0.dat" || grep -q '"actual HP demand (running HP GPUs)"' "$TMP/seen/control-1.dat" ||
		fail "the control charts' titles are not in their data files"
}

@test "tenant controller: a trace outside the china calendar names the config key to change and the shipped weekday copy, which runs" {
	trace-import csv --map "$ROOT/configs/maps/chronus-philly.json" --nodes-file "$DATA/philly-cluster_machine_list.zst" \
		--node-subset-gpus 200 --seed 1 "$DATA/chronus-trace_job_Philly_MIX1.csv.zst" -o "$TMP/mix1.nd"
	trace-window --eval-start 3600 --eval-end 5400 --warmup-start 1800 -i "$TMP/mix1.nd" -o "$TMP/w.nd"
	run sim-run --policy "$POLICY" --controller "$TENANT_LINEAR" -i "$TMP/w.nd" -o "$TMP/r.nd"
	assert_failure 1
	assert_output "sim-run: calendar 'china' covers 2016-2026, not 1970-01-01: copy the controller config and set \"business_calendar\": \"weekday\" in the copy (as configs/controllers/schednav-tenant-linear-v2-weekday.json does for schednav-tenant-linear-v2.json)"
	assert_no_output "$TMP/r.nd"
	# the copy differs in exactly that key and its id, and runs (never ready on 1.5 h of history)
	run diff <(jq 'del(.business_calendar, .controller_id)' "$TENANT_LINEAR") <(jq 'del(.business_calendar, .controller_id)' "$ROOT/configs/controllers/schednav-tenant-linear-v2-weekday.json")
	assert_success
	sim-run --policy "$POLICY" --controller "$ROOT/configs/controllers/schednav-tenant-linear-v2-weekday.json" -i "$TMP/w.nd" -o "$TMP/r.nd"
	run -0 jq -r 'select(.type == "control_report") | .controller_id' "$TMP/r.nd"
	assert_output schednav-tenant-spot-linear-v2-weekday
}

@test "tenant: a config in the id's old spelling (tenant-predictive-controller/v1) loads, writes the new one and has the same fingerprint" {
	sed 's|"schednav.tenant-predictive-controller/1"|"schednav.tenant-predictive-controller/v1"|' "$TENANT_LINEAR" > "$TMP/old.json"
	run -0 grep -c '"schednav.tenant-predictive-controller/v1"' "$TMP/old.json"
	assert_output 1
	run sim-run -p "$POLICY" -c "$TMP/old.json" -i "$EARLY" -o "$TMP/old.nd"
	[ "$status" -eq 0 ]
	sim-run -p "$POLICY" -c "$TENANT_LINEAR" -i "$EARLY" -o "$TMP/new.nd"
	# the canonical config echoed in the header is the same, new spelling included, and so is
	# its fingerprint; the records after the header are byte-identical
	run -0 jq -c 'select(.type == "header") | [.controller.schema_version, .controller_fingerprint]' "$TMP/old.nd"
	local old="$output"
	run -0 jq -c 'select(.type == "header") | [.controller.schema_version, .controller_fingerprint]' "$TMP/new.nd"
	[ "$output" = "$old" ]
	assert_output --partial '["schednav.tenant-predictive-controller/1","'
	run -0 jq -cS 'select(.type == "header") | .controller' "$TMP/old.nd"
	old="$output"
	run -0 jq -cS 'select(.type == "header") | .controller' "$TMP/new.nd"
	[ "$output" = "$old" ]
	cmp <(tail -n +2 "$TMP/old.nd" | grep -v '"type":"end"') <(tail -n +2 "$TMP/new.nd" | grep -v '"type":"end"')
	# forecast reads it too, with the same bundle
	forecast -c "$TMP/old.json" -t $((34 * DAY + 9 * 3600)) -o "$TMP/old-b.nd" "$TRACE"
	forecast -c "$TENANT_LINEAR" -t $((34 * DAY + 9 * 3600)) -o "$TMP/new-b.nd" "$TRACE"
	cmp <(sed -n 2p "$TMP/old-b.nd") <(sed -n 2p "$TMP/new-b.nd")
	# a third spelling is still refused, naming the new one
	sed 's|"schednav.tenant-predictive-controller/1"|"schednav.tenant-predictive-controller/V1"|' "$TENANT_LINEAR" > "$TMP/bad.json"
	run sim-run -p "$POLICY" -c "$TMP/bad.json" -i "$EARLY" -o "$TMP/bad.nd"
	[ "$status" -eq 1 ]
	[ ! -e "$TMP/bad.nd" ]
}
