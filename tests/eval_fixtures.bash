# Fixtures shared by the evaluation tools' suites (slo-audit, rank, compare, approve,
# aggregate): real tool outputs made at test time from small traces in tests/data, so that
# only the golden-parity tests need ../shared.
#
# Windows (build_fixtures FIX makes FIX/NAME/ for each):
#   ps      tests/data/sim/preemption-small: the HP job cannot preempt inside the Spot
#           guarantee, every policy gives the same numbers: a five-way tie
#   tie     tests/data/eval/tie.body: the three budgeted policies tie
#   sel     tests/data/eval/selected.body: native-fifo is selected
#   none    tests/data/eval/none.body: no eligible policy
#   hponly  tests/data/sim/hp-only: no Spot jobs, the Spot metrics are null
# Each holds POLICY.metrics.ndjson for the five catalogue policies (sim-run | metrics),
# audits.ndjson (slo-audit against its native-fifo) and ranking.ndjson (rank); ps and sel
# also hold native-preemptive-0000 (a sixth catalogue-external action) and
# test-preemptive-ck1800 (other execution controls: checkpoint 1800 s, overhead 30 s).
SLO="$ROOT/configs/slos/schednav-demo-slo-v1.json"
EDIT="$ROOT/tests/stream_edit.py"
CATALOGUE="native-fifo native-preemptive-3600 native-preemptive-g3600-b09-d0000 native-preemptive-g3600-b09-d0900 native-preemptive-g3600-b09-loss-aware"

# policy_file NAME: the policy file of an action id (configs/policies or tests/data/eval).
policy_file() {
	if [ -f "$ROOT/configs/policies/$1.json" ]; then
		echo "$ROOT/configs/policies/$1.json"
	else
		echo "$ROOT/tests/data/eval/${1#test-}.json"
	fi
}

# audit_and_rank DIR: DIR/audits.ndjson (the catalogue against DIR's native-fifo) and DIR/ranking.ndjson.
audit_and_rank() {
	slo-audit --slo "$SLO" --baseline "$1/native-fifo.metrics.ndjson" $(catalogue_files "$1") > "$1/audits.ndjson" || return
	rank --slo "$SLO" -o "$1/ranking.ndjson" "$1/audits.ndjson" $(catalogue_files "$1")
}

# build_window DIR TRACE [POLICY...]: DIR/POLICY.metrics.ndjson for the catalogue and the
# extra policies, then audit_and_rank DIR.
build_window() {
	local d="$1" trace="$2" p
	shift 2
	mkdir -p "$d"
	for p in $CATALOGUE "$@"; do
		sim-run --policy "$(policy_file "$p")" -i "$trace" | metrics -o "$d/$p.metrics.ndjson" || return
	done
	audit_and_rank "$d"
}

# build_fixtures FIX: every window above under FIX.
build_fixtures() {
	local w
	mkdir -p "$1"
	for w in tie selected none; do
		stream-seal -i "$ROOT/tests/data/eval/$w.body" -o "$1/$w.trace.ndjson" || return
	done
	build_window "$1/ps" "$ROOT/tests/data/sim/preemption-small.trace.ndjson" native-preemptive-0000 test-preemptive-ck1800 || return
	build_window "$1/tie" "$1/tie.trace.ndjson" || return
	build_window "$1/sel" "$1/selected.trace.ndjson" native-preemptive-0000 test-preemptive-ck1800 || return
	build_window "$1/none" "$1/none.trace.ndjson" || return
	build_window "$1/hponly" "$ROOT/tests/data/sim/hp-only.trace.ndjson"
}

# mk_metrics WINDOW POLICY [KEY=JSON]... > OUT : the window's metrics stream for POLICY
# with the keys set to the given JSON values, resealed (an edge case the tools must judge).
mk_metrics() {
	local w="$1" p="$2"
	shift 2
	python3 "$EDIT" --set "$@" < "$FIX/$w/$p.metrics.ndjson"
}

# reseal < stream > stream : recompute every end record (to tamper with a body "properly").
reseal() { python3 "$EDIT" --reseal; }

# check_self KEY < stream : every record carrying KEY verifies (independent Python XXH3).
check_self() { python3 "$EDIT" --check-self "$1"; }

# body FILE > FILE : the body records of a stream (schemas cover body records only).
body() { zstdcat -f "$1" | sed '1d;$d'; }

# catalogue_files DIR : the 5 catalogue metrics files of a window directory.
catalogue_files() {
	local p
	for p in $CATALOGUE; do printf '%s ' "$1/$p.metrics.ndjson"; done
}
