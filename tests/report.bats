#!/usr/bin/env bats
# report: the HTML page and its charts in a headless browser (decision-table: tests/decision-table.bats).
load helper
load run_cases

setup_file() {
	export FX="$BATS_FILE_TMPDIR/fx"
	python3 "$ROOT/tests/cases/report/fixture.py" "$FX"
}

setup() {
	FX="$BATS_FILE_TMPDIR/fx"
	ALL=("$FX"/*.result.ndjson "$FX"/*.metrics.ndjson "$FX"/*.audit.ndjson "$FX/ranking.ndjson" "$FX/study.ndjson")
	DECISION=("$FX"/*.metrics.ndjson "$FX"/*.audit.ndjson "$FX/ranking.ndjson")
}

# Headless Chromium with everything that phones home switched off.
chromium_run() {
	local profile
	profile=$(mktemp -d "$BATS_TEST_TMPDIR/chromium.XXXXXX")
	chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --enable-logging=stderr --v=0 "$@"
}

# The first x tick label of one chart's SVG (gnuplot centres x tick labels, right-aligns y's).
ticks() {
	sed -n "/<svg class=\"chart\" role=\"img\" data-chart=\"$1\"/,/<\/svg>/p" "$2" |
		grep -A1 'text-anchor="middle"' | sed -n 's|^[[:space:]]*<text> *\([0-9.]*\)</text>$|\1|p' | head -n 1
}

require_chromium() {
	command -v chromium >/dev/null || skip "chromium is not installed (apt-get install chromium) — browser checks of the page skipped"
}

@test "report: --help matches the man page, bad option exits 2" {
	assert_tool_invariants report
}

@test "report: the error cases (tests/cases/report/*.case): --bins, empty, truncated and edited input, no gnuplot, an audit without its metrics" {
	run_cases report fx="$FX"
}

@test "report: every section and chart of a small synthetic run" {
	run report -o "$BATS_TEST_TMPDIR/r.html" --title 'fixture <run>' "${ALL[@]}"
	assert_success
	page="$BATS_TEST_TMPDIR/r.html"
	for id in decision summary slo ranking timeline study provenance; do
		grep -q "<section id=\"$id\">" "$page" || fail "section '$id' missing"
	done
	for chart in allocation allocation-diff queue-hp queue-spot preemptions ranking uplift; do
		grep -q "<figure class=\"chart-figure\" id=\"fig-$chart\">" "$page" || fail "chart '$chart' missing"
		grep -q "<svg class=\"chart\" role=\"img\" data-chart=\"$chart\"" "$page" || fail "svg of '$chart' missing"
	done
	grep -q 'data-charts-expected="7"' "$page"
	[ "$(grep -c '<svg class="chart"' "$page")" -eq 7 ]
	# the difference view subtracts the audits' baseline; identical allocations are named
	grep -q '<figcaption>Allocated GPUs minus the baseline native-fifo&#39;s, over time' "$page"
	grep -q 'Identical allocation over time: native-preemptive-g3600-b09-d0000 = native-preemptive-3600;' "$page"
	# the title is escaped, every policy appears, the tie's approve commands are there
	grep -q '<h1>fixture &lt;run&gt;</h1>' "$page"
	for p in native-fifo native-preemptive-3600 native-preemptive-g3600-b09-d0000; do
		grep -q "$p" "$page" || fail "policy $p missing"
	done
	grep -q "approve --ranking $FX/ranking.ndjson --action native-fifo" "$page"
	# ids are unique across the inline SVGs
	dups=$(grep -o " id=['\"][^'\"]*['\"]" "$page" | sort | uniq -d)
	[ -z "$dups" ] || fail "duplicate ids: $dups"
	# self-contained: nothing fetched from elsewhere
	run grep -Eo '(src|href)=["'\''](https?:)?//[^"'\'']*' "$page"
	assert_failure 1
	run grep -qi '<link' "$page"
	assert_failure 1
}

@test "report: a rolling arm gets the rolling section: active action and demand charts, one row per decision" {
	cd "$BATS_TEST_TMPDIR"
	trace-synth --profile "$DATA/synth/tiny.json" --seed 3 --load-factor 0.3 -o full.nd
	trace-window --eval-start 86400 --eval-end 172799 --warmup-start 0 --no-warmup-spot -i full.nd -o exec.nd
	trace-window --eval-start 86400 --eval-end 172799 --warmup-start 72000 -i full.nd -o hist.nd
	roll --config "$ROOT/configs/rolling/rolling-v3.json" --history hist.nd --controller "$ROOT/configs/controllers/predictive-spot-v1.json" \
		--decider rule -o rule.nd exec.nd
	metrics -i rule.nd -o rule.metrics.nd
	run report -o r.html rule.nd rule.metrics.nd
	assert_success
	grep -q '<section id="rolling">' r.html
	for chart in rolling-actions rolling-demand; do
		grep -q "<svg class=\"chart\" role=\"img\" data-chart=\"$chart\"" r.html || fail "chart '$chart' missing"
	done
	grep -q '12 decisions of 12 expected, 72 scenario simulations, 0 rejected replies' r.html
	[ "$(grep -o '<tr><td class="num">[0-9.]*</td>' r.html | wc -l)" -eq 12 ]
	grep -q 'rolling-fifo-open' r.html
	# a plain result has no rolling section
	sim-run -p "$ROOT/configs/policies/native-fifo.json" -i exec.nd -o fifo.nd
	metrics -i fifo.nd -o fifo.metrics.nd
	report -o plain.html fifo.nd fifo.metrics.nd
	run grep -q '<section id="rolling">' plain.html
	assert_failure 1
}

@test "report: same inputs give byte-identical pages; the date only when asked" {
	report -o "$BATS_TEST_TMPDIR/a.html" "${ALL[@]}"
	report -o "$BATS_TEST_TMPDIR/b.html" "${ALL[@]}"
	cmp "$BATS_TEST_TMPDIR/a.html" "$BATS_TEST_TMPDIR/b.html"
	run grep -E '20[0-9]{2}-[0-9]{2}-[0-9]{2}T' "$BATS_TEST_TMPDIR/a.html"
	assert_failure 1
	report --date 2026-11-29 -o "$BATS_TEST_TMPDIR/c.html" "${ALL[@]}"
	grep -q '2026-11-29' "$BATS_TEST_TMPDIR/c.html"
}

@test "report: zstd input, concatenated streams on stdin and chunked input give the same page" {
	report -o "$BATS_TEST_TMPDIR/a.html" "${ALL[@]}"
	mkdir "$BATS_TEST_TMPDIR/z"
	for f in "${ALL[@]}"; do zstd -q "$f" -o "$BATS_TEST_TMPDIR/z/$(basename "$f").zst"; done
	cat "${ALL[@]}" > "$BATS_TEST_TMPDIR/all.ndjson"
	cat "${ALL[@]}" | report -o "$BATS_TEST_TMPDIR/stdin.html"
	zstd -q -c "$BATS_TEST_TMPDIR/all.ndjson" | report -o "$BATS_TEST_TMPDIR/zstdin.html"
	feed_chunked "$BATS_TEST_TMPDIR/all.ndjson" report > "$BATS_TEST_TMPDIR/chunked.html"
	# file names appear in the inputs table and the approve command: compare the pages without them
	strip() { sed '/<section id="provenance">/,/<\/section>/d; /<section id="decision">/,/<\/section>/d' "$1"; }
	cmp <(strip "$BATS_TEST_TMPDIR/stdin.html") <(strip "$BATS_TEST_TMPDIR/a.html")
	cmp "$BATS_TEST_TMPDIR/stdin.html" "$BATS_TEST_TMPDIR/zstdin.html"
	cmp "$BATS_TEST_TMPDIR/stdin.html" "$BATS_TEST_TMPDIR/chunked.html"
	report -o "$BATS_TEST_TMPDIR/z.html" "$BATS_TEST_TMPDIR"/z/*.zst
	cmp <(strip "$BATS_TEST_TMPDIR/z.html") <(strip "$BATS_TEST_TMPDIR/a.html")
	report -o "$BATS_TEST_TMPDIR/out.html.zst" "${ALL[@]}"
	cmp <(zstd -dc "$BATS_TEST_TMPDIR/out.html.zst") "$BATS_TEST_TMPDIR/a.html"
}

@test "report: the gnuplot work directory is removed, also when gnuplot fails" {
	mkdir "$BATS_TEST_TMPDIR/t"
	TMPDIR="$BATS_TEST_TMPDIR/t" report -o "$BATS_TEST_TMPDIR/r.html" "${ALL[@]}"
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/t")" ]
	TMPDIR="$BATS_TEST_TMPDIR/t" run report --gnuplot false -o "$BATS_TEST_TMPDIR/f.html" "${ALL[@]}"
	assert_failure 1
	assert_output --partial "report: 'false' failed"
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/t")" ]
	[ ! -e "$BATS_TEST_TMPDIR/f.html" ]
	# (a gnuplot that cannot be run: tests/cases/report/gnuplot-missing.case)
}

@test "report: an approval of this ranking in the log is shown" {
	log="$BATS_TEST_TMPDIR/approvals.ndjson"
	approve --ranking "$FX/ranking.ndjson" --action native-fifo --by "A Person" --reason fixture --at 2026-11-29T12:00:00Z --log "$log"
	report --approvals "$log" -o "$BATS_TEST_TMPDIR/r.html" "${ALL[@]}"
	grep -q 'Approved:</strong> native-fifo by A Person' "$BATS_TEST_TMPDIR/r.html"
	report -o "$BATS_TEST_TMPDIR/none.html" "${ALL[@]}"
	run grep -q 'Approved:</strong>' "$BATS_TEST_TMPDIR/none.html"
	assert_failure 1
}

@test "report: the page loads in headless Chromium, without console errors, every chart with a size" {
	require_chromium
	report -o "$BATS_TEST_TMPDIR/r.html" "${ALL[@]}"
	chromium_run --dump-dom "file://$BATS_TEST_TMPDIR/r.html" > "$BATS_TEST_TMPDIR/dom.html" 2> "$BATS_TEST_TMPDIR/chromium.err"
	body=$(grep -o '<body[^>]*>' "$BATS_TEST_TMPDIR/dom.html")
	[[ "$body" == *'data-charts-expected="7"'* ]] || fail "no chart count in '$body'"
	[[ "$body" == *'data-charts-ok="7"'* ]] || fail "charts not all rendered: '$body'"
	run grep -E 'CONSOLE|Uncaught' "$BATS_TEST_TMPDIR/chromium.err"
	assert_failure 1
	# the check script is live: a page whose chart lost its size is caught and logged
	sed 's|<svg class="chart" role="img" data-chart="ranking"|& style="display:none"|' "$BATS_TEST_TMPDIR/r.html" > "$BATS_TEST_TMPDIR/broken.html"
	chromium_run --dump-dom "file://$BATS_TEST_TMPDIR/broken.html" > "$BATS_TEST_TMPDIR/dom2.html" 2> "$BATS_TEST_TMPDIR/chromium2.err"
	grep -q 'data-charts-ok="6"' "$BATS_TEST_TMPDIR/dom2.html"
	grep -q 'CONSOLE.*chart ranking has no size' "$BATS_TEST_TMPDIR/chromium2.err"
}

@test "report: the difference view needs a baseline and another policy; its caption names the baseline (no input label in gnuplot commands)" {
	cd "$BATS_TEST_TMPDIR"
	report -o r.html "${ALL[@]}"
	sed -n '/data-chart="allocation-diff"/,/<\/svg>/p' r.html > diff.svg
	grep -q "allocated GPUs minus the baseline's" diff.svg
	grep -q '<figcaption>Allocated GPUs minus the baseline native-fifo&#39;s, over time' r.html
	# its key lists the policies other than the baseline, identical ones marked
	grep -q '>native-preemptive-3600<' diff.svg
	grep -q '>native-preemptive-g3600-b09-d0000 (= native-preemptive-3600)<' diff.svg
	run grep -q '>native-fifo<' diff.svg
	assert_failure 1
	# one policy alone: nothing to subtract
	report -o one.html "$FX/native-fifo.result.ndjson"
	run grep -q 'data-chart="allocation-diff"' one.html
	assert_failure 1
}

@test "report: the preemption chart counts what the table counts, and labels every event where that differs" {
	cd "$BATS_TEST_TMPDIR"
	trace-import csv --map "$ROOT/configs/maps/chronus-philly.json" --nodes-file "$DATA/philly-cluster_machine_list.zst" \
		--node-subset-gpus 800 --seed 1 "$DATA/chronus-trace_job_Philly_MIX1.csv.zst" -o mix1.nd
	trace-window --eval-start 3600 --eval-end 18000 --warmup-start 0 -i mix1.nd -o slice.nd
	sim-run --policy "$ROOT/configs/policies/native-preemptive-3600.json" -i slice.nd -o p.nd
	metrics -i p.nd -o p.metrics.nd
	table=$(jq -r 'select(.type == "metrics") | .preemption_event_count' p.metrics.nd)
	all=$(grep -c '"type":"preemption"' p.nd)
	[ "$table" -lt "$all" ] || fail "the sample should preempt warm-up or drain victims too ($table of $all)"
	report -o r.html p.nd p.metrics.nd
	grep -q "counted as the table counts them: the events whose victim is a Spot job of the evaluation population. Dashed: every preemption event, warm-up and drain victims included: native-preemptive-3600 $all against $table;" r.html
	grep -q 'native-preemptive-3600 (all events)' r.html
}

@test "report: a roll result whose window is a sliver of its history zooms to the window, with the whole run as context" {
	require_chromium
	cd "$BATS_TEST_TMPDIR"
	trace-synth --profile "$ROOT/configs/profiles/alibaba-spot-gpu-v2026.json" --gpu-model GPU-series-2 --days 0-36 --load-factor 0.5 -o full.nd
	trace-window --eval-start 3110400 --eval-end 3196799 --warmup-start 0 --no-warmup-spot -i full.nd -o exec.nd
	trace-window --eval-start 3110400 --eval-end 3196799 --warmup-start 3096000 -i full.nd -o hist.nd
	roll --config "$ROOT/configs/rolling/rolling-v3.json" --history hist.nd --decider rule -o rule.nd exec.nd
	report -o r.html rule.nd
	grep -q '<svg class="chart" role="img" data-chart="allocation-context"' r.html
	grep -q 'The charts show the evaluation window with a margin' r.html
	# the window [864, 888) h with 3 h either side: the allocation chart's hour ticks lie in it;
	# the context chart's start at the origin
	run -0 ticks allocation r.html
	assert_output 865
	run -0 ticks allocation-context r.html
	assert_output 0
	run -0 grep -o '<svg class="chart" role="img" data-chart="[a-z-]*"' r.html
	assert_line --index 0 '<svg class="chart" role="img" data-chart="allocation-context"'
	chromium_run --dump-dom "file://$BATS_TEST_TMPDIR/r.html" > dom.html 2> chromium.err
	n=$(grep -o 'data-charts-expected="[0-9]*"' dom.html | grep -o '[0-9]*')
	grep -q "data-charts-ok=\"$n\"" dom.html || fail "not every chart rendered ($n expected)"
	# a plain day (no rolling decisions) is not zoomed
	sim-run --policy "$ROOT/configs/policies/native-fifo.json" -i exec.nd -o fifo.nd
	report -o plain.html fifo.nd
	run grep -q 'data-chart="allocation-context"' plain.html
	assert_failure 1
}

@test "report: policies on the physical node model get the placement table, one row each; others none" {
	for s in largest-free best-fit; do
		jq ".placement_strategy = \"$s\" | .action_id = \"p-$s\"" "$ROOT/configs/policies/native-fifo.json" > "$BATS_TEST_TMPDIR/$s.json"
		sim-run --policy "$BATS_TEST_TMPDIR/$s.json" -i "$ROOT/tests/data/sim/fragmentation-small.trace.ndjson" -o "$BATS_TEST_TMPDIR/$s.r"
		metrics -i "$BATS_TEST_TMPDIR/$s.r" -o "$BATS_TEST_TMPDIR/$s.m"
	done
	run -0 report -o "$BATS_TEST_TMPDIR/p.html" "$BATS_TEST_TMPDIR"/*.r "$BATS_TEST_TMPDIR"/*.m
	run -0 sh -c "sed -n '/<section id=\"placement\">/,/<\\/section>/p' '$BATS_TEST_TMPDIR/p.html' | grep '^<tr><th>p-'"
	assert_output '<tr><th>p-best-fit</th><td>best-fit</td><td>30.63 %</td><td>0.51</td><td>0.62</td><td>11.53 %</td><td>0</td><td>0</td></tr>
<tr><th>p-largest-free</th><td>largest-free</td><td>27.84 %</td><td>1.38</td><td>1.62</td><td>23.14 %</td><td>1</td><td>0</td></tr>'
	# the fragmentation chart: one step line per policy
	grep -q '<figure class="chart-figure" id="fig-fragmentation">' "$BATS_TEST_TMPDIR/p.html"
	grep -q '<svg class="chart" role="img" data-chart="fragmentation"' "$BATS_TEST_TMPDIR/p.html"
	run -0 report -o "$BATS_TEST_TMPDIR/all.html" "${ALL[@]}"
	run -1 grep -c '<section id="placement">' "$BATS_TEST_TMPDIR/all.html"
	run -1 grep -c 'data-chart="fragmentation"' "$BATS_TEST_TMPDIR/all.html"
}
