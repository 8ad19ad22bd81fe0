#!/usr/bin/env bats
# study-lock: freeze and verify a study's selection lock. Fixtures are real tool outputs
# (tests/study_fixtures.bash): two calibration windows' metrics and audits, their rankings
# (rank), the calibration summary (aggregate) and the selection (study-select).

load helper
load study_fixtures
load run_cases

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
	# for the error cases: a lock of these inputs, and another summary (the first window only)
	local d=()
	for a in tiny schednav-demo-slo-v1 $ARMS; do d+=(--design "$FX/design/$a.json"); done
	study-lock "${d[@]}" --summary "$FX/summary.nd" --selection "$FX/selection.nd" --holdout-dir "$FX/holdout" -o "$FX/lock.nd"
	aggregate --window w0 $(files "$FX/w0") "$FX/w0/ranking.nd" -o "$FX/summary-w0.nd"
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

@test "study-lock: --help matches the man page, bad option exits 2" {
	assert_tool_invariants study-lock
}

@test "study-lock: the error cases (tests/cases/study-lock/*.case)" {
	run_cases study-lock fx="$FX"
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
