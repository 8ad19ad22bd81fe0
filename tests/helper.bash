# Shared Bats helper: bin/ first on PATH, C locale, UTC, paths to fixtures and ../shared.
load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load
# `run -N` (expect exit status N) and `run !`: tests/lint-bats.py wants every run checked.
bats_require_minimum_version 1.5.0

export LC_ALL=C TZ=UTC
ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
BIN="${SCHEDNAV_BIN:-$ROOT/bin}"
export PATH="$BIN:$PATH"
SHARED="${SCHEDNAV_SHARED:-$ROOT/../shared}"
GOLDEN="$SHARED/golden"
DATA="$ROOT/tests/data"

# Tests that read ../shared say so and skip visibly in a fresh clone without it:
# require_shared [golden]  parity with the original engine's expected outputs (../shared/golden)
# require_shared data      parity on the full upstream traces (../shared/data)
require_shared() {
	case "${1:-golden}" in
	golden) [ -d "$SHARED/golden/cases" ] || skip "golden parity: needs ../shared/golden (the original engine's expected outputs)" ;;
	data) [ -d "$SHARED/data" ] || skip "real-data parity: needs ../shared/data (the full upstream traces)" ;;
	*) fail "require_shared: unknown corpus '$1'" ;;
	esac
}

# Lines of the man page SYNOPSIS (between .nf and .fi after .SH SYNOPSIS).
man_synopsis() {
	awk '/^\.SH SYNOPSIS/{s=1;next} s&&/^\.nf/{p=1;next} p&&/^\.fi/{exit} p{print}' "$ROOT/docs/$1.1" | sed 's/\\-/-/g; s/\\fB//g; s/\\fI//g; s/\\fR//g; s/\\fP//g'
}

# The usage block of --help: lines up to the first blank line, "usage: " and indent removed.
help_synopsis() {
	"$1" --help | sed -n '1,/^$/p' | sed '/^$/d; s/^usage: //; s/^ *//'
}

# Feed a file to a command in chunks of 1..31 bytes (slow writer) and print its stdout.
feed_chunked() {
	local file="$1"; shift
	python3 -c '
import sys, time, os
data = open(sys.argv[1], "rb").read()
i = 0; k = 1
out = sys.stdout.buffer
while i < len(data):
    out.write(data[i:i+k]); out.flush(); i += k; k = k % 31 + 1
' "$file" | "$@"
}

# Assert the invariants every tool keeps: --help == man SYNOPSIS, bad option exits 2.
assert_tool_invariants() {
	local tool="$1"
	run "$tool" --help
	assert_success
	[ -f "$ROOT/docs/$tool.1" ] || fail "no man page docs/$tool.1"
	diff <(help_synopsis "$tool") <(man_synopsis "$tool") || fail "$tool --help usage differs from docs/$tool.1 SYNOPSIS"
	run "$tool" --no-such-option
	assert_failure 2
	assert_output --partial "usage:"
}

# Validate every record of the given stream files against schemas/<type>.schema.json.
assert_schema() {
	run /usr/bin/python3 "$ROOT/tests/validate-schema.py" "$@"
	assert_success
}

# A stream (plain or zstd, FILE or stdin) without its header line and without the end
# record's header_fingerprint: what two runs whose headers differ only in provenance (an
# input path, stdin against a file) must still agree on, byte for byte.
sans_header() {
	zstdcat -f -- "${1:--}" | sed -e 1d -e 's/,"header_fingerprint":"[0-9a-f]\{32\}"}$/}/'
}

# A failed run left neither FILE nor a temporary file beside it (FILE.tmp, FILE.XXXXXX, .FILE...).
assert_no_output() {
	local dir base left
	dir=$(dirname "$1")
	base=$(basename "$1")
	[ ! -e "$1" ] || fail "'$1' exists after a failed run"
	left=$(find "$dir" -maxdepth 1 \( -name "$base.*" -o -name ".$base*" \) -print -quit)
	[ -z "$left" ] || fail "temporary file '$left' left behind"
}
