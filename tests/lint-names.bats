#!/usr/bin/env bats
# lint-names.sh: one prefix per module folder in lib/predict (docs/design.md "Names"), checked
# with grep (make lint).
load helper

LINT="$ROOT/tests/lint-names.sh"

setup() {
	T="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$T/lib/predict/tenant" "$T/lib/predict/aggregate"
}

@test "lint-names: lib/predict of this tree keeps one prefix per folder" {
	run "$LINT"
	assert_success
	assert_output "lint-names: lib/predict keeps one prefix per folder (pc_ top and aggregate/, pt_ tenant/)"
}

@test "lint-names: each kind of breach is named with its path and line; strings and file-local names are not breaches" {
	cat > "$T/lib/predict/tenant/bad.h" <<'C'
#ifndef SCHEDNAV_PREDICT_TENANT_BAD_H
#define SCHEDNAV_PREDICT_TENANT_BAD_H
#define PT_OK 1
#define LOOSE 2
struct pt_ok { int a; };
struct tenant_thing {
	int a;
};
enum pt_kind { PT_KIND_A, KIND_B };
typedef void (*sink_fn)(void *ctx);
struct pc_config;
#endif
C
	cat > "$T/lib/predict/tenant/bad.c" <<'C'
#include "predict/tenant/bad.h"
/* th_old names code */
static const char *msg = "tc_update and est_id are output bytes here";
static int helper(int a) { return a; }
static int pc_wrong(int a) { return a; }
int pt_good(int a)
{
	return helper(a) + pc_wrong(a);
}
int loose(int a)
{
	return a;
}
const int pt_table[] = { 1 };
const int table[] = { 2 };
C
	cat > "$T/lib/predict/aggregate/ok.c" <<'C'
struct local { int a; };
static void pt_local(void) {}
void pc_fine(void) {}
C
	run "$LINT" "$T"
	assert_failure 1
	assert_line "lib/predict/aggregate/ok.c:2: pt_local: file-local name with another module's prefix (want pc_ or none)"
	assert_line "lib/predict/tenant/bad.c:2: th_old: retired prefix (want pt_)"
	assert_line "lib/predict/tenant/bad.c:5: pc_wrong: file-local name with another module's prefix (want pt_ or none)"
	assert_line "lib/predict/tenant/bad.c:10: loose: visible outside its file without the folder's prefix pt_"
	assert_line "lib/predict/tenant/bad.c:15: table: visible outside its file without the folder's prefix pt_"
	assert_line "lib/predict/tenant/bad.h:4: LOOSE: visible outside its file without the folder's prefix pt_"
	assert_line "lib/predict/tenant/bad.h:6: tenant_thing: visible outside its file without the folder's prefix pt_"
	assert_line "lib/predict/tenant/bad.h:9: KIND_B: visible outside its file without the folder's prefix pt_"
	assert_line "lib/predict/tenant/bad.h:10: sink_fn: visible outside its file without the folder's prefix pt_"
	assert_line "lint-names: 9 names break the rule"
	[ "${#lines[@]}" -eq 10 ] || fail "expected 9 breaches and the summary: $output"
}

@test "lint-names: a tree without lib/predict is a usage error" {
	mkdir "$BATS_TEST_TMPDIR/none"
	run "$LINT" "$BATS_TEST_TMPDIR/none"
	assert_failure 2
	assert_output "lint-names: no lib/predict in '$BATS_TEST_TMPDIR/none'"
}

# defs DIR NAME FUNCTION...: compile DIR/NAME.o defining each FUNCTION (and one static one).
defs() {
	local dir="$1" name="$2" f
	shift 2
	mkdir -p "$dir"
	{
		printf 'static int local_helper(void) { return 1; }\n'
		for f in "$@"; do printf 'int %s(void);\nint %s(void) { return local_helper(); }\n' "$f" "$f"; done
	} > "$dir/$name.c"
	cc -c -o "$dir/$name.o" "$dir/$name.c" || fail "cc $name.c"
}

@test "lint-names: with the build folder, the tree's objects export only their folder's prefixes or known exceptions" {
	local build="${SCHEDNAV_BUILD:-$ROOT/build}"
	[ -d "$build/lib/core" ] || skip "no objects in $build/lib: make builds them"
	run "$LINT" "$ROOT" "$build"
	assert_success
	assert_line --index 0 "lint-names: lib/predict keeps one prefix per folder (pc_ top and aggregate/, pt_ tenant/)"
	assert_line --index 1 --regexp '^lint-names: every name lib/ exports carries a prefix of its folder \(tests/lint-names.prefixes\); [0-9]+ known exceptions left for tests/rename-lib-symbols.sh$'
}

@test "lint-names: an exported name without its folder's prefix is named with its object; the map's names are known; an unlisted folder fails" {
	mkdir -p "$T/tests"
	printf '# FOLDER PREFIX...\nsim sim_ result_\nroll roll_\n' > "$T/tests/lint-names.prefixes"
	defs "$T/build/lib/sim" engine sim_run result_read loose_name old_name
	defs "$T/build/lib/roll" step roll_step
	printf '# OLD NEW\nold_name sim_old_name\n' > "$T/tests/rename-lib-symbols.map"
	run "$LINT" "$T" build
	assert_failure 1
	assert_output "build/lib/sim/engine.o: loose_name: defined in lib/sim without one of its prefixes (sim_ result_); rename it, or list it in tests/rename-lib-symbols.map
lint-names: 1 names break the rule"
	# listed in the map: a known exception, counted
	printf 'loose_name sim_loose_name\n' >> "$T/tests/rename-lib-symbols.map"
	run "$LINT" "$T" build
	assert_success
	assert_line --index 1 "lint-names: every name lib/ exports carries a prefix of its folder (tests/lint-names.prefixes); 2 known exceptions left for tests/rename-lib-symbols.sh"
	# a folder the prefixes file does not name
	defs "$T/build/lib/newroom" a newroom_fn
	run "$LINT" "$T" build
	assert_failure 1
	assert_output "build/lib/newroom/a.o: newroom_fn: lib/newroom has no line in tests/lint-names.prefixes
lint-names: 1 names break the rule"
}
