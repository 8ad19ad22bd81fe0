#!/usr/bin/env bats
# The test harness itself (issue 19, "tests that can still lie"): no test installs anything
# or needs the network; a missing prerequisite is a visible skip that says why. (The lint
# of the suites is tests/lint-bats.bats.)
load helper

@test "require_inspector never runs npm inside a test: without the Inspector it skips, saying how it is installed" {
	local t="$BATS_TEST_TMPDIR"
	mkdir -p "$t/fakebin" "$t/inner"
	printf '#!/bin/sh\necho "npm $*" >> "%s/npm.log"\nexit 1\n' "$t" > "$t/fakebin/npm"
	chmod +x "$t/fakebin/npm"
	# (the inner test's @-line is printed: Bats would take a literal one here for its own)
	printf 'load "%s/tests/helper"\nload "%s/tests/mcp_fixtures"\n@%s "inner" {\n\tINSPECTOR=%s/none/mcp-inspector\n\trequire_inspector\n}\n' \
		"$ROOT" "$ROOT" test "$t" > "$t/inner/inspector.bats"
	run -0 env PATH="$t/fakebin:$PATH" bats --tap "$t/inner/inspector.bats"
	assert_line --partial "ok 1 inner # skip needs the MCP Inspector CLI"
	assert_output --partial "'make mcp-inspector' (run by make check) installs it with npm"
	[ ! -e "$t/npm.log" ] || fail "a test ran npm: $(cat "$t/npm.log")"
}
