#!/usr/bin/env bats
# slo-audit: SLO validation, thresholds, baseline compatibility, statuses, evidence, golden parity.
load helper
load eval_fixtures
load run_cases

setup_file() {
	export FIX="$BATS_FILE_TMPDIR/fix"
	build_fixtures "$FIX"
}

setup() {
	PS="$FIX/ps"
	cd "$BATS_TEST_TMPDIR"
}

# field AUDITFILE N JQ : jq expression on the N-th audit record (1-based).
field() { sed -n "$(( $2 + 1 ))p" "$1" | jq -c "$3"; }

@test "slo-audit: --help matches the man page, bad option exits 2" {
	assert_tool_invariants slo-audit
}

@test "slo-audit: zstd in and out, chunked input gives identical bytes" {
	slo-audit --slo "$SLO" --baseline "$PS/native-fifo.metrics.ndjson" "$PS/native-preemptive-3600.metrics.ndjson" > plain.ndjson
	zstd -q "$PS/native-preemptive-3600.metrics.ndjson" -o cand.zst
	zstd -q "$PS/native-fifo.metrics.ndjson" -o base.zst
	slo-audit --slo "$SLO" --baseline base.zst -o out.ndjson.zst < cand.zst
	run cmp <(sans_header out.ndjson.zst) <(sans_header plain.ndjson)
	assert_success
	feed_chunked "$PS/native-preemptive-3600.metrics.ndjson" slo-audit --slo "$SLO" --baseline "$PS/native-fifo.metrics.ndjson" > chunked.ndjson
	run cmp <(sans_header chunked.ndjson) <(sans_header plain.ndjson)
	assert_success
}

@test "slo-audit: output is deterministic, schema-valid and self-fingerprinted" {
	slo-audit --slo "$SLO" --baseline "$PS/native-fifo.metrics.ndjson" $(catalogue_files "$PS") > a.ndjson
	slo-audit --slo "$SLO" --baseline "$PS/native-fifo.metrics.ndjson" $(catalogue_files "$PS") > b.ndjson
	cmp a.ndjson b.ndjson
	body a.ndjson > body.ndjson
	assert_schema body.ndjson
	run check_self audit_fingerprint < a.ndjson
	assert_success
	assert_output "verified 5"
	[ "$(sed -n 1p a.ndjson | jq -r .schema)" = schednav.audit/1 ]
}

@test "slo-audit: golden parity, every run of every case (audit_passed, ids, observed, thresholds, statuses)" {
	require_shared
	run python3 "$ROOT/tests/golden-eval.py" "$GOLDEN" "$SLO" "$BATS_TEST_TMPDIR/golden"
	echo "$output"
	assert_success
	n=$(echo "$output" | sed -n 's/^audits \([0-9]*\)\/\([0-9]*\) match$/\1 \2/p')
	[ -n "$n" ]
	set -- $n
	[ "$1" = "$2" ] || fail "$1 of $2 audits match"
	[ "$1" -gt 200 ] || fail "only $1 audits"
}

@test "slo-audit: 101 x 1.01 = 102.01 exactly; 102.01 passes, 102.02 fails" {
	mk_metrics ps native-fifo hp_jct_p95_seconds=101.0 > base.ndjson
	mk_metrics ps native-preemptive-3600 hp_jct_p95_seconds=102.01 > ok.ndjson
	mk_metrics ps native-preemptive-g3600-b09-d0000 hp_jct_p95_seconds=102.02 > bad.ndjson
	slo-audit --slo "$SLO" --baseline base.ndjson ok.ndjson bad.ndjson > out.ndjson
	run -0 field out.ndjson 1 '.constraints[2] | [.threshold, .status, .threshold_source.baseline_observed, .threshold_source.multiplier]'
	assert_output '[102.01,"passed",101,1.01]'
	grep -q '"threshold":102.01,' out.ndjson
	run -0 field out.ndjson 2 '[.constraints[2].status, .audit_passed, .failed_constraint_ids]'
	assert_output '["failed",false,["hp-p95-jct-fifo-regression"]]'
}

@test "slo-audit: observed keeps its kind, absolute thresholds are floats" {
	slo-audit --slo "$SLO" --baseline "$PS/native-fifo.metrics.ndjson" "$PS/native-fifo.metrics.ndjson" > out.ndjson
	grep -q '"id":"hp-preempted-job-count","metric":"hp_preempted_job_count","operator":"<=","threshold":0.0,"threshold_source":{"kind":"absolute"},"severity":"hard","observed":0,' out.ndjson
	grep -q '"threshold":3600.0,' out.ndjson
}

@test "slo-audit: the baseline may be audited against itself" {
	run slo-audit --slo "$SLO" --baseline "$PS/native-fifo.metrics.ndjson" "$PS/native-fifo.metrics.ndjson"
	assert_success
	run -0 field <(echo "$output") 1 '[.audit_passed, .baseline.compatible_fifo, .baseline.metrics_fingerprint == .metrics_fingerprint]'
	assert_output '[true,true,true]'
}

# Each incompatible baseline makes both relative thresholds null => unavailable => hard fail.
incompatible() {
	slo-audit --slo "$SLO" --baseline "$1" "$PS/native-preemptive-3600.metrics.ndjson" > out.ndjson
	run -0 field out.ndjson 1 '[.audit_passed, .baseline.compatible_fifo, .evidence_checks.baseline_compatible_fifo, .unavailable_constraint_ids, .constraints[2].threshold, .constraints[7].status]'
	assert_output '[false,false,false,["hp-p95-jct-fifo-regression","allocation-fifo-nondegradation"],null,"unavailable"]'
}

@test "slo-audit: a baseline with another trace_id is incompatible" {
	mk_metrics ps native-fifo 'trace_id="other"' > b.ndjson
	incompatible b.ndjson
}

@test "slo-audit: a non-fifo baseline is incompatible" {
	incompatible "$PS/native-preemptive-g3600-b09-d0000.metrics.ndjson"
}

@test "slo-audit: a baseline with another window is incompatible" {
	mk_metrics ps native-fifo evaluation_end=3.0 > b.ndjson
	incompatible b.ndjson
}

@test "slo-audit: a baseline with other job counts is incompatible" {
	mk_metrics ps native-fifo spot_job_count=2 > b.ndjson
	incompatible b.ndjson
}

@test "slo-audit: a baseline with another source is incompatible" {
	mk_metrics ps native-fifo 'source={"dataset":"elsewhere"}' > b.ndjson
	incompatible b.ndjson
}

@test "slo-audit: compatibility is numeric equality (1 == 1.0)" {
	mk_metrics ps native-fifo evaluation_start=0 evaluation_end=2 > b.ndjson
	slo-audit --slo "$SLO" --baseline b.ndjson "$PS/native-preemptive-3600.metrics.ndjson" > out.ndjson
	run -0 field out.ndjson 1 '[.baseline.compatible_fifo, .audit_passed]'
	assert_output '[true,true]'
}

@test "slo-audit: without --baseline relative constraints are unavailable and both baseline checks false" {
	slo-audit --slo "$SLO" "$PS/native-preemptive-3600.metrics.ndjson" > out.ndjson
	run -0 field out.ndjson 1 '[.audit_passed, .baseline, .evidence_checks.baseline_metrics_fingerprint_valid, .evidence_checks.baseline_compatible_fifo, .unavailable_constraint_ids, .constraints[7].threshold_source.baseline_observed]'
	assert_output '[false,{"required":true,"metrics_fingerprint":null,"policy_fingerprint":null,"compatible_fifo":false},false,false,["hp-p95-jct-fifo-regression","allocation-fifo-nondegradation"],null]'
}

@test "slo-audit: a spec without relative thresholds needs no baseline" {
	jq '.constraints |= map(select(.threshold | type == "number"))' "$SLO" > abs.json
	slo-audit --slo abs.json "$PS/native-preemptive-3600.metrics.ndjson" > out.ndjson
	run -0 field out.ndjson 1 '[.audit_passed, .evidence_checks.baseline_required, .evidence_checks.baseline_metrics_fingerprint_valid, .evidence_checks.baseline_compatible_fifo, .hard_constraint_count]'
	assert_output '[true,false,true,true,6]'
}

@test "slo-audit: null Spot metrics are unavailable and fail hard; soft violations never gate" {
	H="$FIX/hponly"
	slo-audit --slo "$SLO" --baseline "$H/native-fifo.metrics.ndjson" "$H/native-preemptive-3600.metrics.ndjson" > out.ndjson
	run -0 field out.ndjson 1 '[.audit_passed, .unavailable_constraint_ids, .constraints[4].observed, .constraints[4].threshold]'
	assert_output '[false,["spot-completion-rate","spot-eviction-rate-per-run","spot-guarantee-success-rate"],null,1]'
	mk_metrics ps native-preemptive-3600 allocation_rate_mean=0.5 > low.ndjson
	mk_metrics ps native-fifo allocation_rate_mean=0.4 > base.ndjson
	slo-audit --slo "$SLO" --baseline base.ndjson low.ndjson > out.ndjson
	run -0 field out.ndjson 1 '[.audit_passed, .soft_violation_count, .failed_constraint_ids]'
	assert_output '[true,1,["allocation-soft-target"]]'
}

@test "slo-audit: all three statuses in one audit" {
	mk_metrics ps native-preemptive-3600 hp_preempted_job_count=1 spot_eviction_rate_per_run=null > c.ndjson
	slo-audit --slo "$SLO" --baseline "$PS/native-fifo.metrics.ndjson" c.ndjson > out.ndjson
	run -0 field out.ndjson 1 '[.constraints[] | .status] | unique'
	assert_output '["failed","passed","unavailable"]'
	run -0 field out.ndjson 1 '[.failed_constraint_ids, .unavailable_constraint_ids]'
	assert_output '[["hp-preempted-job-count"],["spot-eviction-rate-per-run"]]'
}

@test "slo-audit: a false ledger flag fails the audit" {
	mk_metrics ps native-preemptive-3600 spot_run_ledger_consistent=false > c.ndjson
	slo-audit --slo "$SLO" --baseline "$PS/native-fifo.metrics.ndjson" c.ndjson > out.ndjson
	run -0 field out.ndjson 1 '[.audit_passed, .evidence_checks.spot_run_ledger_consistent, .failed_constraint_ids]'
	assert_output '[false,false,[]]'
}

@test "slo-audit: --exit-status exits 3 when an audit failed, 0 when all passed" {
	run slo-audit --exit-status --slo "$SLO" --baseline "$PS/native-fifo.metrics.ndjson" "$PS/native-preemptive-3600.metrics.ndjson"
	assert_success
	run slo-audit --exit-status --slo "$SLO" "$PS/native-preemptive-3600.metrics.ndjson"
	assert_failure 3
	run slo-audit --slo "$SLO" "$PS/native-preemptive-3600.metrics.ndjson"
	assert_success
}

@test "slo-audit: the error cases (tests/cases/slo-audit/*.case)" {
	run_cases slo-audit slo="$SLO" ps="$PS"
}
