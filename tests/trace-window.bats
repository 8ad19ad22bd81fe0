#!/usr/bin/env bats
# trace-window: prefix and evaluation slices on hand-made traces (sealed with stream-seal).

load helper
load run_cases

CASES="$ROOT/tests/cases/trace-window"

setup() {
	T="$BATS_TEST_TMPDIR"
	stream-seal -i "$CASES/small.body" -o "$T/small.nd"
	stream-seal -i "$CASES/tenant.body" -o "$T/tenant.nd"
}

# Body lines of kind TYPE (node/job/note) of a stream file, as "id" lists or whole lines.
ids() { jq -r 'select(.type == "job") | .job_id' "$1" | paste -sd' '; }
nodes() { jq -r 'select(.type == "node") | .node_id' "$1" | paste -sd' '; }
# A header value by dotted path, printed as canonical JSON (python keeps 20.0 a float), strings raw.
hdr() {
	python3 -c '
import json, sys
v = json.loads(open(sys.argv[1]).readline())
for k in sys.argv[2].strip(".").split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(v if isinstance(v, str) else json.dumps(v, separators=(",", ":"), ensure_ascii=False))
' "$1" "$2"
}
end_fp() { tail -n1 "$1" | jq -r .fingerprint; }

@test "trace-window: invariants (--help matches the man page, bad option exits 2)" {
	assert_tool_invariants trace-window
}

@test "trace-window: prefix slice keeps jobs up to T and the nodes of their concrete models" {
	trace-window --max-submit 20 -i "$T/small.nd" -o "$T/out.nd"
	[ "$(ids "$T/out.nd")" = "j01 j02 j03 j04" ]
	[ "$(nodes "$T/out.nd")" = "a1 a2 h1 v1" ]
	# exact bytes of the body: int/float kinds kept, no phase without a window, note passes
	run -0 grep -v '"type":"\(header\|end\)"' "$T/out.nd"
	assert_output '{"type":"node","node_id":"a1","gpu_model":"A100","gpu_count":8}
{"type":"node","node_id":"a2","gpu_model":"A100","gpu_count":8}
{"type":"node","node_id":"h1","gpu_model":"H100","gpu_count":4}
{"type":"node","node_id":"v1","gpu_model":"V100","gpu_count":2}
{"type":"job","job_id":"j01","submit":0,"duration":100,"gpus":2,"class":"HP","gpu_model":"A100"}
{"type":"job","job_id":"j02","submit":5.5,"duration":50,"gpus":1.5,"class":"Spot","gpu_model":"*"}
{"type":"job","job_id":"j03","submit":10,"duration":10,"gpus":4,"class":"HP","gpu_model":"H100"}
{"type":"job","job_id":"j04","submit":20,"duration":10,"gpus":1,"class":"Spot","gpu_model":"V100"}
{"type":"note","text":"unknown record types pass through"}'
	[ "$(hdr "$T/out.nd" .window)" = null ]
	[ "$(hdr "$T/out.nd" .source.canonical_slice.max_submit_time_seconds)" = 20.0 ]
	[ "$(hdr "$T/out.nd" .source.canonical_slice.gpu_models)" = null ]
	[ "$(hdr "$T/out.nd" .source.canonical_slice.parent_trace_id)" = small ]
	[ "$(hdr "$T/out.nd" .source.canonical_slice.parent_trace_fingerprint)" = "$(end_fp "$T/small.nd")" ]
	[ "$(hdr "$T/out.nd" .inputs.0.fingerprint)" = "$(end_fp "$T/small.nd")" ]
	[ "$(hdr "$T/out.nd" .source.dataset)" = hand-made ]
	[ "$(hdr "$T/out.nd" .params)" = '{"max_submit":20.0,"gpu_models":null,"eval_start":null,"eval_end":null,"warmup_start":null,"no_warmup_spot":false,"trace_id":null}' ]
	[ "$(hdr "$T/out.nd" .tool)" = trace-window ]
}

@test "trace-window: [ODD] prefix drops nodes only '*' jobs could use, even without a model filter" {
	trace-window --max-submit 5.5 -i "$T/small.nd" -o "$T/out.nd"
	[ "$(ids "$T/out.nd")" = "j01 j02" ]
	[ "$(nodes "$T/out.nd")" = "a1 a2" ]
}

@test "trace-window: prefix with GPU models keeps those models and '*' jobs" {
	trace-window --max-submit 10 --gpu-model H100 -i "$T/small.nd" -o "$T/out.nd"
	[ "$(ids "$T/out.nd")" = "j02 j03" ]
	[ "$(nodes "$T/out.nd")" = "h1" ]
	# models are recorded sorted and unique
	trace-window --max-submit 25 --gpu-model V100 --gpu-model H100 --gpu-model V100 -i "$T/small.nd" -o "$T/out2.nd"
	[ "$(hdr "$T/out2.nd" .source.canonical_slice.gpu_models)" = '["H100","V100"]' ]
	[ "$(ids "$T/out2.nd")" = "j02 j03 j04" ]
	[ "$(nodes "$T/out2.nd")" = "h1 v1" ]
}

@test "trace-window: only '*' jobs kept keeps every node" {
	trace-window --max-submit 6 --gpu-model Z100 -i "$T/small.nd" -o "$T/out.nd"
	[ "$(ids "$T/out.nd")" = "j02" ]
	[ "$(nodes "$T/out.nd")" = "a1 a2 h1 v1" ]
}

@test "trace-window: --gpu-model without --max-submit cuts at the last submit time" {
	trace-window --gpu-model A100 -i "$T/small.nd" -o "$T/out.nd"
	[ "$(ids "$T/out.nd")" = "j01 j02 j05 j06" ]
	[ "$(nodes "$T/out.nd")" = "a1 a2" ]
	[ "$(hdr "$T/out.nd" .source.canonical_slice.max_submit_time_seconds)" = 50.0 ]
	[ "$(hdr "$T/out.nd" .params.max_submit)" = null ]
}

@test "trace-window: a parent window is kept, clipped or dropped by the prefix" {
	trace-window --eval-start 10 --eval-end 40 -i "$T/small.nd" -o "$T/win.nd"
	trace-window --max-submit 50 -i "$T/win.nd" -o "$T/kept.nd"
	[ "$(hdr "$T/kept.nd" .window)" = '{"eval_start":10.0,"eval_end":40.0,"warmup_start":0.0}' ]
	trace-window --max-submit 30 -i "$T/win.nd" -o "$T/clip.nd"
	[ "$(hdr "$T/clip.nd" .window)" = '{"eval_start":10.0,"eval_end":30.0,"warmup_start":0.0}' ]
	[ "$(ids "$T/clip.nd")" = "j01 j02 j03 j04 j05" ]
	[ "$(jq -r 'select(.type=="job") | .phase' "$T/clip.nd" | paste -sd' ')" = "warmup warmup eval eval eval" ]
	trace-window --max-submit 10.5 -i "$T/win.nd" -o "$T/clip2.nd"
	[ "$(hdr "$T/clip2.nd" .window)" = '{"eval_start":10.0,"eval_end":10.5,"warmup_start":0.0}' ]
	# max == start is not after the start: the window goes, and so do the phases
	trace-window --max-submit 10 -i "$T/win.nd" -o "$T/drop.nd"
	[ "$(hdr "$T/drop.nd" .window)" = null ]
	[ "$(ids "$T/drop.nd")" = "j01 j02 j03" ]
	run -1 grep -c '"phase"' "$T/drop.nd"
	assert_output 0
	# the evaluation record of the parent stays in source; the new one names the parent stream
	[ "$(hdr "$T/drop.nd" .source.canonical_evaluation_slice.parent_trace_fingerprint)" = "$(end_fp "$T/small.nd")" ]
	[ "$(hdr "$T/drop.nd" .source.canonical_slice.parent_trace_fingerprint)" = "$(end_fp "$T/win.nd")" ]
}

@test "trace-window: evaluation slice with a warm-up start marks phases" {
	trace-window --eval-start 20 --eval-end 40 --warmup-start 5 -i "$T/small.nd" -o "$T/out.nd"
	run -0 grep '"type":"job"' "$T/out.nd"
	assert_output '{"type":"job","job_id":"j02","submit":5.5,"duration":50,"gpus":1.5,"class":"Spot","gpu_model":"*","phase":"warmup"}
{"type":"job","job_id":"j03","submit":10,"duration":10,"gpus":4,"class":"HP","gpu_model":"H100","phase":"warmup"}
{"type":"job","job_id":"j04","submit":20,"duration":10,"gpus":1,"class":"Spot","gpu_model":"V100","phase":"eval"}
{"type":"job","job_id":"j05","submit":30.0,"duration":5,"gpus":16,"class":"HP","gpu_model":"*","phase":"eval"}
{"type":"job","job_id":"j06","submit":40,"duration":1,"gpus":1,"class":"Spot","gpu_model":"A100","phase":"eval"}'
	[ "$(nodes "$T/out.nd")" = "a1 a2 h1 v1" ]
	[ "$(hdr "$T/out.nd" .window)" = '{"eval_start":20.0,"eval_end":40.0,"warmup_start":5.0}' ]
	run -0 hdr "$T/out.nd" .source.canonical_evaluation_slice
	assert_output --regexp "^\{\"parent_trace_id\":\"small\",\"parent_trace_fingerprint\":\"$(end_fp "$T/small.nd")\",\"warmup_start_seconds\":5.0,\"evaluation_start_seconds\":20.0,\"evaluation_end_seconds\":40.0,\"include_warmup_spot\":true,\"semantics\":\"arrivals in .+\"\}$"
}

@test "trace-window: the default warm-up start is 0 (full carry-in)" {
	trace-window --eval-start 20 --eval-end 40 -i "$T/small.nd" -o "$T/out.nd"
	[ "$(ids "$T/out.nd")" = "j01 j02 j03 j04 j05 j06" ]
	[ "$(hdr "$T/out.nd" .source.canonical_evaluation_slice.warmup_start_seconds)" = 0.0 ]
}

@test "trace-window: --no-warmup-spot drops Spot jobs before the start only" {
	trace-window --eval-start 20 --eval-end 40 --warmup-start 5 --no-warmup-spot -i "$T/small.nd" -o "$T/out.nd"
	[ "$(ids "$T/out.nd")" = "j03 j04 j05 j06" ]
	[ "$(hdr "$T/out.nd" .source.canonical_evaluation_slice.include_warmup_spot)" = false ]
	[ "$(hdr "$T/out.nd" .params.no_warmup_spot)" = true ]
}

@test "trace-window: prefix then evaluation slice in one run" {
	trace-window --max-submit 40 --gpu-model A100 --eval-start 20 --eval-end 40 -i "$T/small.nd" -o "$T/out.nd"
	[ "$(ids "$T/out.nd")" = "j01 j02 j05 j06" ]
	[ "$(nodes "$T/out.nd")" = "a1 a2" ]
	[ "$(jq -r 'select(.type=="job") | .phase' "$T/out.nd" | paste -sd' ')" = "warmup warmup eval eval" ]
	fp="$(end_fp "$T/small.nd")"
	[ "$(hdr "$T/out.nd" .source.canonical_slice.parent_trace_fingerprint)" = "$fp" ]
	[ "$(hdr "$T/out.nd" .source.canonical_evaluation_slice.parent_trace_fingerprint)" = "$fp" ]
	# the same as doing it in two steps, body for body
	trace-window --max-submit 40 --gpu-model A100 -i "$T/small.nd" -o "$T/one.nd"
	trace-window --eval-start 20 --eval-end 40 -i "$T/one.nd" -o "$T/two.nd"
	[ "$(end_fp "$T/two.nd")" = "$(end_fp "$T/out.nd")" ]
}

@test "trace-window: schema v2 keeps tenants, skipped_rows and --trace-id renames" {
	trace-window --eval-start 15 --eval-end 25 --trace-id tenants-w -i "$T/tenant.nd" -o "$T/out.nd"
	[ "$(hdr "$T/out.nd" .schema)" = schednav.trace/2 ]
	[ "$(hdr "$T/out.nd" .trace_id)" = tenants-w ]
	[ "$(hdr "$T/out.nd" .source.canonical_evaluation_slice.parent_trace_id)" = tenants ]
	[ "$(hdr "$T/out.nd" .skipped_rows)" = '{"no_gpu":3}' ]
	[ "$(jq -r 'select(.type=="job") | .tenant' "$T/out.nd" | paste -sd' ')" = "org1 org2 org1" ]
}

@test "trace-window: a warm-up job before the evaluation start makes the slice possible" {
	run trace-window --eval-start 25 --eval-end 60 --warmup-start 20 -i "$T/small.nd" -o "$T/x.nd"
	assert_success
	[ -s "$T/x.nd" ] || fail "no output file"
}

@test "trace-window: the error cases (tests/cases/trace-window/*.case)" {
	trace-window --eval-start 10 --eval-end 40 -i "$T/small.nd" -o "$T/win.nd"
	run_cases trace-window small="$T/small.nd" windowed="$T/win.nd"
}

@test "trace-window: zstd in and out give the same stream" {
	trace-window --eval-start 20 --eval-end 40 -i "$T/small.nd" -o "$T/plain.nd"
	zstd -q -c "$T/small.nd" > "$T/small.nd.zst"
	trace-window --eval-start 20 --eval-end 40 -i "$T/small.nd.zst" -o "$T/out.nd.zst"
	zstd -q -c "$T/small.nd" | trace-window --eval-start 20 --eval-end 40 -o "$T/stdin.nd"
	head -c 4 "$T/out.nd.zst" | od -An -tx1 | grep -q '28 b5 2f fd'
	diff <(sans_header "$T/out.nd.zst") <(sans_header "$T/plain.nd")
	diff <(sans_header "$T/stdin.nd") <(sans_header "$T/plain.nd")
}

@test "trace-window: chunked input gives identical output" {
	trace-window --max-submit 40 --gpu-model A100 --eval-start 20 --eval-end 40 < "$T/small.nd" > "$T/once.nd"
	feed_chunked "$T/small.nd" trace-window --max-submit 40 --gpu-model A100 --eval-start 20 --eval-end 40 > "$T/chunked.nd"
	cmp "$T/once.nd" "$T/chunked.nd"
}

@test "trace-window: output is deterministic and valid against the schemas" {
	trace-window --eval-start 20 --eval-end 40 --warmup-start 5 -i "$T/small.nd" -o "$T/a.nd"
	trace-window --eval-start 20 --eval-end 40 --warmup-start 5 -i "$T/small.nd" -o "$T/b.nd"
	cmp "$T/a.nd" "$T/b.nd"
	trace-window --max-submit 25 -i "$T/a.nd" -o "$T/c.nd"
	trace-window --gpu-model A100 -i "$T/tenant.nd" -o "$T/d.nd"
	# the schema check itself must be able to fail
	sed '1s/"trace_id":"small"/"trace_id":7/' "$T/a.nd" > "$T/bad.nd"
	run python3 "$ROOT/tests/validate-schema.py" "$T/bad.nd"
	assert_failure 1
	rm "$T/bad.nd"
	# 'note' records have no schema: they are ours to pass through, not to describe
	grep -v '"type":"note"' "$T/a.nd" | stream-seal > "$T/a2.nd"
	grep -v '"type":"note"' "$T/c.nd" | stream-seal > "$T/c2.nd"
	assert_schema "$T/a2.nd" "$T/c2.nd" "$T/d.nd"
}

@test "trace-window: issue 36's resource fields pass through byte for byte" {
	local src="$ROOT/tests/data/res/small.trace.ndjson"
	trace-window --max-submit 1 -i "$src" -o "$T/r.nd"
	run diff <(grep '"type":"job"' "$src" | head -2) <(grep '"type":"job"' "$T/r.nd")
	assert_success
	run grep -c '"cpu_milli":64000,"memory_mib":262144}' "$T/r.nd"
	assert_success
	assert_output 1
	run python3 "$ROOT/tests/validate-schema.py" "$T/r.nd"
	assert_success
}
