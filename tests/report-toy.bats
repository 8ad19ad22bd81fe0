#!/usr/bin/env bats
# The toy report section (tests/fixtures/report/section_toy.c): registered only in the test
# build of report (build/test-ops/report, -DSCHEDNAV_TEST_SECTIONS, made by make all), it shows
# that a section is one file plus its declaration and one row of page_rows in page.c
# (docs/design.md "Where to add things"): its chart is drawn and placed, its HTML comes last,
# and the rest of the page is the real report's, byte for byte.
load helper

TOY="${SCHEDNAV_TEST_BUILD:-$ROOT/build/test-ops}/report"

setup_file() {
	export FX="$BATS_FILE_TMPDIR/fx"
	python3 "$ROOT/tests/cases/report/fixture.py" "$FX"
}

setup() {
	[ -x "$TOY" ] || fail "no test build of report at $TOY ('make all' builds it; make check passes its directory in SCHEDNAV_TEST_BUILD)"
	cd "$BATS_TEST_TMPDIR"
	ALL=("$FX"/*.result.ndjson "$FX"/*.metrics.ndjson "$FX"/*.audit.ndjson "$FX/ranking.ndjson" "$FX/study.ndjson")
}

@test "report-toy: the test build adds the toy section, its chart drawn, after the real sections" {
	"$TOY" -o toy.html "${ALL[@]}"
	run -0 sed -n '/^<section id="toy">$/,/^<\/section>$/{/^<section\|^<h2>\|^<p>\|^<figure\|^<svg\|^<\/section>/p}' toy.html
	assert_output '<section id="toy">
<h2>Toy section</h2>
<p>3 policies.</p>
<figure class="chart-figure" id="fig-toy">
<svg class="chart" role="img" data-chart="toy" 
</section>'
	run -0 grep -c '<svg class="chart"' toy.html
	assert_output 8
	run -0 grep -o 'data-charts-expected="[0-9]*"' toy.html
	assert_output 'data-charts-expected="8"'
}

@test "report-toy: without the toy section the test build's page is the real report's" {
	"$TOY" -o toy.html "${ALL[@]}"
	report -o real.html "${ALL[@]}"
	run -1 grep -c 'id="toy"' real.html
	assert_output 0
	sed -e '/^<section id="toy">$/,/^<\/section>$/d' -e 's/data-charts-expected="8"/data-charts-expected="7"/' toy.html > cut.html
	cmp cut.html real.html
}
