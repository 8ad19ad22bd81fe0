#!/usr/bin/env bats
# Saturated pools in a study (issue 34 point 3, pipelines/study-evidence.sh): a pool whose
# offered load is above its capacity is flagged in summary.txt and evidence.json, its
# whole-pool queue figures are an unbounded backlog unless QUEUE_FIGURES=yes, and a capacity
# changes only by CAPACITY=MODEL=GPUS, recorded in the receipt. A bounded pool's receipt is
# what it was. The saturated trace is configs/studies/tiny.json's trace without node n2
# (24 -> 16 A100 GPUs); every study here is that tiny study (a few seconds).

load helper

setup_file() {
	export H="$BATS_FILE_TMPDIR"
	zstdcat "$ROOT/tests/data/study/tiny.trace.ndjson.zst" | grep -v '"node_id":"n2"' | grep -v '^{"type":"end"' |
		stream-seal -o "$H/hot.trace.ndjson"
	jq --arg t "$H/hot.trace.ndjson" '.trace.stream = $t' "$ROOT/configs/studies/tiny.json" > "$H/hot.json"
}

hot_make() {   # hot_make WORKDIR [make args...]
	local work=$1
	shift
	make -C "$ROOT" --no-print-directory STUDY="$H/hot.json" STUDY_WORK="$work" STUDY_BIN="$BIN" PROGRESS=no holdout "$@"
}

# The offered load computed here, apart from the C code: GPU-seconds inside hours 0..6 over
# 16 GPUs x 7 h.
offered() {
	zstdcat "$ROOT/tests/data/study/tiny.trace.ndjson.zst" | jq -s '[.[] | select(.type == "job") | select(([.submit + .duration, 25200] | min) > .submit)
		   | (([.submit + .duration, 25200] | min) - .submit) * .gpus] | add / (16 * 25200) * 1e6 | round / 1e6'
}

@test "study-saturation: a bounded pool's receipt carries no saturation and keeps its queue figures" {
	make -C "$ROOT" --no-print-directory STUDY=configs/studies/tiny.json STUDY_WORK="$BATS_TEST_TMPDIR/w" STUDY_BIN="$BIN" \
		PROGRESS=no holdout > /dev/null
	# the tiny trace: 5.21x by touched hours (its jobs are short), offered load 0.91: bounded
	run -0 trace-analyze --saturation "$ROOT/tests/data/study/tiny.trace.ndjson.zst"
	run -0 jq -c 'select(.type == "pool_saturation") | [.demand_over_capacity, .saturated, .offered_load, .queue_unbounded]' <<< "$output"
	assert_output '[5.214286,true,0.911447,false]'
	run -0 jq -c '.saturation' "$BATS_TEST_TMPDIR/w/tiny/evidence.json"
	assert_output 'null'
	run -0 jq -r '[.calibration.arms[], .holdout.arms[]] | map(.spot_jct_p95_seconds | type) | unique | join(" ")' "$BATS_TEST_TMPDIR/w/tiny/evidence.json"
	assert_output 'object'
	run grep -c -e '^pool ' -e 'queue' "$BATS_TEST_TMPDIR/w/tiny/summary.txt"
	[ "$status" -eq 1 ] || fail "grep status $status"
	assert_output '0'
	[ ! -e "$BATS_TEST_TMPDIR/w/tiny/stamp/saturation.args" ] || fail "a stamp without the options"
}

@test "study-saturation: a saturated pool is flagged; its queue figures are an unbounded backlog" {
	run -0 hot_make "$BATS_TEST_TMPDIR/w"
	local want
	want=$(offered)
	[ "$want" = 1.36717 ] || fail "offered load by jq: $want"
	run -0 sed -n '/^pool /,/^whole-pool/p' "$BATS_TEST_TMPDIR/w/hot/summary.txt"
	assert_output "pool A100 (16 GPUs, the trace's nodes): offered load 1.37x, demand above capacity in 100 % of 7 hours (7.82x): SATURATED
a saturated pool's queue has no bound: whole-pool queue percentiles measure the trace length, not the policy
whole-pool queue figures: unbounded backlog (QUEUE_FIGURES=yes reports them)"
	run -0 jq -c '.saturation | [.pools[] | [.gpu_model, .capacity_gpus, .capacity_source, .hours, .hours_above_capacity_share,
		.demand_over_capacity, .offered_load, .queue_unbounded]] + [.capacity_args, .queue_figures]' "$BATS_TEST_TMPDIR/w/hot/evidence.json"
	assert_output '[["A100",16,"the trace'"'"'s nodes",7,1,7.821429,1.36717,true],"","unbounded_backlog"]'
	run -0 jq -r '[.calibration.arms[], .holdout.arms[]] | map(.spot_jct_p95_seconds) | join(" ")' "$BATS_TEST_TMPDIR/w/hot/evidence.json"
	assert_output 'unbounded_backlog unbounded_backlog unbounded_backlog unbounded_backlog unbounded_backlog unbounded_backlog'
	# eligibility is unchanged: the same four windows as the bounded study
	run -0 jq -r '.windows | map(.window_id) | join(" ")' "$BATS_TEST_TMPDIR/w/hot/evidence.json"
	assert_output 'window-0000 window-0001 window-0002 window-0003'
}

@test "study-saturation: QUEUE_FIGURES=yes gives the figures; CAPACITY is explicit and recorded; dropping both restores the receipt" {
	hot_make "$BATS_TEST_TMPDIR/w" > /dev/null
	cp "$BATS_TEST_TMPDIR/w/hot/evidence.json" "$BATS_TEST_TMPDIR/flagged.json"
	run -0 hot_make "$BATS_TEST_TMPDIR/w" QUEUE_FIGURES=yes
	assert_line 'whole-pool queue figures: reported (QUEUE_FIGURES=yes)'
	run -0 jq -r '[.calibration.arms[], .holdout.arms[]] | map(.spot_jct_p95_seconds | type) | unique | join(" ")' "$BATS_TEST_TMPDIR/w/hot/evidence.json"
	assert_output 'object'
	# the nodes' 16 GPUs declared as 24: not saturated, but the change is on record
	run -0 hot_make "$BATS_TEST_TMPDIR/w" CAPACITY=A100=24
	assert_line "pool A100 (24 GPUs, --capacity (explicit)): offered load 0.91x, demand above capacity in 100 % of 7 hours (5.21x)"
	run -0 jq -c '.saturation | [.capacity_args, .queue_figures, .pools[0].queue_unbounded]' "$BATS_TEST_TMPDIR/w/hot/evidence.json"
	assert_output '["--capacity A100=24","reported",false]'
	run -0 jq -r '[.calibration.arms[], .holdout.arms[]] | map(.spot_jct_p95_seconds | type) | unique | join(" ")' "$BATS_TEST_TMPDIR/w/hot/evidence.json"
	assert_output 'object'
	# a model the trace does not have stops the receipt (trace-analyze's message), nothing written
	run hot_make "$BATS_TEST_TMPDIR/w" CAPACITY=H100=8
	[ "$status" -eq 2 ] || fail "status $status"
	assert_line --index 0 "trace-analyze: $H/hot.trace.ndjson: --capacity: no GPU model 'H100' in the trace"
	[ ! -e "$BATS_TEST_TMPDIR/w/hot/evidence.json" ] || fail "a receipt was left"
	# without the options the receipt is the flagged one again
	hot_make "$BATS_TEST_TMPDIR/w" > /dev/null
	cmp "$BATS_TEST_TMPDIR/flagged.json" "$BATS_TEST_TMPDIR/w/hot/evidence.json"
}
