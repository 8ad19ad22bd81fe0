#!/usr/bin/env bats
# run-cases.py, the runner of the error cases in tests/cases/TOOL/*.case: a passing case,
# a case that fails (status, stderr, stdout, a file left behind) and a malformed case file
# each give the right verdict; nothing in a case reaches a shell.
load helper

RUNNER="$ROOT/tests/run-cases.py"

setup() {
	cd "$BATS_TEST_TMPDIR"
	# a private case directory for the tool 'stream-seal': the runner looks beside itself
	mkdir -p t/cases/stream-seal
	cp "$RUNNER" "$ROOT/tests/stream_edit.py" t/
	C=t/cases/stream-seal
	printf '%s\n' '{"type":"header","schema":"x/1","tool":"hand","version":"0","inputs":[],"params":{}}' '{"type":"note","text":"a"}' > body.nd
}

# good: a case whose expectations hold
good() {
	cat > "$C/good.case" <<'CASE'
# a body line that is not JSON is refused at its line
args: -i {input} -o {tmp}/out
input: {body}
edit: replace {"type":"note","text":"a"} => not json
status: 1
stderr-matches: ^stream-seal: .*/body\.nd:2: 
no-file: {tmp}/out
CASE
}

cases() { run python3 t/run-cases.py --var body="$PWD/body.nd" "$@"; }

@test "run-cases: a case that holds passes and is named" {
	good
	cases stream-seal "$PWD/s"
	assert_success
	assert_line "ok good: a body line that is not JSON is refused at its line"
	assert_line "stream-seal: 1 cases, 0 failed, 0 malformed"
}

@test "run-cases: a wrong status, stderr, non-empty stdout or a file left behind fail the case" {
	good
	sed 's/^status: 1/status: 2/' "$C/good.case" > "$C/status.case"
	sed 's/^stderr-matches: .*/stderr: something else/' "$C/good.case" > "$C/stderr.case"
	sed 's/^stderr-matches: .*/stderr-has: not there/' "$C/good.case" > "$C/has.case"
	printf '# a run that succeeds\nargs: {body}\nstatus: 0\nstderr:\n' > "$C/stdout.case"
	printf '# the output file stays\nargs: -o {tmp}/out {body}\nstatus: 0\nstderr:\nno-file: {tmp}/out\n' > "$C/left.case"
	cases stream-seal "$PWD/s"
	assert_failure 1
	assert_line "ok good: a body line that is not JSON is refused at its line"
	assert_line --partial "not ok status: "
	assert_line "    exit status 1, expected 2"
	assert_line --partial "not ok stderr: "
	assert_line "    stderr differs; expected:"
	assert_line "    stderr lacks: not there"
	assert_line --partial "    stdout is not empty: "
	assert_line --regexp "^    left behind after the failed run: .*/s/left/out$"
	assert_line "stream-seal: 6 cases, 5 failed, 0 malformed"
}

@test "run-cases: a malformed case file is reported at its line, never run" {
	local bad
	for bad in 'args: x\nstatus: 1\nstderr: y' '# d\nargs: x\nstatus: one\nstderr: y' '# d\nargs: x\nstatus: 1' \
		'# d\nargs: x\nstatus: 1\nstderr: y\ncolour: 1' '# d\nargs: x\nargs: y\nstatus: 1\nstderr: y' \
		'# d\nargs: {nope}\nstatus: 1\nstderr: y' '# d\nargs: x\nedit: sed s/a/b/\ninput: {body}\nstatus: 1\nstderr: y' \
		'# d\nargs: x\nedit: replace absent => b\ninput: {body}\nstatus: 1\nstderr: y' '# d\nargs: "x\nstatus: 1\nstderr: y' \
		'# d\nargs x\nstatus: 1\nstderr: y' '# d\nargs: x\nstatus: 1\nstderr-matches: (' '# d\nargs: x\nedit: head 1\nstatus: 1\nstderr: y' \
		'# d\nargs: x\nedit: delete-line 9\ninput: {body}\nstatus: 1\nstderr: y' '# d\nargs: x\nedit: crlf x\ninput: {body}\nstatus: 1\nstderr: y'; do
		rm -f "$C"/*.case
		printf "$bad\n" > "$C/m.case"
		cases stream-seal "$PWD/s"
		[ "$status" -eq 2 ] || fail "case '$bad': status $status, output: $output"
		assert_line --regexp "^not ok m: malformed case: .*m\.case"
		assert_line "stream-seal: 1 cases, 0 failed, 1 malformed"
	done
	rm -f "$C"/*.case
	cases stream-seal "$PWD/s"
	assert_failure 2
	assert_output "run-cases: no case files tests/cases/stream-seal/*.case"
}

@test "run-cases: argv words go to the tool as they are, never through a shell" {
	printf '%s\n' '# a file name with shell syntax is one operand' 'args: "$(touch pwned); x" {body}' 'status: 1' \
		"stderr-has: \$(touch pwned); x" > "$C/quote.case"
	cases stream-seal "$PWD/s"
	assert_success
	[ ! -e s/quote/pwned ] || fail "a shell ran the case's argv"
	[ ! -e pwned ] || fail "a shell ran the case's argv"
}

@test "run-cases: the 'tool' key runs another program of the tools' directory, named, never a path" {
	printf '%s\n' '# another tool reads the same fixture' 'tool: stream-verify' 'args: {tmp}/no-such.nd' 'status: 1' \
		"stderr: stream-verify: cannot open '{tmp}/no-such.nd': No such file or directory" > "$C/other.case"
	cases stream-seal "$PWD/s"
	assert_success
	assert_line "ok other: another tool reads the same fixture"
	printf '%s\n' '# a path is not a tool name' 'tool: ../stream-verify' 'args: x' 'status: 1' 'stderr: x' > "$C/other.case"
	cases stream-seal "$PWD/s"
	assert_failure 2
	assert_line --regexp "^not ok other: malformed case: .*other\.case:2: tool is the name of a program"
}

@test "run-cases: every case file under tests/cases starts with what it tests" {
	local d n=0
	for d in "$ROOT"/tests/cases/*/; do
		for f in "$d"*.case; do
			[ -e "$f" ] || continue
			n=$((n + 1))
			run -0 head -n 1 "$f"
			[[ "$output" == "# "?* ]] || fail "$f: the first line is not a '# description'"
		done
	done
	[ "$n" -gt 0 ] || fail "no case files under tests/cases"
}

@test "run-cases: truncate and append edit bytes (escapes give a NUL or a byte that is not UTF-8); --only takes a pattern" {
	printf '%s\n' '# append adds escaped bytes at the end' 'args: -i {input} -o {tmp}/out' 'input: {body}' 'edit: append x\xff\0\n' \
		'status: 1' 'stderr-has: :3: ' > "$C/append.case"
	printf '%s\n' '# truncate keeps the first bytes' 'args: -i {input}' 'input: {body}' 'edit: truncate 10' \
		'status: 1' 'stderr-has: :1: ' > "$C/truncate.case"
	printf '%s\n' '# a truncate as long as the input changes nothing' 'args: x' 'input: {body}' 'edit: truncate 999' \
		'status: 1' 'stderr: y' > "$C/long.case"
	cases --only 'a*' stream-seal "$PWD/s"
	assert_success
	assert_line "stream-seal: 1 cases, 0 failed, 0 malformed"
	[ "$(tail -c 4 s/append/body.nd | od -An -tx1 | tr -d ' ')" = "78ff000a" ] || fail "append wrote $(od -An -tx1 s/append/body.nd | tail -1)"
	cases --only 't*' stream-seal "$PWD/s"
	assert_success
	[ "$(wc -c < s/truncate/body.nd)" -eq 10 ]
	cases --only long stream-seal "$PWD/s"
	assert_failure 2
	assert_line --regexp "^not ok long: malformed case: .*long\.case:4: truncate N keeps the first N bytes"
}

@test "run-cases: a directory input is copied, its edits name their file, and canon-reseal reseals it" {
	mkdir -p t/cases/trace-import
	cp "$ROOT/tests/canon-fixture.py" t/
	python3 t/canon-fixture.py make "$PWD/v1" v1
	printf '%s\n' '# a duplicate job id, resealed, is refused at its row' 'args: canonical {input}' 'input: {v1}' 'input-name: d' \
		'edit: jobs.csv replace j3, => j1,' 'edit: canon-reseal' 'status: 1' "stderr: trace-import: {input}/jobs.csv:4: duplicate job_id 'j1'" \
		> t/cases/trace-import/dup.case
	printf '%s\n' '# an edit of a directory input without its file' 'args: canonical {input}' 'input: {v1}' 'edit: replace j3, => j1,' \
		'status: 1' 'stderr: x' > t/cases/trace-import/nofile.case
	run python3 t/run-cases.py --var v1="$PWD/v1" --only dup trace-import "$PWD/s"
	assert_success
	grep -q '^j1,20,' s/dup/d/jobs.csv
	grep -q '^j3,20,' v1/jobs.csv || fail "the fixture directory was edited"
	run python3 t/run-cases.py --var v1="$PWD/v1" --only nofile trace-import "$PWD/s"
	assert_failure 2
	assert_line --regexp "^not ok nofile: malformed case: .*nofile\.case:4: 'replace j3, => j1,': an edit of a directory input names one of its files first"
}
