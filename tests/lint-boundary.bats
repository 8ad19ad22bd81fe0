#!/usr/bin/env bats
# lint-boundary.sh: the library boundary of docs/design.md, checked with grep (make lint).
load helper

LINT="$ROOT/tests/lint-boundary.sh"

setup() {
	T="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$T/lib/core" "$T/lib/x"
}

@test "lint-boundary: lib/ of this tree keeps the boundary" {
	run "$LINT"
	assert_success
	assert_output --regexp '^lint-boundary: lib/ keeps the boundary \([0-9]+ lines of code checked\)$'
}

@test "lint-boundary: each kind of breach is named with its path and line; comments and strings are not breaches" {
	cat > "$T/lib/x/bad.c" <<'C'
#include "core/die.h"
#include "core/xalloc.h"
/* die("in a comment"), printf("x"), exit(1) and malloc(3) are not calls */
static const char *s = "exit(1) printf( stdout malloc(";
void f(void)
{
	char *p = malloc(8);
	printf("%s\n", s);
	fputs(s, stdout);
	if (!p)
		exit(1);
	die("no");
	_exit(0);   // a child's _exit is allowed
}
C
	printf '#include "core/cli.h"\nvoid g(void) { usage_error("u", "x"); }\n' > "$T/lib/x/cli_user.c"
	run "$LINT" "$T"
	assert_failure 1
	assert_line 'lib/x/bad.c:1: #include "core/die.h"   <- includes a tool-only header'
	assert_line 'lib/x/cli_user.c:1: #include "core/cli.h"   <- includes a tool-only header'
	assert_line 'lib/x/bad.c:11: exit(1);   <- ends the process'
	assert_line 'lib/x/bad.c:12: die("no");   <- ends the process'
	assert_line 'lib/x/cli_user.c:2: void g(void) { usage_error("u", "x"); }   <- ends the process'
	assert_line 'lib/x/bad.c:8: printf("%s\n", s);   <- writes to standard output'
	assert_line 'lib/x/bad.c:9: fputs(s, stdout);   <- writes to standard output'
	assert_line 'lib/x/bad.c:7: char *p = malloc(8);   <- allocates outside xalloc'
	assert_line "lint-boundary: lib/ crosses the boundary of docs/design.md (above)"
	[ "${#lines[@]}" -eq 9 ] || fail "expected 8 breaches and the summary: $output"
}

@test "lint-boundary: the tools' side of lib/core and xalloc.c may end the process" {
	printf '#include "core/die.h"\nvoid die(void) { printf("x"); exit(1); }\n' > "$T/lib/core/die.c"
	printf '#include "core/cli.h"\nvoid h(void) { fputs("help", stdout); exit(0); }\n' > "$T/lib/core/cli.c"
	printf '#include "core/xalloc.h"\nvoid *xmalloc(unsigned long n) { void *p = malloc(n); if (!p) exit(1); return p; }\n' > "$T/lib/core/xalloc.c"
	run "$LINT" "$T"
	assert_success
	assert_output "lint-boundary: lib/ keeps the boundary (6 lines of code checked)"
}

@test "lint-boundary: a tree without lib/ is a usage error" {
	run "$LINT" "$BATS_TEST_TMPDIR/none"
	assert_failure 2
}
