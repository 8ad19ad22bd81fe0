#!/usr/bin/env bats
# stream-seal: write correct end records after hand-made or edited stream bodies
# (body: the hand-computed trace of tests/cases/trace-scan/known.body).

load helper

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

@test "stream-seal: malformed input exits 1 with PATH:LINE" {
	run stream-seal < /dev/null
	assert_failure 1
	assert_output "stream-seal: <stdin>: empty input: expected a header line"
	run stream-seal -i "$CASES/gen-trace.py"
	assert_failure 1
	assert_output --partial "$CASES/gen-trace.py:1: invalid JSON"
	printf '{"type":"job"}\n' > "$T/nohdr"
	run stream-seal -i "$T/nohdr" -o "$T/x.nd"
	assert_failure 1
	assert_output "stream-seal: $T/nohdr:1: 'job' record before any header"
	[ ! -e "$T/x.nd" ]
	printf '{"type":"header","schema":"x/1"}\n[1]\n' > "$T/arr"
	run stream-seal -i "$T/arr"
	assert_failure 1
	assert_output "stream-seal: $T/arr:2: record is not an object with a string 'type'"
	printf '{"type":"header"}\n' > "$T/noschema"
	run stream-seal -i "$T/noschema"
	assert_failure 1
	assert_output "stream-seal: $T/noschema:1: header has no string 'schema'"
	head -c -1 "$CASES/known.body" > "$T/trunc"
	run stream-seal -i "$T/trunc"
	assert_failure 1
	assert_output "stream-seal: $T/trunc:8: truncated input: last line has no newline"
}

@test "stream-seal: a truncated stream (last line cut short) names PATH:LINE and writes nothing" {
	head -c -20 "$T/known.nd" > "$T/cut.nd"
	run stream-seal -i "$T/cut.nd" -o "$T/out.nd"
	assert_failure 1
	assert_output --regexp "^stream-seal: $T/cut.nd:9: "
	assert_no_output "$T/out.nd"
	zstd -q -c "$T/cut.nd" > "$T/cut.nd.zst"
	run stream-seal -i "$T/cut.nd.zst" -o "$T/out.nd.zst"
	assert_failure 1
	assert_output --regexp "^stream-seal: $T/cut.nd.zst:9: "
	[ ! -e "$T/out.nd.zst" ]
}

@test "stream-seal: an edited body line is kept byte for byte under a new fingerprint; a broken one is refused" {
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
	# an edit that breaks the JSON is named
	sed '3s/}$/,}/' "$T/known.nd" > "$T/broken.nd"
	run stream-seal -i "$T/broken.nd"
	assert_failure 1
	assert_output --regexp "^stream-seal: $T/broken.nd:3: invalid JSON"
}
