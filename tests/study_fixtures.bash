# Fixtures shared by tests/study-select.bats and tests/study-lock.bats: real tool outputs for
# two calibration windows. The hand-made trace of tests/cases/trace-window/small.body is
# sealed by stream-seal, sliced twice by trace-window (w0: evaluation 0-60 s, w1: 0-100 s),
# simulated for three arms by sim-run, measured by metrics and audited by slo-audit.

ARMS="native-fifo native-preemptive-3600 native-preemptive-g3600-b09-loss-aware"
SLO="$ROOT/configs/slos/schednav-demo-slo-v1.json"

# audit DIR: the window's audit stream from its three metrics streams.
audit() {
	cat $(for a in $ARMS; do printf '%s ' "$1/$a.metrics.nd"; done) |
		slo-audit --slo "$SLO" --baseline "$1/native-fifo.metrics.nd" -o "$1/audit.nd"
}

# build_windows DIR: DIR/trace.nd, DIR/w0/ and DIR/w1/ (slice.nd, ARM.metrics.nd, audit.nd).
build_windows() {
	local d w a
	grep -v '"type":"note"' "$ROOT/tests/cases/trace-window/small.body" | stream-seal -o "$1/trace.nd"
	for w in w0:60 w1:100; do
		d="$1/${w%%:*}"
		mkdir -p "$d"
		trace-window --eval-start 0 --eval-end "${w#*:}" --warmup-start 0 -i "$1/trace.nd" -o "$d/slice.nd"
		for a in $ARMS; do
			sim-run --policy "$ROOT/configs/policies/$a.json" < "$d/slice.nd" | metrics -o "$d/$a.metrics.nd"
		done
		audit "$d"
	done
}

# files DIR: the window's metrics streams and audit, in arm order.
files() { for a in $ARMS; do printf '%s ' "$1/$a.metrics.nd"; done; printf '%s\n' "$1/audit.nd"; }
