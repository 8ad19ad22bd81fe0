#!/usr/bin/env bats
# rank: the declared hierarchy, the tie band on doubles, the three statuses, evidence, errors.
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

rec() { sed -n 2p "$1" | jq -c "$2"; }

# three_way A1 A2 A3 [extra overrides for candidate 3...]: three candidates with these
# allocations, equal Spot p95 and eviction, a FIFO baseline at 0.05; audits + rank -> r.ndjson.
three_way() {
	local a1="$1" a2="$2" a3="$3"; shift 3
	mk_metrics ps native-fifo allocation_rate_mean=0.05 > base.ndjson
	mk_metrics ps native-preemptive-3600 allocation_rate_mean="$a1" > c1.ndjson
	mk_metrics ps native-preemptive-g3600-b09-d0000 allocation_rate_mean="$a2" > c2.ndjson
	mk_metrics ps native-preemptive-g3600-b09-d0900 allocation_rate_mean="$a3" "$@" > c3.ndjson
	slo-audit --slo "$SLO" --baseline base.ndjson c1.ndjson c2.ndjson c3.ndjson > audits.ndjson
	rank --slo "$SLO" -o r.ndjson audits.ndjson c1.ndjson c2.ndjson c3.ndjson
}

@test "rank: --help matches the man page, bad option exits 2" {
	assert_tool_invariants rank
}

@test "rank: zstd in and out, chunked input, any stream order give identical bytes" {
	rank --slo "$SLO" "$PS/audits.ndjson" $(catalogue_files "$PS") > plain.ndjson
	cat $(catalogue_files "$PS") "$PS/audits.ndjson" | zstd -q > all.zst
	rank --slo "$SLO" -o out.ndjson.zst < all.zst
	cmp <(sans_header out.ndjson.zst) <(sans_header plain.ndjson)
	cat "$PS/audits.ndjson" $(catalogue_files "$PS") > all.ndjson
	feed_chunked all.ndjson rank --slo "$SLO" > chunked.ndjson
	cmp <(sans_header chunked.ndjson) <(sans_header plain.ndjson)
}

@test "rank: golden parity, every case's ranking (status, selected ids, stage survivors)" {
	require_shared
	run python3 "$ROOT/tests/golden-eval.py" "$GOLDEN" "$SLO" "$BATS_TEST_TMPDIR/golden"
	echo "$output"
	assert_success
	n=$(echo "$output" | sed -n 's/^rankings \([0-9]*\)\/\([0-9]*\) match$/\1 \2/p')
	[ -n "$n" ]
	set -- $n
	[ "$1" = "$2" ] || fail "$1 of $2 rankings match"
	[ "$1" -gt 20 ] || fail "only $1 rankings"
}

@test "rank: output is schema-valid and self-fingerprinted" {
	rank --slo "$SLO" "$PS/audits.ndjson" $(catalogue_files "$PS") > r.ndjson
	body r.ndjson > b.ndjson
	assert_schema b.ndjson
	run -0 check_self ranking_fingerprint < r.ndjson
	assert_output "verified 1"
	run -0 rec r.ndjson '[.selection_status, (.stages | length), .candidates[0].action, .candidates[2].action.spot_eviction_budget_rate]'
	assert_output '["tie_requires_human_approval",4,{"action_id":"native-fifo","scheduler":"fifo","spot_guarantee_seconds":3600,"checkpoint_interval_seconds":3600},0.09]'
}

@test "rank: band 0.01 on doubles: 0.81 vs 0.805 tie" {
	three_way 0.81 0.805 0.5
	run -0 rec r.ndjson '[.selection_status, .selected_action_ids, .stages[1].remaining_action_ids]'
	assert_output '["tie_requires_human_approval",["native-preemptive-3600","native-preemptive-g3600-b09-d0000"],["native-preemptive-3600","native-preemptive-g3600-b09-d0000"]]'
}

@test "rank: band 0.01 on doubles: 0.81 vs 0.80 is out (0.010000000000000009)" {
	three_way 0.81 0.80 0.5
	run -0 rec r.ndjson '[.selection_status, .selected_action_ids, (.stages | length)]'
	assert_output '["selected",["native-preemptive-3600"],2]'
}

@test "rank: band 0.01 on doubles: 0.11 vs 0.10 is in (0.009999999999999995)" {
	three_way 0.11 0.10 0.05
	run -0 rec r.ndjson '.stages[1].remaining_action_ids'
	assert_output '["native-preemptive-3600","native-preemptive-g3600-b09-d0000"]'
}

@test "rank: stages 3 and 4 compare exactly and break a band tie" {
	three_way 0.81 0.805 0.809 spot_jct_p95_seconds=9.999999999999998
	run -0 rec r.ndjson '[.selection_status, .selected_action_ids, [.stages[].stage]]'
	assert_output '["selected",["native-preemptive-g3600-b09-d0900"],["hard_slo_filter","maximize_allocation_rate","minimize_spot_p95_jct"]]'
	three_way 0.81 0.805 0.809 spot_eviction_rate_per_run=0.0 spot_jct_p95_seconds=10.0
	run -0 rec r.ndjson '[.selection_status, (.stages | length)]'
	assert_output '["tie_requires_human_approval",4]'
}

@test "rank: the three statuses" {
	three_way 0.9 0.5 0.4
	run -0 rec r.ndjson '.selection_status'
	assert_output '"selected"'
	three_way 0.9 0.9 0.9
	run -0 rec r.ndjson '.selection_status'
	assert_output '"tie_requires_human_approval"'
	three_way 0.01 0.02 0.03
	run -0 rec r.ndjson '[.selection_status, .selected_action_ids, .stages]'
	assert_output '["no_eligible_policy",[],[{"stage":"hard_slo_filter","remaining_action_ids":[],"remaining_policy_fingerprints":[]}]]'
}

@test "rank: a null ranking metric on an eligible candidate is an error" {
	run three_way 0.9 0.8 0.85 spot_jct_p95_seconds=null
	assert_failure 1
	assert_output --partial "candidate 'native-preemptive-g3600-b09-d0900' passes the hard SLOs but its ranking metric 'spot_jct_p95_seconds' is null"
	[ ! -e r.ndjson ]
}

@test "rank: a null ranking metric on a hard-failed candidate is ignored" {
	three_way 0.9 0.8 0.85 spot_jct_p95_seconds=null hp_preempted_job_count=1
	run -0 rec r.ndjson '[.selection_status, .selected_action_ids, .candidates[2].hard_slo_passed, .candidates[2].ranking_metrics.spot_jct_p95_seconds]'
	assert_output '["selected",["native-preemptive-3600"],false,null]'
}

@test "rank: a tampered audit (re-sealed stream, stale audit_fingerprint) is not eligible" {
	three_way 0.9 0.8 0.85 hp_preempted_job_count=1
	run -0 rec r.ndjson '.selected_action_ids'
	assert_output '["native-preemptive-3600"]'
	# Make the failed candidate look passed and the best look failed; reseal the stream.
	awk 'NR==4{sub(/"audit_passed":false/,"\"audit_passed\":true")} NR==2{sub(/"audit_passed":true/,"\"audit_passed\":false")} {print}' audits.ndjson | reseal > forged.ndjson
	rank --slo "$SLO" forged.ndjson c1.ndjson c2.ndjson c3.ndjson > r2.ndjson
	run -0 rec r2.ndjson '[.selection_status, [.candidates[].evidence_valid], .stages[0].remaining_action_ids]'
	assert_output '["selected",[false,true,false],["native-preemptive-g3600-b09-d0000"]]'
}

@test "rank: the error cases (tests/cases/rank/*.case)" {
	# w: three candidates with their audits; dup: a second candidate of the same action
	three_way 0.9 0.8 0.85
	mk_metrics ps native-preemptive-3600 allocation_rate_mean=0.7 > dup.ndjson
	slo-audit --slo "$SLO" --baseline base.ndjson dup.ndjson > dupa.ndjson
	run_cases rank slo="$SLO" ps="$PS" w="$PWD"
}

@test "rank: more than five candidates is an error" {
	cat "$PS"/*.metrics.ndjson > six.ndjson
	[ "$(grep -c '"type":"metrics"' six.ndjson)" -eq 7 ]
	slo-audit --slo "$SLO" --baseline "$PS/native-fifo.metrics.ndjson" six.ndjson > sixa.ndjson
	run rank --slo "$SLO" sixa.ndjson six.ndjson
	assert_failure 1
	assert_output --partial "more than 5 audit records"
}

@test "rank: --max-candidates 6 ranks six candidates by the same hierarchy; the bound is checked" {
	ls "$PS"/*.metrics.ndjson | head -n 6 | xargs cat > six.ndjson
	slo-audit --slo "$SLO" --baseline "$PS/native-fifo.metrics.ndjson" six.ndjson > sixa.ndjson
	[ "$(grep -c '"type":"metrics"' six.ndjson)" -eq 6 ] || fail "the fixture does not hold six candidates"
	run rank --slo "$SLO" --max-candidates 6 sixa.ndjson six.ndjson
	assert_success
	run -0 jq -c 'select(.type == "ranking") | [(.candidates | length), .stages[0].stage]' <<< "$output"
	assert_output '[6,"hard_slo_filter"]'
	run rank --slo "$SLO" --max-candidates 9 sixa.ndjson six.ndjson
	assert_failure 2
	assert_output --partial "outside 3..8"
	run rank --slo "$SLO" --max-candidates 5 sixa.ndjson six.ndjson
	assert_failure 1
}
