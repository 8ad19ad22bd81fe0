#!/bin/sh
# seeds.sh BIN OUT — build the seed corpus of every fuzz harness under OUT/NAME/ from the
# small data in tests/data and tests/cases, with the tools in BIN (a normal build). Parts
# of a multi-file input are joined with the harnesses' separator (FZ_SEP, "\n@@\n").
# Everything is written under OUT only.
set -eu
BIN=$1
OUT=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D="$ROOT/tests/data"
export PATH="$BIN:$PATH" LC_ALL=C
rm -rf "$OUT"
mkdir -p "$OUT"
W="$OUT/.work"
mkdir -p "$W"
sep() { printf '\n@@\n'; }
seed() { mkdir -p "$OUT/$1"; cat > "$OUT/$1/$2"; }

# trace streams: the sim fixtures, a window slice, the study trace (head), the case bodies
for f in "$D"/sim/*.trace.ndjson; do
	n=$(basename "$f" .trace.ndjson)
	seed trace "$n" < "$f"
	seed ndjson "$n" < "$f"
	zstd -q -c "$f" | seed ndjson_zstd "$n"
done
zstdcat "$D/study/tiny.trace.ndjson.zst" | head -n 60 | stream-seal | seed trace study-head
for f in "$ROOT"/tests/cases/trace-window/*.body "$ROOT"/tests/cases/trace-scan/*.body; do
	{ head -n 1 "$D/sim/warmup-window.trace.ndjson" | sed 's|schednav.trace/1|schednav.trace/2|'; cat "$f"; } | stream-seal > "$W/case.nd" 2>/dev/null || continue
	seed trace "case-$(basename "$f" .body)" < "$W/case.nd"
done
{ printf '\x50\x2a\x4d\x18\x04\x00\x00\x00skip'; zstd -q -c "$D/sim/drift.trace.ndjson"; } | seed ndjson_zstd skippable

# results, metrics, audits, a ranking, approvals, selection, comparison, aggregate
P="$ROOT/configs/policies"
S="$ROOT/configs/slos/schednav-demo-slo-v1.json"
for p in native-fifo native-preemptive-3600 native-preemptive-g3600-b09-d0000 native-preemptive-g3600-b09-d0900 native-preemptive-g3600-b09-loss-aware; do
	sim-run --policy "$P/$p.json" -i "$D/sim/preemption-small.trace.ndjson" -o "$W/$p.result"
	metrics -i "$W/$p.result" -o "$W/$p.metrics"
done
sim-run --policy "$P/native-preemptive-g3600-b09-d0900.json" -i "$D/sim/warmup-window.trace.ndjson" -o "$W/warm.result"
for f in "$W"/*.result; do seed result "$(basename "$f")" < "$f"; seed ndjson "$(basename "$f")" < "$f"; done
for f in "$W"/*.metrics; do seed metrics_record "$(basename "$f")" < "$f"; done
slo-audit --slo "$S" --baseline "$W/native-fifo.metrics" "$W"/*.metrics -o "$W/audits"
seed audit_record audits < "$W/audits"
rank --slo "$S" -o "$W/ranking" "$W/audits" "$W"/*.metrics
seed ranking_record ranking < "$W/ranking"
compare "$W/native-fifo.metrics" "$W/native-preemptive-3600.metrics" -o "$W/comparison"
approve --ranking "$W/ranking" --action native-fifo --by "A Person" --reason seed --at 2026-01-01T00:00:00Z --log "$W/approvals"
approve --ranking "$W/ranking" --action native-preemptive-3600 --by "B Person" --reason "$(printf 'two\nlines')" --at 2026-01-02T00:00:00Z --log "$W/approvals"
study-select --window w1 "$W"/*.metrics "$W/audits" -o "$W/selection"
for f in approvals comparison selection ranking audits; do seed approvals "$f" < "$W/$f"; done
cat "$W"/*.result "$W"/*.metrics "$W/audits" "$W/ranking" | seed report_model all
cat "$W/native-fifo.result" "$W/native-fifo.metrics" | seed report_model one
for f in "$W"/*.metrics "$W/audits" "$W/ranking"; do seed ndjson "$(basename "$f")" < "$f"; done

# importers
{ zstdcat "$D/alibaba-spot-node_info_df.csv.zst" | awk -F, 'NR == 1 || n[$1]++ < 16'; sep; head -n 21 "$D/alibaba-spot-job_info_df.fixture.csv"; } | seed import_alibaba_spot fixture
{ zstdcat "$D/v2023-openb_node_list_gpu_node.csv.zst" | head -n 12; sep; zstdcat "$D/v2023-openb_pod_list_default.head500.csv.zst" | head -n 25; } | seed import_alibaba_v2023 head
{ cat "$D/fgd/tiny-nodes.csv"; sep; cat "$D/fgd/tiny-pods.csv"; } | seed place_openb tiny
{ zstdcat "$D/v2023-openb_node_list_gpu_node.csv.zst" | head -n 40; sep; zstdcat "$D/v2023-openb_pod_list_default.head500.csv.zst" | head -n 120; } | seed place_openb openb-head
python3 "$ROOT/tests/gen-philly-log.py" --jobs 6 --seed 3 "$W/log.json" 2>/dev/null || python3 "$ROOT/tests/gen-philly-log.py" --jobs 6 --seed 3 > "$W/log.json"
{ zstdcat "$D/philly-cluster_machine_list.zst" | head -n 10; sep; head -c 6000 "$W/log.json"; } | seed import_philly generated
{ cat "$ROOT/configs/maps/chronus-philly.json"; sep; zstdcat "$D/philly-cluster_machine_list.zst" | head -n 30; sep; zstdcat "$D/chronus-trace_job_Philly_MIX1.csv.zst" | head -n 25; } | seed import_csv chronus
for m in "$ROOT"/configs/maps/*.json; do seed map "$(basename "$m" .json)" < "$m"; done
printf '{"format":"schednav.csv-map/1","trace_id":"fz","encoding":"latin-1","columns":{"job_id":"id","submit":"submit","duration":"duration","gpus":"gpus","class":"class","gpu_model":"model","tenant":"org"},"class_mapping":{"strict":"HP","soft":"HP","best":"Spot"},"skip":[{"column":"submit","op":"empty","reason":"no_submit"},{"column":"gpus","op":">","value":8,"reason":"big"}],"oversize_jobs":"skip","submit_origin":"min_submit","nodes":{"file":"x","id_column":"node","gpu_count_column":"gpus","gpu_model":"model","subset":{"gpus":8,"seed":3}}}' | seed map full
for f in "$D"/slurm/sacct-*.txt; do
	{ cat "$D/slurm/nodes.txt"; sep; cat "$f"; } | seed import_slurm "$(basename "$f" .txt)"
done
trace-export "$W/canon" "$D/sim/warmup-window.trace.ndjson"
{ cat "$W/canon/trace.json"; sep; cat "$W/canon/nodes.csv"; sep; cat "$W/canon/jobs.csv"; } | seed import_canonical warmup

# configs
for f in "$P"/*.json; do seed policy "$(basename "$f" .json)" < "$f"; done
for f in "$ROOT"/configs/slos/*.json; do seed slo "$(basename "$f" .json)" < "$f"; done
seed profile tiny < "$D/synth/tiny.json"
for f in "$ROOT"/configs/controllers/*.json; do seed controller "$(basename "$f" .json)" < "$f"; done
# results with the controller's records (control_decision, control_report)
sim-run --policy "$P/native-preemptive-3600.json" --controller "$ROOT/configs/controllers/predictive-spot-v1.json" \
	-i "$D/sim/warmup-window.trace.ndjson" -o "$W/ctl.result" 2>/dev/null && seed result controlled < "$W/ctl.result" || true
# observation bundles (forecast) and forecast_point records for quota
C1="$ROOT/configs/controllers/predictive-spot-v1.json"
for t in 3600 86400 100000; do forecast -c "$C1" -t "$t" "$D/sim/warmup-window.trace.ndjson" | seed quota_bundle "warmup-$t"; done
printf '%s\n' '{"type":"header","schema":"schednav.forecast-points/1","tool":"seed","version":"0","inputs":[],"params":{}}' \
	'{"type":"inventory","capacity_gpus":12}' \
	'{"type":"forecast_point","cutoff_time_seconds":0.0,"horizon_step":1,"target_time_seconds":3600.0,"mu_gpus":4.0,"sigma_gpus":1.0,"guarantee_quantile_gpus":5.281552}' \
	| stream-seal | seed quota_bundle points
# roll decider replies (the harness's pending request is 0123456789abcdef0123456789abcdef)
rq=0123456789abcdef0123456789abcdef
printf '{"type":"decision","request_id":"%s","action_id":"native-fifo","reason_code":"agent-accepts"}\n' $rq | seed roll_reply accepted
printf '{"type":"decision","request_id":"%s","action_id":"native-fifo","reason_code":"r","llm_call_count":1,"prompt_tokens":9223372036854775807,"completion_tokens":1000000000000}\n' $rq | seed roll_reply usage
printf '{"type":"decision","request_id":"other","action_id":"x","reason_code":"r"}\n{"type":"decision","request_id":"%s","action_id":"rolling-fifo-open","reason_code":"second"}\n' $rq | seed roll_reply plan
printf '{"type":"decision","request_id":"%s","action_id":"native-fifo","reason_code":"a"}\n{"type":"decision","request_id":"%s","action_id":"native-fifo","reason_code":"b"}\n' $rq $rq | seed roll_reply duplicate
# the bridge: a client session, stored tasks, run configs + run sets + simulations manifests
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"seed","version":"1"}}}'
printf '%s\n' "$INIT" '{"jsonrpc":"2.0","method":"notifications/initialized"}' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
	'{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"analyze_workload","arguments":{"run_config_id":"mix1-w","cutoff_seconds":4000.0}}}' \
	'{"jsonrpc":"2.0","id":2,"result":{}}' '{"jsonrpc":"2.0","id":3,"method":"ping","params":[1]}' | seed mcp_rpc session
TASK='{"schema_version":"schednav.bridge-task/2","task_id":"0123456789abcdef0123456789abcdef","operation":"analyze_workload","idempotency_key":"key-00000001","profile":"analyst","arguments_fingerprint":"00112233445566778899aabbccddeeff","state":"STATE","transient_failure":false,"artifacts":[{"ref":"artifacts/0123456789abcdef0123456789abcdef/workload.ndjson","schema":"schednav.workload/1","fingerprint":"00112233445566778899aabbccddeeff"}],"error":null,"result":RESULT,"audit_offset":OFFSET}'
ENV='{"task_id":"0123456789abcdef0123456789abcdef","operation":"analyze_workload","state":"succeeded","replayed":false,"artifacts":[],"result":{"run_config_id":"mix1-w","workload_summary":{"regime_label":"x"}}}'
echo "$TASK" | sed -e 's/STATE/succeeded/' -e "s/RESULT/$ENV/" -e 's/OFFSET/1234/' | seed mcp_task succeeded
echo "$TASK" | sed -e 's/STATE/running/' -e 's/RESULT/null/' -e 's/OFFSET/null/' | seed mcp_task running
echo "$TASK" | sed -e 's/STATE/failed/' -e 's/RESULT/null/' -e 's/OFFSET/0/' -e 's/"error":null/"error":"operation failed"/' | seed mcp_task failed
{
	echo '{"schema_version":"schednav.run-config/1","trace_ref":"traces/mix1-w.ndjson.zst","history_trace_ref":"traces/mix1.ndjson.zst","description":"d"}'
	sep
	echo '{"schema_version":"schednav.run-set/1","run_config_ids":["mix1-w","mix1-w2"]}'
	sep
	echo '{"type":"header","schema":"schednav.bridge-simulations/1","tool":"schednav-mcp","version":"0.2.0","inputs":[],"params":{},"task_id":"0123456789abcdef0123456789abcdef"}'
	for c in mix1-w mix1-w2; do
		for a in native-fifo native-preemptive-3600; do
			printf '{"type":"run_set_simulation","run_config_id":"%s","action_id":"%s","repetitions":2,"deterministic":true,"result_fingerprint":"00112233445566778899aabbccddeeff","metrics_ref":"artifacts/t/%s/%s/rep-2/metrics.ndjson","metrics_fingerprint":"00112233445566778899aabbccddeeff"}\n' "$c" "$a" "$c" "$a"
		done
	done
} | seed run_set_manifest two
rm -rf "$W"
