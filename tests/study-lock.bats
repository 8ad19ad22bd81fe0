#!/usr/bin/env bats
# study-lock: freeze and verify a study's selection lock. Fixtures are real tool outputs
# (tests/study_fixtures.bash): two calibration windows' metrics and audits, their rankings
# (rank), the calibration summary (aggregate) and the selection (study-select).

load helper
load study_fixtures

setup_file() {
	export FX="$BATS_FILE_TMPDIR"
	build_windows "$FX"
	local w
	for w in w0 w1; do
		cat $(files "$FX/$w") | rank --slo "$SLO" -o "$FX/$w/ranking.nd"
	done
	aggregate --window w0 $(files "$FX/w0") "$FX/w0/ranking.nd" --window w1 $(files "$FX/w1") "$FX/w1/ranking.nd" -o "$FX/summary.nd"
	study-select --window w0 $(files "$FX/w0") --window w1 $(files "$FX/w1") -o "$FX/selection.nd"
	# another selection of the same windows (another band): same status, other fingerprint
	study-select --band 0.5 --window w0 $(files "$FX/w0") --window w1 $(files "$FX/w1") -o "$FX/selection-b05.nd"
	mkdir "$FX/design"
	cp "$ROOT/configs/studies/tiny.json" "$SLO" "$FX/design/"
	for a in $ARMS; do cp "$ROOT/configs/policies/$a.json" "$FX/design/"; done
}

setup() {
	T="$BATS_TEST_TMPDIR"
	DESIGN=(--design "$FX/design/tiny.json" --design "$FX/design/schednav-demo-slo-v1.json")
	for a in $ARMS; do DESIGN+=(--design "$FX/design/$a.json"); done
	INPUTS=("${DESIGN[@]}" --summary "$FX/summary.nd" --selection "$FX/selection.nd")
}

lock_record() { zstdcat -qf "$1" | jq -c 'select(.type == "selection-lock")'; }

# The design fingerprint computed here: XXH3-128 over "<length>\n<bytes>" of each file in
# order, through the system libxxhash (the library lib/core links) via ctypes.
design_fp() {
	python3 - "$@" <<'PY'
import ctypes, sys
class H(ctypes.Structure):
    _fields_ = [("low64", ctypes.c_uint64), ("high64", ctypes.c_uint64)]
lib = ctypes.CDLL("libxxhash.so.0")
lib.XXH3_128bits.restype = H
lib.XXH3_128bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
data = b""
for p in sys.argv[1:]:
    b = open(p, "rb").read()
    data += b"%d\n" % len(b) + b
h = lib.XXH3_128bits(data, len(data))
print("%016x%016x" % (h.high64, h.low64))
PY
}

@test "study-lock: --help matches the man page, bad option exits 2, incomplete forms exit 2" {
	assert_tool_invariants study-lock
	run study-lock "${DESIGN[@]}" --summary "$FX/summary.nd" --holdout-dir "$T/h" -o "$T/lock.nd"
	assert_failure 2
	assert_output --partial "need --design, --summary and --selection"
	run study-lock "${INPUTS[@]}" -o "$T/lock.nd"
	assert_failure 2
	assert_output --partial "need --holdout-dir and --output"
	run study-lock --verify "$T/lock.nd" "${INPUTS[@]}" -o "$T/other.nd"
	assert_failure 2
	assert_output --partial "--verify takes no --output or --holdout-dir"
	[ ! -e "$T/lock.nd" ]
}

@test "study-lock: creates a lock fingerprinting the design, summary and selection" {
	run study-lock "${INPUTS[@]}" --holdout-dir "$T/holdout" -o "$T/lock.nd"
	assert_success
	stream-verify --made-from "$FX/summary.nd" --made-from "$FX/selection.nd" "$T/lock.nd"
	rec=$(lock_record "$T/lock.nd")
	[ "$(jq -r .design_fingerprint <<< "$rec")" = "$(design_fp "$FX/design/tiny.json" "$FX/design/schednav-demo-slo-v1.json" $(for a in $ARMS; do printf '%s ' "$FX/design/$a.json"; done))" ]
	[ "$(jq -r .calibration_summary_fingerprint <<< "$rec")" = "$(stream-verify -p "$FX/summary.nd")" ]
	[ "$(jq -r .selection_fingerprint <<< "$rec")" = "$(stream-verify -p "$FX/selection.nd")" ]
	# status and arms copied from the selection
	[ "$(jq -c '[.selection_status, .selected_action_ids, .human_approval_required]' <<< "$rec")" = \
	  "$(jq -c 'select(.type == "selection") | [.selection_status, .selected_action_ids, .human_approval_required]' "$FX/selection.nd")" ]
	[ "$(jq -c '[.holdout_output_count_at_freeze, .holdout_outputs_absent]' <<< "$rec")" = '[0,true]' ]
	# the record's own fingerprint verifies (independent XXH3 in Python)
	sed -n 2p "$T/lock.nd" | python3 "$ROOT/tests/stream_edit.py" --check-self fingerprint
	# the design order matters
	study-lock --design "$FX/design/schednav-demo-slo-v1.json" --design "$FX/design/tiny.json" \
		--summary "$FX/summary.nd" --selection "$FX/selection.nd" --holdout-dir "$T/holdout" -o "$T/swapped.nd"
	[ "$(lock_record "$T/swapped.nd" | jq -r .design_fingerprint)" != "$(jq -r .design_fingerprint <<< "$rec")" ]
	# --verify accepts it
	run study-lock --verify "$T/lock.nd" "${INPUTS[@]}"
	assert_success
	assert_output ""
}

@test "study-lock: an identical rewrite is allowed, also after holdout outputs exist" {
	study-lock "${INPUTS[@]}" --holdout-dir "$T/holdout" -o "$T/lock.nd"
	cp "$T/lock.nd" "$T/first.nd"
	mkdir -p "$T/holdout/window-0002"
	echo x > "$T/holdout/window-0002/slice.trace.ndjson.zst"
	run study-lock "${INPUTS[@]}" --holdout-dir "$T/holdout" -o "$T/lock.nd"
	assert_success
	cmp "$T/lock.nd" "$T/first.nd"
}

@test "study-lock: refuses to rewrite a changed lock or create one once holdout output exists" {
	study-lock "${INPUTS[@]}" --holdout-dir "$T/holdout" -o "$T/lock.nd"
	cp "$T/lock.nd" "$T/first.nd"
	# no holdout output yet: a changed calibration may still be re-locked
	study-lock "${DESIGN[@]}" --summary "$FX/summary.nd" --selection "$FX/selection-b05.nd" --holdout-dir "$T/holdout" -o "$T/lock.nd"
	! cmp -s "$T/lock.nd" "$T/first.nd" || fail "another selection gave the same lock"
	cp "$T/first.nd" "$T/lock.nd"
	# a temporary file of a killed writer is not an output
	mkdir -p "$T/holdout/w2/arm"
	: > "$T/holdout/w2/arm/rep-1.result.ndjson.zst.tmp"
	study-lock "${DESIGN[@]}" --summary "$FX/summary.nd" --selection "$FX/selection-b05.nd" --holdout-dir "$T/holdout" -o "$T/lock.nd"
	cp "$T/first.nd" "$T/lock.nd"
	# one real output: the lock is frozen
	: > "$T/holdout/w2/arm/rep-1.result.ndjson.zst"
	run study-lock "${DESIGN[@]}" --summary "$FX/summary.nd" --selection "$FX/selection-b05.nd" --holdout-dir "$T/holdout" -o "$T/lock.nd"
	assert_failure 1
	assert_output "study-lock: refusing to rewrite lock '$T/lock.nd': its 'selection_fingerprint' would change and 1 holdout outputs exist under '$T/holdout'"
	cmp "$T/lock.nd" "$T/first.nd"
	[ ! -e "$T/lock.nd.tmp" ]
	echo '{}' > "$T/extra.json"
	run study-lock "${INPUTS[@]}" --design "$T/extra.json" --holdout-dir "$T/holdout" -o "$T/lock.nd"
	assert_failure 1
	assert_output --partial "its 'design_fingerprint' would change"
	# no lock yet, but holdout outputs: refused
	run study-lock "${INPUTS[@]}" --holdout-dir "$T/holdout" -o "$T/new.nd"
	assert_failure 1
	assert_output "study-lock: refusing to create lock '$T/new.nd': 1 holdout outputs already exist under '$T/holdout'"
	[ ! -e "$T/new.nd" ]
}

@test "study-lock: --verify names the first field that does not match" {
	study-lock "${INPUTS[@]}" --holdout-dir "$T/holdout" -o "$T/lock.nd"
	run study-lock --verify "$T/lock.nd" "${DESIGN[@]}" --summary "$FX/summary.nd" --selection "$FX/selection-b05.nd"
	assert_failure 1
	assert_output "study-lock: lock '$T/lock.nd' does not match the recomputed calibration: 'selection_fingerprint' differs"
	mkdir "$T/d2"
	cp "$FX/design/tiny.json" "$T/d2/tiny.json"
	echo >> "$T/d2/tiny.json"
	run study-lock --verify "$T/lock.nd" --design "$T/d2/tiny.json" "${DESIGN[@]:2}" --summary "$FX/summary.nd" --selection "$FX/selection.nd"
	assert_failure 1
	assert_output "study-lock: lock '$T/lock.nd' does not match the recomputed calibration: 'design_fingerprint' differs"
	# another summary: a real aggregate of the first window only
	aggregate --window w0 $(files "$FX/w0") "$FX/w0/ranking.nd" -o "$T/summary-w0.nd"
	run study-lock --verify "$T/lock.nd" "${DESIGN[@]}" --summary "$T/summary-w0.nd" --selection "$FX/selection.nd"
	assert_failure 1
	assert_output "study-lock: lock '$T/lock.nd' does not match the recomputed calibration: 'calibration_summary_fingerprint' differs"
	# a forged lock (another arm selected, valid stream, stale own fingerprint) is refused first
	sed '$d' "$T/lock.nd" | sed '2s/"selected_action_ids":\[[^]]*\]/"selected_action_ids":["native-fifo"]/' | stream-seal -o "$T/forged.nd"
	stream-verify "$T/forged.nd"
	! cmp -s <(sed -n 2p "$T/forged.nd") <(sed -n 2p "$T/lock.nd") || fail "the forgery changed nothing"
	run study-lock --verify "$T/forged.nd" "${INPUTS[@]}"
	assert_failure 1
	assert_output "study-lock: $T/forged.nd: the lock's own fingerprint does not verify"
	# a stream that is not a lock
	run study-lock --verify "$FX/selection.nd" "${INPUTS[@]}"
	assert_failure 1
	assert_output "study-lock: $FX/selection.nd: no 'selection-lock' record"
}

@test "study-lock: empty input is an error" {
	run study-lock "${DESIGN[@]}" --summary /dev/null --selection "$FX/selection.nd" --holdout-dir "$T/h" -o "$T/lock.nd"
	assert_failure 1
	assert_output "study-lock: /dev/null: expected one stream, found 0"
	run study-lock "${DESIGN[@]}" --summary "$FX/summary.nd" --selection - --holdout-dir "$T/h" -o "$T/lock.nd" < /dev/null
	assert_failure 1
	assert_output "study-lock: <stdin>: expected one stream, found 0"
	: > "$T/empty.nd"
	run study-lock --verify "$T/empty.nd" "${INPUTS[@]}"
	assert_failure 1
	assert_output "study-lock: $T/empty.nd: expected one stream, found 0"
	[ ! -e "$T/lock.nd" ]
}

@test "study-lock: a truncated stream exits 1 with PATH:LINE and writes no lock" {
	head -n -1 "$FX/summary.nd" > "$T/cut.nd"
	n=$(wc -l < "$T/cut.nd")
	run study-lock "${DESIGN[@]}" --summary "$T/cut.nd" --selection "$FX/selection.nd" --holdout-dir "$T/h" -o "$T/lock.nd"
	assert_failure 1
	assert_output "study-lock: $T/cut.nd:$n: truncated stream: no 'end' record"
	assert_no_output "$T/lock.nd"
	study-lock "${INPUTS[@]}" --holdout-dir "$T/h" -o "$T/good.nd"
	head -c -2 "$T/good.nd" > "$T/torn.nd"
	run study-lock --verify "$T/torn.nd" "${INPUTS[@]}"
	assert_failure 1
	assert_output "study-lock: $T/torn.nd:3: truncated stream: last line has no newline"
}

@test "study-lock: an edited body line exits 1 (fingerprint mismatch)" {
	sed '2s/"selection_status":"[a-z_]*"/"selection_status":"selected"/' "$FX/selection.nd" > "$T/edited.nd"
	! cmp -s "$T/edited.nd" "$FX/selection.nd" || fail "the edit changed nothing"
	run study-lock "${DESIGN[@]}" --summary "$FX/summary.nd" --selection "$T/edited.nd" --holdout-dir "$T/h" -o "$T/lock.nd"
	assert_failure 1
	assert_output --regexp "^study-lock: $T/edited.nd:3: fingerprint mismatch: "
	[ ! -e "$T/lock.nd" ]
	# the same for an edited lock under --verify
	study-lock "${INPUTS[@]}" --holdout-dir "$T/h" -o "$T/good.nd"
	sed '2s/"holdout_output_count_at_freeze":0/"holdout_output_count_at_freeze":1/' "$T/good.nd" > "$T/edited-lock.nd"
	! cmp -s "$T/edited-lock.nd" "$T/good.nd" || fail "the edit changed nothing"
	run study-lock --verify "$T/edited-lock.nd" "${INPUTS[@]}"
	assert_failure 1
	assert_output --regexp "^study-lock: $T/edited-lock.nd:3: fingerprint mismatch: "
}

@test "study-lock: zstd inputs and a zstd lock, and chunked stdin give the same lock record" {
	study-lock "${INPUTS[@]}" --holdout-dir "$T/h" -o "$T/lock.nd"
	zstd -q -c "$FX/summary.nd" > "$T/summary.nd.zst"
	zstd -q -c "$FX/selection.nd" > "$T/selection.nd.zst"
	study-lock "${DESIGN[@]}" --summary "$T/summary.nd.zst" --selection "$T/selection.nd.zst" --holdout-dir "$T/h" -o "$T/lock.nd.zst"
	zstd -t -q "$T/lock.nd.zst"
	[ "$(lock_record "$T/lock.nd.zst")" = "$(lock_record "$T/lock.nd")" ]
	study-lock --verify "$T/lock.nd.zst" "${INPUTS[@]}"
	study-lock --verify "$T/lock.nd" "${DESIGN[@]}" --summary "$T/summary.nd.zst" --selection "$T/selection.nd.zst"
	# the summary fed 1-31 bytes at a time on stdin
	feed_chunked "$FX/summary.nd" study-lock "${DESIGN[@]}" --summary - --selection "$FX/selection.nd" --holdout-dir "$T/h" -o "$T/chunked.nd"
	[ "$(lock_record "$T/chunked.nd")" = "$(lock_record "$T/lock.nd")" ]
	feed_chunked "$T/lock.nd.zst" study-lock --verify - "${INPUTS[@]}"
}
