#!/usr/bin/env bats
# schednav-mcp driven by the official MCP Inspector CLI (tools/list per profile, a full static
# evaluation equal to running the tools directly, idempotency, confinement) and by raw stdio
# for the malformed messages a real client never sends.

load helper
bats_require_minimum_version 1.5.0
load mcp_fixtures
load run_cases

POLICIES=(native-fifo native-preemptive-3600 native-preemptive-g3600-b09-d0000)

setup() {
	W="$BATS_TEST_TMPDIR/ws"
	make_workspace "$W"
}

@test "schednav-mcp: invariants (--help matches the man page, bad option exits 2)" {
	assert_tool_invariants schednav-mcp
	run schednav-mcp -V
	assert_success
	assert_output --partial "2025-11-25"
}

@test "schednav-mcp: the command-line error cases (tests/cases/schednav-mcp/*.case): no --workspace, an unknown profile, a missing --configs" {
	# (errors in JSON-RPC requests are replies on standard output: they stay in Bats)
	run_cases schednav-mcp
}

@test "schednav-mcp: tools/list per profile; no approval, shell, path or job id anywhere" {
	require_inspector
	[ "$(tool_names analyst)" = "analyze_workload get_task read_artifact" ]
	[ "$(tool_names strategist)" = "get_task read_artifact" ]
	[ "$(tool_names simulation)" = "get_task read_artifact simulate_policy simulate_run_set" ]
	[ "$(tool_names auditor)" = "audit_run_set audit_slo get_task read_artifact" ]
	[ "$(tool_names manager)" = "compare_policies get_task rank_policies read_artifact" ]
	# forecast, sim-run --controller and roll are built: the predictive and rolling operations are listed
	[ "$(tool_names predictive)" = "audit_slo compare_policies forecast_demand get_task rank_policies read_artifact simulate_predictive_policy" ]
	[ "$(tool_names rolling)" = "advance_rolling_policy get_task read_artifact" ]
	# every schema is closed and names no path, job, node or GPU field
	for p in analyst strategist simulation auditor manager predictive rolling; do
		mcp "$p" --method tools/list > "$BATS_TEST_TMPDIR/$p.json"
		run -0 jq -r '.tools[] | select(.inputSchema.additionalProperties != false) | .name' "$BATS_TEST_TMPDIR/$p.json"
		assert_output ""
		run -0 jq -r '[.tools[] | .name, (.inputSchema.properties | keys[])] | .[]' "$BATS_TEST_TMPDIR/$p.json"
		refute_output --regexp "approv|shell|command|path|job_id|node_id|gpu_id"
	done
}

@test "schednav-mcp: the predictive operations equal running forecast and sim-run --controller directly" {
	require_inspector
	local T="$BATS_TEST_TMPDIR" trace="$W/traces/mix1-w.ndjson.zst" ctl="$ROOT/configs/controllers/predictive-spot-v1.json"
	call predictive forecast_demand run_config_id=mix1-w controller_id=predictive-spot-v1 cutoff_seconds=4000 > "$T/fc.json"
	[ "$(jq -r .state "$T/fc.json")" = succeeded ] || fail "forecast_demand: $(cat "$T/fc.json")"
	forecast --controller "$ctl" --cutoff 4000 -i "$trace" -o "$T/direct.fc"
	[ "$(jq -r .artifacts[0].fingerprint "$T/fc.json")" = "$(body_fp "$T/direct.fc")" ] || fail "forecast_demand bundle differs from forecast"
	[ "$(jq -r .result.observation_bundle.observation_bundle_fingerprint "$T/fc.json")" = \
	  "$(grep '"observation_bundle"' "$T/direct.fc" | jq -r .observation_bundle_fingerprint)" ] || fail "bundle fingerprints differ"
	call predictive simulate_predictive_policy run_config_id=mix1-w action_id=native-preemptive-3600 controller_id=predictive-spot-v1 > "$T/sp.json"
	[ "$(jq -r .state "$T/sp.json")" = succeeded ] || fail "simulate_predictive_policy: $(cat "$T/sp.json")"
	sim-run --policy "$ROOT/configs/policies/native-preemptive-3600.json" --controller "$ctl" -i "$trace" -o "$T/p.result.zst"
	metrics -i "$T/p.result.zst" -o "$T/p.metrics"
	[ "$(jq -r .result.result_fingerprint "$T/sp.json")" = "$(body_fp "$T/p.result.zst")" ] || fail "result fingerprint differs"
	[ "$(jq -r .result.metrics_fingerprint "$T/sp.json")" = "$(body_fp "$T/p.metrics")" ] || fail "metrics fingerprint differs"
	[ "$(jq -r .result.metrics.predictive_control.controller_id "$T/sp.json")" = predictive-spot-v1 ] || fail "no predictive_control block"
}

@test "schednav-mcp: an operation whose tool is missing is refused cleanly, and appears once the tool exists" {
	require_inspector
	# an exec dir without roll hides advance_rolling_policy and refuses a call to it
	local r="$BATS_TEST_TMPDIR/exec-no-roll"
	mkdir -p "$r"
	for t in "$BIN"/*; do [ "$(basename "$t")" = roll ] || ln -s "$t" "$r/"; done
	run "$INSPECTOR" --cli "$BIN/schednav-mcp" --profile rolling --workspace "$W" --exec-path "$r" --configs "$ROOT/configs" --method tools/list
	assert_success
	[ "$(echo "$output" | jq -r '[.tools[].name] | sort | join(" ")')" = "get_task read_artifact" ] || fail "advance_rolling_policy listed without roll: $output"
	run "$INSPECTOR" --cli "$BIN/schednav-mcp" --profile rolling --workspace "$W" --exec-path "$r" --configs "$ROOT/configs" --method tools/call --tool-name advance_rolling_policy --tool-arg run_config_id=mix1-w
	assert_failure 1
	assert_output --partial "MCP error -32602"
	assert_output --partial "is not available: its tool is not installed"
	# an exec dir without forecast hides forecast_demand; one whose forecast documents --cutoff lists it
	local x="$BATS_TEST_TMPDIR/exec"
	mkdir -p "$x"
	for t in "$BIN"/*; do [ "$(basename "$t")" = forecast ] || ln -s "$t" "$x/"; done
	run "$INSPECTOR" --cli "$BIN/schednav-mcp" --profile predictive --workspace "$W" --exec-path "$x" --configs "$ROOT/configs" --method tools/list
	assert_success
	[ "$(echo "$output" | jq -r '[.tools[].name] | sort | join(" ")')" = "audit_slo compare_policies get_task rank_policies read_artifact simulate_predictive_policy" ] || fail "forecast_demand listed without forecast: $output"
	run "$INSPECTOR" --cli "$BIN/schednav-mcp" --profile predictive --workspace "$W" --exec-path "$x" --configs "$ROOT/configs" --method tools/call --tool-name forecast_demand --tool-arg run_config_id=mix1-w controller_id=predictive-spot-v1 cutoff_seconds=4000
	assert_failure 1
	assert_output --partial "is not available: its tool is not installed"
	printf '#!/bin/sh\necho "usage: forecast --controller FILE --cutoff S"\n' > "$x/forecast"
	chmod +x "$x/forecast"
	run "$INSPECTOR" --cli "$BIN/schednav-mcp" --profile predictive --workspace "$W" --exec-path "$x" --configs "$ROOT/configs" --method tools/list
	assert_success
	[ "$(echo "$output" | jq -r '[.tools[].name] | sort | join(" ")')" = "audit_slo compare_policies forecast_demand get_task rank_policies read_artifact simulate_predictive_policy" ]
}

@test "schednav-mcp: advance_rolling_policy: a planning checkpoint, then the day with the decision; equals roll --decider plan: directly" {
	require_inspector
	local T="$BATS_TEST_TMPDIR" trace="$W/traces/mix1-w.ndjson.zst" ctl="$ROOT/configs/controllers/predictive-spot-v1.json" cfg="$ROOT/configs/rolling/rolling-v3.json"
	local args=(run_config_id=mix1-w controller_id=predictive-spot-v1 rolling_controller_id=rolling-v3 mode=single_agent)
	# no decision yet: the checkpoint names the one pending request (evaluation [3600, 5400]: one cutoff)
	call rolling advance_rolling_policy "${args[@]}" 'decisions=[]' > "$T/a1.json"
	[ "$(jq -r .state "$T/a1.json")" = succeeded ] || fail "advance 1: $(head -c 2000 "$T/a1.json")"
	[ "$(jq -r .result.complete "$T/a1.json")" = false ]
	[ "$(jq -r '[.result.records[].type] | join(" ")' "$T/a1.json")" = rolling_planning_checkpoint ]
	local rid rec
	rid=$(jq -r '.result.records[0].pending_request.request_id' "$T/a1.json")
	rec=$(jq -r '.result.records[0].pending_request.recommended_action_id' "$T/a1.json")
	[[ "$rid" =~ ^[0-9a-f]{32}$ ]] || fail "no pending request id: $rid"
	# the same checkpoint as roll itself writes
	: > "$T/empty.nd"
	roll --config "$cfg" --controller "$ctl" --history "$trace" --decider "plan:$T/empty.nd" --arm-id rolling-single-agent -o "$T/cp.nd" "$trace"
	[ "$(jq -r '.artifacts[0].fingerprint' "$T/a1.json")" = "$(body_fp "$T/cp.nd")" ] || fail "checkpoint differs from roll's"
	# the decision: the day runs to the end, with the arm's metrics
	local d="{\"request_id\":\"$rid\",\"action_id\":\"$rec\",\"reason_code\":\"scripted: the recommendation\",\"llm_call_count\":1}"
	call rolling advance_rolling_policy "${args[@]}" "decisions=[$d]" > "$T/a2.json"
	[ "$(jq -r .state "$T/a2.json")" = succeeded ] || fail "advance 2: $(head -c 2000 "$T/a2.json")"
	[ "$(jq -r .result.complete "$T/a2.json")" = true ]
	[ "$(jq -r '.result.records[] | select(.type == "rolling_decision") | .decider_reply.status' "$T/a2.json")" = accepted ]
	[ "$(jq -r '.result.records[] | select(.type == "rolling_decision") | .selected_action_id' "$T/a2.json")" = "$rec" ]
	[ "$(jq -r '.result.metrics.rolling_control.decision_count' "$T/a2.json")" = 1 ]
	run -0 jq -r '.result.records[].type' "$T/a2.json"
	refute_output --regexp '^(job_result|run|preemption|cluster|job)$'
	echo "$d" | jq -c '{type: "decision"} + .' > "$T/plan.nd"
	roll --config "$cfg" --controller "$ctl" --history "$trace" --decider "plan:$T/plan.nd" --arm-id rolling-single-agent -o "$T/r.nd" "$trace"
	metrics -i "$T/r.nd" -o "$T/r.metrics"
	[ "$(jq -r '.artifacts[0].fingerprint' "$T/a2.json")" = "$(body_fp "$T/r.nd")" ] || fail "result differs from roll's"
	[ "$(jq -r .result.metrics_fingerprint "$T/a2.json")" = "$(body_fp "$T/r.metrics")" ] || fail "metrics differ"
	# an action outside the candidates is roll's to reject: recorded, and the safety action applies
	d="{\"request_id\":\"$rid\",\"action_id\":\"native-preemptive-3600\",\"reason_code\":\"outside\"}"
	call rolling advance_rolling_policy "${args[@]}" "decisions=[$d]" > "$T/a3.json"
	[ "$(jq -r '.result.records[] | select(.type == "rolling_decision") | .decider_reply.rejection_reason' "$T/a3.json")" = action_not_in_candidates ]
	[ "$(jq -r '.result.records[] | select(.type == "rolling_decision") | .selected_action_id' "$T/a3.json")" = rolling-fifo-open ]
	# a reason code over two lines never reaches roll
	run mcp rolling --method tools/call --tool-name advance_rolling_policy --tool-arg "${args[@]}" "decisions=[{\"request_id\":\"$rid\",\"action_id\":\"$rec\",\"reason_code\":\"a\\nb\"}]"
	assert_failure 1
	assert_output --partial "MCP error -32602"
}

@test "schednav-mcp: advance_rolling_policy with --configs a copy of configs/ under another name finds the files the rolling config names" {
	require_inspector
	local T="$BATS_TEST_TMPDIR"
	cp -R "$ROOT/configs" "$T/mycfg"
	# rolling-v3.json names "configs/action_spaces/..." and "configs/slos/...": relative to the
	# source tree, which neither the workspace (roll's working directory) nor the copy is in
	run -0 mcp rolling --configs "$T/mycfg" --method tools/call --tool-name advance_rolling_policy \
		--tool-arg run_config_id=mix1-w controller_id=predictive-spot-v1 rolling_controller_id=rolling-v3 mode=single_agent 'decisions=[]'
	echo "$output" | jq -c '.structuredContent // .' > "$T/a.json"
	[ "$(jq -r .state "$T/a.json")" = succeeded ] || fail "advance: $(head -c 2000 "$T/a.json")"
	[ "$(jq -r '[.result.records[].type] | join(" ")' "$T/a.json")" = rolling_planning_checkpoint ]
	# the same configs from the tree give the same checkpoint
	call rolling advance_rolling_policy run_config_id=mix1-w controller_id=predictive-spot-v1 rolling_controller_id=rolling-v3 mode=single_agent 'decisions=[]' > "$T/b.json"
	[ "$(jq -r '.result.records[0].pending_request.request_id' "$T/a.json")" = "$(jq -r '.result.records[0].pending_request.request_id' "$T/b.json")" ] || fail "the copy's checkpoint differs from the tree's"
}

@test "schednav-mcp: a full static evaluation (analyze, simulate x3, audit x3, compare, rank) equals running the tools" {
	require_inspector
	local T="$BATS_TEST_TMPDIR" trace="$W/traces/mix1-w.ndjson.zst"
	call analyst analyze_workload run_config_id=mix1-w > "$T/analyze.json"
	[ "$(jq -r .state "$T/analyze.json")" = succeeded ] || fail "analyze: $(cat "$T/analyze.json")"
	trace-analyze "$trace" -o "$T/direct.wl"
	[ "$(jq -r .artifacts[0].fingerprint "$T/analyze.json")" = "$(body_fp "$T/direct.wl")" ]
	[ "$(jq -r .result.workload_summary.regime_label "$T/analyze.json")" = "$(tail -n 2 "$T/direct.wl" | head -n 1 | jq -r .regime_label)" ]
	local metrics=() audits=() direct_metrics=() direct_audits=()
	for p in "${POLICIES[@]}"; do
		call simulation simulate_policy run_config_id=mix1-w action_id="$p" > "$T/sim-$p.json"
		sim-run --policy "$ROOT/configs/policies/$p.json" --input "$trace" -o "$T/$p.result.zst"
		metrics -i "$T/$p.result.zst" -o "$T/$p.metrics"
		[ "$(jq -r .result.result_fingerprint "$T/sim-$p.json")" = "$(body_fp "$T/$p.result.zst")" ] || fail "$p result differs"
		[ "$(jq -r .result.metrics_fingerprint "$T/sim-$p.json")" = "$(body_fp "$T/$p.metrics")" ] || fail "$p metrics differ"
		metrics+=("$(jq -r .result.metrics_ref "$T/sim-$p.json")")
		direct_metrics+=("$T/$p.metrics")
	done
	for k in 0 1 2; do
		call auditor audit_slo metrics_ref="${metrics[$k]}" slo_spec_id=$SLO_ID baseline_action_id=native-fifo > "$T/audit-$k.json"
		slo-audit --slo "$ROOT/configs/slos/$SLO_ID.json" --baseline "$T/native-fifo.metrics" -o "$T/audit-$k.direct" "${direct_metrics[$k]}"
		[ "$(jq -r .artifacts[0].fingerprint "$T/audit-$k.json")" = "$(body_fp "$T/audit-$k.direct")" ] || fail "audit $k differs"
		audits+=("$(jq -r .result.audit_ref "$T/audit-$k.json")")
		direct_audits+=("$T/audit-$k.direct")
	done
	local mj aj
	mj=$(printf '%s\n' "${metrics[@]}" | jq -R . | jq -sc .)
	aj=$(printf '%s\n' "${audits[@]}" | jq -R . | jq -sc .)
	call manager compare_policies "metrics_refs=$mj" > "$T/compare.json"
	compare -o "$T/compare.direct" "${direct_metrics[@]}"
	[ "$(jq -r .artifacts[0].fingerprint "$T/compare.json")" = "$(body_fp "$T/compare.direct")" ] || fail "portfolio differs"
	call manager rank_policies "metrics_refs=$mj" "audit_refs=$aj" slo_spec_id=$SLO_ID > "$T/rank.json"
	rank --slo "$ROOT/configs/slos/$SLO_ID.json" -o "$T/rank.direct" "${direct_audits[@]}" "${direct_metrics[@]}"
	[ "$(jq -r .artifacts[0].fingerprint "$T/rank.json")" = "$(body_fp "$T/rank.direct")" ] || fail "ranking differs"
	[ "$(jq -r .result.outcome "$T/rank.json")" = approval_pending ]
	[ "$(jq -r .result.selection_status "$T/rank.json")" = "$(tail -n 2 "$T/rank.direct" | head -n 1 | jq -r .selection_status)" ]
	# the artefacts an agent reads back are the verified records, with the file's SHA-256
	call manager read_artifact ref="$(jq -r .result.ranking_ref "$T/rank.json")" > "$T/read.json"
	[ "$(jq -r .schema "$T/read.json")" = schednav.ranking/1 ]
	[ "$(jq -r .sha256 "$T/read.json")" = "$(sha256sum "$W/$(jq -r .result.ranking_ref "$T/rank.json")" | cut -d' ' -f1)" ]
	# every call is in the audit log, chained and verifiable
	[ "$(grep -c '"type":"bridge_call"' "$W/.schednav-mcp/audit.ndjson")" -eq 10 ]
	run --separate-stderr schednav-mcp --verify-log --workspace "$W"
	assert_success
	assert_output ""
	[[ "$stderr" == "schednav-mcp: '"*"/.schednav-mcp/audit.ndjson': 10 calls, the chain verifies (last fingerprint $(tail -n 1 "$W/.schednav-mcp/audit.ndjson" | jq -r .call_fingerprint))" ]] || fail "stderr: $stderr"
}

@test "schednav-mcp: idempotency keys replay, conflict on different arguments; tasks end succeeded or failed" {
	require_inspector
	local T="$BATS_TEST_TMPDIR"
	call simulation simulate_policy run_config_id=mix1-w action_id=native-fifo idempotency_key=run-0001-fifo > "$T/a.json"
	call simulation simulate_policy run_config_id=mix1-w action_id=native-fifo idempotency_key=run-0001-fifo > "$T/b.json"
	[ "$(jq -r .replayed "$T/a.json") $(jq -r .replayed "$T/b.json")" = "false true" ]
	[ "$(jq -c 'del(.replayed)' "$T/a.json")" = "$(jq -c 'del(.replayed)' "$T/b.json")" ] || fail "the replay differs"
	run mcp simulation --method tools/call --tool-name simulate_policy --tool-arg run_config_id=mix1-w action_id=native-preemptive-3600 idempotency_key=run-0001-fifo
	assert_success
	[ "$(echo "$output" | jq -r .isError)" = true ]
	assert_output --partial "was already used with different arguments"
	echo '{"schema_version":"schednav.run-set/1","run_config_ids":["mix1-w"]}' > "$W/run-sets/one.json"
	run mcp simulation --method tools/call --tool-name simulate_run_set --tool-arg run_set_id=one \
		'action_ids=["native-fifo","native-preemptive-3600","native-preemptive-g3600-b09-d0000"]' idempotency_key=run-0001-fifo
	assert_success
	[ "$(echo "$output" | jq -r .isError)" = true ] || fail "a key reused by another operation must conflict"
	# without a key the arguments name the task: the same call is the same task
	call simulation simulate_policy run_config_id=mix1-w action_id=native-fifo > "$T/c.json"
	call simulation simulate_policy run_config_id=mix1-w action_id=native-fifo > "$T/d.json"
	[ "$(jq -r .task_id "$T/c.json")" = "$(jq -r .task_id "$T/d.json")" ]
	[ "$(jq -r .replayed "$T/d.json")" = true ]
	call simulation get_task task_id="$(jq -r .task_id "$T/a.json")" > "$T/task.json"
	[ "$(jq -r .state "$T/task.json")" = succeeded ]
	# a failing run: a generic error to the caller, the details in the local task store
	zstdcat "$W/traces/mix1-w.ndjson.zst" | head -n 40 > "$W/traces/cut.ndjson"
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/cut.ndjson"}' > "$W/run-configs/cut.json"
	run mcp simulation --method tools/call --tool-name simulate_policy --tool-arg run_config_id=cut action_id=native-fifo
	assert_success
	[ "$(echo "$output" | jq -r .isError)" = true ]
	assert_output --partial "details are in the bridge's local task store"
	refute_output --partial "cut.ndjson:"
	local id
	id=$(echo "$output" | jq -r '.content[0].text' | sed -n 's/^task \([0-9a-f]*\) failed.*/\1/p')
	[ "$(jq -r .state "$W/.schednav-mcp/tasks/$id.json")" = failed ]
	grep -q "cut.ndjson:41: truncated stream\|cut.ndjson:[0-9]*: " "$W/.schednav-mcp/tasks/$id.failure.log" || fail "no details: $(cat "$W/.schednav-mcp/tasks/$id.failure.log")"
	call simulation get_task task_id="$id" > "$T/failed.json"
	[ "$(jq -r .state "$T/failed.json")" = failed ]
}

@test "schednav-mcp: confinement: .., absolute paths, symlinks and special files are refused" {
	require_inspector
	local T="$BATS_TEST_TMPDIR"
	for ref in ../etc/passwd /etc/passwd traces/../../x .schednav-mcp/audit.ndjson 'traces/a;rm -rf x' 'traces//x'; do
		run mcp manager --method tools/call --tool-name read_artifact --tool-arg "ref=$ref"
		assert_failure 1
		assert_output --partial "MCP error -32602"
	done
	ln -s /etc/passwd "$W/traces/out"
	ln -s mix1-w.ndjson.zst "$W/traces/in"
	mkfifo "$W/traces/fifo"
	for ref in traces/out traces/in traces/fifo traces; do
		run timeout 20 "$INSPECTOR" --cli "$BIN/schednav-mcp" --profile manager --workspace "$W" --method tools/call --tool-name read_artifact --tool-arg "ref=$ref"
		assert_failure 1
		assert_output --regexp "symlink|not a regular file"
	done
	# a trace stream carries job and node ids: not readable by agents, compressed or not
	run mcp manager --method tools/call --tool-name read_artifact --tool-arg ref=traces/mix1-w.ndjson.zst
	assert_failure 1
	assert_output --partial "is zstd-compressed"
	zstdcat "$W/traces/mix1-w.ndjson.zst" | head -c 400000 > "$W/traces/head.ndjson"
	stream-seal -i "$ROOT/tests/cases/trace-analyze/small.body" -o "$W/traces/tiny.ndjson"
	run mcp manager --method tools/call --tool-name read_artifact --tool-arg ref=traces/tiny.ndjson
	assert_failure 1
	assert_output --partial "which is not readable by agents"
	# nor is a trace passed off as metrics
	run mcp manager --method tools/call --tool-name compare_policies --tool-arg 'metrics_refs=["traces/tiny.ndjson","traces/tiny.ndjson","traces/head.ndjson"]'
	assert_failure 1
	assert_output --partial "items must be unique"
	cp "$W/traces/tiny.ndjson" "$W/traces/tiny2.ndjson"
	run mcp manager --method tools/call --tool-name compare_policies --tool-arg 'metrics_refs=["traces/tiny.ndjson","traces/tiny2.ndjson","traces/head.ndjson"]'
	assert_failure 1
	assert_output --partial "is not a verified schednav.metrics/1 stream"
	# a run config cannot point outside either
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"../outside.ndjson"}' > "$W/run-configs/escape.json"
	run mcp analyst --method tools/call --tool-name analyze_workload --tool-arg run_config_id=escape
	assert_failure 1
	assert_output --partial "not a relative reference inside the workspace"
	# ids outside the declared sets
	run mcp simulation --method tools/call --tool-name simulate_policy --tool-arg run_config_id=mix1-w action_id=native-preemptive-0000
	assert_failure 1
	assert_output --partial "is not declared in action space 'static-v1'"
	run mcp simulation --method tools/call --tool-name simulate_policy --tool-arg run_config_id=mix1-w action_id=../native-fifo
	assert_failure 1
	assert_output --partial "does not match"
	run mcp analyst --method tools/call --tool-name analyze_workload --tool-arg run_config_id=no-such-config
	assert_failure 1
	assert_output --partial "unknown run_config_id 'no-such-config'"
	# an artefact larger than 512 KiB is refused
	trace-analyze "$W/traces/mix1-w.ndjson.zst" -o "$W/big.ndjson"
	head -c 600000 /dev/zero >> "$W/big.ndjson"
	run mcp analyst --method tools/call --tool-name read_artifact --tool-arg ref=big.ndjson
	assert_failure 1
	assert_output --partial "larger than 512 KiB"
}

@test "schednav-mcp: malformed messages get JSON-RPC errors and the server keeps serving" {
	local T="$BATS_TEST_TMPDIR"
	python3 - "$T/in" <<'PY'
import json, sys
lines = [
    b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',                       # before initialize
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}',
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
    b'{not json',
    b'{"jsonrpc":"1.0","id":2,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":3,"method":"no/such/method"}',
    b'[{"jsonrpc":"2.0","id":4,"method":"ping"}]',
    b'{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}',
    b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"analyze_workload","arguments":{"run_config_id":"mix1-w","extra":1}}}',
    b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"analyze_workload","arguments":{"run_config_id":"mix1-w","sample_interval_seconds":59}}}',
    b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"analyze_workload","arguments":{"run_config_id":7}}}',
    b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"analyze_workload","arguments":{"run_config_id":"mix1-w\\u0000x"}}}',  # NUL: no SchedNav JSON string holds one
    b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"analyze_workload","arguments":{"run_config_id":"\xff\xfe"}}}',
    b'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"approve","arguments":{}}}',
    b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"analyze_workload","arguments":{"run_config_id":"' + b'a' * 70000 + b'"}}}',
    b'{"jsonrpc":"2.0","id":12,"method":"tools/call","params":"x"}',
    b'{"jsonrpc":"2.0","id":14,"method":"' + "\u00e9".encode() * 60 + b'"}',   # quoted, cut on a character boundary
    b'{"jsonrpc":"2.0","id":13,"method":"ping"}',
]
open(sys.argv[1], "wb").write(b"\n".join(lines) + b"\n")
PY
	raw analyst < "$T/in" > "$T/out"
	# 18 messages, one a notification: 17 answers
	[ "$(wc -l < "$T/out")" -eq 17 ] || fail "expected 17 responses: $(cut -c1-200 "$T/out")"
	run -0 jq -c '[.id, (.error.code // "ok")]' "$T/out"
	assert_output '[1,-32600]
[0,"ok"]
[null,-32700]
[2,-32600]
[3,-32601]
[null,-32600]
[null,-32600]
[5,-32602]
[6,-32602]
[7,-32602]
[null,-32700]
[null,-32700]
[10,-32602]
[null,-32600]
[12,-32600]
[14,-32601]
[13,"ok"]'
	[ "$(sed -n 2p "$T/out" | jq -r .result.protocolVersion)" = 2025-11-25 ]
	grep -q 'message larger than 65536 bytes' "$T/out" || fail "no oversize error"
	grep -q "unknown tool 'approve' for profile 'analyst'" "$T/out" || fail "approve is not refused"
	# every byte written is valid UTF-8 JSON
	python3 -c 'import json,sys; [json.loads(l.decode("utf-8")) for l in open(sys.argv[1],"rb")]' "$T/out"
}

@test "schednav-mcp: the audit log is verifiable like the approval log" {
	printf '%s\n' "$INIT" '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"analyze_workload","arguments":{"run_config_id":"mix1-w"}}}' \
		'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"analyze_workload","arguments":{"run_config_id":"mix1-w","sample_interval_seconds":900}}}' \
		'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"analyze_workload","arguments":{"run_config_id":"nope"}}}' | raw analyst > /dev/null
	local log="$W/.schednav-mcp/audit.ndjson"
	[ "$(wc -l < "$log")" -eq 3 ]
	assert_schema "$log"
	[ "$(jq -r .outcome "$log" | paste -sd' ')" = "succeeded succeeded refused" ]
	run schednav-mcp --verify-log --workspace "$W"
	assert_success
	cp "$log" "$BATS_TEST_TMPDIR/good"
	sed -i '2s/"duration_ms":[0-9]*/"duration_ms":999999/' "$log"
	run schednav-mcp --verify-log --workspace "$W"
	assert_failure 1
	assert_output --partial "audit.ndjson:2: 'call_fingerprint' does not verify"
	sed -n '1p;3p' "$BATS_TEST_TMPDIR/good" > "$log"
	run schednav-mcp --verify-log --workspace "$W"
	assert_failure 1
	assert_output --partial "audit.ndjson:2: 'previous_fingerprint' does not match"
	# servers of several roles share one workspace and one chain
	cp "$BATS_TEST_TMPDIR/good" "$log"
	local k
	for k in 1 2 3 4; do
		printf '%s\n' "$INIT" '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"analyze_workload","arguments":{"run_config_id":"mix1-w","sample_interval_seconds":'$((600 * k))'}}}' \
			| raw analyst > "$BATS_TEST_TMPDIR/par-$k" &
	done
	wait
	for k in 1 2 3 4; do
		[ "$(sed -n 2p "$BATS_TEST_TMPDIR/par-$k" | jq -r .result.structuredContent.state)" = succeeded ] || fail "server $k: $(cat "$BATS_TEST_TMPDIR/par-$k")"
	done
	[ "$(wc -l < "$log")" -eq 7 ]
	run schednav-mcp --verify-log --workspace "$W"
	assert_success
	cp "$log" "$BATS_TEST_TMPDIR/good"
	# a server killed while it appended leaves a torn last line: --verify-log refuses it, the
	# next server cuts it off under the lock and says so; the whole lines stay as they were
	local good
	good=$(stat -c %s "$log")
	printf '{"type":"bridge_call","profile":"ana' >> "$log"
	run schednav-mcp --verify-log --workspace "$W"
	assert_failure 1
	assert_output "schednav-mcp: $log:8: torn last line (no newline: an earlier write was interrupted); refusing to append after it. Inspect it, then cut it off with 'truncate -s $good $log' and run schednav-mcp again"
	run --separate-stderr schednav-mcp --profile analyst --workspace "$W" < /dev/null
	assert_success
	assert_output ""
	[ "$stderr" = "schednav-mcp: $log:8: cut off a torn last line (36 bytes without a newline, left by an append that was interrupted before it was acknowledged); the log is back to its 7 whole lines ($good bytes)" ]
	cmp "$BATS_TEST_TMPDIR/good" "$log"
	# what no append leaves is refused and kept for inspection
	{ cat "$BATS_TEST_TMPDIR/good"; printf 'not a bridge_call'; } > "$log"
	cp "$log" "$BATS_TEST_TMPDIR/before"
	run schednav-mcp --profile analyst --workspace "$W" < /dev/null
	assert_failure 1
	assert_output --partial "audit.ndjson:8: torn last line"
	cmp "$BATS_TEST_TMPDIR/before" "$log"
}

@test "schednav-mcp: a running server cuts off the torn line another server left, before it appends" {
	local T="$BATS_TEST_TMPDIR" log="$W/.schednav-mcp/audit.ndjson"
	mkfifo "$T/in" "$T/out"
	schednav-mcp --profile analyst --workspace "$W" < "$T/in" > "$T/out" 2> "$T/err" &
	local pid=$! reply
	exec 5> "$T/in" 6< "$T/out"
	printf '%s\n' "$INIT" >&5
	read -r reply <&6   # the server has verified the (empty) log and answers
	# another server of the workspace was killed while it appended its first line
	printf '{"type":"bridge_call","pro' >> "$log"
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"analyze_workload","arguments":{"run_config_id":"nope"}}}' >&5
	read -r reply <&6
	exec 5>&- 6<&-
	local rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] || fail "the server exited $rc: $(cat "$T/err")"
	[ "$(jq -r .id <<< "$reply")" = 1 ]
	[ "$(cat "$T/err")" = "schednav-mcp: $log:1: cut off a torn last line (26 bytes without a newline, left by an append that was interrupted before it was acknowledged); the log is back to its 0 whole lines (0 bytes)" ]
	[ "$(wc -l < "$log")" -eq 1 ]
	[ "$(jq -r .outcome "$log")" = refused ]
	run schednav-mcp --verify-log --workspace "$W"
	assert_success
}

@test "schednav-mcp: run sets: simulate every config x action twice (same fingerprints), then audit per config" {
	require_inspector
	local T="$BATS_TEST_TMPDIR"
	trace-window --eval-start 5400 --eval-end 7200 --warmup-start 3600 -i "$W/traces/mix1.ndjson.zst" -o "$W/traces/mix1-w2.ndjson.zst"
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/mix1-w2.ndjson.zst"}' > "$W/run-configs/mix1-w2.json"
	echo '{"schema_version":"schednav.run-set/1","run_config_ids":["mix1-w","mix1-w2"]}' > "$W/run-sets/two.json"
	local ids
	ids=$(printf '%s\n' "${POLICIES[@]}" | jq -R . | jq -sc .)
	# twelve simulations and their metrics in one call: over stdio, without the Inspector's
	# fixed 60 s request timeout (under ASan on a loaded machine the call takes longer)
	call_stdio simulation simulate_run_set "{\"run_set_id\":\"two\",\"action_ids\":$ids}" > "$T/sims.json"
	[ "$(jq -r .state "$T/sims.json")" = succeeded ] || fail "$(cat "$T/sims.json")"
	[ "$(jq -r '.result.simulations | length' "$T/sims.json")" -eq 6 ]
	[ "$(jq -r '[.result.simulations[] | .repetitions == 2 and .deterministic] | all' "$T/sims.json")" = true ]
	local sref
	sref=$(jq -r .result.simulations_ref "$T/sims.json")
	assert_schema "$W/$sref"
	# each (config, action) equals a direct run
	sim-run --policy "$ROOT/configs/policies/native-preemptive-3600.json" --input "$W/traces/mix1-w2.ndjson.zst" -o "$T/direct.zst"
	[ "$(jq -r '.result.simulations[] | select(.run_config_id == "mix1-w2" and .action_id == "native-preemptive-3600") | .result_fingerprint' "$T/sims.json")" = \
	  "$(body_fp "$T/direct.zst")" ]
	call_stdio auditor audit_run_set "$(jq -cn --arg s "$sref" --arg slo "$SLO_ID" '{simulations_ref: $s, slo_spec_id: $slo, baseline_action_id: "native-fifo"}')" > "$T/audits.json"
	[ "$(jq -r '.result.audits | length' "$T/audits.json")" -eq 2 ]
	[ "$(jq -r '[.result.audits[].results | length] | join(" ")' "$T/audits.json")" = "3 3" ]
	assert_schema "$W/$(jq -r .result.audits_ref "$T/audits.json")"
	# the audit of one config equals slo-audit run directly on that config's metrics
	local dir="$W/$(dirname "$sref")"
	slo-audit --slo "$ROOT/configs/slos/$SLO_ID.json" --baseline "$dir/mix1-w/native-fifo/rep-2/metrics.ndjson" -o "$T/direct.audit" \
		"$dir"/mix1-w/{native-fifo,native-preemptive-3600,native-preemptive-g3600-b09-d0000}/rep-2/metrics.ndjson
	[ "$(jq -r '.result.audits[] | select(.run_config_id == "mix1-w") | .audit_stream_fingerprint' "$T/audits.json")" = "$(body_fp "$T/direct.audit")" ]
	# a baseline the manifest does not hold, and run sets that break the contract
	run mcp auditor --method tools/call --tool-name audit_run_set --tool-arg simulations_ref="$sref" slo_spec_id=$SLO_ID baseline_action_id=native-preemptive-g3600-b09-d0900
	assert_failure 1
	assert_output --partial "has no simulation of the baseline 'native-preemptive-g3600-b09-d0900'"
	echo '{"schema_version":"schednav.run-set/1","run_config_ids":["mix1-w","mix1-w"]}' > "$W/run-sets/dup.json"
	run mcp simulation --method tools/call --tool-name simulate_run_set --tool-arg run_set_id=dup "action_ids=$ids" repetitions=1
	assert_failure 1
	assert_output --partial "1-12 unique run config ids"
	run mcp simulation --method tools/call --tool-name simulate_run_set --tool-arg run_set_id=two "action_ids=$ids" repetitions=3
	assert_failure 1
	assert_output --partial "arguments.repetitions: not one of the allowed values"
}

@test "schednav-mcp: relative --configs and --exec-path still reach the tools, which run inside the workspace" {
	cd "$ROOT"
	local rel_bin
	rel_bin=$(realpath --relative-to="$ROOT" "$BIN")
	printf '%s\n' "$INIT" '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"simulate_policy","arguments":{"run_config_id":"mix1-w","action_id":"native-fifo"}}}' |
		SCHEDNAV_CONFIGS= schednav-mcp --profile simulation --workspace "$W" --configs configs --exec-path "$rel_bin" > "$BATS_TEST_TMPDIR/out"
	[ "$(sed -n 2p "$BATS_TEST_TMPDIR/out" | jq -r .result.structuredContent.state)" = succeeded ] || fail "$(cat "$BATS_TEST_TMPDIR/out")"
	# end of input ends the server cleanly
	run schednav-mcp --profile simulation --workspace "$W" < /dev/null
	assert_success
	assert_output ""
}

@test "schednav-mcp: the role profiles are valid data, and a profile naming an unknown operation is refused" {
	python3 - "$ROOT/schemas/agent_role.schema.json" "$ROOT"/configs/agents/*.json <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for p in sys.argv[2:]:
    doc = json.load(open(p))
    jsonschema.validate(doc, schema)
    jsonschema.Draft202012Validator.check_schema(doc["output_schema"])
    assert p.endswith("/" + doc["profile"] + ".json"), p
PY
	[ "$(ls "$ROOT"/configs/agents/*.json | wc -l)" -eq 7 ]
	local c="$BATS_TEST_TMPDIR/configs"
	cp -r "$ROOT/configs" "$c"
	jq '.allowed_operations += ["approve"]' "$ROOT/configs/agents/manager.json" > "$c/agents/manager.json"
	run schednav-mcp --profile manager --workspace "$W" --configs "$c" < /dev/null
	assert_failure 1
	assert_output --partial "allowed_operations names 'approve', which the bridge does not have"
}

@test "schednav-mcp: run configs, run sets and agent roles in the ids' old spelling (run-config/v1, run-set/v1, agent-role/v1) still load" {
	local T="$BATS_TEST_TMPDIR"
	echo '{"schema_version":"schednav.run-config/v1","trace_ref":"traces/mix1-w.ndjson.zst"}' > "$W/run-configs/old.json"
	echo '{"schema_version":"schednav.run-set/v1","run_config_ids":["old","mix1-w"]}' > "$W/run-sets/old.json"
	call_stdio simulation simulate_policy '{"run_config_id":"old","action_id":"native-fifo"}' > "$T/old.json"
	call_stdio simulation simulate_policy '{"run_config_id":"mix1-w","action_id":"native-fifo"}' > "$T/new.json"
	run -0 jq -r '[.state, .result.result_fingerprint] | join(" ")' "$T/old.json"
	local old="$output"
	run -0 jq -r '[.state, .result.result_fingerprint] | join(" ")' "$T/new.json"
	[ "$output" = "$old" ]
	assert_output --regexp '^succeeded [0-9a-f]{32}$'
	local ids
	ids=$(printf '%s\n' "${POLICIES[@]}" | jq -R . | jq -sc .)
	call_stdio simulation simulate_run_set "{\"run_set_id\":\"old\",\"action_ids\":$ids}" > "$T/set.json"
	# both configs of the set ran every action, with one result per action
	run -0 jq -c '[.state, (.result.simulations | map(.run_config_id) | unique), (.result.simulations | group_by(.action_id) | map(map(.result_fingerprint) | unique | length))]' "$T/set.json"
	assert_output '["succeeded",["mix1-w","old"],[1,1,1]]'
	# the analyst's role file in the old spelling
	cp -R "$ROOT/configs" "$T/configs"
	sed -i 's|"schednav.agent-role/1"|"schednav.agent-role/v1"|' "$T/configs/agents/analyst.json"
	run -0 grep -c '"schednav.agent-role/v1"' "$T/configs/agents/analyst.json"
	assert_output 1
	SCHEDNAV_CONFIGS="$T/configs" call_stdio analyst analyze_workload '{"run_config_id":"old"}' > "$T/an.json"
	run -0 jq -r .state "$T/an.json"
	assert_output succeeded
	# another spelling is refused, naming the new id
	sed -i 's|"schednav.agent-role/v1"|"schednav.agent-role/v2"|' "$T/configs/agents/analyst.json"
	run schednav-mcp --profile analyst --workspace "$W" --configs "$T/configs" < /dev/null
	[ "$status" -eq 1 ]
	assert_output --partial "not a schednav.agent-role/1 document for profile 'analyst'"
	echo '{"schema_version":"schednav.run-config/v2","trace_ref":"traces/mix1-w.ndjson.zst"}' > "$W/run-configs/v2.json"
	call_stdio simulation simulate_policy '{"run_config_id":"v2","action_id":"native-fifo"}' > "$T/v2.json"
	run -0 jq -r .error.message "$T/v2.json"
	assert_output "run config 'v2' (run-configs/v2.json): 'schema_version' is not \"schednav.run-config/1\""
}

@test "schednav-mcp: an action whose policy has a physical placement_strategy simulates on the node model; the headline carries its placement block" {
	local T="$BATS_TEST_TMPDIR" C="$BATS_TEST_TMPDIR/configs"
	cp -r "$ROOT/configs" "$C"
	jq '.placement_strategy = "best-fit" | .action_id = "fifo-best-fit"' "$ROOT/configs/policies/native-fifo.json" > "$C/policies/fifo-best-fit.json"
	jq '.action_space_id = "phys-v1" | .action_ids += ["fifo-best-fit"]' "$ROOT/configs/action_spaces/static-v1.json" > "$C/action_spaces/phys-v1.json"
	# (Philly's 16-GPU jobs name no workers: one node of 8 GPUs cannot hold them)
	cp "$ROOT/tests/data/sim/fragmentation-small.trace.ndjson" "$W/traces/frag.ndjson"
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/frag.ndjson"}' > "$W/run-configs/frag.json"
	req='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"simulate_policy","arguments":{"run_config_id":"frag","action_id":"fifo-best-fit"}}}'
	printf '%s\n%s\n%s\n' "$INIT" '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$req" |
		schednav-mcp --profile simulation --workspace "$W" --configs "$C" --action-space phys-v1 > "$T/out"
	run -0 jq -c 'select(.id == 1) | .result.structuredContent | [.state, .result.metrics.placement.placement_strategy, (.result.metrics.placement.sample_count > 0)]' "$T/out"
	assert_output '["succeeded","best-fit",true]'
	sim-run --policy "$C/policies/fifo-best-fit.json" --input "$W/traces/frag.ndjson" -o "$T/direct.zst"
	[ "$(jq -r 'select(.id == 1) | .result.structuredContent.result.result_fingerprint' "$T/out")" = "$(body_fp "$T/direct.zst")" ]
}
