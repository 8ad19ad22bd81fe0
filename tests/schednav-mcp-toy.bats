#!/usr/bin/env bats
# The toy MCP operation toy_echo (tests/fixtures/mcp/): registered only in the test build of
# schednav-mcp (build/test-ops/schednav-mcp, -DSCHEDNAV_TEST_OPS, made by make all), it shows
# that an operation is its schema file, its function and one row of ops[] (docs/design.md
# "Where to add things"): listed with its schema, called over JSON-RPC, its arguments checked
# against that schema; the real bridge has no such operation.
load helper

TOY="${SCHEDNAV_TEST_BUILD:-$ROOT/build/test-ops}/schednav-mcp"
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bats","version":"1"}}}'

setup() {
	[ -x "$TOY" ] || fail "no test build of schednav-mcp at $TOY ('make all' builds it; make check passes its directory in SCHEDNAV_TEST_BUILD)"
	cd "$BATS_TEST_TMPDIR"
	mkdir w
}

# session BRIDGE: initialize, then tools/list (id 1) and three calls of toy_echo (ids 2-4):
# a good one, one without its argument, one with a key its schema does not have. Prints
# each reply without the initialize reply, one a line.
session() {
	printf '%s\n' "$INIT" '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
		'{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
		'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"toy_echo","arguments":{"text":"héllo"}}}' \
		'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"toy_echo","arguments":{}}}' \
		'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"toy_echo","arguments":{"text":"a","colour":1}}}' |
		"$1" --profile analyst --workspace w --configs "$ROOT/configs" --exec-path "$BIN" > replies.ndjson
}

@test "schednav-mcp-toy: the test build lists toy_echo with its schema file's input schema and answers a call" {
	session "$TOY"
	run -0 jq -c 'select(.id == 1) | [.result.tools[].name]' replies.ndjson
	assert_output '["analyze_workload","get_task","read_artifact","toy_echo"]'
	run -0 jq -c 'select(.id == 1) | .result.tools[] | select(.name == "toy_echo") | [.title, .inputSchema]' replies.ndjson
	assert_output "$(jq -c '[.title, .inputSchema]' "$ROOT/tests/fixtures/mcp/toy_echo.json")"
	run -0 jq -c 'select(.id == 2) | .result | [.isError, .structuredContent]' replies.ndjson
	assert_output '[false,{"text":"héllo","bytes":6}]'
}

@test "schednav-mcp-toy: toy_echo's arguments are checked against its schema before its function runs" {
	session "$TOY"
	run -0 jq -c 'select(.id == 3 or .id == 4) | .error' replies.ndjson
	assert_output '{"code":-32602,"message":"arguments: missing '"'"'text'"'"'"}
{"code":-32602,"message":"arguments: unknown key '"'"'colour'"'"'"}'
}

@test "schednav-mcp-toy: the real bridge has no toy operation" {
	session "$BIN/schednav-mcp"
	run -0 jq -c 'select(.id == 1) | [.result.tools[].name]' replies.ndjson
	assert_output '["analyze_workload","get_task","read_artifact"]'
	run -0 jq -c 'select(.id == 2) | .error' replies.ndjson
	assert_output '{"code":-32602,"message":"unknown tool '"'"'toy_echo'"'"' for profile '"'"'analyst'"'"'"}'
}
