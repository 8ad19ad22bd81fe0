#!/usr/bin/env bats
# Saturated pools in the rolling ablation study (issue 34 point 3, pipelines/rolling.mk) and
# report(1)'s "Pool saturation" section (lib/report/section_saturation.c). The study is the
# tiny rolling ablation of tests/roll-ablation.bats (days 36-38 of GPU-series-2 at half the
# load): bounded at its 976 GPUs; judged at an explicit CAPACITY of 50 GPUs it is saturated.

load helper

STUDY=tests/data/roll/tiny-ablation.json

setup_file() {
	W="$BATS_FILE_TMPDIR/work"
	cd "$ROOT"
	make -s rolling-ablation ROLLING_STUDY="$STUDY" ROLLING_WORK="$W" ROLLING_BIN="$BIN" PROGRESS=no > "$BATS_FILE_TMPDIR/summary.out"
	cp "$W/tiny-ablation/evidence.ndjson" "$BATS_FILE_TMPDIR/evidence.ndjson"
}

setup() {
	W="$BATS_FILE_TMPDIR/work"
	S="$W/tiny-ablation"
	cd "$ROOT"
}

ra_make() {   # ra_make [make args...]: the study again, its summary on stdout
	make -s rolling-ablation ROLLING_STUDY="$STUDY" ROLLING_WORK="$W" ROLLING_BIN="$BIN" PROGRESS=no "$@"
}

@test "rolling-saturation: a bounded pool: saturation.ndjson holds its record, the summary says nothing of it" {
	assert_schema "$S/saturation.ndjson"
	run -0 jq -c 'select(.type == "pool_saturation") | [.gpu_model, .capacity_gpus, .capacity_source, .queue_unbounded, (.offered_load < 1)]' "$S/saturation.ndjson"
	assert_output '["GPU-series-2",976,"the trace'"'"'s nodes",false,true]'
	run -1 grep -E 'SATURATED|^pool |unbounded' "$BATS_FILE_TMPDIR/summary.out"
	[ "$(cat "$S/stamp/saturation.args")" = "trace-analyze 0.2.0 capacity  queue-figures " ] || fail "stamp: $(cat "$S/stamp/saturation.args")"
}

@test "rolling-saturation: CAPACITY=GPU-series-2=50 flags the pool, its queue figures become an unbounded backlog, nothing is simulated again" {
	run -0 ra_make CAPACITY=GPU-series-2=50
	local out=$output
	# every arm row's mean Spot p95 JCT column
	run -0 awk -F '\t' 'NR >= 2 && NR <= 6 { print $5 }' <<< "$out"
	assert_output "$(printf 'unbounded backlog\nunbounded backlog\nunbounded backlog\nunbounded backlog\nunbounded backlog')"
	run -0 grep -E '^pool GPU-series-2 \(50 GPUs, --capacity \(explicit\)\): offered load [0-9.]+x, demand above capacity in [0-9.]+ % of [0-9]+ hours \([0-9.]+x\): SATURATED$' <<< "$out"
	run -0 grep -Fx "a saturated pool's queue has no bound: whole-pool queue percentiles measure the trace length, not the policy" <<< "$out"
	run -0 grep -Fx "whole-pool queue figures: unbounded backlog (QUEUE_FIGURES=yes reports them)" <<< "$out"
	run -0 grep -Fx "capacity: --capacity GPU-series-2=50 (the simulations run on the trace's nodes)" <<< "$out"
	run -0 jq -c 'select(.type == "pool_saturation") | [.capacity_gpus, .queue_unbounded, (.offered_load > 1)]' "$S/saturation.ndjson"
	assert_output '[50,true,true]'
	cmp "$S/evidence.ndjson" "$BATS_FILE_TMPDIR/evidence.ndjson"
	# QUEUE_FIGURES=yes gives the numbers back and says they were asked for
	run -0 ra_make CAPACITY=GPU-series-2=50 QUEUE_FIGURES=yes
	out=$output
	run -0 awk -F '\t' 'NR == 2 { print $5 }' <<< "$out"
	assert_output --regexp '^[0-9]+\.[0-9]$'
	run -0 grep -Fx "whole-pool queue figures: reported (QUEUE_FIGURES=yes)" <<< "$out"
	# dropping both restores the summary byte for byte
	run -0 ra_make
	[ "$output" = "$(cat "$BATS_FILE_TMPDIR/summary.out")" ] || fail "the summary did not come back: $output"
	cmp "$S/evidence.ndjson" "$BATS_FILE_TMPDIR/evidence.ndjson"
}

@test "rolling-saturation: report shows a Pool saturation section from saturation.ndjson, and none without it" {
	M="$S/day-036/ordinary-fifo/metrics.ndjson.zst"
	run -0 report -o "$BATS_TEST_TMPDIR/plain.html" "$M"
	run -1 grep -c 'id="saturation"' "$BATS_TEST_TMPDIR/plain.html"
	run -0 report -o "$BATS_TEST_TMPDIR/bounded.html" "$M" "$S/saturation.ndjson"
	run -0 grep -c '<h2>Pool saturation</h2>' "$BATS_TEST_TMPDIR/bounded.html"
	run -0 grep -o '<tr><td>GPU-series-2</td><td class="num">976</td><td>the trace&#39;s nodes</td>' "$BATS_TEST_TMPDIR/bounded.html"
	run -0 grep -c 'No pool saturated' "$BATS_TEST_TMPDIR/bounded.html"
	trace-analyze --capacity GPU-series-2=50 -o "$BATS_TEST_TMPDIR/sat.nd" "$W/tiny-ablation/day-036/exec.trace.ndjson.zst"
	run -0 report -o "$BATS_TEST_TMPDIR/hot.html" "$M" "$BATS_TEST_TMPDIR/sat.nd"
	run -0 grep -o '<tr class="fail"><td>GPU-series-2</td><td class="num">50</td><td>--capacity (explicit)</td>' "$BATS_TEST_TMPDIR/hot.html"
	run -0 grep -c 'saturated: no bound' "$BATS_TEST_TMPDIR/hot.html"
	run -0 grep -c '1 of 1 pools saturated' "$BATS_TEST_TMPDIR/hot.html"
}

@test "rolling-saturation: a pool_saturation record without its gpu_model stops report with PATH:LINE and no page" {
	jq -c 'select(.type != "end") | if .type == "pool_saturation" then del(.gpu_model) else . end' "$S/saturation.ndjson" |
		stream-seal -o "$BATS_TEST_TMPDIR/bad.nd"
	run -1 report -o "$BATS_TEST_TMPDIR/bad.html" "$BATS_TEST_TMPDIR/bad.nd"
	assert_output --regexp "^report: $BATS_TEST_TMPDIR/bad.nd:[0-9]+: 'pool_saturation' record: no 'gpu_model'$"
	[ ! -e "$BATS_TEST_TMPDIR/bad.html" ] || fail "a page was written"
}
