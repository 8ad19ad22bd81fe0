#!/usr/bin/env bats
# lint-cycles.py: no file of a lib folder uses a file that uses it back (nm symbols; make lint).
load helper

LINT="$ROOT/tests/lint-cycles.py"

# obj DIR NAME DEFINES USES...: compile DIR/NAME.o defining function DEFINES and calling USES.
obj() {
	local dir="$1" name="$2" def="$3" u
	shift 3
	mkdir -p "$dir"
	{
		for u in "$@"; do printf 'void %s(void);\n' "$u"; done
		printf 'void %s(void);\nvoid %s(void) {' "$def" "$def"
		for u in "$@"; do printf ' %s();' "$u"; done
		printf ' }\n'
	} > "$dir/$name.c"
	cc -c -o "$dir/$name.o" "$dir/$name.c" || fail "cc $name.c"
}

@test "lint-cycles: the tree's objects: no circle in any lib folder" {
	local build="${SCHEDNAV_BUILD:-$ROOT/build}"
	[ -d "$build/lib/core" ] || skip "no objects in $build/lib: make builds them"
	run "$LINT" "$build"
	assert_success
	assert_line --regexp '^lint-cycles: lib/eval: [0-9]+ files, 0 circles$'
	assert_line --regexp '^lint-cycles: lib/report: [0-9]+ files, 0 circles$'
	assert_line --regexp '^lint-cycles: lib/agents: [0-9]+ files, 0 circles$'
	assert_line --regexp '^lint-cycles: lib/sim: [0-9]+ files, 0 circles$'
	assert_line --regexp '^lint-cycles: lib/synth: [0-9]+ files, 0 circles$'
	refute_line --partial 'circle of'
}

@test "lint-cycles: a circle of two and one of three are named with their symbols and fail; --known lists without failing" {
	local b="$BATS_TEST_TMPDIR/build"
	obj "$b/lib/x" a a_fn b_fn
	obj "$b/lib/x" b b_fn a_fn
	obj "$b/lib/x" c c_fn a_fn
	obj "$b/lib/y" p p_fn q_fn
	obj "$b/lib/y" q q_fn r_fn
	obj "$b/lib/y" r r_fn p_fn
	obj "$b/lib/z" base base_fn
	obj "$b/lib/z" top top_fn base_fn
	run -1 "$LINT" "$b"
	assert_line "lint-cycles: lib/x: 3 files, 1 circle"
	assert_line "lint-cycles: lib/x: circle of 2 files: a.c, b.c"
	assert_line "    a.c uses b.c: b_fn"
	assert_line "    b.c uses a.c: a_fn"
	assert_line "lint-cycles: lib/y: circle of 3 files: p.c, q.c, r.c"
	assert_line "lint-cycles: lib/z: 2 files, 0 circles"
	assert_line "lint-cycles: 2 circles in 3 folders"
	run -1 "$LINT" --known lib/x "$b"
	assert_line "lint-cycles: lib/x: 3 files, 1 circle (known: left for later)"
	run -0 "$LINT" --known lib/x --known lib/y "$b"
	# uses across folders make no circle
	obj "$b/lib/w" w w_fn base_fn
	obj "$b/lib/z" base2 base2_fn w_fn
	run -0 "$LINT" --known lib/x --known lib/y "$b"
	assert_line "lint-cycles: lib/w: 1 file, 0 circles"
	run -2 "$LINT" "$BATS_TEST_TMPDIR/none"
	assert_output --partial "no objects"
}
