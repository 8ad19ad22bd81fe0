#!/usr/bin/env bats
# The shell examples of README.md and docs/*.md run as written (tests/doc-examples.py):
# every ```sh block carries <!-- runnable --> or <!-- skip: REASON -->; the runnable ones
# run in order in a scratch directory with bin/ on PATH, transcripts ("$ " lines) must
# print exactly the lines shown. Each skipped block is listed with its reason.
load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# doc_examples LABEL ARG...: run the runner; its lines (ran / skipped with the reason /
# FAILED with the output) go to the TAP log, the summary labelled with the pages it ran
# (tests/run-bats.sh prints those summaries after its count).
doc_examples() {
	local label="$1"
	shift
	run python3 "$ROOT/tests/doc-examples.py" "$@"
	printf '# %s\n' "${lines[@]}" | sed "s|^# doc-examples: |# doc-examples: $label: |" >&3
	assert_success
	assert_line --regexp '^doc-examples: [0-9]+ run, [0-9]+ skipped, 0 failed$'
}

# The files of a clone git does not track, ignored ones included (bin/, work/), one a line.
untracked() {
	git -C "$1" status --porcelain --ignored --untracked-files=all | LC_ALL=C sort
}

@test "doc-examples: README.md, every runnable block, in a fresh clone from its top, leaving no file behind" {
	git -C "$ROOT" rev-parse --git-dir > /dev/null 2>&1 || skip "the tree is not a git checkout: no clone to run the README in"
	local clone="$BATS_TEST_TMPDIR/clone" f
	git clone -q --no-hardlinks "$ROOT" "$clone" || fail "git clone $ROOT failed"
	git -C "$clone" checkout -q --detach "$(git -C "$ROOT" rev-parse HEAD)" || fail "checkout failed"
	# the tree as it is: its uncommitted changes and its new files not yet added
	git -C "$ROOT" diff HEAD --binary > "$BATS_TEST_TMPDIR/wip.diff" || fail "git diff failed"
	if [ -s "$BATS_TEST_TMPDIR/wip.diff" ]; then
		git -C "$clone" apply --whitespace=nowarn "$BATS_TEST_TMPDIR/wip.diff" || fail "git apply of the uncommitted changes failed"
	fi
	git -C "$ROOT" ls-files --others --exclude-standard -z > "$BATS_TEST_TMPDIR/new.list" || fail "git ls-files failed"
	while IFS= read -r -d '' f; do
		mkdir -p "$clone/$(dirname "$f")" && cp -p "$ROOT/$f" "$clone/$f" || fail "copying $f failed"
	done < "$BATS_TEST_TMPDIR/new.list"
	# bin/ as make builds it in the clone (the tools find configs/ beside their bin/), and the
	# MCP Inspector make check installed, when it did
	mkdir "$clone/bin"
	for f in "$BIN"/*; do
		if [ -f "$f" ]; then
			cp -p "$f" "$clone/bin/" || fail "copying $f failed"
		fi
	done
	if [ -d "$ROOT/tests/mcp/node_modules" ]; then
		ln -s "$ROOT/tests/mcp/node_modules" "$clone/tests/mcp/node_modules"
	fi
	untracked "$clone" > "$BATS_TEST_TMPDIR/before"
	doc_examples README.md --in "$clone" "$clone/README.md"
	untracked "$clone" > "$BATS_TEST_TMPDIR/after"
	run diff "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	assert_success
	assert_output ""
}

@test "doc-examples: docs/*.md, every runnable block" {
	doc_examples 'docs/*.md' "$BIN" "$ROOT" "$ROOT"/docs/*.md
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
