#!/usr/bin/env bats
# approve: verified rankings only, frontier only, a hash-chained append-only log that
# survives kills and refuses a torn or edited log.
load helper
bats_require_minimum_version 1.5.0
load eval_fixtures
load run_cases

setup_file() {
	export FIX="$BATS_FILE_TMPDIR/fix"
	build_fixtures "$FIX"
}

setup() {
	TIE="$FIX/ps/ranking.ndjson"        # 5-way tie
	SEL="$FIX/sel/ranking.ndjson"       # selected native-fifo
	NONE="$FIX/none/ranking.ndjson"     # no eligible policy
	cd "$BATS_TEST_TMPDIR"
}

ok_approve() {
	approve --ranking "$TIE" --action native-preemptive-3600 --by "A. Person" --reason "${1:-pilot}" --at 2026-03-01T10:00:00Z --log log.ndjson
}

@test "approve: --help matches the man page, bad option exits 2" {
	assert_tool_invariants approve
}

@test "approve: the error cases (tests/cases/approve/*.case)" {
	ok_approve one; ok_approve two; ok_approve three
	run_cases approve tie="$TIE" sel="$SEL" none="$NONE" log3="$PWD/log.ndjson"
}

@test "approve: a --reason over the length limit is a usage error" {
	run approve --ranking "$TIE" --action native-fifo --by me --reason "$(head -c 5000 /dev/zero | tr '\0' x)"
	assert_failure 2
}

@test "approve: zstd and chunked rankings give the same approval line" {
	ok_approve
	zstd -q "$TIE" -o r.zst
	approve --ranking r.zst --action native-preemptive-3600 --by "A. Person" --reason pilot --at 2026-03-01T10:00:00Z --log z.ndjson
	feed_chunked "$TIE" approve --ranking - --action native-preemptive-3600 --by "A. Person" --reason pilot --at 2026-03-01T10:00:00Z --log c.ndjson
	cmp log.ndjson z.ndjson
	cmp log.ndjson c.ndjson
}

@test "approve: a tie is settled by appending a verified, chained approval" {
	ok_approve "first"
	approve --ranking "$TIE" --action native-fifo --by "B. Person" --reason 'second, "quoted"' --log log.ndjson
	approve --ranking "$SEL" --action native-fifo --by "C. Person" --reason "accept" --at 2026-03-02T00:00:00Z --log log.ndjson
	[ "$(wc -l < log.ndjson)" -eq 3 ]
	assert_schema log.ndjson
	run -0 check_self approval_fingerprint < log.ndjson
	assert_output "verified 3"
	run -0 jq -sc '[.[0].previous_fingerprint, .[1].previous_fingerprint == .[0].approval_fingerprint, .[2].previous_fingerprint == .[1].approval_fingerprint, [.[].selection_status], .[0].approved_at, .[1].reason]' log.ndjson
	assert_output '[null,true,true,["tie_requires_human_approval","tie_requires_human_approval","selected"],"2026-03-01T10:00:00Z","second, \"quoted\""]'
	ranking_fp=$(sed -n 2p "$TIE" | jq -r .ranking_fingerprint)
	[ "$(sed -n 1p log.ndjson | jq -r .ranking_fingerprint)" = "$ranking_fp" ]
	[ "$(sed -n 1p log.ndjson | jq -r .policy_fingerprint)" = "$(sed -n 2p "$TIE" | jq -r '.selected_policy_fingerprints[1]')" ]
	# Without --at the current UTC time is recorded.
	sed -n 2p log.ndjson | jq -r .approved_at | grep -Eq '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'
	# one line on stderr each time it succeeds, naming the log, the count and the chain's end
	run --separate-stderr approve --verify --log log.ndjson
	assert_success
	assert_output ""
	[ "$stderr" = "approve: 'log.ndjson': 3 approvals, the chain verifies (last fingerprint $(sed -n 3p log.ndjson | jq -r .approval_fingerprint))" ]
	run --separate-stderr approve --ranking "$SEL" --action native-fifo --by "D. Person" --reason "again" --log log.ndjson
	assert_success
	assert_output ""
	[ "$stderr" = "approve: approved 'native-fifo' as line 4 of 'log.ndjson' (fingerprint $(sed -n 4p log.ndjson | jq -r .approval_fingerprint))" ]
}

@test "approve: nothing is appended to a log with a removed line" {
	# (an edited or removed line under --verify: tests/cases/approve/log-line-*.case)
	ok_approve one; ok_approve two; ok_approve three
	sed 2d log.ndjson > removed.ndjson
	cp removed.ndjson appended.ndjson
	run approve --ranking "$TIE" --action native-fifo --by me --reason why --log appended.ndjson
	assert_failure 1
	cmp removed.ndjson appended.ndjson
}

@test "approve: a torn last line is refused with the repair command, then repaired" {
	ok_approve one
	good=$(stat -c %s log.ndjson)
	printf '{"type":"approval","ranking_fing' >> log.ndjson
	cp log.ndjson before.ndjson
	run ok_approve two
	assert_failure 1
	assert_output "approve: log.ndjson:2: torn last line (no newline: an earlier write was interrupted); refusing to append after it. Inspect it, then cut it off with 'truncate -s $good log.ndjson' and run approve again"
	cmp before.ndjson log.ndjson
	truncate -s "$good" log.ndjson
	ok_approve two
	approve --verify --log log.ndjson
	[ "$(wc -l < log.ndjson)" -eq 2 ]
}

@test "approve: SIGKILL at random points never leaves a torn or broken log" {
	for i in $(seq 1 20); do
		approve --ranking "$TIE" --action native-preemptive-g3600-b09-d0900 --by "K. Iller" \
			--reason "run $i $(head -c 3000 /dev/zero | tr '\0' r)" --log log.ndjson 2>/dev/null &
		pid=$!
		sleep "$(printf 0.%03d $((RANDOM % 150)))"   # 0-149 ms: an approve takes about 50 ms (fsync)
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	n=0
	if [ -e log.ndjson ]; then n=$(wc -l < log.ndjson); fi
	echo "# $n of 20 approvals completed before their SIGKILL" >&3
	[ "$n" -le 20 ]
	if [ -s log.ndjson ]; then
		[ "$(tail -c 1 log.ndjson | od -An -c | tr -d ' ')" = '\n' ]
	fi
	# The log stays appendable: one more approval lands and the whole chain verifies.
	approve --ranking "$TIE" --action native-fifo --by "After" --reason "after the kills" --log log.ndjson
	run approve --verify --log log.ndjson
	assert_success
	[ "$(wc -l < log.ndjson)" -eq $((n + 1)) ]
}

@test "approve: concurrent approvals serialise into one valid chain" {
	for i in $(seq 1 12); do
		approve --ranking "$TIE" --action native-fifo --by "P$i" --reason "parallel $i" --log log.ndjson &
	done
	wait
	[ "$(wc -l < log.ndjson)" -eq 12 ]
	approve --verify --log log.ndjson
}
