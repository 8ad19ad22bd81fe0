#!/usr/bin/env bats
# The one command-line surface (docs/schednav.7), checked for every tool in tools/:
# -V/--version, "-i X" == operand X, the same getopt error messages, usage on stderr.
load helper
load eval_fixtures
load plan_fixtures
load adaptive_fixtures

# Every tool the build makes.
tools() { ls "$ROOT"/tools/*.c | sed 's|.*/||; s|\.c$||' | LC_ALL=C sort; }

setup_file() {
	export FIX="$BATS_FILE_TMPDIR/fix"
	build_fixtures "$FIX"
	stream-seal -o "$FIX/small.trace.nd" "$ROOT/tests/cases/trace-window/small.body"
	sim-run --policy "$ROOT/configs/policies/native-fifo.json" -o "$FIX/small.result.nd" "$FIX/small.trace.nd"
	mkdir "$FIX/canon"
	trace-export "$FIX/canon" "$FIX/small.trace.nd"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	SEL="$FIX/sel"
	MAP="$ROOT/configs/maps/chronus-philly.json"
	MACH="$DATA/philly-cluster_machine_list.zst"
	MIX1="$DATA/chronus-trace_job_Philly_MIX1.csv.zst"
}

@test "cli: -V and --version print the version and the schemas, on stdout, exit 0, for every tool" {
	local t n=0
	for t in $(tools); do
		run "$t" -V
		assert_success
		assert_line --index 0 --regexp "^$t \(SchedNav\) [0-9]+\.[0-9]+\.[0-9]+$"
		assert_line --index 1 --partial "stream framing: "
		assert_line --regexp '^reads: .'
		assert_line --regexp '^writes: .'
		[ "$("$t" --version)" = "$output" ] || fail "$t: --version differs from -V"
		[ -z "$("$t" -V 2>&1 >/dev/null)" ] || fail "$t -V writes to stderr"
		n=$((n + 1))
	done
	[ "$n" -ge 18 ] || fail "only $n tools"
}

@test "cli: approve and study-lock --verify lost -V: it means --version there too" {
	run approve -V --log nope.ndjson
	assert_success
	assert_line --index 0 --regexp '^approve \(SchedNav\) '
	run study-lock -V "$FIX/sel/ranking.ndjson"
	assert_success
	assert_line --index 0 --regexp '^study-lock \(SchedNav\) '
	[ ! -e nope.ndjson ]
}

@test "cli: an unknown option, a missing argument and a stray operand get the same messages everywhere" {
	local t first
	for t in $(tools); do
		run "$t" --no-such-option
		assert_failure 2
		first=$(head -n 1 <<< "$output")
		[ "$first" = "$t: unknown option '--no-such-option'" ] || fail "$t: '$first'"
		assert_line --index 1 --regexp '^usage: '
		[ -z "$("$t" --no-such-option 2>/dev/null)" ] || fail "$t: the usage error went to stdout"
		run "$t" -Z
		assert_failure 2
		assert_line --index 0 "$t: unknown option '-Z'"
		run "$t" --help=yes
		assert_failure 2
		assert_line --index 0 "$t: option '--help' takes no argument"
	done
	for t in adaptive-design adaptive-eval aggregate compare decision-table forecast metrics plan-check quota rank report roll roll-ablation \
	    sim-run slo-audit stream-seal study-lock study-select trace-analyze trace-fidelity trace-scan trace-synth trace-window; do
		run "$t" -o
		assert_failure 2
		assert_line --index 0 "$t: option '-o' needs an argument"
		run "$t" --output
		assert_failure 2
		assert_line --index 0 "$t: option '--output' needs an argument"
	done
	run trace-import csv --map
	assert_failure 2
	assert_line --index 0 "trace-import: option '--map' needs an argument"
	for t in schednav-mcp study-lock trace-synth; do
		run "$t" stray
		assert_failure 2
		assert_line --index 0 "$t: unexpected operand 'stray'"
	done
	run sim-run --policy "$ROOT/configs/policies/native-fifo.json" a b
	assert_failure 2
	assert_line --index 0 "sim-run: more than one input ('a', then 'b')"
	run compare - -i -
	assert_failure 2
	assert_line --index 0 "compare: standard input ('-') given more than once"
}

# same_run NAME CMD... : run CMD (with the input as operand, or as -i), keep stdout and status.
same_run() {
	local name="$1"
	shift
	local status=0
	"$@" > "$name.out" 2> "$name.err" || status=$?
	echo "$status" > "$name.status"
}

# same_as_operand TOOL ARGS... -- X... : "TOOL ARGS -i X..." and "TOOL ARGS X..." give the
# same stdout, stderr and status (every X after -- is passed once as an operand, once as -i X).
same_as_operand() {
	local tool="$1" args=() ins=() i=() x
	shift
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	for x in "$@"; do ins+=("$x"); i+=(-i "$x"); done
	same_run op "$tool" "${args[@]}" "${ins[@]}"
	same_run in "$tool" "${args[@]}" "${i[@]}"
	[ "$(cat op.status)" = 0 ] || fail "$tool ${args[*]} ${ins[*]} exited $(cat op.status): $(cat op.err)"
	cmp op.out in.out || fail "$tool: -i X and X give different output"
	cmp op.err in.err || fail "$tool: -i X and X give different messages"
	cmp op.status in.status
	[ -s op.out ] || [ "$tool" = stream-verify ] || fail "$tool wrote nothing"
}

@test "cli: -i X equals operand X in every tool that reads streams" {
	local cat=$(catalogue_files "$SEL")
	same_as_operand aggregate --window a -- "$SEL/ranking.ndjson" "$SEL/audits.ndjson" $cat
	same_as_operand compare -- "$SEL/native-fifo.metrics.ndjson" "$SEL/native-preemptive-3600.metrics.ndjson"
	same_as_operand decision-table -- "$SEL/ranking.ndjson" "$SEL/audits.ndjson" $cat
	same_as_operand metrics -- "$FIX/small.result.nd"
	same_as_operand rank --slo "$SLO" -- "$SEL/audits.ndjson" $cat
	same_as_operand report --title t -- "$SEL/ranking.ndjson" "$SEL/audits.ndjson" $cat
	same_as_operand sim-run --policy "$ROOT/configs/policies/native-fifo.json" -- "$FIX/small.trace.nd"
	same_as_operand slo-audit --slo "$SLO" -- $cat
	same_as_operand stream-seal -- "$ROOT/tests/cases/trace-window/small.body"
	same_as_operand stream-verify -p -- "$FIX/small.trace.nd" "$FIX/small.result.nd"
	same_as_operand study-select --window w0 -- $cat "$SEL/audits.ndjson"
	same_as_operand trace-import canonical -- "$FIX/canon"
	same_as_operand trace-import csv --map "$MAP" --nodes-file "$MACH" -- "$MIX1"
	same_as_operand trace-scan --day-seconds 100 --sample-seconds 10 --min-hp 1 --min-spot 1 --all-eligible -- "$FIX/small.trace.nd"
	same_as_operand trace-window --max-submit 30 -- "$FIX/small.trace.nd"
	same_as_operand trace-analyze --sample-interval 60 -- "$FIX/small.trace.nd"
	same_as_operand trace-fidelity --profile "$ROOT/configs/profiles/alibaba-spot-gpu-v2026-v3.json" -- "$FIX/small.trace.nd"
	mkdir ad
	make_design ad
	same_as_operand adaptive-design $(design_args) -- ad/scan.nd
	agent_stream ad/agent.nd ad/design.nd
	adaptive-design $(design_args) --agent ad/agent.nd -o ad/ctl.nd ad/scan.nd
	calibration_selection ad ad/sel.nd
	for d in 4 5 6 7; do
		window_receipt ad/r$d.nd ad/design.nd day-000$d "pass 0.8 1 0" "pass 0.8 1 0" "pass 0.8 1 0" "pass 0.8 1 0" "pass 0.8 1 0"
	done
	same_as_operand adaptive-eval --design ad/ctl.nd --selection ad/sel.nd -- ad/r4.nd ad/r5.nd ad/r6.nd ad/r7.nd
	local ctrl="$ROOT/configs/controllers/predictive-spot-v1.json" warm="$ROOT/tests/data/sim/warmup-window.trace.ndjson"
	same_as_operand forecast --controller "$ctrl" --cutoff 100000 -- "$warm"
	forecast --controller "$ctrl" --cutoff 100000 -o bundle.nd "$warm"
	same_as_operand quota --controller "$ctrl" -- bundle.nd
	T="$BATS_TEST_TMPDIR/plan"
	mkdir -p "$T/tasks"
	two_decisions
	same_as_operand plan-check "${ROLLING[@]}" --mode multi_agent --tasks "$T/tasks" --action-space "$SPACE" -- "$T/decisions.nd"
	trace-synth --profile "$DATA/synth/tiny.json" --seed 3 --load-factor 0.3 --days 0-1 -o full.nd
	trace-window --eval-start 86400 --eval-end 129599 --warmup-start 0 --no-warmup-spot -i full.nd -o exec.nd
	trace-window --eval-start 86400 --eval-end 129599 --warmup-start 72000 -i full.nd -o hist.nd
	same_as_operand roll --config "$ROOT/configs/rolling/rolling-v3.json" --history hist.nd --decider rule -- exec.nd
	# roll-ablation's -i inside a --window group: tests/roll-ablation.bats (it needs a study's outputs)
	# tools whose output is a file or a directory
	approve --action native-fifo --by me --reason r --at 2026-01-01T00:00:00Z --log op.log "$SEL/ranking.ndjson"
	approve --action native-fifo --by me --reason r --at 2026-01-01T00:00:00Z --log in.log -i "$SEL/ranking.ndjson"
	approve --action native-fifo --by me --reason r --at 2026-01-01T00:00:00Z --log ranking.log --ranking "$SEL/ranking.ndjson"
	cmp op.log in.log
	cmp op.log ranking.log
	trace-export op "$FIX/small.trace.nd"
	trace-export in -i "$FIX/small.trace.nd"
	trace-export -o o "$FIX/small.trace.nd"
	for f in trace.json nodes.csv jobs.csv; do
		cmp "op/$f" "in/$f"
		cmp "op/$f" "o/$f"
	done
	# every tool is covered: those without input operands refuse -i
	for t in placement-fill schednav schednav-mcp study-lock trace-synth; do
		run "$t" -i x
		assert_failure 2
		assert_line --index 0 "$t: unknown option '-i'"
	done
	run trace-import philly -i x --machines a --job-log b --class HP
	assert_failure 2
	assert_line --index 0 "trace-import: unknown option '-i'"
}

@test "cli: the -i test above covers every tool" {
	# Update this list (and the test above) when a tool is added.
	local covered="adaptive-design adaptive-eval aggregate approve compare decision-table forecast metrics placement-fill plan-check quota rank report
		roll roll-ablation schednav schednav-mcp sim-run slo-audit stream-seal stream-verify study-lock study-select trace-analyze
		trace-export trace-fidelity trace-import trace-scan trace-synth trace-window"
	diff <(tools) <(printf '%s\n' $covered | sort) || fail "tools/ and the -i test differ"
}

@test "cli: -h prints the usage and the common options on stdout, exit 0, nothing on stderr" {
	local t
	for t in $(tools); do
		run "$t" -h
		assert_success
		assert_line --index 0 --regexp "^usage: $t "
		assert_line "Common options:"
		assert_line --regexp '^  -V, --version '
		[ -z "$("$t" -h 2>&1 >/dev/null)" ] || fail "$t -h writes to stderr"
	done
}
