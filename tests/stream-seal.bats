#!/usr/bin/env bats
# stream-seal: write correct end records after hand-made or edited stream bodies
# (body: the hand-computed trace of tests/cases/trace-scan/known.body).

load helper
load run_cases

CASES="$ROOT/tests/cases/trace-scan"
SMALL=(--day-seconds 100 --sample-seconds 10 --min-hp 1 --min-spot 1)

setup() {
	T="$BATS_TEST_TMPDIR"
	stream-seal -i "$CASES/known.body" -o "$T/known.nd"
}

@test "stream-seal: invariants and sealing" {
	assert_tool_invariants stream-seal
	# the sealed stream reads back; a stale end record is replaced
	head -n 5 "$T/known.nd" > "$T/part"
	tail -n1 "$T/known.nd" >> "$T/part"
	stream-seal -i "$T/part" -o "$T/resealed.nd"
	run -0 tail -n1 "$T/resealed.nd"
	assert_output --regexp '^\{"type":"end","records":4,"fingerprint":"[0-9a-f]{32}","header_fingerprint":"[0-9a-f]{32}"\}$'
	trace-scan "${SMALL[@]}" --all-eligible -i "$T/resealed.nd" > /dev/null
	# body bytes are kept, two streams get two ends
	cat "$CASES/known.body" "$CASES/known.body" | stream-seal > "$T/two.nd"
	[ "$(grep -c '"type":"end"' "$T/two.nd")" -eq 2 ]
	diff <(grep -v '"type":"\(header\|end\)"' "$T/two.nd") <(cat <(tail -n +2 "$CASES/known.body") <(tail -n +2 "$CASES/known.body"))
	zstd -q -c "$CASES/known.body" | stream-seal -o "$T/z.nd.zst"
	cmp <(zstdcat "$T/z.nd.zst") "$T/known.nd"
	feed_chunked "$CASES/known.body" stream-seal > "$T/chunked.nd"
	cmp "$T/chunked.nd" "$T/known.nd"
}

@test "stream-seal: the error cases (tests/cases/stream-seal/*.case)" {
	run_cases stream-seal known="$T/known.nd"
}

@test "stream-seal: a truncated zstd stream (last line cut short) names PATH:LINE and writes nothing" {
	# (the same cut uncompressed is tests/cases/stream-seal/stream-cut-short.case)
	head -c -20 "$T/known.nd" > "$T/cut.nd"
	zstd -q -c "$T/cut.nd" > "$T/cut.nd.zst"
	run stream-seal -i "$T/cut.nd.zst" -o "$T/out.nd.zst"
	assert_failure 1
	assert_output --regexp "^stream-seal: $T/cut.nd.zst:9: "
	[ ! -e "$T/out.nd.zst" ]
}

@test "stream-seal: an edited body line is kept byte for byte under a new fingerprint" {
	sed 's/"duration":5,/"duration":6,/' "$T/known.nd" > "$T/edited.nd"
	! cmp -s "$T/edited.nd" "$T/known.nd" || fail "the edit changed nothing"
	# unsealed, the edit is caught by every reader
	run stream-verify "$T/edited.nd"
	assert_failure 1
	assert_output --partial "fingerprint mismatch"
	stream-seal -i "$T/edited.nd" -o "$T/resealed.nd"
	stream-verify "$T/resealed.nd"
	[ "$(stream-verify -p "$T/resealed.nd")" != "$(stream-verify -p "$T/known.nd")" ]
	diff <(sed '$d' "$T/edited.nd") <(sed '$d' "$T/resealed.nd")
	# (an edit that breaks the JSON: tests/cases/stream-seal/broken-body-line.case)
}
