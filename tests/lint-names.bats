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
