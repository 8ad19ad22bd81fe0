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

# Issue 35: a tool's main reads its options and calls named steps (static helpers); at most
# 100 lines each, so what a tool does reads from its main (roll's was 124 lines).
main_lengths() {
	awk 'FNR == 1 { if (prev != "" && !seen) print prev ": no main"; prev = FILENAME; seen = 0; start = 0 }
		/^int main\(/ { start = FNR; seen = 1 }
		/^}/ { if (start > 0 && FNR - start + 1 > 100) print FILENAME ": main is " FNR - start + 1 " lines"; start = 0 }
		END { if (prev != "" && !seen) print prev ": no main" }' "$@"
}

@test "every tool's main is at most 100 lines (from 'int main(' to its closing brace)" {
	run -0 main_lengths "$ROOT"/tools/*.c
	assert_output ""
	# the check can fail: a main of 101 lines, and a file without a main, are reported
	{ echo 'int main(void)'; echo '{'; for i in $(seq 98); do echo '	;'; done; echo '}'; } > "$BATS_TEST_TMPDIR/long.c"
	{ echo 'int main(void)'; echo '{'; for i in $(seq 97); do echo '	;'; done; echo '}'; } > "$BATS_TEST_TMPDIR/ok.c"
	echo 'static int f(void) { return 0; }' > "$BATS_TEST_TMPDIR/none.c"
	run -0 main_lengths "$BATS_TEST_TMPDIR/long.c" "$BATS_TEST_TMPDIR/ok.c" "$BATS_TEST_TMPDIR/none.c"
	assert_output "$BATS_TEST_TMPDIR/long.c: main is 101 lines
$BATS_TEST_TMPDIR/none.c: no main"
}
