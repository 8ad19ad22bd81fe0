# Fixtures of the adaptive holdout suites (tests/adaptive-design.bats, tests/adaptive-eval.bats):
# hand-made trace-scan streams with chosen signals, designs made from them by adaptive-design,
# agent selections made from a design, and window receipts with chosen outcomes. Every stream is
# sealed by stream-seal, so every reader checks it as it checks real tool output.

ACTIONS="native-fifo native-preemptive-3600 native-preemptive-g3600-b09-d0000 native-preemptive-g3600-b09-d0900 native-preemptive-g3600-b09-loss-aware"

# The five catalogue policies as adaptive-design options, in catalogue order.
catalogue_args() {
	local a
	for a in $ACTIONS; do printf -- '--policy %s ' "$ROOT/configs/policies/$a.json"; done
}

# scan_stream OUT PEAK SHARE [PEAK SHARE]...: an all-eligible trace-scan stream with one day
# window per pair (day-0000, day-0001, ...; mean pressure = peak), sealed.
scan_stream() {
	local out=$1
	shift
	python3 - "$@" <<'EOF' | stream-seal -o "$out"
import json, sys
v = sys.argv[1:]
print(json.dumps({"type": "header", "schema": "schednav.windows/1", "tool": "trace-scan", "version": "0.2.0",
                  "inputs": [{"path": "t.nd", "schema": "schednav.trace/2", "fingerprint": "00112233445566778899aabbccddeeff"}],
                  "params": {"day_seconds": 86400, "sample_seconds": 3600, "min_hp_arrivals": 20, "min_spot_arrivals": 20,
                             "pressure_strata": 3, "share_strata": 4, "warmup_days": 30, "selection": "all_eligible", "all_days": False},
                  "trace_id": "hand", "capacity_gpus": 100, "window_count": len(v) // 2, "eligible_count": len(v) // 2,
                  "selected_count": len(v) // 2}, separators=(",", ":")))
for k in range(len(v) // 2):
    peak, share = float(v[2 * k]), float(v[2 * k + 1])
    print('{"type":"window","window_id":"day-%04d","index":%d,"start":%d.0,"end":%d.0,"warmup_start":0.0,"eligible":true,'
          '"hp_arrivals":20,"spot_arrivals":20,"hp_requested_gpus":1.0,"spot_requested_gpus":1.0,"peak_pressure":%r,'
          '"mean_pressure":%r,"spot_share":%r,"active_gpus_min":1.0,"active_gpus_mean":1.0,"active_gpus_max":1.0,'
          '"active_gpus_cv":0.0,"stratum":null,"selected":true}' % (k, k, k * 86400, k * 86400 + 86399, peak, peak, share))
EOF
}

# The options make_design passes: the catalogue and a calibration fraction of 0.5.
design_args() {
	catalogue_args
	printf -- '--calibration-fraction 0.5 '
}

# design_rec FILE JQ: JQ applied to the adaptive_design record of FILE (compact).
design_rec() {
	jq -c "select(.type == \"adaptive_design\") | $2" "$1"
}

# make_design DIR [PEAK SHARE]...: DIR/scan.nd and DIR/design.nd. Default: 8 windows, 4 for
# calibration (thresholds 0.55 and 0.25), then one evaluation window per rule quadrant.
make_design() {
	local dir=$1
	shift
	if [ $# -eq 0 ]; then set -- 0.4 0.1 0.5 0.2 0.6 0.3 0.7 0.4 0.9 0.5 0.9 0.1 0.2 0.5 0.2 0.1; fi
	scan_stream "$dir/scan.nd" "$@"
	adaptive-design $(design_args) -o "$dir/design.nd" "$dir/scan.nd"
}

# agent_stream OUT DESIGN [PICK]: the agent's controller_selections for DESIGN made the real
# way (tests/adaptive/scripted-agent: stage outputs, receipts, plan-check --adaptive), with the
# scripted Strategist's choice or PICK (a jq expression, see the script).
agent_stream() {
	"$ROOT/tests/adaptive/scripted-agent" "$2" "$1" ${3:+"$3"}
}

# calibration_selection DIR OUT [EDIT_WINDOW EDIT_ARM SED]: a best-static selection stream of
# study-select over four calibration windows named like make_design's (day-0000 .. day-0003):
# the five catalogue policies simulated on slices of the hand-made trace of
# tests/cases/trace-window/small.body, measured and audited by the real tools (cached in DIR/cal).
# With EDIT_*, that arm's metrics in that window are edited by SED, resealed and audited again.
calibration_selection() {
	local dir=$1 out=$2 cal=$1/cal w d a end
	if [ ! -d "$cal" ]; then
		mkdir -p "$cal"
		grep -v '"type":"note"' "$ROOT/tests/cases/trace-window/small.body" | stream-seal -o "$cal/trace.nd"
		for w in day-0000:60 day-0001:70 day-0002:80 day-0003:100; do
			d="$cal/${w%%:*}"
			end=${w#*:}
			mkdir -p "$d"
			trace-window --eval-start 0 --eval-end "$end" --warmup-start 0 -i "$cal/trace.nd" -o "$d/slice.nd"
			for a in $ACTIONS; do
				sim-run --policy "$ROOT/configs/policies/$a.json" -i "$d/slice.nd" | metrics -o "$d/$a.metrics.nd"
			done
			cal_audit "$d"
		done
	fi
	local src=$cal
	if [ $# -gt 2 ]; then
		src=$dir/cal-edit
		rm -rf "$src"
		cp -r "$cal" "$src"
		sed "$5" "$cal/$3/$4.metrics.nd" | stream-seal -o "$src/$3/$4.metrics.nd"
		cmp -s "$src/$3/$4.metrics.nd" "$cal/$3/$4.metrics.nd" && { echo "the edit '$5' changed nothing" >&2; return 1; }
		cal_audit "$src/$3"
	fi
	study-select --rule best-static $(for w in day-0000 day-0001 day-0002 day-0003; do
		printf -- '--window %s ' $w
		for a in $ACTIONS; do printf '%s ' "$src/$w/$a.metrics.nd"; done
		printf '%s ' "$src/$w/audit.nd"
	done) -o "$out"
}

cal_audit() {
	cat $(for a in $ACTIONS; do printf '%s ' "$1/$a.metrics.nd"; done) |
		slo-audit --slo "$ROOT/configs/slos/schednav-demo-slo-v1.json" --baseline "$1/native-fifo.metrics.nd" -o "$1/audit.nd"
}

# window_receipt OUT DESIGN WINDOW OUTCOME...: a window_result stream for WINDOW of DESIGN with one
# OUTCOME per catalogue action, in catalogue order: "pass|fail ALLOCATION SPOT_P95 EVICTIONS"
# ("null" for a missing value). Fingerprints not checked by adaptive-eval are placeholders.
window_receipt() {
	local out=$1 design=$2 window=$3
	shift 3
	python3 - "$design" "$window" "$@" <<'PY' | stream-seal -o "$out"
import json, sys
design = next(r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "adaptive_design")
w = next(x for x in design["windows"] if x["window_id"] == sys.argv[2])
fake = "ab" * 16
def val(s):
    return None if s == "null" else float(s)
pols = []
for a, spec in zip(design["actions"], sys.argv[3:]):
    verdict, alloc, p95, ev = spec.split()
    pols.append({"action_id": a["action_id"], "policy_fingerprint": a["policy_fingerprint"], "result_fingerprint": fake,
                 "metrics_fingerprint": fake, "deterministic_repetitions": True, "hard_slo_passed": verdict == "pass",
                 "allocation_soft_target_met": True, "failed_constraint_ids": [] if verdict == "pass" else ["hp-queue-p95"],
                 "allocation_rate_mean": val(alloc), "hp_jct_p95_seconds": 10.0, "spot_jct_p95_seconds": val(p95),
                 "spot_eviction_rate_per_run": val(ev)})
print(json.dumps({"type": "header", "schema": "schednav.window-result/1", "tool": "test", "version": "1", "inputs": [],
                  "params": {"window_id": w["window_id"], "partition": w["partition"]}}, separators=(",", ":")))
print(json.dumps({"type": "window_result", "window_id": w["window_id"], "partition": w["partition"],
                  "evaluation_start": w["start"], "evaluation_end": w["end"], "slice_fingerprint": fake,
                  "audit_fingerprint": fake, "ranking_fingerprint": fake, "baseline_action_id": "native-fifo",
                  "policies": pols, "ranking": {"selection_status": "no_eligible_policy", "selected_action_ids": []}},
                 separators=(",", ":")))
PY
}
