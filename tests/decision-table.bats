#!/usr/bin/env bats
# decision-table: the plain-text decision table of a ranking (fixture: tests/cases/report/fixture.py).
load helper
load run_cases

setup_file() {
	export FX="$BATS_FILE_TMPDIR/fx"
	python3 "$ROOT/tests/cases/report/fixture.py" "$FX"
}

setup() {
	FX="$BATS_FILE_TMPDIR/fx"
	T="$BATS_TEST_TMPDIR"
	DECISION=("$FX"/*.metrics.ndjson "$FX"/*.audit.ndjson "$FX/ranking.ndjson")
}

@test "decision-table: --help matches the man page, bad option exits 2" {
	assert_tool_invariants decision-table
}

@test "decision-table: the error cases (tests/cases/decision-table/*.case)" {
	run_cases decision-table fx="$FX"
}

@test "decision-table: one row per policy, the failures, the decision and the approve commands" {
	run decision-table "${DECISION[@]}"
	assert_success
	[ "$(echo "$output" | sed -n '1p' | awk '{print $1}')" = policy ]
	# the rows: one per metrics record, in action-id order
	rows=$(echo "$output" | sed -n '2,/^$/p' | sed '/^$/d' | awk '{print $1}' | tr '\n' ' ')
	[ "$rows" = "native-fifo native-preemptive-3600 native-preemptive-g3600-b09-d0000 " ]
	# the SLO column agrees with each audit's verdict
	for f in "$FX"/*.audit.ndjson; do
		p=$(jq -r 'select(.type=="audit") | .action_id // empty' "$f")
		a=$(jq -r 'select(.type=="audit") | .audit_passed' "$f")
		m=$(basename "$f" .audit.ndjson)
		line=$(echo "$output" | grep "^$m ")
		if [ "$a" = true ]; then [[ "$line" == *" pass "* ]]; else [[ "$line" == *"fail ("* ]]; fi
	done
	assert_output --partial "decision: $(jq -r 'select(.type=="ranking") | .selection_status' "$FX/ranking.ndjson")"
	assert_output --partial "approval: PENDING human approval"
	assert_output --partial "approve --ranking $FX/ranking.ndjson --action native-fifo --by 'YOUR NAME' --reason 'WHY'"
}

@test "decision-table: the rows come in action-id order whatever order the files are given in" {
	run decision-table "$FX/ranking.ndjson" "$FX"/*.audit.ndjson "$FX/native-preemptive-g3600-b09-d0000.metrics.ndjson" \
		"$FX/native-fifo.metrics.ndjson" "$FX/native-preemptive-3600.metrics.ndjson"
	assert_success
	local reversed="$output"
	run decision-table "${DECISION[@]}"
	assert_success
	[ "$output" = "$reversed" ] || fail "the table depends on the order of the files"
	rows=$(echo "$output" | sed -n '2,/^$/p' | sed '/^$/d' | awk '{print $1}' | tr '\n' ' ')
	[ "$rows" = "native-fifo native-preemptive-3600 native-preemptive-g3600-b09-d0000 " ] || fail "rows: $rows"
}

@test "decision-table: zstd input, one stdin stream and chunked input give the same table" {
	decision-table "${DECISION[@]}" > "$T/plain.txt"
	mkdir "$T/z"
	for f in "${DECISION[@]}"; do zstd -q "$f" -o "$T/z/$(basename "$f").zst"; done
	decision-table "$T"/z/*.metrics.ndjson.zst "$T"/z/*.audit.ndjson.zst "$T/z/ranking.ndjson.zst" > "$T/z.txt"
	# the ranking's path is printed in the approve command: compare without it
	strip() { sed "s|$1|RANKING|g" "$2"; }
	cmp <(strip "$FX/ranking.ndjson" "$T/plain.txt") <(strip "$T/z/ranking.ndjson.zst" "$T/z.txt")
	cat "${DECISION[@]}" > "$T/all.ndjson"
	decision-table < "$T/all.ndjson" > "$T/stdin.txt"
	zstd -q -c "$T/all.ndjson" | decision-table > "$T/zstdin.txt"
	feed_chunked "$T/all.ndjson" decision-table > "$T/chunked.txt"
	grep -q '^policy ' "$T/stdin.txt"
	cmp "$T/stdin.txt" "$T/zstdin.txt"
	cmp "$T/stdin.txt" "$T/chunked.txt"
	# stdin and files give the same rows and decision
	cmp <(sed -n '1,/^decision:/p' "$T/stdin.txt") <(sed -n '1,/^decision:/p' "$T/plain.txt")
}

@test "decision-table: an approval of this ranking in the log is reported; a torn log is refused" {
	fp=$(jq -r 'select(.type=="ranking") | .ranking_fingerprint' "$FX/ranking.ndjson")
	log="$T/approvals.ndjson"
	run decision-table --approvals "$log" --approve-program bin/approve "${DECISION[@]}"
	assert_success
	assert_output --partial "bin/approve --ranking $FX/ranking.ndjson --action native-fifo --log $log --by"
	approve --ranking "$FX/ranking.ndjson" --action native-fifo --by "A Person" --reason fixture --at 2026-11-29T12:00:00Z --log "$log"
	[ "$(jq -r .ranking_fingerprint "$log")" = "$fp" ]
	run decision-table --approvals "$log" "${DECISION[@]}"
	assert_success
	assert_output --partial "approval: approved native-fifo by A Person at 2026-11-29T12:00:00Z"
	refute_output --partial "PENDING"
	printf '{"type":"approval"' >> "$log"
	run decision-table --approvals "$log" "${DECISION[@]}"
	assert_failure 1
	assert_output --partial "$log:2: torn last line"
}
