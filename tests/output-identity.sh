#!/bin/bash
# output-identity.sh — fingerprint every file a fixed, deterministic set of pipelines writes,
# so that a pure refactor (issue 20) can prove it changed no output byte.
#
# usage: tests/output-identity.sh [--record FILE | --compare FILE] [--jobs N] [--keep] [--only LIST]
#
# Runs, from the repository root, with the tools of $SCHEDNAV_BIN (default bin/):
#   golden      every case x policy of ../shared/golden: trace-import canonical | sim-run |
#               metrics, slo-audit against the case's native-fifo run, rank over the catalogue
#               (as tests/sim-golden.bats and tests/pipeline-golden.bats do)
#   predictive  every case x policy of ../shared/golden-predictive through sim-run --controller |
#               metrics, every cutoff bundle (forecast) and its quota plan, every leakage variant
#               (as tests/predict-golden.bats does)
#   importers   trace-import of every fixture format in tests/data, trace-scan, trace-analyze,
#               trace-export and trace-window on them
#   demo        make demo-run (its stdout, every stream, the report HTML)
#   studies     configs/studies/tiny.json (holdout), predictive-tiny.json (holdout) and
#               adaptive-tiny.json (adaptive) through pipelines/study.mk
#   roll        one day of the v2026 profile: roll with the rule and oracle deciders (and the
#               fork evaluator), report over the rolling and a controller result
#   synth       trace-synth and trace-fidelity on the small test profiles
#   mcp         one raw JSON-RPC session per profile of schednav-mcp on a fixed workspace: the
#               transcript, the artefacts, the stored tasks and the audit log (durations removed)
# and writes one line per produced file, "PATH SHA256", sorted by path (PATH relative to the
# work directory). A command that fails adds PATH.exit holding its status and stderr, so an
# expected error is compared too.
#
# --record FILE   write the lines to FILE (a baseline)
# --compare FILE  compare with the baseline FILE: print each difference (missing, new, changed)
#                 and exit 1 if there is any, 0 otherwise
# neither         print the lines on stdout
# --jobs N        parallel jobs (default 2)
# --keep          keep the work directory (default: removed at the end)
# --only LIST     run only these sections (comma-separated names above; for working on the
#                 script: a comparison then reports the other sections' files as missing)
#
# The work directory is work/identity under the repository root (IDENTITY_WORK overrides it,
# but the headers of some streams name their inputs' paths: compare only runs made with the
# same, relative, work directory). ../shared is reached through the symlink work/identity/shared
# (SCHEDNAV_SHARED overrides the target), so the paths the tools see do not depend on where the
# tree is. Without ../shared/golden the golden sections are left out and the script says so
# (a comparison then reports their files as missing).
set -u -o pipefail
export LC_ALL=C TZ=UTC

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
MODE=print FILE= JOBS=2 KEEP=no ONLY=golden,predictive,importers,demo,studies,roll,synth,mcp
usage() { echo "usage: tests/output-identity.sh [--record FILE | --compare FILE] [--jobs N] [--keep] [--only LIST]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--record) [ $# -ge 2 ] || usage; MODE=record FILE=$2; shift 2 ;;
	--compare) [ $# -ge 2 ] || usage; MODE=compare FILE=$2; shift 2 ;;
	--jobs) [ $# -ge 2 ] || usage; JOBS=$2; shift 2 ;;
	--keep) KEEP=yes; shift ;;
	--only) [ $# -ge 2 ] || usage; ONLY=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) usage ;;
	esac
done
case "$JOBS" in ''|*[!0-9]*|0) usage ;; esac
case "$MODE:$FILE" in compare:/*|record:/*|print:) ;; *) FILE="$ROOT/$FILE" ;; esac
[ "$MODE" != compare ] || [ -f "$FILE" ] || { echo "output-identity: no baseline '$FILE'" >&2; exit 2; }

BIN=$(cd "${SCHEDNAV_BIN:-$ROOT/bin}" && pwd) || { echo "output-identity: no tools in '${SCHEDNAV_BIN:-bin}': run make first" >&2; exit 2; }
export PATH="$BIN:$PATH"
W=${IDENTITY_WORK:-work/identity}
SHARED=$(cd "${SCHEDNAV_SHARED:-$ROOT/../shared}" 2>/dev/null && pwd) || SHARED=
rm -rf "$W"
mkdir -p "$W"
[ -z "$SHARED" ] || ln -s "$SHARED" "$W/shared"
S=$W/shared
export W S BIN ROOT

# r OUT CMD...: run CMD; on failure write OUT.exit (the status, then stderr). Stderr of a
# command that succeeds is progress and timing, not compared.
r() {
	local out=$1 st
	shift
	mkdir -p "$(dirname "$out")"
	"$@" 2> "$out.stderr"
	st=$?
	if [ $st -ne 0 ]; then { echo "exit $st"; cat "$out.stderr"; } > "$out.exit"; fi
	rm -f "$out.stderr"
	return $st
}
export -f r

# --- golden: trace-import canonical | sim-run | metrics, slo-audit, rank ------------------
golden_case() {
	local c=$1 d=$W/golden/$1 p ok=()
	r "$d/trace.ndjson" trace-import canonical "$S/golden/cases/$c" -o "$d/trace.ndjson" || return 0
	for p in $(jq -r --arg c "$c" '.cases[$c].runs | keys[]' "$S/golden/expected-golden.json"); do
		p=${p%.json}
		r "$d/$p.result.ndjson" sim-run --no-progress --policy "$S/golden/policies/$p.json" -i "$d/trace.ndjson" -o "$d/$p.result.ndjson" &&
			r "$d/$p.metrics.ndjson" metrics -i "$d/$p.result.ndjson" -o "$d/$p.metrics.ndjson" && ok+=("$d/$p.metrics.ndjson")
	done
	[ -f "$d/native-fifo.metrics.ndjson" ] || return 0
	r "$d/audit.ndjson" slo-audit --slo "$S/golden/schednav-demo-slo-v1.json" --baseline "$d/native-fifo.metrics.ndjson" \
		-o "$d/audit.ndjson" "${ok[@]}"
	local rk=()
	for p in $(jq -r '.rank_policies[]' "$S/golden/expected-golden.json"); do
		[ -f "$d/${p%.json}.metrics.ndjson" ] && rk+=("$d/${p%.json}.metrics.ndjson")
	done
	r "$d/rank-audit.ndjson" slo-audit --slo "$S/golden/schednav-demo-slo-v1.json" --baseline "$d/native-fifo.metrics.ndjson" \
		-o "$d/rank-audit.ndjson" "${rk[@]}" &&
		r "$d/ranking.ndjson" rank --slo "$S/golden/schednav-demo-slo-v1.json" -o "$d/ranking.ndjson" "$d/rank-audit.ndjson" "${rk[@]}"
	return 0
}
export -f golden_case

# --- golden-predictive: sim-run --controller | metrics, forecast + quota, leakage ----------
predictive_case() {
	local c=$1 d=$W/predictive/$1 G=$S/golden-predictive p t ctl
	ctl=$G/$(jq -r .controller "$G/expected-predictive.json")
	r "$d/trace.ndjson" trace-import canonical "$G/cases/$c" -o "$d/trace.ndjson" || return 0
	for p in $(jq -r --arg c "$c" '.cases[$c].runs | keys[]' "$G/expected-predictive.json"); do
		p=${p%.json}
		r "$d/$p.result.ndjson" sim-run --no-progress --policy "$G/policies/$p.json" --controller "$ctl" -i "$d/trace.ndjson" -o "$d/$p.result.ndjson" &&
			r "$d/$p.metrics.ndjson" metrics -i "$d/$p.result.ndjson" -o "$d/$p.metrics.ndjson"
	done
	for t in $(jq -r --arg c "$c" '.cases[$c].forecasts // [] | .[].cutoff_argument' "$G/expected-predictive.json"); do
		r "$d/forecast-$t.ndjson" forecast --controller "$ctl" --cutoff "$t" -i "$d/trace.ndjson" -o "$d/forecast-$t.ndjson" &&
			r "$d/quota-$t.ndjson" quota --controller "$ctl" -i "$d/forecast-$t.ndjson" -o "$d/quota-$t.ndjson"
	done
	jq -r --arg c "$c" '.cases[$c].leakage // [] | .[] | "\(.variant) \(.cutoff_argument)"' "$G/expected-predictive.json" |
	while read -r v t; do
		r "$d/leak-$v/trace.ndjson" trace-import canonical "$G/leakage/$v" -o "$d/leak-$v/trace.ndjson" &&
			r "$d/leak-$v/forecast-$t.ndjson" forecast --controller "$ctl" --cutoff "$t" -i "$d/leak-$v/trace.ndjson" -o "$d/leak-$v/forecast-$t.ndjson"
	done
	return 0
}
export -f predictive_case

# --- importers and trace tools on the fixtures of tests/data ------------------------------
sec_importers() {
	local d=$W/importers D=tests/data
	mkdir -p "$d"
	r "$d/mix1.ndjson" trace-import csv --map configs/maps/chronus-philly.json --nodes-file "$D/philly-cluster_machine_list.zst" \
		--node-subset-gpus 200 --seed 1 "$D/chronus-trace_job_Philly_MIX1.csv.zst" -o "$d/mix1.ndjson"
	r "$d/v2023.ndjson" trace-import alibaba-v2023 --nodes "$D/v2023-openb_node_list_gpu_node.csv.zst" \
		--pods "$D/v2023-openb_pod_list_default.head500.csv.zst" -o "$d/v2023.ndjson"
	r "$d/spot.ndjson" trace-import alibaba-spot --nodes "$D/alibaba-spot-node_info_df.csv.zst" \
		--jobs "$D/alibaba-spot-job_info_df.fixture.csv" -o "$d/spot.ndjson"
	r "$d/slurm-states.ndjson" trace-import slurm --jobs "$D/slurm/sacct-states.txt" --nodes "$D/slurm/nodes.txt" \
		--class qos:scavenger=Spot --class qos:normal=HP --class qos:high=HP -o "$d/slurm-states.ndjson"
	r "$d/slurm-variant.ndjson" trace-import slurm --jobs "$D/slurm/sacct-variant.txt" --nodes "$D/slurm/nodes.txt" \
		--class qos:scavenger=Spot --class qos:normal=HP --class qos:high=HP -o "$d/slurm-variant.ndjson"
	r "$d/philly.json" python3 tests/gen-philly-log.py > "$d/philly.json" &&
		r "$d/philly.ndjson" trace-import philly --machines "$D/philly-cluster_machine_list.zst" --job-log "$d/philly.json" --class Spot -o "$d/philly.ndjson"
	r "$d/mix1-w.ndjson" trace-window --eval-start 3600 --eval-end 5400 --warmup-start 1800 -i "$d/mix1.ndjson" -o "$d/mix1-w.ndjson"
	r "$d/mix1.scan.ndjson" trace-scan --all-eligible --day-seconds 3600 --sample-seconds 600 -i "$d/mix1.ndjson" -o "$d/mix1.scan.ndjson"
	r "$d/mix1-w.workload.ndjson" trace-analyze "$d/mix1-w.ndjson" -o "$d/mix1-w.workload.ndjson"
	r "$d/v2023.workload.ndjson" trace-analyze "$d/v2023.ndjson" -o "$d/v2023.workload.ndjson"
	r "$d/export/out" trace-export "$d/export" "$d/mix1-w.ndjson"
}

# --- make demo-run ------------------------------------------------------------------------
sec_demo() {
	mkdir -p "$W/demo"
	r "$W/demo/stdout.txt" make --no-print-directory DEMO_DIR="$W/demo" demo-run > "$W/demo/stdout.txt"
}

# --- the three small studies --------------------------------------------------------------
sec_studies() {
	local s
	for s in tiny:holdout predictive-tiny:holdout adaptive-tiny:adaptive; do
		r "$W/studies/${s%%:*}.make" make --no-print-directory -j"$JOBS" STUDY="configs/studies/${s%%:*}.json" \
			STUDY_WORK="$W/studies" STUDY_BIN="$BIN" PROGRESS=no "${s#*:}" > /dev/null
	done
}

# --- roll on one day of the v2026 profile, report ----------------------------------------
sec_roll() {
	local d=$W/roll CFG=configs/rolling/rolling-v3.json CTL=configs/controllers/schednav-tenant-linear-v2.json
	local T0=$((36 * 86400)) DAY=86400
	mkdir -p "$d"
	r "$d/full.ndjson" trace-synth --no-progress --profile configs/profiles/alibaba-spot-gpu-v2026.json --gpu-model GPU-series-2 \
		--days 0-36 --load-factor 0.5 -o "$d/full.ndjson" || return 0
	r "$d/exec.ndjson" trace-window --eval-start $T0 --eval-end $((T0 + DAY - 1)) --warmup-start 0 --no-warmup-spot -i "$d/full.ndjson" -o "$d/exec.ndjson"
	r "$d/hist.ndjson" trace-window --eval-start $T0 --eval-end $((T0 + DAY - 1)) --warmup-start $((T0 - 14400)) -i "$d/full.ndjson" -o "$d/hist.ndjson"
	r "$d/rule.ndjson" roll --no-progress --config $CFG --history "$d/hist.ndjson" --controller $CTL --decider rule -o "$d/rule.ndjson" "$d/exec.ndjson"
	r "$d/oracle.ndjson" roll --no-progress --config $CFG --history "$d/hist.ndjson" --controller $CTL --decider oracle -o "$d/oracle.ndjson" "$d/exec.ndjson"
	r "$d/fork.ndjson" roll --no-progress --config $CFG --history "$d/hist.ndjson" --controller $CTL --decider rule --evaluator fork -o "$d/fork.ndjson" "$d/exec.ndjson"
	r "$d/agent.ndjson" roll --no-progress --config $CFG --history "$d/hist.ndjson" --controller $CTL \
		--decider "exec:jq -c --unbuffered -f tests/roll/scripted-agent.jq" -o "$d/agent.ndjson" "$d/exec.ndjson"
	r "$d/static.ndjson" sim-run --no-progress --policy configs/policies/native-preemptive-g3600-b09-d0000.json --controller $CTL \
		-i "$d/exec.ndjson" -o "$d/static.ndjson"
	r "$d/fifo.ndjson" sim-run --no-progress --policy configs/policies/native-fifo.json -i "$d/exec.ndjson" -o "$d/fifo.ndjson"
	local f
	for f in rule oracle static fifo; do
		r "$d/$f.metrics.ndjson" metrics -i "$d/$f.ndjson" -o "$d/$f.metrics.ndjson"
	done
	r "$d/audit.ndjson" slo-audit --slo configs/slos/schednav-demo-slo-v1.json --baseline "$d/fifo.metrics.ndjson" -o "$d/audit.ndjson" \
		"$d/fifo.metrics.ndjson" "$d/static.metrics.ndjson" "$d/rule.metrics.ndjson" "$d/oracle.metrics.ndjson"
	r "$d/report.html" report --title "identity: one rolling day" --date 2026-01-01 -o "$d/report.html" \
		"$d/fifo.ndjson" "$d/static.ndjson" "$d/rule.ndjson" "$d/oracle.ndjson" \
		"$d/fifo.metrics.ndjson" "$d/static.metrics.ndjson" "$d/rule.metrics.ndjson" "$d/oracle.metrics.ndjson" "$d/audit.ndjson"
}

# --- trace-synth and trace-fidelity on the small test profiles -----------------------------
sec_synth() {
	local d=$W/synth p=configs/profiles/alibaba-spot-gpu-v2026
	mkdir -p "$d"
	r "$d/tiny.ndjson" trace-synth --no-progress --profile tests/data/synth/tiny.json --seed 3 --load-factor 0.3 --days 0-1 \
		--report "$d/tiny.report.json" -o "$d/tiny.ndjson"
	r "$d/tiny3.ndjson" trace-synth --no-progress --profile tests/data/synth/tiny3.json --seed 3 --load-factor 0.3 --days 0-1 \
		--report "$d/tiny3.report.json" -o "$d/tiny3.ndjson" &&
		r "$d/tiny3.fidelity.ndjson" trace-fidelity --profile tests/data/synth/tiny3.json --markdown "$d/tiny3.fidelity.md" \
			-o "$d/tiny3.fidelity.ndjson" "$d/tiny3.ndjson"
	r "$d/v2026.ndjson" trace-synth --no-progress --profile $p.json --gpu-model GPU-series-2 --days 0-1 --seed 7 -o "$d/v2026.ndjson"
	r "$d/v2026-v3.ndjson" trace-synth --no-progress --profile $p-v3.json --days 0-1 --seed 7 --report "$d/v2026-v3.report.json" \
		-o "$d/v2026-v3.ndjson" &&
		r "$d/v2026-v3.fidelity.ndjson" trace-fidelity --profile $p-v3.json --markdown "$d/v2026-v3.fidelity.md" \
			-o "$d/v2026-v3.fidelity.ndjson" "$d/v2026-v3.ndjson"
	# a profile without per-model targets: the error is an output too
	r "$d/tiny.fidelity.ndjson" trace-fidelity --profile tests/data/synth/tiny.json -o "$d/tiny.fidelity.ndjson" "$d/tiny.ndjson"
	return 0
}

# --- schednav-mcp: one raw JSON-RPC session per profile ------------------------------------
sec_mcp() {
	local ws=$W/mcp/ws t=$W/importers
	mkdir -p "$ws/traces" "$ws/run-configs" "$ws/run-sets"
	cp "$t/mix1-w.ndjson" "$ws/traces/mix1-w.ndjson"
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/mix1-w.ndjson"}' > "$ws/run-configs/mix1-w.json"
	echo '{"schema_version":"schednav.run-set/1","run_config_ids":["mix1-w"]}' > "$ws/run-sets/one.json"
	local init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"identity","version":"1"}}}'
	local inited='{"jsonrpc":"2.0","method":"notifications/initialized"}'
	local list='{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
	# call ID TOOL ARGS-JSON
	call() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$1" "$2" "$3"; }
	# The server records the absolute paths of the configs it reads (the rolling artefacts'
	# headers, and the audits chain their fingerprints), so it reads a copy at one fixed place,
	# whatever the path of the tree: every worktree then compares with the same baseline. The
	# copy is shared by every tree on the machine: a lock keeps two runs from mixing theirs.
	local cfgdir=${IDENTITY_CONFIGS:-/tmp/schednav-identity-configs}
	exec {cfglock}>"$cfgdir.lock"
	flock "$cfglock"
	rm -rf "$cfgdir"
	cp -R configs "$cfgdir"
	session() {   # session PROFILE[-N]: the requests on stdin, the transcript in $W/mcp/PROFILE[-N].transcript
		r "$W/mcp/$1.transcript" schednav-mcp --profile "${1%-[0-9]}" --workspace "$ws" --configs "$cfgdir" > "$W/mcp/$1.transcript"
	}
	{ echo "$init"; echo "$inited"; echo "$list"
	  call 2 analyze_workload '{"run_config_id":"mix1-w"}'
	  call 3 analyze_workload '{"run_config_id":"mix1-w"}'
	  call 4 analyze_workload '{"run_config_id":"nope"}'
	  call 5 read_artifact '{"artifact_ref":"nope"}'
	} | session analyst
	{ echo "$init"; echo "$inited"; echo "$list"
	  call 2 simulate_policy '{"run_config_id":"mix1-w","action_id":"native-fifo","idempotency_key":"identity-fifo-1"}'
	  call 3 simulate_policy '{"run_config_id":"mix1-w","action_id":"native-preemptive-3600","idempotency_key":"identity-p3600-1"}'
	  call 4 simulate_policy '{"run_config_id":"mix1-w","action_id":"native-preemptive-g3600-b09-d0000","idempotency_key":"identity-d0000-1"}'
	  call 5 simulate_policy '{"run_config_id":"mix1-w","action_id":"native-fifo","idempotency_key":"identity-fifo-1"}'
	  call 6 simulate_run_set '{"run_set_id":"one","action_ids":["native-fifo","native-preemptive-3600","native-preemptive-g3600-b09-d0000"]}'
	} | session simulation
	{ echo "$init"; echo "$inited"; echo "$list"
	  call 2 forecast_demand '{"run_config_id":"mix1-w","controller_id":"predictive-spot-v1","cutoff_seconds":4000}'
	  call 3 simulate_predictive_policy '{"run_config_id":"mix1-w","action_id":"native-preemptive-3600","controller_id":"predictive-spot-v1"}'
	} | session predictive
	# the auditor and the manager work on the simulation session's artefacts
	local m1 m2 m3 sims a1 a2 a3
	m1=$(sed -n 3p "$W/mcp/simulation.transcript" | jq -r .result.structuredContent.result.metrics_ref)
	m2=$(sed -n 4p "$W/mcp/simulation.transcript" | jq -r .result.structuredContent.result.metrics_ref)
	m3=$(sed -n 5p "$W/mcp/simulation.transcript" | jq -r .result.structuredContent.result.metrics_ref)
	sims=$(sed -n 7p "$W/mcp/simulation.transcript" | jq -r .result.structuredContent.result.simulations_ref)
	{ echo "$init"; echo "$inited"; echo "$list"
	  call 2 audit_slo "{\"metrics_ref\":\"$m1\",\"slo_spec_id\":\"schednav-demo-slo-v1\",\"baseline_action_id\":\"native-fifo\"}"
	  call 3 audit_slo "{\"metrics_ref\":\"$m2\",\"slo_spec_id\":\"schednav-demo-slo-v1\",\"baseline_metrics_ref\":\"$m1\"}"
	  call 4 audit_slo "{\"metrics_ref\":\"$m3\",\"slo_spec_id\":\"schednav-demo-slo-v1\",\"baseline_action_id\":\"native-fifo\"}"
	  call 5 audit_run_set "{\"simulations_ref\":\"$sims\",\"slo_spec_id\":\"schednav-demo-slo-v1\",\"baseline_action_id\":\"native-fifo\"}"
	} | session auditor
	a1=$(sed -n 3p "$W/mcp/auditor.transcript" | jq -r .result.structuredContent.result.audit_ref)
	a2=$(sed -n 4p "$W/mcp/auditor.transcript" | jq -r .result.structuredContent.result.audit_ref)
	a3=$(sed -n 5p "$W/mcp/auditor.transcript" | jq -r .result.structuredContent.result.audit_ref)
	{ echo "$init"; echo "$inited"; echo "$list"
	  call 2 compare_policies "{\"metrics_refs\":[\"$m1\",\"$m2\",\"$m3\"]}"
	  call 3 rank_policies "{\"metrics_refs\":[\"$m1\",\"$m2\",\"$m3\"],\"audit_refs\":[\"$a1\",\"$a2\",\"$a3\"],\"slo_spec_id\":\"schednav-demo-slo-v1\"}"
	  call 4 get_task '{"task_id":"afb0707a7e86248d6cee1a711db5a8f8"}'
	  call 5 read_artifact "{\"ref\":\"$m1\"}"
	} | session manager
	{ echo "$init"; echo "$inited"; echo "$list"; } | session strategist
	{ echo "$init"; echo "$inited"; echo "$list"
	  call 2 advance_rolling_policy '{"run_config_id":"mix1-w","controller_id":"predictive-spot-v1","rolling_controller_id":"rolling-v3","mode":"single_agent","decisions":[]}'
	} | session rolling
	local rid rec
	rid=$(sed -n 3p "$W/mcp/rolling.transcript" | jq -r '.result.structuredContent.result.records[0].pending_request.request_id')
	rec=$(sed -n 3p "$W/mcp/rolling.transcript" | jq -r '.result.structuredContent.result.records[0].pending_request.recommended_action_id')
	{ echo "$init"; echo "$inited"
	  call 2 advance_rolling_policy "{\"run_config_id\":\"mix1-w\",\"controller_id\":\"predictive-spot-v1\",\"rolling_controller_id\":\"rolling-v3\",\"mode\":\"single_agent\",\"decisions\":[{\"request_id\":\"$rid\",\"action_id\":\"$rec\",\"reason_code\":\"scripted: the recommendation\",\"llm_call_count\":1}]}"
	} | session rolling-2
	# The audit log's lines carry each call's duration, and so do their chained fingerprints and
	# the task files' offsets into the log: the rest of every line is compared.
	schednav-mcp --workspace "$ws" --verify-log 2>&1 | sed "s|'$ROOT/|'|; s/(last fingerprint [0-9a-f]*)/(last fingerprint FP)/" > "$W/mcp/verify-log.txt"
	sed 's/"duration_ms":[0-9]*,//; s/,"previous_fingerprint":[^,]*,"call_fingerprint":"[0-9a-f]*"//' \
		"$ws/.schednav-mcp/audit.ndjson" > "$W/mcp/audit.normalised.ndjson"
	mkdir -p "$W/mcp/tasks.normalised"
	local f
	for f in "$ws"/.schednav-mcp/tasks/*; do
		sed 's/,"audit_offset":[0-9]*//' "$f" > "$W/mcp/tasks.normalised/${f##*/}"
	done
	rm -f "$ws"/.schednav-mcp/audit.ndjson "$ws"/.schednav-mcp/tasks/*
	exec {cfglock}>&-
}

# --- run everything ------------------------------------------------------------------------
say() { echo "output-identity: $*" >&2; }
START=$SECONDS
want() { case ",$ONLY," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
if want golden; then
	if [ -n "$SHARED" ] && [ -d "$S/golden/cases" ]; then
		say "golden ($(ls "$S/golden/cases" | wc -l) cases)"
		ls "$S/golden/cases" | xargs -P "$JOBS" -I{} bash -c 'golden_case "$1"' _ {}
	else
		say "no ../shared/golden: the golden section is left out"
	fi
fi
if want predictive; then
	if [ -n "$SHARED" ] && [ -d "$S/golden-predictive/cases" ]; then
		say "golden-predictive ($(ls "$S/golden-predictive/cases" | wc -l) cases)"
		ls "$S/golden-predictive/cases" | xargs -P "$JOBS" -I{} bash -c 'predictive_case "$1"' _ {}
	else
		say "no ../shared/golden-predictive: the predictive section is left out"
	fi
fi
# mcp works on the importers' MIX1 window
for s in importers demo studies roll synth mcp; do
	if want $s || { [ $s = importers ] && want mcp; }; then
		say "$s ($((SECONDS - START)) s)"
		sec_$s
	fi
done
say "ran in $((SECONDS - START)) s"

# One line per file, sorted (not the files under the symlink to ../shared).
LINES=$(mktemp)
trap 'rm -f "$LINES"' EXIT
(cd "$W" && find . -path ./shared -prune -o -type f -print0 | sort -z |
	xargs -0 -r sha256sum | sed 's|^\([0-9a-f]*\)  \./\(.*\)$|\2 \1|') > "$LINES"
say "$(wc -l < "$LINES") files"
[ "$KEEP" = yes ] || rm -rf "$W"
case $MODE in
print) cat "$LINES" ;;
record) cp "$LINES" "$FILE"; say "baseline written to $FILE" ;;
compare)
	diffs=$(join -a1 -a2 -e MISSING -o 0,1.2,2.2 "$FILE" "$LINES" | awk '
		$2 == "MISSING" { print "new:     " $1; next }
		$3 == "MISSING" { print "missing: " $1; next }
		$2 != $3 { print "changed: " $1 }')
	if [ -n "$diffs" ]; then
		echo "$diffs"
		say "$(echo "$diffs" | wc -l) differences from $FILE"
		exit 1
	fi
	say "0 differences from $FILE ($(wc -l < "$LINES") files)"
	;;
esac
