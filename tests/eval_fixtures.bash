# Fixtures shared by the evaluation tools' suites (slo-audit, rank, compare, approve,
# aggregate): metrics streams built from the golden corpus by tests/golden-metrics.py.
SLO="$ROOT/configs/slos/schednav-demo-slo-v1.json"
GM="$ROOT/tests/golden-metrics.py"
CATALOGUE="native-fifo native-preemptive-3600 native-preemptive-g3600-b09-d0000 native-preemptive-g3600-b09-d0900 native-preemptive-g3600-b09-loss-aware"

# mk_metrics CASE POLICY [KEY=JSON]... > OUT : one metrics stream, with overrides.
mk_metrics() {
	local case="$1" pol="$2"; shift 2
	python3 "$GM" "$GOLDEN" "$case" "$pol.json" "$@"
}

# reseal < stream > stream : recompute every end record (to tamper with a body "properly").
reseal() { python3 "$GM" --reseal; }

# check_self KEY < stream : every record carrying KEY verifies (independent Python XXH3).
check_self() { python3 "$GM" --check-self "$1"; }

# body FILE > FILE : the body records of a stream (schemas cover body records only).
body() { zstdcat -f "$1" | sed '1d;$d'; }

# catalogue_files DIR : the 5 catalogue metrics files of a batch directory.
catalogue_files() {
	local p
	for p in $CATALOGUE; do printf '%s ' "$1/$p.metrics.ndjson"; done
}
