#!/usr/bin/env bats
# The shell examples of README.md and docs/*.md run as written (tests/doc-examples.py):
# every ```sh block carries <!-- runnable --> or <!-- skip: REASON -->; the runnable ones
# run in order in a scratch directory with bin/ on PATH, transcripts ("$ " lines) must
# print exactly the lines shown. Each skipped block is listed with its reason.
load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

doc_examples() {
	run python3 "$ROOT/tests/doc-examples.py" "$BIN" "$ROOT" "$@"
	# the runner's lines (ran / skipped with the reason / FAILED with the output) in the TAP log
	printf '# %s\n' "${lines[@]}" >&3
	assert_success
	assert_line --regexp '^doc-examples: [0-9]+ run, [0-9]+ skipped, 0 failed$'
}

@test "doc-examples: README.md, every runnable block" {
	doc_examples "$ROOT/README.md"
}

@test "doc-examples: docs/*.md, every runnable block" {
	doc_examples "$ROOT"/docs/*.md
}

@test "doc-examples: a block without a marker, a failing block and a wrong transcript fail the test" {
	cat > page.md <<'MD'
<!-- runnable -->
```sh
echo hello > greeting.txt
```

<!-- runnable -->
```sh
$ cat greeting.txt
hello
$ echo two
three
```

```sh
echo no marker
```

<!-- runnable -->
```sh
false
```

<!-- skip: shows a skip -->
```sh
exit 1
```

<!-- runnable requires=no/such/file -->
```sh
exit 1
```
MD
	run python3 "$ROOT/tests/doc-examples.py" "$BIN" "$ROOT" page.md
	assert_failure 1
	assert_line "ran page.md:2"
	assert_line "FAILED page.md:7: exit 0"
	assert_line "FAILED page.md:14: an sh block without <!-- runnable --> or <!-- skip: REASON -->"
	assert_line "FAILED page.md:19: exit 1"
	assert_line "skipped page.md:24: shows a skip"
	assert_line "skipped page.md:29: needs no/such/file"
	assert_line "doc-examples: 3 run, 2 skipped, 3 failed"
}
