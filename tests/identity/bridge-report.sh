#!/bin/sh
# Output identity of the bridge (schednav-mcp) and the report across a refactor (issue 20,
# items 2 and 5): run the same MCP sessions and report pages with two builds and compare
# every byte they produce.
#
#   tests/identity/bridge-report.sh capture OUTDIR     outputs of the build in $SCHEDNAV_BIN (default bin/)
#   tests/identity/bridge-report.sh compare OLD NEW    cmp every file of two captures; exit 1 on a difference
#   tests/identity/bridge-report.sh OLD_BIN NEW_BIN    capture both builds (in a temporary directory) and compare
#
# What is captured: the JSON-RPC transcripts (stdout, stderr, exit status) of raw stdio sessions
# of every profile (tools/list, every operation, replays, conflicts, refusals, invalid
# arguments, malformed frames, get_task, read_artifact, an edited task store) and the
# workspace they leave (.schednav-mcp/: tasks, failure logs, the audit log, the simulation
# index; every artefact), --verify-log; report pages of the report suite's fixture (every
# section), a decision-only page, a rolling page, a predictive page, the make demo page, and
# report's diagnostics. schednav-mcp's monotonic clock is frozen by a preloaded shim (built
# here with cc) so that duration_ms, and with it every audit fingerprint and audit_offset,
# compares byte for byte; the shim removes itself from the environment of the tools the
# bridge runs. Every run happens in one fixed directory so absolute paths are equal too.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

compare() {
	old=$1 new=$2 n=0 files=0
	(cd "$old" && find . -type f | LC_ALL=C sort) > "${TMPDIR:-/tmp}/identity-old.$$"
	(cd "$new" && find . -type f | LC_ALL=C sort) > "${TMPDIR:-/tmp}/identity-new.$$"
	if ! cmp -s "${TMPDIR:-/tmp}/identity-old.$$" "${TMPDIR:-/tmp}/identity-new.$$"; then
		echo "identity: the two captures hold different files:"
		diff "${TMPDIR:-/tmp}/identity-old.$$" "${TMPDIR:-/tmp}/identity-new.$$" || true
		n=$((n + 1))
	fi
	while read -r f; do
		[ -f "$new/$f" ] || continue
		files=$((files + 1))
		if ! cmp -s "$old/$f" "$new/$f"; then
			echo "identity: differs: $f"
			n=$((n + 1))
		fi
	done < "${TMPDIR:-/tmp}/identity-old.$$"
	rm -f "${TMPDIR:-/tmp}/identity-old.$$" "${TMPDIR:-/tmp}/identity-new.$$"
	echo "identity: $files files compared, $n differences"
	[ "$n" -eq 0 ]
}

# session NAME PROFILE [ARGS...] < LINES: one raw stdio session, its transcript kept.
session() {
	name=$1 profile=$2
	shift 2
	set +e
	LD_PRELOAD="$SHIM" "$BIN/schednav-mcp" --profile "$profile" --workspace "$W" "$@" > "$OUT/mcp/$name.out" 2> "$OUT/mcp/$name.err"
	echo $? > "$OUT/mcp/$name.status"
	set -e
}

INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"identity","version":"1"}}}'
call() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$1" "$2" "$3"; }
LIST='{"jsonrpc":"2.0","id":1,"method":"tools/list"}'

capture_mcp() {
	mkdir -p "$OUT/mcp" "$W/traces" "$W/run-configs" "$W/run-sets"
	D="$ROOT/tests/data"
	"$BIN/trace-import" csv --map "$ROOT/configs/maps/chronus-philly.json" --nodes-file "$D/philly-cluster_machine_list.zst" \
		--node-subset-gpus 200 --seed 1 "$D/chronus-trace_job_Philly_MIX1.csv.zst" -o "$W/traces/mix1.ndjson.zst"
	"$BIN/trace-window" --eval-start 3600 --eval-end 5400 --warmup-start 1800 -i "$W/traces/mix1.ndjson.zst" -o "$W/traces/mix1-w.ndjson.zst"
	"$BIN/trace-window" --eval-start 5400 --eval-end 7200 --warmup-start 3600 -i "$W/traces/mix1.ndjson.zst" -o "$W/traces/mix1-w2.ndjson.zst"
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/mix1-w.ndjson.zst"}' > "$W/run-configs/mix1-w.json"
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/mix1-w2.ndjson.zst"}' > "$W/run-configs/mix1-w2.json"
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"../outside.ndjson"}' > "$W/run-configs/outside.json"
	echo '{"schema_version":"schednav.run-set/1","run_config_ids":["mix1-w","mix1-w2"]}' > "$W/run-sets/two.json"
	for p in analyst strategist simulation auditor manager predictive rolling; do
		printf '%s\n' "$INIT" "$LIST" | session "list-$p" "$p"
	done
	A='native-fifo' B='native-preemptive-3600' C='native-preemptive-g3600-b09-d0900'
	{ echo "$INIT"
	  call 1 analyze_workload '{"run_config_id":"mix1-w","cutoff_seconds":4000.0,"idempotency_key":"identity-analyze-1"}'
	  call 2 analyze_workload '{"run_config_id":"mix1-w","cutoff_seconds":4e3,"idempotency_key":"identity-analyze-1"}'
	  call 3 analyze_workload '{"run_config_id":"mix1-w","cutoff_seconds":4001,"idempotency_key":"identity-analyze-1"}'
	  call 4 analyze_workload '{"run_config_id":"nope"}'
	  call 5 analyze_workload '{"run_config_id":"outside"}'
	  call 6 analyze_workload '{"run_config_id":"mix1-w","extra":1}'
	  call 7 simulate_policy '{"run_config_id":"mix1-w","action_id":"native-fifo"}'
	  call 8 no_such_tool '{}'
	  echo '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{}}'
	  echo '{"jsonrpc":"2.0","id":10,"method":"nope"}'
	  echo 'not json'
	  echo '[{"jsonrpc":"2.0","id":11,"method":"ping"}]'
	  echo '{"jsonrpc":"2.0","id":12,"method":"ping"}'
	  echo "$INIT"
	} | session analyst analyst
	{ echo "$INIT"
	  for a in $A $B $C; do call "\"$a\"" simulate_policy "{\"run_config_id\":\"mix1-w\",\"action_id\":\"$a\"}"; done
	  call 4 simulate_policy "{\"run_config_id\":\"mix1-w\",\"action_id\":\"$A\"}"
	  call 5 simulate_policy '{"run_config_id":"mix1-w","action_id":"not-declared"}'
	  call 6 simulate_run_set "{\"run_set_id\":\"two\",\"action_ids\":[\"$A\",\"$B\",\"$C\"],\"repetitions\":2}"
	} | session simulation simulation
	M="artifacts/$(jq -r 'select(.id == "\"native-fifo\"" or .id == "native-fifo") | .result.structuredContent.task_id' "$OUT/mcp/simulation.out")/metrics.ndjson"
	MB=$(jq -r 'select(.id == "native-preemptive-3600") | .result.structuredContent.result.metrics_ref' "$OUT/mcp/simulation.out")
	MC=$(jq -r 'select(.id == "native-preemptive-g3600-b09-d0900") | .result.structuredContent.result.metrics_ref' "$OUT/mcp/simulation.out")
	SR=$(jq -r 'select(.id == 6) | .result.structuredContent.result.simulations_ref' "$OUT/mcp/simulation.out")
	{ echo "$INIT"
	  call 1 audit_slo "{\"metrics_ref\":\"$MB\",\"slo_spec_id\":\"schednav-demo-slo-v1\",\"baseline_action_id\":\"$A\"}"
	  call 2 audit_slo "{\"metrics_ref\":\"$MC\",\"slo_spec_id\":\"schednav-demo-slo-v1\",\"baseline_metrics_ref\":\"$M\"}"
	  call 3 audit_slo "{\"metrics_ref\":\"$M\",\"slo_spec_id\":\"schednav-demo-slo-v1\",\"baseline_action_id\":\"$A\"}"
	  call 4 audit_slo "{\"metrics_ref\":\"traces/mix1-w.ndjson.zst\",\"slo_spec_id\":\"schednav-demo-slo-v1\",\"baseline_action_id\":\"$A\"}"
	  call 5 audit_run_set "{\"simulations_ref\":\"$SR\",\"slo_spec_id\":\"schednav-demo-slo-v1\",\"baseline_action_id\":\"$A\"}"
	  call 6 audit_run_set "{\"simulations_ref\":\"$SR\",\"slo_spec_id\":\"schednav-demo-slo-v1\",\"baseline_action_id\":\"native-preemptive-g3600-b09-loss-aware\"}"
	} | session auditor auditor
	AUD=$(jq -r 'select(.id == 1 or .id == 2 or .id == 3) | .result.structuredContent.result.audit_ref' "$OUT/mcp/auditor.out" | paste -sd, - | sed 's/[^,]*/"&"/g')
	{ echo "$INIT"
	  call 1 compare_policies "{\"metrics_refs\":[\"$M\",\"$MB\",\"$MC\"]}"
	  call 2 rank_policies "{\"metrics_refs\":[\"$M\",\"$MB\",\"$MC\"],\"audit_refs\":[$AUD],\"slo_spec_id\":\"schednav-demo-slo-v1\"}"
	  call 3 compare_policies "{\"metrics_refs\":[\"$M\",\"$MB\"]}"
	} | session manager manager
	T1=$(jq -r 'select(.id == 1) | .result.structuredContent.task_id' "$OUT/mcp/manager.out")
	RK=$(jq -r 'select(.id == 2) | .result.structuredContent.result.ranking_ref' "$OUT/mcp/manager.out")
	{ echo "$INIT"
	  call 1 forecast_demand '{"run_config_id":"mix1-w","controller_id":"predictive-spot-v1","cutoff_seconds":4000}'
	  call 2 simulate_predictive_policy "{\"run_config_id\":\"mix1-w\",\"action_id\":\"$B\",\"controller_id\":\"predictive-spot-v1\"}"
	  call 3 forecast_demand '{"run_config_id":"mix1-w","controller_id":"no-such","cutoff_seconds":4000}'
	} | session predictive predictive
	R='"run_config_id":"mix1-w","controller_id":"predictive-spot-v1","rolling_controller_id":"rolling-v3","mode":"single_agent"'
	{ echo "$INIT"; call 1 advance_rolling_policy "{$R,\"decisions\":[]}"; } | session rolling-1 rolling
	RID=$(jq -r 'select(.id == 1) | .result.structuredContent.result.records[0].pending_request.request_id' "$OUT/mcp/rolling-1.out")
	REC=$(jq -r 'select(.id == 1) | .result.structuredContent.result.records[0].pending_request.recommended_action_id' "$OUT/mcp/rolling-1.out")
	{ echo "$INIT"
	  call 1 advance_rolling_policy "{$R,\"decisions\":[{\"request_id\":\"$RID\",\"action_id\":\"$REC\",\"reason_code\":\"identity\",\"llm_call_count\":1}]}"
	  call 2 advance_rolling_policy "{$R,\"decisions\":[{\"request_id\":\"$RID\",\"action_id\":\"$REC\",\"reason_code\":\"a\"},{\"request_id\":\"$RID\",\"action_id\":\"$REC\",\"reason_code\":\"b\"}]}"
	} | session rolling-2 rolling
	{ echo "$INIT"
	  call 1 get_task "{\"task_id\":\"$T1\"}"
	  call 2 get_task '{"task_id":"0123456789abcdef0123456789abcdef"}'
	  call 3 read_artifact "{\"ref\":\"$RK\"}"
	  call 4 read_artifact '{"ref":"traces/mix1-w.ndjson.zst"}'
	  call 5 read_artifact "{\"ref\":\"$M\"}"
	} | session reads analyst
	# an edited task store is never replayed
	sed 's/"succeeded"/"failed"/' "$W/.schednav-mcp/tasks/$T1.json" > "$W/.schednav-mcp/tasks/$T1.json.new"
	mv "$W/.schednav-mcp/tasks/$T1.json.new" "$W/.schednav-mcp/tasks/$T1.json"
	{ echo "$INIT"
	  call 1 compare_policies "{\"metrics_refs\":[\"$M\",\"$MB\",\"$MC\"]}"
	  call 2 get_task "{\"task_id\":\"$T1\"}"
	} | session edited manager
	# a tool that fails (a failed task, its failure log) and one killed by a signal (transient)
	for how in fail kill; do
		x="$SCRATCH/exec-$how"
		mkdir -p "$x"
		for t in "$BIN"/*; do ln -s "$t" "$x/"; done
		rm "$x/trace-analyze"
		if [ $how = fail ]; then
			printf '#!/bin/sh\necho "trace-analyze: junk" >&2\nexit 1\n' > "$x/trace-analyze"
		else
			printf '#!/bin/sh\nkill -9 $$\n' > "$x/trace-analyze"
		fi
		chmod +x "$x/trace-analyze"
		{ echo "$INIT"
		  call 1 analyze_workload "{\"run_config_id\":\"mix1-w2\",\"idempotency_key\":\"identity-$how\"}"
		  call 2 analyze_workload "{\"run_config_id\":\"mix1-w2\",\"idempotency_key\":\"identity-$how\"}"
		} | session "tool-$how" analyst --exec-path "$x"
	done
	set +e
	"$BIN/schednav-mcp" --verify-log --workspace "$W" > "$OUT/mcp/verify.out" 2> "$OUT/mcp/verify.err"
	echo $? > "$OUT/mcp/verify.status"
	"$BIN/schednav-mcp" --profile nope --workspace "$W" < /dev/null > "$OUT/mcp/bad-profile.out" 2> "$OUT/mcp/bad-profile.err"
	echo $? > "$OUT/mcp/bad-profile.status"
	set -e
	cp -R "$W" "$OUT/workspace"
}

# report_page NAME ARGS...: one page (or its diagnostics) kept.
report_page() {
	name=$1
	shift
	set +e
	"$BIN/report" "$@" > "$OUT/report/$name.stdout" 2> "$OUT/report/$name.err"
	echo $? > "$OUT/report/$name.status"
	set -e
}

capture_report() {
	mkdir -p "$OUT/report"
	R="$W/report"
	mkdir -p "$R"
	cd "$R"
	python3 "$ROOT/tests/cases/report/fixture.py" fx
	report_page all -o all.html --title 'fixture <run>' fx/*.result.ndjson fx/*.metrics.ndjson fx/*.audit.ndjson fx/ranking.ndjson fx/study.ndjson
	report_page dated --date 2026-11-29 -o dated.html fx/*.result.ndjson fx/*.metrics.ndjson fx/*.audit.ndjson fx/ranking.ndjson fx/study.ndjson
	report_page decision -o decision.html fx/*.metrics.ndjson fx/*.audit.ndjson fx/ranking.ndjson
	report_page one -o one.html fx/native-fifo.result.ndjson
	report_page stdout fx/native-fifo.result.ndjson fx/native-fifo.metrics.ndjson
	report_page bad-gnuplot --gnuplot false -o bad.html fx/native-fifo.result.ndjson
	report_page empty -o empty.html < /dev/null
	D="$ROOT/tests/data"
	"$BIN/trace-synth" --profile "$D/synth/tiny.json" --seed 3 --load-factor 0.3 -o full.nd
	"$BIN/trace-window" --eval-start 86400 --eval-end 172799 --warmup-start 0 --no-warmup-spot -i full.nd -o exec.nd
	"$BIN/trace-window" --eval-start 86400 --eval-end 172799 --warmup-start 72000 -i full.nd -o hist.nd
	"$BIN/roll" --config "$ROOT/configs/rolling/rolling-v3.json" --history hist.nd --controller "$ROOT/configs/controllers/predictive-spot-v1.json" \
		--decider rule -o rule.nd exec.nd
	"$BIN/metrics" -i rule.nd -o rule.metrics.nd
	report_page rolling -o rolling.html rule.nd rule.metrics.nd
	"$BIN/sim-run" -p "$ROOT/configs/policies/native-preemptive-3600.json" --controller "$ROOT/configs/controllers/predictive-spot-v1.json" -i exec.nd -o pred.nd
	"$BIN/metrics" -i pred.nd -o pred.metrics.nd
	"$BIN/sim-run" -p "$ROOT/configs/policies/native-fifo.json" -i exec.nd -o fifo.nd
	"$BIN/metrics" -i fifo.nd -o fifo.metrics.nd
	report_page predictive -o predictive.html pred.nd pred.metrics.nd fifo.nd fifo.metrics.nd
	# make demo's page (pipelines/demo.mk, the same commands)
	mkdir -p demo
	"$BIN/trace-import" csv --map "$ROOT/configs/maps/chronus-philly.json" --nodes-file "$D/philly-cluster_machine_list.zst" \
		--node-subset-gpus 800 --seed 1 "$D/chronus-trace_job_Philly_MIX1.csv.zst" -o demo/trace.ndjson.zst
	"$BIN/trace-window" --eval-start 3600 --eval-end 18000 --warmup-start 0 -i demo/trace.ndjson.zst -o demo/slice.ndjson.zst
	P="native-fifo native-preemptive-3600 native-preemptive-g3600-b09-d0000 native-preemptive-g3600-b09-d0900 native-preemptive-g3600-b09-loss-aware"
	res='' met=''
	for p in $P; do
		"$BIN/sim-run" --policy "$ROOT/configs/policies/$p.json" -o "demo/$p.result.ndjson.zst" < demo/slice.ndjson.zst
		"$BIN/metrics" -o "demo/$p.metrics.ndjson" < "demo/$p.result.ndjson.zst"
		res="$res demo/$p.result.ndjson.zst" met="$met demo/$p.metrics.ndjson"
	done
	# shellcheck disable=SC2086
	"$BIN/slo-audit" --slo "$ROOT/configs/slos/schednav-demo-slo-v1.json" --baseline demo/native-fifo.metrics.ndjson -o demo/audit.ndjson $met
	# shellcheck disable=SC2086
	"$BIN/rank" --slo "$ROOT/configs/slos/schednav-demo-slo-v1.json" -o demo/ranking.ndjson $met demo/audit.ndjson
	# shellcheck disable=SC2086
	report_page demo --title 'SchedNav demo: Chronus Philly MIX1 on 800 Philly GPUs' --approvals demo/approvals.ndjson \
		--approve-program approve -o demo/report.html $res $met demo/audit.ndjson demo/ranking.ndjson
	for f in all dated decision one rolling predictive demo/report; do cp "$f.html" "$OUT/report/$(echo "$f" | tr / -).html"; done
	cd "$ROOT"
}

capture() {
	OUT=$1
	BIN=$(cd "${SCHEDNAV_BIN:-$ROOT/bin}" && pwd)
	export LC_ALL=C TZ=UTC SCHEDNAV_CONFIGS="$ROOT/configs" PATH="$BIN:$PATH"
	[ ! -e "$OUT" ] || { echo "identity: '$OUT' exists" >&2; exit 2; }
	mkdir -p "$OUT"
	OUT=$(cd "$OUT" && pwd)
	# one fixed place for every run: paths inside outputs are equal between captures
	SCRATCH="${TMPDIR:-/tmp}/schednav-identity-run"
	rm -rf "$SCRATCH"
	mkdir -p "$SCRATCH"
	SHIM="$SCRATCH/frozen-clock.so"
	cat > "$SCRATCH/frozen-clock.c" <<'C'
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>
/* schednav-mcp's monotonic clock stands still (duration_ms 0); the tools it runs get the real one */
__attribute__((constructor)) static void drop(void) { unsetenv("LD_PRELOAD"); }
int clock_gettime(clockid_t id, struct timespec *ts) { (void)id; ts->tv_sec = 1000; ts->tv_nsec = 0; return 0; }
C
	cc -shared -fPIC -o "$SHIM" "$SCRATCH/frozen-clock.c"
	W="$SCRATCH/ws"
	capture_mcp
	capture_report
	rm -rf "$SCRATCH"
	echo "identity: captured $(find "$OUT" -type f | wc -l) files into $OUT"
}

case "${1:-}" in
capture) [ $# -eq 2 ] || { echo "usage: $0 capture OUTDIR" >&2; exit 2; }; capture "$2" ;;
compare) [ $# -eq 3 ] || { echo "usage: $0 compare OLD NEW" >&2; exit 2; }; compare "$2" "$3" ;;
*)
	[ $# -eq 2 ] || { echo "usage: $0 capture OUTDIR | compare OLD NEW | OLD_BIN NEW_BIN" >&2; exit 2; }
	tmp=$(mktemp -d)
	SCHEDNAV_BIN=$1 "$0" capture "$tmp/old" > /dev/null
	SCHEDNAV_BIN=$2 "$0" capture "$tmp/new" > /dev/null
	rc=0
	compare "$tmp/old" "$tmp/new" || rc=1
	rm -rf "$tmp"
	exit $rc ;;
esac
