#!/usr/bin/env bats
# lint-bats.py: the lint that make check runs over tests/*.bats before the suites.
load helper

LINT="$ROOT/tests/lint-bats.py"

setup() { cd "$BATS_TEST_TMPDIR"; }

# snippet NAME TEXT: a .bats file holding one test whose body is TEXT.
snippet() { printf '@test "x" {\n%s\n}\n' "$2" > "$1.bats"; }

# bad TEXT MESSAGE: the lint rejects TEXT (line 2 of the snippet) with MESSAGE.
bad() {
	snippet s "$1"
	run "$LINT" s.bats
	assert_failure 1
	assert_output --partial "s.bats:2: "
	assert_output --partial "$2"
}

# good TEXT: the lint accepts TEXT.
good() {
	snippet s "$1"
	run "$LINT" s.bats
	assert_success
	assert_output ""
}

@test "lint-bats: every tests/*.bats file is clean" {
	run "$LINT" "$ROOT"/tests/*.bats
	assert_success
	assert_output ""
}

@test "lint-bats: a negated command mid-test is rejected" {
	bad '	! grep -q x file' "'! cmd' never fails"
	bad '	! cmp -s a b; echo next' "'! cmd' never fails"
	bad '	true; ! diff a b > /dev/null' "'! cmd' never fails"
	good '	run ! grep -q x file'
	good '	! cmp -s a b || fail "the edit changed nothing"'
	good '	[ ! -e out ]'
}

@test "lint-bats: an && list is rejected unless it ends in an explicit check or control flow" {
	bad '	[ ! -e out ] && [ ! -e out.tmp ]' "a failing non-last part of 'a && b'"
	bad '	[ "$n" -gt 200 ] && [ "$e" -ge 1 ] && [ "$k" -gt 20 ]' "'a && b'"
	bad '	mkdir d && cp a d/' "'a && b'"
	bad '	cmp -s a b && fail "the edit changed nothing"' "'a && b'"
	bad $'\tcmd --long-option \\\n\t\t&& other' "'a && b'"
	bad $'\tcmd -o out &&\n\t\tjq . out' "'a && b'"
	good '	[ -e a ] && [ -e b ] || fail "a or b is missing"'
	good '	[ "$f" = skip ] && continue'
	good '	[ -n "$X" ] && return 0'
	good '	if [ -e a ] && [ -e b ]; then echo both; fi'
	good '	while [ "$i" -lt 3 ] && true; do i=$((i + 1)); done'
	good '	(cd dir && make)'
	good '	n=$(cd dir && ls | wc -l)'
	good '	[[ -e a && -e b ]]'
	good $'\tawk \'NR > 1 && $3 == 0\' f'
	good '	echo "a && b"'
	good '	cmd   # a comment with && inside'
}

@test "lint-bats: || true after an assertion is rejected, after other commands allowed" {
	bad '	diff a b || true' "'|| true' after an assertion"
	bad '	[ -e a ] || true' "'|| true' after an assertion"
	bad '	assert_output x || :' "'|| true' after an assertion"
	bad '	grep -c x f || true' "'|| true' after an assertion"
	good '	kill -KILL "$pid" 2>/dev/null || true'
	good '	wait "$pid" || true'
}

@test "lint-bats: a bare assert_failure is rejected" {
	bad '	assert_failure' "bare 'assert_failure'"
	bad '	assert_failure   # exit 2' "bare 'assert_failure'"
	good '	assert_failure 2'
}

@test "lint-bats: heredoc bodies are not Bats code" {
	good $'\tpython3 - <<\'PY\'\nif a and b: print(1)\n! not shell && neither\nPY\n\techo after'
	snippet s $'\tcat <<EOF\n! x && y\nEOF\n\t! grep -q x f'
	run "$LINT" s.bats
	assert_failure 1
	assert_output "s.bats:5: '! cmd' never fails a Bats test: use 'run ! cmd' or 'run cmd' and assert_failure N"
}

@test "lint-bats: findings name every file and line; no operand is a usage error" {
	printf '@test "a" {\n\t[ -e x ] && [ -e y ]\n}\n' > a.bats
	printf '@test "b" {\n\ttrue\n\t! false\n}\n' > b.bats
	run "$LINT" a.bats b.bats
	assert_failure 1
	assert_line --index 0 --partial "a.bats:2: "
	assert_line --index 1 --partial "b.bats:3: "
	run "$LINT"
	assert_failure 1
	assert_output "usage: lint-bats.py FILE..."
}

@test "lint-bats: a run whose status nothing checks is rejected" {
	bad $'\trun jq . f\n\tassert_output x' "nothing checks the status of this 'run'"
	bad $'\trun jq . f\n\trun -0 jq . g' "nothing checks the status of this 'run'"
	bad $'\trun grep -c x f\n\t[ "$output" -eq 0 ]' "nothing checks the status of this 'run'"
	bad $'\tfor f in a b; do run jq . "$f"\n\t\tassert_output x\n\tdone' "nothing checks the status of this 'run'"
	good $'\trun jq . f\n\tassert_success\n\tassert_output x'
	good $'\trun -0 jq . f'
	good $'\trun -1 grep -c x f'
	good $'\trun ! grep -q x f'
	good $'\trun tool x\n\tassert_failure 2'
	good $'\trun tool x\n\t[ "$status" -eq 2 ] || fail "status $status"'
}

@test "lint-bats: a project tool on the left of a pipe or inside <( ) is rejected, substitutions included" {
	bad '	sim-run -p p.json -i t.nd | metrics -o m.nd' "'sim-run' on the left of a pipe loses its exit status"
	bad '	run -0 jq . <(metrics -i r.nd)' "'metrics' inside <( ) loses its exit status"
	bad '	[ "$(stream-verify -p a | head -n 1)" = x ]' "'stream-verify' on the left of a pipe"
	bad '	diff <(cd d && stream-verify -p $f) b' "'stream-verify' inside <( )"
	bad '	timeout 60 roll --decider rule t.nd | jq .' "'roll' on the left of a pipe"
	bad $'\ttrace-import csv --map m.json f.csv |\n\t\ttrace-window -o w.nd' "'trace-import' on the left of a pipe"
	good '	jq . f | sim-run -p p.json -o r.nd'
	good '	zstdcat f | metrics -o m.nd'
	good '	sim-run -p p.json -i t.nd -o r.nd'
	good '	echo "metrics | jq"'
	good "	jq 'select(.a) | .b' f"
	good '	diff <(jq -S . a) <(jq -S . b)'
}
