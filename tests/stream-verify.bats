#!/usr/bin/env bats
# stream-verify: complete, unedited streams and their made-from links. Fixtures are real
# tool outputs: the hand-made trace of tests/cases/trace-scan/known.body sealed by
# stream-seal, a trace-window slice of it and a sim-run result of the slice.

load helper
load run_cases

CASES="$ROOT/tests/cases/trace-scan"

setup_file() {
	export FX="$BATS_FILE_TMPDIR"
	stream-seal -i "$CASES/known.body" -o "$FX/trace.nd"
	trace-window --eval-start 0 --eval-end 150 -i "$FX/trace.nd" -o "$FX/slice.nd"
	sim-run --policy "$ROOT/configs/policies/native-fifo.json" -o "$FX/result.nd" < "$FX/slice.nd"
}

setup() {
	T="$BATS_TEST_TMPDIR"
}

# The end fingerprint of a stream file, read independently of stream-verify.
end_fp() { zstdcat -qf "$1" | tail -n 1 | jq -r 'select(.type == "end") | .fingerprint'; }

# seal_broken_last_line SRC DST: SRC with its last body line made invalid JSON (",}"), and an
# end record with correct fingerprints (computed by tests/stream_edit.py, not by lib/core).
seal_broken_last_line() {
	python3 - "$ROOT/tests" "$1" "$2" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
del sys.argv[1]
from stream_edit import xxh3, canon
lines = open(sys.argv[1], "rb").read().split(b"\n")[:-1]
head, body = lines[0], lines[1:-1]
body[-1] = body[-1][:-1] + b",}"
raw = b"".join(l + b"\n" for l in body)
end = canon({"type": "end", "records": len(body), "fingerprint": xxh3(raw), "header_fingerprint": xxh3(head + b"\n")}).encode()
open(sys.argv[2], "wb").write(b"".join(l + b"\n" for l in [head] + body + [end]))
PY
}

@test "stream-verify: --help matches the man page, bad option exits 2, no FILE reads stdin" {
	assert_tool_invariants stream-verify
	run stream-verify -p < "$FX/trace.nd"
	assert_success
	assert_output "$(end_fp "$FX/trace.nd")"
}

@test "stream-verify: the error cases (tests/cases/stream-verify/*.case)" {
	run_cases stream-verify fx="$FX"
}

@test "stream-verify: good streams verify; -p prints each file's last stream fingerprint" {
	run stream-verify "$FX/trace.nd" "$FX/slice.nd" "$FX/result.nd"
	assert_success
	assert_output ""
	run stream-verify -p "$FX/trace.nd" "$FX/slice.nd" "$FX/result.nd"
	assert_success
	assert_output "$(end_fp "$FX/trace.nd")
$(end_fp "$FX/slice.nd")
$(end_fp "$FX/result.nd")"
	# three distinct streams, three distinct fingerprints
	[ "$(echo "$output" | sort -u | wc -l)" -eq 3 ]
	# two streams in one file: both verified, the last one printed
	cat "$FX/slice.nd" "$FX/trace.nd" > "$T/two.nd"
	run stream-verify -p "$T/two.nd"
	assert_success
	assert_output "$(end_fp "$FX/trace.nd")"
}

@test "stream-verify: body lines are read without their tree but still checked as JSON objects with a type" {
	# the quick path only accepts a JSON object whose first key is a plain "type" other than
	# header or end; everything else gets the reader's full parse and its message
	bad() {   # bad SED MESSAGE: line 3 of the trace edited by SED is refused with MESSAGE
		sed "3$1" "$FX/trace.nd" > "$T/bad.nd"
		run stream-verify "$T/bad.nd"
		assert_failure 1
		assert_output --partial "stream-verify: $T/bad.nd:3: $2"
	}
	# (the other malformed lines are case files: tests/cases/stream-verify/body-*.case)
	bad 's/"/\xff"/4' "invalid JSON"
	# a valid line of another shape (type not first) still verifies through the full parse
	sed '3s/^{"type":"\([a-z]*\)",\(.*\)}$/{\2,"type":"\1"}/' "$FX/trace.nd" | grep -v '"type":"end"' | stream-seal -o "$T/moved.nd"
	head -3 "$T/moved.nd" | tail -1 | grep -q '^{"job_id"'
	stream-verify "$T/moved.nd"
}

@test "stream-verify: a consumer refuses an edited header (the evaluation window) as stream-verify does" {
	# (stream-verify's refusal: tests/cases/stream-verify/edited-header.case)
	sed '1s/"eval_end":150/"eval_end":140/' "$FX/slice.nd" > "$T/edited.nd"
	! cmp -s "$T/edited.nd" "$FX/slice.nd" || fail "the edit changed nothing"
	# a consumer refuses it instead of reporting another allocation
	run sim-run --policy "$ROOT/configs/policies/native-fifo.json" -i "$T/edited.nd"
	assert_failure 1
	assert_output --partial "header fingerprint mismatch"
}

@test "stream-verify: a stream without header_fingerprint (before 0.2) verifies once resealed" {
	# (its refusal naming the reseal command: tests/cases/stream-verify/end-without-header-fingerprint.case)
	sed '$s/,"header_fingerprint":"[0-9a-f]*"}$/}/' "$FX/trace.nd" > "$T/old.nd"
	! cmp -s "$T/old.nd" "$FX/trace.nd" || fail "the edit changed nothing"
	stream-seal -i "$T/old.nd" -o "$T/resealed.nd"
	run stream-verify "$T/resealed.nd"
	assert_success
	cmp "$T/resealed.nd" "$FX/trace.nd" || fail "resealing did not restore the stream"
}

@test "stream-verify: --made-from accepts what a file was made from and names what it was not" {
	run stream-verify -p --made-from "$FX/trace.nd" "$FX/slice.nd"
	assert_success
	assert_output "$(end_fp "$FX/slice.nd")"
	run stream-verify --made-from "$FX/slice.nd" "$FX/result.nd"
	assert_success
	# (the refusals, direct link, direction, several inputs, a made-from file that does not
	# verify, are case files: tests/cases/stream-verify/made-from-*.case)
	# a slice of an edited (resealed) trace is not a slice of the original
	sed 's/"duration":5,/"duration":6,/' "$FX/trace.nd" | stream-seal -o "$T/other.nd"
	trace-window --eval-start 0 --eval-end 150 -i "$T/other.nd" -o "$T/other-slice.nd"
	run stream-verify --made-from "$FX/trace.nd" "$T/other-slice.nd"
	assert_failure 1
	assert_output --partial "was not made from"
}

@test "stream-verify: zstd files, zstd stdin and chunked stdin give the same fingerprints" {
	stream-verify -p "$FX/result.nd" > "$T/plain"
	zstd -q -c "$FX/result.nd" > "$T/result.nd.zst"
	run stream-verify -p "$T/result.nd.zst"
	assert_success
	assert_output "$(cat "$T/plain")"
	run stream-verify -p - < "$T/result.nd.zst"
	assert_success
	assert_output "$(cat "$T/plain")"
	run feed_chunked "$FX/result.nd" stream-verify -p -
	assert_success
	assert_output "$(cat "$T/plain")"
	run feed_chunked "$T/result.nd.zst" stream-verify -p -
	assert_success
	assert_output "$(cat "$T/plain")"
	# a zstd made-from input works too, and a truncated zstd file is named
	zstd -q -c "$FX/slice.nd" > "$T/slice.nd.zst"
	stream-verify --made-from "$T/slice.nd.zst" "$T/result.nd.zst"
	head -n -1 "$FX/result.nd" | zstd -q -c > "$T/cut.nd.zst"
	run stream-verify "$T/cut.nd.zst"
	assert_failure 1
	assert_output --regexp "^stream-verify: $T/cut.nd.zst:[0-9]+: truncated stream"
}

@test "stream-verify: --repetitions takes an equal repetition without parsing it again, and verifies a differing one in full" {
	cp "$FX/result.nd" "$T/rep-1.nd"
	cp "$FX/result.nd" "$T/rep-2.nd"
	run stream-verify -p -r --made-from "$FX/slice.nd" "$T/rep-1.nd" "$T/rep-2.nd"
	assert_success
	assert_output "$(end_fp "$FX/result.nd")
$(end_fp "$FX/result.nd")"
	# a repetition whose last body line is no JSON, sealed with correct fingerprints: it differs
	# from the first, so it is parsed, and refused at its line
	seal_broken_last_line "$FX/result.nd" "$T/bad.nd"
	local n
	n=$(wc -l < "$T/bad.nd")
	run stream-verify -p -r "$T/rep-1.nd" "$T/bad.nd"
	assert_failure 1
	assert_output --partial "$T/bad.nd:$((n - 1)):"
	# the same file is refused without --repetitions, and as the first file
	run stream-verify "$T/bad.nd"
	assert_failure 1
	run stream-verify -r "$T/bad.nd" "$T/rep-1.nd"
	assert_failure 1
	assert_output --partial "$T/bad.nd:$((n - 1)):"
	# a valid repetition that differs is verified and printed: telling them apart is the caller's
	sim-run --policy "$ROOT/configs/policies/native-preemptive-3600.json" -o "$T/other.nd" < "$FX/slice.nd"
	run stream-verify -p -r "$T/rep-1.nd" "$T/other.nd"
	assert_success
	assert_line --index 1 "$(end_fp "$T/other.nd")"
	# a repetition on standard input is verified in full
	run stream-verify -p -r "$T/rep-1.nd" - < "$T/bad.nd"
	assert_failure 1
}

@test "stream-verify: a --made-from INPUT is checked for its framing and fingerprints, not parsed again" {
	# a slice whose last body line is no JSON, sealed with correct fingerprints: as an INPUT it
	# gives its fingerprint (the link is refused: the result was not made from it), as a FILE it fails
	seal_broken_last_line "$FX/slice.nd" "$T/bad.nd"
	run stream-verify --made-from "$T/bad.nd" "$FX/result.nd"
	assert_failure 1
	assert_output --partial "was not made from '$T/bad.nd'"
	run stream-verify "$T/bad.nd"
	assert_failure 1
	assert_output --partial "$T/bad.nd:"
	# an edited INPUT line still fails at the fingerprint
	sed '2s/"job_id":"/"job_id":"x/; 2s/"gpu_count":/"gpu_count":1/' "$FX/slice.nd" > "$T/edited.nd"
	if cmp -s "$T/edited.nd" "$FX/slice.nd"; then fail "the edit changed nothing"; fi
	run stream-verify --made-from "$T/edited.nd" "$FX/result.nd"
	assert_failure 1
	assert_output --partial "$T/edited.nd:"
}
