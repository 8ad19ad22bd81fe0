# Fixtures for the schednav-mcp suites: a workspace with one MIX1 window, the MCP Inspector
# CLI (tests/mcp/node_modules, installed with npm ci from the pinned lock file) and a raw
# stdio session helper for the messages a real client never sends.

INSPECTOR="$ROOT/tests/mcp/node_modules/.bin/mcp-inspector"
# the repository's configs, wherever the tools under test were built (bin/, build-asan/bin/)
export SCHEDNAV_CONFIGS="$ROOT/configs"
SLO_ID=schednav-demo-slo-v1

# The pinned Inspector is installed by make check and make deps (make mcp-inspector), never
# by a test: without it (no npm, no npm registry) the Inspector tests skip, saying why.
require_inspector() {
	[ -x "$INSPECTOR" ] || skip "needs the MCP Inspector CLI (@modelcontextprotocol/inspector 0.17.x) in tests/mcp/node_modules: 'make mcp-inspector' (run by make check) installs it with npm; it was not installed (no npm, or no npm registry)"
}

# make_workspace DIR: traces/mix1-w.ndjson.zst (MIX1 on a seeded 200-GPU Philly subset,
# evaluation [3600, 5400], warm-up from 1800) and its run config mix1-w.
make_workspace() {
	local w="$1"
	mkdir -p "$w/traces" "$w/run-configs" "$w/run-sets"
	trace-import csv --map "$ROOT/configs/maps/chronus-philly.json" --nodes-file "$DATA/philly-cluster_machine_list.zst" \
		--node-subset-gpus 200 --seed 1 "$DATA/chronus-trace_job_Philly_MIX1.csv.zst" -o "$w/traces/mix1.ndjson.zst"
	trace-window --eval-start 3600 --eval-end 5400 --warmup-start 1800 -i "$w/traces/mix1.ndjson.zst" -o "$w/traces/mix1-w.ndjson.zst"
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/mix1-w.ndjson.zst"}' > "$w/run-configs/mix1-w.json"
}

# mcp PROFILE ARGS...: one Inspector CLI session against the workspace $W.
mcp() {
	local profile="$1"; shift
	"$INSPECTOR" --cli "$BIN/schednav-mcp" --profile "$profile" --workspace "$W" "$@"
}

# call PROFILE TOOL KEY=VALUE...: tools/call through the Inspector; prints structuredContent.
call() {
	local profile="$1" tool="$2"; shift 2
	mcp "$profile" --method tools/call --tool-name "$tool" --tool-arg "$@" | jq -c '.structuredContent // .'
}

# call_stdio PROFILE TOOL ARGS_JSON: the same tools/call over a raw stdio session (initialize,
# initialized, the call), for the operations that run many tools (a run set): the Inspector's
# client gives every request a fixed 60 s timeout, which a sanitizer build on a loaded machine
# can pass, while the server itself has none. Prints structuredContent (else the reply); fails
# when the server fails or gives no reply to the call.
call_stdio() {
	local profile="$1" tool="$2" args="$3" req out
	req=$(jq -cn --arg t "$tool" --argjson a "$args" '{jsonrpc: "2.0", id: 1, method: "tools/call", params: {name: $t, arguments: $a}}') || return 1
	out=$(printf '%s\n%s\n%s\n' "$INIT" '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$req" | raw "$profile") || return 1
	printf '%s\n' "$out" | jq -ec 'select(.id == 1) | .result.structuredContent // .'
}

# tool_names PROFILE: the names tools/list shows, one line, sorted.
tool_names() {
	mcp "$1" --method tools/list | jq -r '[.tools[].name] | sort | join(" ")'
}

# raw PROFILE: feed stdin lines (initialize first when asked) straight to the server.
raw() {
	schednav-mcp --profile "$1" --workspace "$W"
}

INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bats","version":"1"}}}'

# The body fingerprint of a stream file (its end record).
body_fp() { zstdcat -f "$1" | tail -n 1 | jq -r .fingerprint; }
