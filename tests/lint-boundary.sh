#!/bin/sh
# lint-boundary.sh — the library boundary of docs/design.md ("Two layers", "Out of memory"),
# checked with grep over lib/ (make lint runs it):
#   - only the tools' side of lib/core (die.c, cli.c) includes die.h or cli.h;
#   - nothing in lib/ ends the process (exit, abort, die, the usage and option helpers) but
#     xalloc.c's out-of-memory exit and die.c's and cli.c's own (a child's _exit after a
#     fork is the child's, and allowed);
#   - nothing in lib/ writes to standard output (printf, puts, putchar, vprintf, or stdout
#     named as a stream) but die.c and cli.c (--help, --version); an output stream written
#     to "-" goes through zio, which opens descriptor 1 itself;
#   - nothing in lib/ allocates but xalloc.c (malloc, calloc, realloc, strdup, strndup).
# Comments and string literals are skipped. Prints each breach as PATH:LINE: text and exits 1
# if there is any.
#
# usage: tests/lint-boundary.sh [TREE]   (default: the tree this script is in)
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2
[ -d lib ] || { echo "lint-boundary: no lib/ in '$(pwd)'" >&2; exit 2; }
tool_side='^lib/core/(die|cli)\.[ch]:'
# The code of lib/, one "PATH:LINE:text" a line, with /* ... */ and // comments removed.
code=$(find lib -name '*.[ch]' | sort | xargs awk '
	FNR == 1 { incomment = 0 }
	{
		line = $0; out = ""
		while (line != "") {
			if (incomment) {
				i = index(line, "*/")
				if (i == 0) { line = ""; break }
				line = substr(line, i + 2); incomment = 0
			} else {
				i = index(line, "/*"); j = index(line, "//")
				if (j > 0 && (i == 0 || j < i)) { out = out substr(line, 1, j - 1); line = ""; break }
				if (i == 0) { out = out line; line = ""; break }
				out = out substr(line, 1, i - 1); line = substr(line, i + 2); incomment = 1
			}
		}
		# string literals say nothing about calls (but an #include names its header in one)
		if (out !~ /^[ \t]*#[ \t]*include/)
			gsub(/"([^"\\]|\\.)*"/, "\"\"", out)
		if (out ~ /[^ \t]/) print FILENAME ":" FNR ":" out
	}')
bad=0
check() {   # check WHAT EXEMPT-REGEX PATTERN
	hits=$(printf '%s\n' "$code" | grep -E -- "$3" | grep -Ev -- "$2")
	[ -n "$hits" ] || return 0
	printf '%s\n' "$hits" | while IFS=: read -r f n _; do
		printf '%s:%s: %s   <- %s\n' "$f" "$n" "$(sed -n "${n}p" "$f" | sed 's/^[[:space:]]*//')" "$1"
	done
	bad=1
}
check "includes a tool-only header" "$tool_side" '#[[:space:]]*include[[:space:]]*"core/(die|cli)\.h"'
check "ends the process" "$tool_side|^lib/core/xalloc\.c:" '(^|[^A-Za-z0-9_.>])(exit|abort|die|usage_error|usage_fail|print_help|print_version|opt_int|opt_double)[[:space:]]*\('
check "writes to standard output" "$tool_side" '(^|[^A-Za-z0-9_.>])(printf|vprintf|puts|putchar)[[:space:]]*\(|[^A-Za-z0-9_]stdout([^A-Za-z0-9_]|$)'
check "allocates outside xalloc" '^lib/core/xalloc\.c:' '(^|[^A-Za-z0-9_.>])(malloc|calloc|realloc|strdup|strndup)[[:space:]]*\('
if [ $bad -ne 0 ]; then
	echo "lint-boundary: lib/ crosses the boundary of docs/design.md (above)" >&2
	exit 1
fi
echo "lint-boundary: lib/ keeps the boundary ($(printf '%s\n' "$code" | wc -l) lines of code checked)"
