#!/usr/bin/env bats
# The golden audits and rankings end to end through the real pipeline:
# trace-import canonical CASE | sim-run --policy P | metrics, then slo-audit with the case's
# native-fifo run as baseline and rank over the 5 catalogue policies, compared with
# ../shared/golden/expected-golden.json (tests/golden-eval.py --pipeline).
load helper

count() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
runs = [r for c in d["cases"].values() for r in c["runs"].values()]
print({"audits": sum("audit_passed" in r.get("audit", {}) for r in runs),
       "errors": sum("expected_error" in r for r in runs),
       "rankings": sum("skipped" not in c.get("ranking", {"skipped": 1}) for c in d["cases"].values())}[sys.argv[2]])
' "$GOLDEN/expected-golden.json" "$1"
}

@test "pipeline-golden: every audit, expected error and ranking of the corpus matches" {
	require_shared
	run python3 "$ROOT/tests/golden-eval.py" --pipeline "$GOLDEN" "$GOLDEN/schednav-demo-slo-v1.json" "$BATS_TEST_TMPDIR/pg"
	echo "$output" | tail -n 30
	assert_success
	n=$(count audits); e=$(count errors); k=$(count rankings)
	[ "$n" -gt 200 ] || fail "only $n audits"
	[ "$e" -ge 1 ] || fail "no expected error"
	[ "$k" -gt 20 ] || fail "only $k rankings"
	assert_line "$n/$n audits match"
	assert_line "$e/$e expected errors reproduced"
	assert_line "$k/$k rankings match"
	# The original aborts ranking g-chr-slo-hponly (no Spot jobs: a null ranking metric);
	# ours ends cleanly: no policy is eligible.
	assert_line --partial "g-chr-slo-hponly ranking: original "
	assert_line --regexp "^g-chr-slo-hponly ranking: .*; ours no_eligible_policy \[\]$"
}

@test "pipeline-golden: a wrong expectation is reported (the comparison can fail)" {
	require_shared
	cd "$BATS_TEST_TMPDIR"
	mkdir -p g/cases g/policies
	python3 - "$GOLDEN" g <<'PY'
import json, os, sys
src, dst = sys.argv[1], sys.argv[2]
d = json.load(open(os.path.join(src, "expected-golden.json")))
case = "g-micro-p95"
d["cases"] = {case: d["cases"][case]}
d["cases"][case]["runs"]["native-fifo.json"]["audit"]["soft_violation_count"] += 1
d["cases"][case]["ranking"]["selected_action_ids"] = ["no-such-action"]
json.dump(d, open(os.path.join(dst, "expected-golden.json"), "w"))
os.symlink(os.path.join(src, "cases", case), os.path.join(dst, "cases", case))
for p in os.listdir(os.path.join(src, "policies")):
    os.symlink(os.path.join(src, "policies", p), os.path.join(dst, "policies", p))
PY
	run python3 "$ROOT/tests/golden-eval.py" --pipeline g "$GOLDEN/schednav-demo-slo-v1.json" "$BATS_TEST_TMPDIR/pg"
	assert_failure 1
	assert_line --partial "g-micro-p95/native-fifo.json audit: soft_violation_count"
	assert_line --partial "g-micro-p95 ranking: selected"
	assert_line "8/9 audits match"
	assert_line "0/1 rankings match"
}
