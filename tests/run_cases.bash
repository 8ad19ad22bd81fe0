# run_cases TOOL [NAME=VALUE]... : run the error cases tests/cases/TOOL/*.case through
# tests/run-cases.py (format: docs/testing.md), one "ok NAME" / "not ok NAME" line each;
# the test fails when one case fails or a case file is malformed. NAME=VALUE are the
# fixtures the suite built, named {NAME} in the case files. SCHEDNAV_CASE=NAME runs one case.
run_cases() {
	local tool="$1" v
	local -a vars=()
	shift
	for v in "$@"; do
		vars+=(--var "$v")
	done
	if [ -n "${SCHEDNAV_CASE:-}" ]; then
		vars+=(--only "$SCHEDNAV_CASE")
	fi
	run python3 "$ROOT/tests/run-cases.py" "${vars[@]}" "$tool" "$BATS_TEST_TMPDIR/cases"
	echo "$output"
	assert_success
}
