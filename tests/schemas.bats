#!/usr/bin/env bats
# Whole-stream schema validation: every stream-writing tool runs once on a small real input
# and its complete output (header, every body record, end) is validated against
# schemas/<type>.schema.json. A record type without a schema file is a failure.
# Inputs are the repository's own (tests/data, configs): no ../shared needed.
load helper

CAT="native-fifo native-preemptive-3600 native-preemptive-g3600-b09-d0000 native-preemptive-g3600-b09-d0900 native-preemptive-g3600-b09-loss-aware"

setup_file() {
	local o="$BATS_FILE_TMPDIR/o" p
	mkdir -p "$o"
	cd "$o"
	python3 "$ROOT/tests/gen-philly-log.py" --jobs 50 --seed 5 philly-log.json
	zstdcat "$DATA/chronus-trace_job_Philly_MIX1.csv.zst" | head -n 2001 > mix1-head.csv
	trace-import csv --map "$ROOT/configs/maps/chronus-philly-besteffort.json" \
		--nodes-file "$DATA/philly-cluster_machine_list.zst" mix1-head.csv -o csv.nd
	trace-synth --profile "$DATA/synth/tiny.json" --seed 3 -o synth.nd
	for p in $CAT native-preemptive-0000; do
		sim-run --policy "$ROOT/configs/policies/$p.json" --input "$DATA/sim/preemption-small.trace.ndjson" -o "$p.result.nd"
		metrics --input "$p.result.nd" -o "$p.metrics.nd"
	done
	slo-audit --slo "$ROOT/configs/slos/schednav-demo-slo-v1.json" --baseline native-fifo.metrics.nd -o audits.nd $(metrics_files)
	rank --slo "$ROOT/configs/slos/schednav-demo-slo-v1.json" -o ranking.nd audits.nd $(metrics_files)
}

setup() {
	O="$BATS_FILE_TMPDIR/o"
	cd "$BATS_TEST_TMPDIR"
}

metrics_files() { local p; for p in $CAT; do echo "$p.metrics.nd"; done; }

# assert_stream FILE...: each file is one or more whole streams (header first, end last),
# and every record of it is valid.
assert_stream() {
	local f
	for f in "$@"; do
		[ "$(zstdcat -f "$f" | head -n 1 | jq -r .type)" = header ] || fail "'$f' does not start with a header"
		[ "$(zstdcat -f "$f" | tail -n 1 | jq -r .type)" = end ] || fail "'$f' does not end with an end record"
		[ "$(zstdcat -f "$f" | jq -r .type | sort -u | grep -vc '^\(header\|end\)$')" -gt 0 ] || fail "'$f' has no body records"
	done
	assert_schema "$@"
}

@test "schemas: trace-import, every format with a sample in tests/data" {
	trace-import alibaba-v2023 --nodes "$DATA/v2023-openb_node_list_gpu_node.csv.zst" \
		--pods "$DATA/v2023-openb_pod_list_default.head500.csv.zst" -o v23.nd
	trace-import alibaba-spot --nodes "$DATA/alibaba-spot-node_info_df.csv.zst" \
		--jobs "$DATA/alibaba-spot-job_info_df.fixture.csv" --eval-start 1000 --eval-end 50000 -o spot.nd
	trace-import philly --machines "$DATA/philly-cluster_machine_list.zst" --job-log "$O/philly-log.json" --class Spot -o philly.nd
	trace-export exp "$DATA/sim/warmup-window.trace.ndjson"
	trace-import canonical exp -o canon.nd
	[ "$(head -1 canon.nd | jq -c .window)" != null ]
	[ "$(head -1 spot.nd | jq -r .schema)" = schednav.trace/2 ]
	assert_stream v23.nd spot.nd philly.nd canon.nd "$O/csv.nd"
}

@test "schemas: trace-window (a window with a warm-up) and trace-synth" {
	trace-window --eval-start 600 --eval-end 1800 --warmup-start 300 -i "$O/csv.nd" -o win.nd
	head -1 win.nd | jq -e '.window == {eval_start: 600, eval_end: 1800, warmup_start: 300}'
	assert_stream win.nd "$O/synth.nd"
}

@test "schemas: trace-scan, every day and every eligible day" {
	trace-scan --all-eligible --all-days --min-hp 1 --min-spot 1 -i "$O/synth.nd" -o scan.nd
	[ "$(grep -c '"type":"window"' scan.nd)" -ge 1 ]
	assert_stream scan.nd
}

@test "schemas: sim-run and metrics, every catalogue policy" {
	assert_stream "$O"/*.result.nd "$O"/*.metrics.nd
	# the result stream holds every body record type sim-run writes
	[ "$(jq -r .type "$O/native-preemptive-0000.result.nd" | sort -u | tr '\n' ' ')" = "cluster end header job_result preemption run " ]
}

@test "schemas: slo-audit and rank" {
	assert_stream "$O/audits.nd" "$O/ranking.nd"
	slo-audit --slo "$ROOT/configs/slos/schednav-demo-slo-v1.json" -o nobase.nd "$O/native-preemptive-3600.metrics.nd"
	[ "$(head -1 nobase.nd | jq -c .params.baseline_metrics_fingerprint)" = null ]
	assert_stream nobase.nd
}

@test "schemas: compare with 2, 3 and 5 metrics records" {
	cd "$O"
	compare -o "$BATS_TEST_TMPDIR/c2.nd" native-fifo.metrics.nd native-preemptive-3600.metrics.nd
	compare -o "$BATS_TEST_TMPDIR/c3.nd" native-fifo.metrics.nd native-preemptive-3600.metrics.nd native-preemptive-g3600-b09-d0900.metrics.nd
	compare -o "$BATS_TEST_TMPDIR/c5.nd" $(metrics_files)
	cd "$BATS_TEST_TMPDIR"
	assert_stream c2.nd c3.nd c5.nd
}

@test "schemas: aggregate, study-select and study-lock" {
	cd "$O"
	aggregate -o "$BATS_TEST_TMPDIR/agg.nd" --window a ranking.nd audits.nd $(metrics_files) --window b ranking.nd audits.nd $(metrics_files)
	study-select -o "$BATS_TEST_TMPDIR/sel.nd" --window a audits.nd $(metrics_files)
	cd "$BATS_TEST_TMPDIR"
	mkdir holdout
	study-lock --design "$ROOT/configs/studies/tiny.json" --summary agg.nd --selection sel.nd --holdout-dir holdout -o lock.nd
	[ "$(head -1 lock.nd | jq -c '[.inputs[-2:][].schema]')" = '["schednav.aggregate/1","schednav.selection/1"]' ]
	assert_stream agg.nd sel.nd lock.nd
}

@test "schemas: approve's log records" {
	approve --ranking "$O/ranking.nd" --action native-preemptive-3600 --by "A. Person" --reason pilot --at 2026-03-01T10:00:00Z --log log.nd
	approve --ranking "$O/ranking.nd" --action native-fifo --by "B. Person" --reason second --log log.nd
	[ "$(jq -r .type log.nd | sort -u)" = approval ]
	[ "$(wc -l < log.nd)" -eq 2 ]
	assert_schema log.nd
}

@test "schemas: the validator fails on a record type without a schema and on an unknown header key" {
	sed '2s/"type":"metrics"/"type":"metrics-x"/' "$O/native-fifo.metrics.nd" > t.nd
	run python3 "$ROOT/tests/validate-schema.py" t.nd
	assert_failure 1
	assert_output --partial "no schema for record type 'metrics-x'"
	compare -o c.nd "$O/native-fifo.metrics.nd" "$O/native-preemptive-3600.metrics.nd"
	# One validator run over every edited stream: each must be reported on its header line.
	local f n=0 bad=()
	for f in "$O/native-fifo.result.nd" "$O/native-fifo.metrics.nd" "$O/audits.nd" "$O/ranking.nd" c.nd "$O/synth.nd"; do
		n=$((n + 1))
		{ head -1 "$f" | jq -c '. + {extra: 1}'; tail -n +2 "$f"; } > h$n.nd
		bad+=(h$n.nd)
		[ "$f" = "$O/synth.nd" ] && continue   # a trace header's params are the importer's own
		{ head -1 "$f" | jq -c '.params += {extra: 1}'; tail -n +2 "$f"; } > p$n.nd
		bad+=(p$n.nd)
	done
	run python3 "$ROOT/tests/validate-schema.py" "${bad[@]}"
	assert_failure 1
	for f in "${bad[@]}"; do
		assert_line --partial "$f:1: header: "
	done
	[ "${#bad[@]}" -eq 11 ]
}

@test "schemas: sim-run --controller and its metrics, forecast and quota, every record type they write" {
	local ctrl="$ROOT/configs/controllers/predictive-spot-v1.json" micro="$DATA/sim/micro-quota.trace.ndjson"
	sim-run -p "$ROOT/configs/policies/native-preemptive-3600.json" -c "$ctrl" -i "$micro" -o ctl.result.nd
	metrics -i ctl.result.nd -o ctl.metrics.nd
	forecast -c "$ctrl" -t 100800 -o bundle.nd "$micro"
	quota -c "$ctrl" -o plan.nd bundle.nd
	[ "$(jq -r .type ctl.result.nd | sort -u | tr '\n' ' ')" = "cluster control_decision control_report end header job_result preemption run " ]
	[ "$(jq -r .type bundle.nd plan.nd | sort -u | tr '\n' ' ')" = "end header observation_bundle quota_plan " ]
	assert_stream ctl.result.nd ctl.metrics.nd bundle.nd plan.nd
	# the schemas are strict: an unknown key in a nested document fails
	sed -n 2p bundle.nd | jq -c '.demand_forecast.model.extra = 1' > bad.nd
	run /usr/bin/python3 "$ROOT/tests/validate-schema.py" bad.nd
	assert_failure 1
}
