#!/usr/bin/env bats
# make demo: the main job on the embedded Chronus Philly sample, end to end.
load helper

DEMO_TOOLS="trace-import trace-window sim-run metrics slo-audit rank approve decision-table report"

setup_file() {
	local root
	root="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
	export DEMO_SKIP=
	for t in $DEMO_TOOLS; do
		[ -f "$root/tools/$t.c" ] || DEMO_SKIP="tool '$t' is not in this tree yet"
	done
	for f in tests/data/chronus-trace_job_Philly_MIX1.csv.zst tests/data/philly-cluster_machine_list.zst configs/maps/chronus-philly.json; do
		[ -f "$root/$f" ] || DEMO_SKIP="'$f' is not in this tree yet"
	done
	[ -n "$DEMO_SKIP" ] && return 0
	# A private copy of the demo directory: the test never touches the user's work/demo.
	export DEMO_OUT="$BATS_FILE_TMPDIR/demo.out"
	make -C "$root" --no-print-directory demo DEMO_DIR="$BATS_FILE_TMPDIR/demo" > "$DEMO_OUT" 2>&1 || {
		cat "$DEMO_OUT" >&2
		return 1
	}
}

setup() {
	[ -z "$DEMO_SKIP" ] || skip "make demo needs the whole pipeline: $DEMO_SKIP"
	D="$BATS_FILE_TMPDIR/demo"
}

@test "demo: the table has the five catalogue policies, a decision and an approval status" {
	table=$(sed -n '/^policy /,/^$/p' "$DEMO_OUT")
	rows=$(echo "$table" | sed '1d; /^$/d' | awk '{print $1}' | tr '\n' ' ')
	[ "$rows" = "native-fifo native-preemptive-3600 native-preemptive-g3600-b09-d0000 native-preemptive-g3600-b09-d0900 native-preemptive-g3600-b09-loss-aware " ] ||
		fail "rows: $rows"
	status=$(jq -r 'select(.type=="ranking") | .selection_status' "$D/ranking.ndjson")
	grep -q "^decision: $status" "$DEMO_OUT"
	grep -q '^approval: ' "$DEMO_OUT"
	if [ "$status" != no_eligible_policy ]; then
		for id in $(jq -r 'select(.type=="ranking") | .selected_action_ids[]' "$D/ranking.ndjson"); do
			grep -q "bin/approve --ranking $D/ranking.ndjson --action $id --log $D/approvals.ndjson" "$DEMO_OUT" ||
				fail "no approve command for '$id'"
		done
	fi
	grep -q "^report: $D/report.html" "$DEMO_OUT"
}

@test "demo: the printed numbers are the metrics records' numbers" {
	for f in "$D"/*.metrics.ndjson; do
		read -r id alloc evict < <(jq -r 'select(.type=="metrics") | "\(.action_id) \(.allocation_rate_mean * 100 * 100 | round / 100) \(.preemption_event_count)"' "$f")
		line=$(grep "^$id " "$DEMO_OUT")
		want=$(printf '%.2f%%' "$alloc")
		[[ "$line" == *"$want"* ]] || fail "$id: '$line' lacks allocation $want"
	done
}

@test "demo: the report exists, has every chart, and an approval shows on the next run" {
	[ -s "$D/report.html" ]
	grep -q 'data-charts-expected="6"' "$D/report.html"   # no study records: no uplift chart
	for chart in allocation allocation-diff queue-hp queue-spot preemptions ranking; do
		grep -q "data-chart=\"$chart\"" "$D/report.html" || fail "chart '$chart' missing"
	done
	# the tied policies allocate exactly alike, and the chart counts the preemptions the table counts
	grep -q 'Identical allocation over time: native-preemptive-g3600-b09-d0000 = native-preemptive-3600;' "$D/report.html"
	grep -q 'Dashed: every preemption event, warm-up and drain victims included: native-preemptive-3600 31 against 25;' "$D/report.html"
	status=$(jq -r 'select(.type=="ranking") | .selection_status' "$D/ranking.ndjson")
	[ "$status" != no_eligible_policy ] || skip "no eligible policy on this data: nothing to approve"
	id=$(jq -r 'select(.type=="ranking") | .selected_action_ids[0]' "$D/ranking.ndjson")
	approve --ranking "$D/ranking.ndjson" --action "$id" --log "$D/approvals.ndjson" --by 'Demo Tester' --reason 'bats' --at 2026-01-01T00:00:00Z
	run make -C "$ROOT" --no-print-directory demo DEMO_DIR="$D"
	assert_success
	assert_output --partial "approval: approved $id by Demo Tester at 2026-01-01T00:00:00Z"
	grep -q 'Approved:</strong> '"$id"' by Demo Tester' "$D/report.html"
}

@test "demo: the report renders in headless Chromium without console errors" {
	command -v chromium >/dev/null || skip "chromium is not installed (apt-get install chromium)"
	profile=$(mktemp -d "$BATS_TEST_TMPDIR/chromium.XXXXXX")
	chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --enable-logging=stderr --v=0 \
		--dump-dom "file://$D/report.html" > "$BATS_TEST_TMPDIR/dom.html" 2> "$BATS_TEST_TMPDIR/err"
	want=$(grep -o 'data-charts-expected="[0-9]*"' "$D/report.html" | grep -o '[0-9]*')
	grep -q "data-charts-ok=\"$want\"" "$BATS_TEST_TMPDIR/dom.html"
	run grep -E 'CONSOLE|Uncaught' "$BATS_TEST_TMPDIR/err"
	assert_failure 1
}

@test "demo: make demo-run builds the tools only, never the unit tests or the test builds first" {
	local b="$BATS_TEST_TMPDIR/b"
	run make -C "$ROOT" -n --no-print-directory demo-run BUILD="$b" OUT="$b/bin" DEMO_DIR="$b/demo"
	assert_success
	assert_output --partial "tools/sim-run.c"
	refute_output --partial "tests/unit/"
	refute_output --partial "test-ops"
	[ ! -e "$b" ] || fail "make -n wrote $b"
}
