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

torn_message() {   # the refusal of a torn line LINE of log.ndjson that starts at byte GOOD
	echo "approve: log.ndjson:$1: torn last line (no newline: an earlier write was interrupted); refusing to append after it. Inspect it, then cut it off with 'truncate -s $2 log.ndjson' and run approve again"
}

cut_message() {   # the report of a torn line LINE of BYTES cut off at byte GOOD
	local whole=$(($1 - 1)) s=s
	[ "$whole" -ne 1 ] || s=
	echo "approve: log.ndjson:$1: cut off a torn last line ($2 bytes without a newline, left by an append that was interrupted before it was acknowledged); the log is back to its $whole whole line$s ($3 bytes)"
}

@test "approve: a torn last line is refused by --verify, then cut off by the next approve, which says so" {
	ok_approve one; ok_approve two
	good=$(stat -c %s log.ndjson)
	cp log.ndjson whole.ndjson
	printf '{"type":"approval","ranking_fing' >> log.ndjson
	cp log.ndjson before.ndjson
	# readers never take the torn line for a line: --verify refuses it and changes nothing
	run approve --verify --log log.ndjson
	assert_failure 1
	assert_output "$(torn_message 3 "$good")"
	cmp before.ndjson log.ndjson
	# the appender cuts it off under its lock, says so, then appends; the whole lines stay as they were
	run --separate-stderr approve --ranking "$TIE" --action native-fifo --by "B. Person" --reason three --log log.ndjson
	assert_success
	assert_output ""
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = "$(cut_message 3 32 "$good")" ]
	[ "${stderr_lines[1]}" = "approve: approved 'native-fifo' as line 3 of 'log.ndjson' (fingerprint $(sed -n 3p log.ndjson | jq -r .approval_fingerprint))" ]
	cmp -n "$good" whole.ndjson log.ndjson
	[ "$(sed -n 3p log.ndjson | jq -r .reason)" = three ]
	run --separate-stderr approve --verify --log log.ndjson
	assert_success
	[ "$stderr" = "approve: 'log.ndjson': 3 approvals, the chain verifies (last fingerprint $(sed -n 3p log.ndjson | jq -r .approval_fingerprint))" ]
	# the manual repair the message names still works too
	printf '{' >> log.ndjson
	size=$(stat -c %s log.ndjson)
	truncate -s $((size - 1)) log.ndjson
	approve --verify --log log.ndjson
}

@test "approve: a torn line is cut off whatever its length, the first line's and a whole record's without its newline" {
	# one byte of a torn first line: the log is back to empty and the approval is line 1
	printf '{' > log.ndjson
	run --separate-stderr ok_approve one
	assert_success
	[ "${stderr_lines[0]}" = "$(cut_message 1 1 0)" ]
	[ "$(wc -l < log.ndjson)" -eq 1 ]
	one=$(stat -c %s log.ndjson)
	# a torn line that is a whole record but lacks its newline was never acknowledged (an append
	# answers only after the newline is written and fsync'd): it is cut off as well
	ok_approve two
	head -c -1 log.ndjson > cut.ndjson
	mv cut.ndjson log.ndjson
	torn=$(($(stat -c %s log.ndjson) - one))
	run --separate-stderr ok_approve three
	assert_success
	[ "${stderr_lines[0]}" = "$(cut_message 2 "$torn" "$one")" ]
	[ "$(jq -r .reason log.ndjson | paste -sd' ')" = "one three" ]
	approve --verify --log log.ndjson
}

@test "approve: what no append leaves is refused, never cut off: foreign text, a NUL, a bad line before a torn one" {
	ok_approve one; ok_approve two
	good=$(stat -c %s log.ndjson)
	cp log.ndjson whole.ndjson
	for tail in 'not json' '{"type":"bridge_call",' '{"type":"approval"}' '{"type":"appr\0'; do
		cp whole.ndjson log.ndjson
		printf "$tail" >> log.ndjson
		cp log.ndjson before.ndjson
		run ok_approve three
		assert_failure 1
		assert_output "$(torn_message 3 "$good")"
		cmp before.ndjson log.ndjson
	done
	# a last line with its newline that fails its fingerprint is a damaged log, not a torn one
	sed '2s/"reason":"two"/"reason":"TWO"/' whole.ndjson > log.ndjson
	cp log.ndjson before.ndjson
	run ok_approve three
	assert_failure 1
	assert_output "approve: log.ndjson:2: 'approval_fingerprint' does not verify (the line was edited)"
	cmp before.ndjson log.ndjson
	# a torn tail is cut off only when every line before it verifies
	printf '{"type":"approval","ranking_fing' >> log.ndjson
	cp log.ndjson before.ndjson
	run ok_approve three
	assert_failure 1
	assert_output "approve: log.ndjson:2: 'approval_fingerprint' does not verify (the line was edited)"
	cmp before.ndjson log.ndjson
}

@test "approve: a short write is taken back, the log stays as it was" {
	ok_approve one
	cp log.ndjson before.ndjson
	[ "$(stat -c %s log.ndjson)" -lt 1024 ]
	# a 1 KiB file size limit (SIGXFSZ ignored) stops the write of a 2 KiB line part way
	run bash -c 'trap "" XFSZ; ulimit -f 1; exec approve --ranking "$1" --action native-fifo --by me --reason "$2" --log log.ndjson' \
		_ "$TIE" "$(head -c 2000 /dev/zero | tr '\0' r)"
	assert_failure 1
	assert_output "approve: log.ndjson: short write (partial line); run 'approve --verify --log log.ndjson'"
	cmp before.ndjson log.ndjson
}

@test "approve: SIGKILL at random points never leaves a torn or broken log" {
	# Each approve is killed at a random point (seeded) within 1.5 times what one approve
	# takes here, measured first (about 50 ms in a plain build, far more under ASan or load),
	# so the kills land before, inside and after the append on any machine. After each kill
	# the log is its whole lines from before, unchanged, then at most new whole lines and at
	# most one torn last line that --verify refuses; the next approve cuts that off. Every
	# approval that was acknowledged stays in the log at its line.
	RANDOM=20261201
	local i n ms prefix torn=0 t0 window
	t0=${EPOCHREALTIME/./}
	approve --ranking "$TIE" --action native-fifo --by "Timer" --reason "how long one takes" --log timed.ndjson 2>/dev/null
	window=$(((${EPOCHREALTIME/./} - t0) * 3 / 2000 + 1))   # ms
	touch log.ndjson
	for i in $(seq 1 20); do
		prefix=$(head -n "$(wc -l < log.ndjson)" log.ndjson | wc -c)   # its whole lines
		cp log.ndjson prev.ndjson
		approve --ranking "$TIE" --action native-preemptive-g3600-b09-d0900 --by "K. Iller" \
			--reason "run $i $(head -c 3000 /dev/zero | tr '\0' r)" --log log.ndjson 2> "err.$i" &
		pid=$!
		ms=$(((RANDOM * 32768 + RANDOM) % window))
		sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		# acknowledged lines are never rewritten (a cut removes only what is after them)
		cmp -n "$prefix" prev.ndjson log.ndjson || fail "kill $i: the lines before changed"
		run approve --verify --log log.ndjson
		if [ "$status" -ne 0 ]; then
			whole=$(($(wc -l < log.ndjson)))
			good=$(head -n "$whole" log.ndjson | wc -c)
			[ "$output" = "$(torn_message $((whole + 1)) "$good")" ] || fail "kill $i: $output"
			torn=$((torn + 1))
		elif [ -s log.ndjson ]; then
			[ "$(tail -c 1 log.ndjson | od -An -c | tr -d ' ')" = '\n' ] || fail "kill $i: a log without its last newline verifies"
		fi
	done
	n=$(wc -l < log.ndjson)
	echo "# $n of 20 approvals completed before their SIGKILL (kills within $window ms); $torn kills left a torn line" >&3
	[ "$n" -le 20 ]
	# every approval that said so is in the log, at the line and with the fingerprint it named
	for i in $(seq 1 20); do
		if grep -q "^approve: approved " "err.$i"; then
			line=$(sed -n "s/^approve: approved '[^']*' as line \([0-9]*\) .*/\1/p" "err.$i")
			fp=$(sed -n 's/.*(fingerprint \([0-9a-f]*\))$/\1/p' "err.$i")
			[ "$(sed -n "${line}p" log.ndjson | jq -r .approval_fingerprint)" = "$fp" ] || fail "approval $i was lost"
		fi
	done
	# The log stays appendable: one more approval lands (after a cut, if the last kill tore a
	# line) and the whole chain verifies.
	approve --ranking "$TIE" --action native-fifo --by "After" --reason "after the kills" --log log.ndjson
	run approve --verify --log log.ndjson
	assert_success
	[ "$(wc -l < log.ndjson)" -eq $((n + 1)) ]
	[ "$(tail -c 1 log.ndjson | od -An -c | tr -d ' ')" = '\n' ]
}

@test "approve: concurrent approvals serialise into one valid chain" {
	for i in $(seq 1 12); do
		approve --ranking "$TIE" --action native-fifo --by "P$i" --reason "parallel $i" --log log.ndjson &
	done
	wait
	[ "$(wc -l < log.ndjson)" -eq 12 ]
	approve --verify --log log.ndjson
}
