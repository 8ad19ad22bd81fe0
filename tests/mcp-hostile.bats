#!/usr/bin/env bats
# schednav-mcp under hostile input (issue 19, the bridge): manifests that point outside the
# workspace or overflow, zstd files behind a skippable frame, refs that read as options,
# forged and broken task files, non-UTF-8 text, numbers spelt two ways, run configs that
# point outside or cannot be read, the MCP lifecycle, JSON the parser refuses, a tool killed
# by a signal, a second reply to one request, and the cost of the audit log. Raw stdio
# sessions: no Inspector, no trace needed (a tool that runs reads a file it refuses).

load helper
load mcp_fixtures

setup() {
	T="$BATS_TEST_TMPDIR"
	W="$T/ws"
	mkdir -p "$W/traces" "$W/run-configs" "$W/run-sets" "$W/results"
	echo 'not a trace' > "$W/traces/junk.ndjson"
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/junk.ndjson"}' > "$W/run-configs/junk.json"
}

# call ID TOOL ARGS: one tools/call request line.
call_line() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}' "$1" "$2" "$3"
}

# session PROFILE LINE...: one stdio session (initialize first); the replies in $T/out.
session() {
	local profile="$1"
	shift
	printf '%s\n' "$INIT" "$@" > "$T/in"
	run schednav-mcp --profile "$profile" --workspace "$W" < "$T/in"
	assert_success
	printf '%s\n' "$output" > "$T/out"
}

# reply ID: the reply with that id, one line.
reply() {
	jq -c "select(.id == $1)" "$T/out"
}

# seal_manifest FILE BODY...: a sealed schednav.bridge-simulations/1 stream of the body lines.
seal_manifest() {
	local out="$1"
	shift
	{
		echo '{"type":"header","schema":"schednav.bridge-simulations/1","tool":"schednav-mcp","version":"0.2.0","inputs":[],"params":{},"task_id":"0123456789abcdef0123456789abcdef"}'
		printf '%s\n' "$@"
	} > "$T/body"
	run stream-seal -i "$T/body" -o "$out"
	assert_success
}

# sim CONFIG ACTION REF: one run_set_simulation record.
sim() {
	printf '{"type":"run_set_simulation","run_config_id":"%s","action_id":"%s","repetitions":1,"deterministic":true,"result_fingerprint":"0123456789abcdef0123456789abcdef","metrics_ref":"%s","metrics_fingerprint":"0123456789abcdef0123456789abcdef"}' "$1" "$2" "$3"
}

@test "mcp-hostile: audit_run_set confines manifest refs like agent refs, bounds the records, refuses a record without run_config_id" {
	local args
	seal_manifest "$W/results/abs.ndjson" "$(sim c1 native-fifo /etc/passwd)"
	seal_manifest "$W/results/up.ndjson" "$(sim c1 native-fifo ../outside/metrics.ndjson)"
	seal_manifest "$W/results/opt.ndjson" "$(sim c1 native-fifo -metrics.ndjson)"
	local twelve=() k
	for k in $(seq 1 12); do twelve+=("$(sim c1 "a$k" results/m.ndjson)"); done
	twelve+=("$(sim c1 native-fifo results/m.ndjson)")
	seal_manifest "$W/results/twelve.ndjson" "${twelve[@]}"
	seal_manifest "$W/results/noid.ndjson" '{"type":"run_set_simulation","action_id":"native-fifo","repetitions":1,"deterministic":true,"result_fingerprint":"0123456789abcdef0123456789abcdef","metrics_ref":"results/m.ndjson","metrics_fingerprint":"0123456789abcdef0123456789abcdef"}'
	args='{"slo_spec_id":"'$SLO_ID'","baseline_action_id":"native-fifo","simulations_ref":"results/'
	session auditor "$(call_line 1 audit_run_set "${args}abs.ndjson\"}")" "$(call_line 2 audit_run_set "${args}up.ndjson\"}")" \
		"$(call_line 3 audit_run_set "${args}opt.ndjson\"}")" "$(call_line 4 audit_run_set "${args}twelve.ndjson\"}")" \
		"$(call_line 5 audit_run_set "${args}noid.ndjson\"}")" '{"jsonrpc":"2.0","id":6,"method":"ping"}'
	for k in 1 2 3 4 5; do
		[ "$(reply $k | jq -r .error.code)" = -32602 ] || fail "call $k: $(reply $k)"
	done
	reply 1 | grep -q "'metrics_ref' '/etc/passwd' is not a relative reference inside the workspace" || fail "$(reply 1)"
	reply 2 | grep -q "'metrics_ref' '../outside/metrics.ndjson' is not a relative reference" || fail "$(reply 2)"
	reply 3 | grep -q "'metrics_ref' '-metrics.ndjson' is not a relative reference" || fail "$(reply 3)"
	reply 4 | grep -q "more than 5 actions on run config 'c1'" || fail "$(reply 4)"
	reply 5 | grep -q "results/noid.ndjson:2: 'run_config_id' is not a run config id" || fail "$(reply 5)"
	# the server lived through all of them, and ran no task
	[ "$(reply 6 | jq -c .result)" = '{}' ]
	[ ! -d "$W/artifacts" ] || fail "a task ran: $(ls -R "$W/artifacts")"
}

@test "mcp-hostile: read_artifact serves plain streams only: a skippable zstd frame is refused, not decompressed" {
	printf '%s\n' '{"type":"header","schema":"schednav.agent-plan/1","tool":"t","version":"0.2.0","inputs":[],"params":{}}' \
		'{"type":"plan","note":"x"}' > "$T/plan.body"
	run stream-seal -i "$T/plan.body" -o "$W/results/plan.ndjson"
	assert_success
	zstd -q "$W/results/plan.ndjson" -o "$T/plan.zst"
	# a skippable frame (magic 0x184D2A50, 4 bytes of payload), then the compressed stream
	{ printf '\x50\x2a\x4d\x18\x04\x00\x00\x00abcd'; cat "$T/plan.zst"; } > "$W/results/skip.ndjson"
	printf '\n\n' > "$W/results/blank.ndjson"
	session analyst "$(call_line 1 read_artifact '{"ref":"results/plan.ndjson"}')" "$(call_line 2 read_artifact '{"ref":"results/skip.ndjson"}')" \
		"$(call_line 3 read_artifact '{"ref":"results/blank.ndjson"}')"
	[ "$(reply 1 | jq -r '.result.structuredContent.document[0].note')" = x ] || fail "$(reply 1)"
	[ "$(reply 2 | jq -r .error.code)" = -32602 ] || fail "$(reply 2)"
	reply 2 | grep -q "'results/skip.ndjson' is zstd-compressed; agents read plain streams only" || fail "$(reply 2)"
	reply 3 | grep -q "is not a plain NDJSON stream" || fail "$(reply 3)"
}

@test "mcp-hostile: a refused call writes a bounded audit line, and a call verifies only what was appended since" {
	local name lines k
	name=$(head -c 60000 /dev/zero | tr '\0' x)
	lines=()
	for k in $(seq 1 300); do lines+=("$(printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"nope-%s"}}' "$k" "$k")"); done
	session analyst "$(printf '{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"%s"}}' "$name")" "${lines[@]}"
	local log="$W/.schednav-mcp/audit.ndjson"
	[ "$(wc -l < "$log")" -eq 301 ]
	[ "$(head -n 1 "$log" | wc -c)" -lt 1000 ] || fail "a refused call logged $(head -n 1 "$log" | wc -c) bytes"
	[ "$(head -n 1 "$log" | jq -r '.operation | length')" -eq 100 ]
	# a running server: the bytes it reads for 20 more calls stay far below the size of the log
	local size pid r0 r1
	size=$(wc -c < "$log")
	mkfifo "$T/fifo"
	schednav-mcp --profile analyst --workspace "$W" < "$T/fifo" > "$T/co.out" 2> "$T/co.err" &
	pid=$!
	exec 8> "$T/fifo"
	echo "$INIT" >&8
	until [ "$(wc -l < "$T/co.out")" -ge 1 ]; do kill -0 "$pid" || fail "server ended: $(cat "$T/co.err")"; sleep 0.1; done
	r0=$(awk '/^rchar/ {print $2}' "/proc/$pid/io")
	for k in $(seq 1 20); do printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"nope"}}\n' "$k" >&8; done
	until [ "$(wc -l < "$T/co.out")" -ge 21 ]; do kill -0 "$pid" || fail "server ended: $(cat "$T/co.err")"; sleep 0.1; done
	r1=$(awk '/^rchar/ {print $2}' "/proc/$pid/io")
	exec 8>&-
	wait "$pid"
	[ $((r1 - r0)) -lt "$size" ] || fail "20 calls read $((r1 - r0)) bytes of a $size-byte log"
	run schednav-mcp --verify-log --workspace "$W"
	assert_success
	# a line edited behind a running server's back is still found: by the next start, and by --verify-log
	sed -i '5s/"nope-4"/"nope-X"/' "$log"
	run schednav-mcp --verify-log --workspace "$W"
	assert_failure 1
	assert_output --partial "audit.ndjson:5: 'call_fingerprint' does not verify"
}

@test "mcp-hostile: a ref component starting with '-' is refused: '--version' never reaches a tool as an option" {
	echo x > "$W/--version"
	mkdir -p "$W/-d"
	echo x > "$W/-d/t.ndjson"
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"--version"}' > "$W/run-configs/opt.json"
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"-d/t.ndjson"}' > "$W/run-configs/optdir.json"
	session analyst "$(call_line 1 analyze_workload '{"run_config_id":"opt"}')" "$(call_line 2 analyze_workload '{"run_config_id":"optdir"}')"
	[ "$(reply 1 | jq -r .error.code)" = -32602 ] || fail "$(reply 1)"
	reply 1 | grep -q "'trace_ref' '--version' is not a relative reference inside the workspace" || fail "$(reply 1)"
	reply 2 | grep -q "'trace_ref' '-d/t.ndjson' is not a relative reference" || fail "$(reply 2)"
	[ ! -d "$W/artifacts" ] || fail "a task ran"
}

@test "mcp-hostile: stored tasks are checked and bound to the audit log: broken ones give a clear error, a forged one is not replayed" {
	session analyst "$(call_line 1 analyze_workload '{"run_config_id":"junk"}')"
	local id task
	id=$(reply 1 | jq -r '.result.content[0].text' | sed -n 's/^task \([0-9a-f]*\) failed.*/\1/p')
	[[ "$id" =~ ^[0-9a-f]{32}$ ]] || fail "no task id: $(reply 1)"
	task="$W/.schednav-mcp/tasks/$id.json"
	cp "$task" "$T/genuine.json"
	local forged='{"task_id":"'$id'","operation":"analyze_workload","state":"succeeded","replayed":false,"artifacts":[],"result":{"run_config_id":"junk","workload_summary":{"regime_label":"forged"}}}'
	local edit n=2
	for edit in '.state = "succeeded" | .error = null | .result = [1]' '.state = "succeeded" | .error = null | del(.result)' \
		'.state = "succeeded" | .error = null | .result = "x"' ".state = \"succeeded\" | .error = null | .result = $forged"; do
		jq -c "$edit" "$T/genuine.json" > "$task"
		session analyst "$(call_line "$n" analyze_workload '{"run_config_id":"junk"}')" '{"jsonrpc":"2.0","id":99,"method":"ping"}'
		[ "$(reply "$n" | jq -r .result.isError)" = true ] || fail "edit '$edit' was replayed: $(reply "$n")"
		reply "$n" | grep -q "stored task $id cannot be trusted" || fail "$(reply "$n")"
		[ "$(reply 99 | jq -c .result)" = '{}' ] || fail "the server did not survive '$edit'"
		n=$((n + 1))
	done
	reply 5 | grep -q "it is not the task the audit log recorded\|does not record it" || fail "$(reply 5)"
	# get_task says the same, and the log names the refusals
	session analyst "$(call_line 7 get_task "{\"task_id\":\"$id\"}")"
	[ "$(reply 7 | jq -r .error.code)" = -32602 ]
	reply 7 | grep -q "cannot be trusted" || fail "$(reply 7)"
	[ "$(jq -r .outcome "$W/.schednav-mcp/audit.ndjson" | sort | uniq -c | awk '$2 == "untrusted-task" {print $1}')" -eq 4 ]
	# the genuine task replays its failure
	cp "$T/genuine.json" "$task"
	session analyst "$(call_line 8 analyze_workload '{"run_config_id":"junk"}')"
	reply 8 | grep -q "task $id failed; the details" || fail "$(reply 8)"
	run schednav-mcp --verify-log --workspace "$W"
	assert_success
}

@test "mcp-hostile: overlong forms and surrogates are refused like every other tool refuses them, never echoed" {
	python3 - "$T/in" <<'PY'
import sys
init = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}'
lines = [init,
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"analyze_workload","arguments":{"run_config_id":"\xc0\xaf"}}}',
    b'{"jsonrpc":"2.0","id":2,"method":"no/\xed\xa0\x80"}',
    b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x\xc0\xaf"}}',
    b'{"jsonrpc":"2.0","id":4,"method":"no/\\udc00"}',
    b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"\xe0\x80\xaf":1}}',
    b'{"jsonrpc":"2.0","id":7,"method":"no/\\ud800"}',
    b'{"jsonrpc":"2.0","id":6,"method":"ping"}']
open(sys.argv[1], "wb").write(b"\n".join(lines) + b"\n")
PY
	run schednav-mcp --profile analyst --workspace "$W" < "$T/in"
	assert_success
	printf '%s\n' "$output" > "$T/out"
	run jq -c '[.id, (.error.code // "ok")]' "$T/out"
	assert_success
	assert_output '[0,"ok"]
[null,-32700]
[null,-32700]
[null,-32700]
[null,-32700]
[null,-32700]
[null,-32700]
[6,"ok"]'
	# the escapes of a lone surrogate (yajl would make a lone high one '?') have their own message
	[ "$(grep -c 'invalid UTF-8' "$T/out")" -eq 4 ] || fail "$(cat "$T/out")"
	[ "$(grep -c 'unpaired surrogate escape' "$T/out")" -eq 2 ] || fail "$(cat "$T/out")"
	# what was written, replies and log, is strict UTF-8
	python3 -c 'import sys; [open(p, "rb").read().decode("utf-8") for p in sys.argv[1:]]' "$T/out" "$W/.schednav-mcp/audit.ndjson"
	# the same rule as every other tool's: a stream holding an overlong form is refused too
	printf '{"type":"header","schema":"x/1","tool":"t","version":"1","inputs":[],"params":{}}\n{"type":"r","s":"\xc0\xaf"}\n' > "$T/over.nd"
	run stream-seal -i "$T/over.nd" -o "$T/over.out"
	assert_failure 1
	assert_output --partial "over.nd:2: invalid JSON: invalid UTF-8 (an overlong form, a surrogate or a bad byte) in a string"
}

@test "mcp-hostile: numbers are normalised before keying: 4000 and 4000.0 are the same arguments" {
	session analyst "$(call_line 1 analyze_workload '{"run_config_id":"junk","cutoff_seconds":4000,"idempotency_key":"key-00000001"}')" \
		"$(call_line 2 analyze_workload '{"run_config_id":"junk","cutoff_seconds":4000.0,"idempotency_key":"key-00000001"}')" \
		"$(call_line 3 analyze_workload '{"run_config_id":"junk","cutoff_seconds":4e3,"idempotency_key":"key-00000001"}')" \
		"$(call_line 4 analyze_workload '{"run_config_id":"junk","cutoff_seconds":4000.5,"idempotency_key":"key-00000001"}')"
	reply 1 | grep -q "failed; the details" || fail "$(reply 1)"
	local k
	for k in 2 3; do
		reply "$k" | grep -q "failed; the details" || fail "call $k: $(reply "$k")"
	done
	reply 4 | grep -q "was already used with different arguments" || fail "$(reply 4)"
	[ "$(jq -r .outcome "$W/.schednav-mcp/audit.ndjson" | paste -sd' ')" = "failed replayed-failure replayed-failure conflict" ]
	[ "$(jq -r .arguments.cutoff_seconds "$W/.schednav-mcp/audit.ndjson" | paste -sd' ')" = "4000 4000 4000 4000.5" ]
}

@test "mcp-hostile: every ref of a run config is checked when it is loaded: history_trace_ref /etc/passwd is refused" {
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/junk.ndjson","history_trace_ref":"/etc/passwd"}' > "$W/run-configs/hist.json"
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/junk.ndjson","history_trace_ref":"traces/none.ndjson"}' > "$W/run-configs/gone.json"
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/junk.ndjson","history_trace_ref":7}' > "$W/run-configs/seven.json"
	session analyst "$(call_line 1 analyze_workload '{"run_config_id":"hist"}')" "$(call_line 2 analyze_workload '{"run_config_id":"gone"}')" \
		"$(call_line 3 analyze_workload '{"run_config_id":"seven"}')"
	local k
	for k in 1 2 3; do
		[ "$(reply $k | jq -r .error.code)" = -32602 ] || fail "call $k: $(reply $k)"
	done
	reply 1 | grep -q "run config 'hist' (run-configs/hist.json): 'history_trace_ref' '/etc/passwd' is not a relative reference" || fail "$(reply 1)"
	reply 2 | grep -q "run config 'gone': 'traces/none.ndjson': No such file" || fail "$(reply 2)"
	reply 3 | grep -q "'history_trace_ref' is not a string" || fail "$(reply 3)"
	[ ! -d "$W/artifacts" ] || fail "a task ran"
}

@test "mcp-hostile: initialize follows the MCP lifecycle: params required, a string protocolVersion, once" {
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize"}' \
		'{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":7,"capabilities":{},"clientInfo":{"name":"b","version":"1"}}}' \
		'{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"b","version":"1"}}}' \
		'{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}' \
		'{"jsonrpc":"2.0","id":5,"method":"tools/list"}' \
		'{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}' \
		'{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}' \
		'{"jsonrpc":"2.0","id":8,"method":"tools/list"}' > "$T/in"
	run schednav-mcp --profile analyst --workspace "$W" < "$T/in"
	assert_success
	printf '%s\n' "$output" > "$T/out"
	run jq -c '[.id, (.error.code // .result.protocolVersion // "ok")]' "$T/out"
	assert_success
	assert_output '[1,-32602]
[2,-32602]
[3,-32602]
[4,-32602]
[5,-32600]
[6,"2025-06-18"]
[7,-32600]
[8,"ok"]'
	reply 2 | grep -q "params.protocolVersion must be a protocol revision string" || fail "$(reply 2)"
	reply 7 | grep -q "already initialized" || fail "$(reply 7)"
}

@test "mcp-hostile: a run-config file that cannot be read says why, not 'unknown run_config_id'" {
	ln -s junk.json "$W/run-configs/link.json"
	{ printf '{"schema_version":"schednav.run-config/1","trace_ref":"traces/junk.ndjson","description":"'; head -c 70000 /dev/zero | tr '\0' d; printf '"}'; } > "$W/run-configs/big.json"
	printf '\xef\xbb\xbf{"schema_version":"schednav.run-config/1","trace_ref":"traces/junk.ndjson"}' > "$W/run-configs/bom.json"
	echo '[{"schema_version":"schednav.run-config/1","trace_ref":"traces/junk.ndjson"}]' > "$W/run-configs/array.json"
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/junk.ndjson","trace_ref":"traces/junk.ndjson"}' > "$W/run-configs/dup.json"
	printf '{"schema_version":"schednav.run-config/1","trace_ref":"traces/junk.ndjson"}\0' > "$W/run-configs/nul.json"
	local ids=(link big bom array dup nul none) lines=() k
	for k in "${!ids[@]}"; do lines+=("$(call_line "$((k + 1))" analyze_workload "{\"run_config_id\":\"${ids[$k]}\"}")"); done
	session analyst "${lines[@]}"
	for k in "${!ids[@]}"; do
		[ "$(reply "$((k + 1))" | jq -r .error.code)" = -32602 ] || fail "${ids[$k]}: $(reply "$((k + 1))")"
	done
	reply 1 | grep -q "run config 'link': 'run-configs/link.json': is a symlink" || fail "$(reply 1)"
	reply 2 | grep -q "run config 'big' (run-configs/big.json): larger than 64 KiB" || fail "$(reply 2)"
	reply 3 | grep -q "begins with a byte order mark" || fail "$(reply 3)"
	reply 4 | grep -q "is a JSON array, not an object" || fail "$(reply 4)"
	reply 5 | grep -q "duplicate key 'trace_ref'" || fail "$(reply 5)"
	reply 6 | grep -q "contains a NUL byte at offset 75" || fail "$(reply 6)"
	reply 7 | grep -q "unknown run_config_id 'none'" || fail "$(reply 7)"
}

@test "mcp-hostile: JSON the parser refuses says what is wrong, with code -32700" {
	local deep
	deep="$(printf '[%.0s' $(seq 1 300))$(printf ']%.0s' $(seq 1 300))"
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}' \
		'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":"x\u0000y"}}' \
		'{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":1e400}}' \
		'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":9223372036854775808}}' \
		"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":{\"a\":$deep}}" \
		'{"jsonrpc":"2.0","id":7,"method":"ping"' > "$T/in"
	run schednav-mcp --profile analyst --workspace "$W" < "$T/in"
	assert_success
	printf '%s\n' "$output" > "$T/out"
	run jq -r '[(.error.code | tostring), .error.message] | join(" ")' "$T/out"
	assert_success
	assert_line --index 0 "-32700 parse error: duplicate key 'id'"
	assert_line --index 1 --partial "-32700 parse error: NUL character"
	assert_line --index 2 "-32700 parse error: number out of range '1e400'"
	assert_line --index 3 "-32700 parse error: integer out of range '9223372036854775808'"
	assert_line --index 4 "-32700 parse error: nesting deeper than 256"
	assert_line --index 5 --partial "-32700 parse error: "
}

@test "mcp-hostile: a tool killed by a signal is logged as such, and the same call without a key runs again" {
	local x="$T/exec" t
	mkdir -p "$x"
	for t in "$BIN"/*; do [ "$(basename "$t")" = trace-analyze ] || ln -s "$t" "$x/"; done
	printf '#!/bin/sh\nkill -9 $$\n' > "$x/trace-analyze"
	chmod +x "$x/trace-analyze"
	printf '%s\n' "$INIT" "$(call_line 1 analyze_workload '{"run_config_id":"junk"}')" "$(call_line 2 analyze_workload '{"run_config_id":"junk"}')" > "$T/in"
	run schednav-mcp --profile analyst --workspace "$W" --exec-path "$x" < "$T/in"
	assert_success
	printf '%s\n' "$output" > "$T/out"
	local id
	id=$(reply 1 | jq -r '.result.content[0].text' | sed -n 's/^task \([0-9a-f]*\) failed.*/\1/p')
	[[ "$id" =~ ^[0-9a-f]{32}$ ]] || fail "$(reply 1)"
	grep -q "^trace-analyze: killed by signal 9$" "$W/.schednav-mcp/tasks/$id.failure.log" || fail "$(cat "$W/.schednav-mcp/tasks/$id.failure.log")"
	[ "$(jq -r .outcome "$W/.schednav-mcp/audit.ndjson" | paste -sd' ')" = "failed failed" ]
	# once the tool answers, the same call is served (here: its genuine failure, kept from then on)
	printf '#!/bin/sh\necho "trace-analyze: junk" >&2\nexit 1\n' > "$x/trace-analyze"
	run schednav-mcp --profile analyst --workspace "$W" --exec-path "$x" < "$T/in"
	assert_success
	grep -q "exited with a failure status" "$W/.schednav-mcp/tasks/$id.failure.log"
	[ "$(jq -r .outcome "$W/.schednav-mcp/audit.ndjson" | paste -sd' ')" = "failed failed failed replayed-failure" ]
}

@test "mcp-hostile: a second decision for one request is refused with roll's own words" {
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/junk.ndjson"}' > "$W/run-configs/r.json"
	local d='{"request_id":"0123456789abcdef0123456789abcdef","action_id":"rolling-fifo-open","reason_code":"x"}'
	session rolling "$(call_line 1 advance_rolling_policy '{"run_config_id":"r","controller_id":"predictive-spot-v1","rolling_controller_id":"rolling-v3","mode":"single_agent","decisions":['"$d,$d"']}')"
	[ "$(reply 1 | jq -r .error.code)" = -32602 ] || fail "$(reply 1)"
	reply 1 | grep -q "arguments.decisions\[1\]: a second reply for request '0123456789abcdef0123456789abcdef'" || fail "$(reply 1)"
	[ ! -d "$W/artifacts" ] || fail "a task ran"
}
