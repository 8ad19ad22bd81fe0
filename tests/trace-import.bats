#!/usr/bin/env bats
# trace-import: the source-format importers (alibaba-spot, alibaba-v2023, philly, csv); the error
# cases of every format are tests/cases/trace-import/*.case, run by one test here.
load helper
load run_cases
bats_require_minimum_version 1.5.0

setup() {
	TMP="$BATS_TEST_TMPDIR"
	V23N="$DATA/v2023-openb_node_list_gpu_node.csv.zst"
	V23P="$DATA/v2023-openb_pod_list_default.head500.csv.zst"
	SPOTN="$DATA/alibaba-spot-node_info_df.csv.zst"
	SPOTJ="$DATA/alibaba-spot-job_info_df.fixture.csv"
	MACH="$DATA/philly-cluster_machine_list.zst"
	MIX1="$DATA/chronus-trace_job_Philly_MIX1.csv.zst"
	MAP="$ROOT/configs/maps/chronus-philly.json"
}

hdr() { head -1 "$1" | jq -c "$2"; }
jobs() { awk '/"type":"job"/ { n++ } END { print n + 0 }' "$1"; }

# ---- invariants ----

@test "trace-import: the error cases of every format, slurm and canonical included (tests/cases/trace-import/*.case)" {
	zstdcat "$V23P" | head -20 > "$TMP/p.csv"
	zstdcat "$SPOTN" | head -n 1 > "$TMP/nodes-header.csv"
	awk -F, 'NR == 1 || $3 == "A10"' "$SPOTJ" > "$TMP/a10.csv"
	[ "$(wc -l < "$TMP/a10.csv")" -gt 2 ] || fail "the job fixture has no A10 rows to filter away"
	python3 "$ROOT/tests/canon-fixture.py" make "$TMP/v1" v1
	python3 "$ROOT/tests/canon-fixture.py" make "$TMP/v2" v2
	run_cases trace-import pods20="$TMP/p.csv" spot_nodes_header="$TMP/nodes-header.csv" spot_a10="$TMP/a10.csv" v1="$TMP/v1" v2="$TMP/v2"
}

@test "trace-import: --help equals the man page synopsis, bad option exits 2" {
	assert_tool_invariants trace-import
}

# ---- alibaba-v2023 ----

@test "alibaba-v2023: default pod list gives 6,100 jobs (3,590 HP, 2,510 Spot) on 1,213 nodes / 6,212 GPUs" {
	require_shared data
	D="$SHARED/data/alibaba-gpu-v2023"
	trace-import alibaba-v2023 --nodes "$D/openb_node_list_gpu_node.csv" --pods "$D/openb_pod_list_default.csv" > "$TMP/t.nd"
	[ "$(jobs "$TMP/t.nd")" -eq 6100 ]
	[ "$(grep -c '"type":"job".*"class":"HP"' "$TMP/t.nd")" -eq 3590 ]
	[ "$(grep -c '"type":"job".*"class":"Spot"' "$TMP/t.nd")" -eq 2510 ]
	[ "$(grep -c '"type":"node"' "$TMP/t.nd")" -eq 1213 ]
	[ "$(grep '"type":"node"' "$TMP/t.nd" | jq -s 'map(.gpu_count) | add')" -eq 6212 ]
	[ "$(hdr "$TMP/t.nd" .skipped_rows)" = '{"unsupported_qos":107,"excluded_phase":895,"no_gpu":1050,"missing_or_invalid_interval":0,"node_without_gpu":0}' ]
	[ "$(hdr "$TMP/t.nd" .source.skipped_rows)" = '{"unsupported_qos":107,"excluded_phase":895,"no_gpu":1050,"missing_or_invalid_interval":0}' ]
	[ "$(hdr "$TMP/t.nd" .source.included_source_phase_counts)" = '{"Failed":1829,"Running":4124,"Succeeded":147}' ]
	# the pod file's own SHA-256 is what the header and source record
	[ "$(hdr "$TMP/t.nd" .source.pod_info_sha256)" = "\"$(sha256sum < "$D/openb_pod_list_default.csv" | cut -c1-64)\"" ]
	[ "$(hdr "$TMP/t.nd" '.inputs[1].bytes')" -eq "$(stat -c %s "$D/openb_pod_list_default.csv")" ]
	assert_schema "$TMP/t.nd"
}

@test "alibaba-v2023: every job equals the original importer's rows (golden g-v23-default-full)" {
	require_shared data
	require_shared golden
	D="$SHARED/data/alibaba-gpu-v2023"
	trace-import alibaba-v2023 --nodes "$D/openb_node_list_gpu_node.csv" --pods "$D/openb_pod_list_default.csv" -o "$TMP/v23.nd"
	jq -r 'select(.type=="job") | [.job_id, .submit, .duration, .gpus, .class, .gpu_model] | @csv' "$TMP/v23.nd" | tr -d '"' > "$TMP/mine"
	tail -n +2 "$GOLDEN/cases/g-v23-default-full/jobs.csv" | python3 -c '
import sys
for l in sys.stdin:
    i, s, d, g, c, m = l.rstrip("\n").split(",")
    print(",".join([i, repr(float(s)), repr(float(d)), repr(float(g)), c, m]))' > "$TMP/golden"
	python3 -c '
import sys
a = [l.split(",") for l in open(sys.argv[1])]; b = [l.split(",") for l in open(sys.argv[2])]
assert len(a) == len(b) == 6100, (len(a), len(b))
bad = [x for x, y in zip(a, b) if x[0] != y[0] or x[4:] != y[4:] or any(float(p) != float(q) for p, q in zip(x[1:4], y[1:4]))]
assert not bad, bad[:3]' "$TMP/mine" "$TMP/golden"
}

@test "alibaba-v2023: zstd sample imports; phases filter and are counted; repeat is byte-identical" {
	trace-import alibaba-v2023 --nodes "$V23N" --pods "$V23P" > "$TMP/a.nd"
	trace-import alibaba-v2023 --nodes "$V23N" --pods "$V23P" > "$TMP/b.nd"
	cmp "$TMP/a.nd" "$TMP/b.nd"
	assert_schema "$TMP/a.nd"
	# the same bytes uncompressed give the same body
	zstdcat "$V23P" > "$TMP/pods.csv"
	trace-import alibaba-v2023 --nodes "$V23N" --pods "$TMP/pods.csv" > "$TMP/c.nd"
	[ "$(sans_header "$TMP/a.nd" | tail -1)" = "$(sans_header "$TMP/c.nd" | tail -1)" ]
	# kept + skipped = rows; the slice has 19 BE Pending + 16 LS Pending (excluded phase) and 13 Burstable/Guaranteed
	kept=$(jobs "$TMP/a.nd")
	skipped=$(hdr "$TMP/a.nd" '.source.skipped_rows | add')
	[ $((kept + skipped)) -eq 500 ]
	[ "$(hdr "$TMP/a.nd" .skipped_rows.unsupported_qos)" -eq 13 ]
	[ "$(hdr "$TMP/a.nd" .skipped_rows.excluded_phase)" -eq 35 ]
	trace-import alibaba-v2023 --nodes "$V23N" --pods "$V23P" --phase Running > "$TMP/r.nd"
	[ "$(hdr "$TMP/r.nd" '.source.included_source_phases')" = '["Running"]' ]
	[ "$(hdr "$TMP/r.nd" '.source.included_source_phase_counts.Running')" -eq "$(jobs "$TMP/r.nd")" ]
	[ "$(hdr "$TMP/r.nd" '.params.phases')" = '["Running"]' ]
	[ "$(hdr "$TMP/r.nd" .skipped_rows.excluded_phase)" -gt 35 ]
	# submit is relative to the earliest kept creation
	[ "$(grep '"type":"job"' "$TMP/a.nd" | jq -s 'map(.submit) | min')" -eq 0 ]
	grep -q '"type":"job","job_id":"openb-pod-0000","submit":0.0,"duration":12537496.0,"gpus":1.0,' "$TMP/a.nd"
}

@test "alibaba-v2023: pods fed through stdin in 1-31 byte chunks give identical output" {
	trace-import alibaba-v2023 --nodes "$V23N" --pods - < "$V23P" > "$TMP/whole.nd"
	feed_chunked "$V23P" trace-import alibaba-v2023 --nodes "$V23N" --pods - > "$TMP/chunked.nd"
	cmp "$TMP/whole.nd" "$TMP/chunked.nd"
	zstdcat "$V23P" > "$TMP/pods.csv"
	feed_chunked "$TMP/pods.csv" trace-import alibaba-v2023 --nodes "$V23N" --pods - > "$TMP/plain.nd"
	[ "$(sans_header "$TMP/whole.nd" | tail -1)" = "$(sans_header "$TMP/plain.nd" | tail -1)" ]
}

# ---- alibaba-spot ----

@test "alibaba-spot: real node list + job fixture, organization becomes tenant (trace/2)" {
	trace-import alibaba-spot --nodes "$SPOTN" --jobs "$SPOTJ" > "$TMP/s.nd"
	assert_schema "$TMP/s.nd"
	[ "$(hdr "$TMP/s.nd" .schema)" = '"schednav.trace/2"' ]
	[ "$(hdr "$TMP/s.nd" .trace_id)" = '"alibaba-spot-gpu"' ]
	[ "$(hdr "$TMP/s.nd" .time_origin)" = '"2024-03-01 00:00:00"' ]
	[ "$(grep -c '"type":"node"' "$TMP/s.nd")" -eq 4278 ]
	[ "$(grep '"type":"node"' "$TMP/s.nd" | jq -s 'map(.gpu_count) | add')" -eq 10412 ]
	[ "$(jobs "$TMP/s.nd")" -eq 20 ]
	# gpus = gpu_request x worker_num, a float; tenant = organization
	run -0 grep -F '"job_id":"301131"' "$TMP/s.nd"
	assert_output '{"type":"job","job_id":"301131","submit":43200.0,"duration":71718.0,"gpus":94.0,"class":"Spot","gpu_model":"A100-SXM4-80GB","tenant":"57"}'
	grep -qF '"job_id":"301122","submit":1800.0,"duration":86400.0,"gpus":16.0,' "$TMP/s.nd"
	[ "$(hdr "$TMP/s.nd" .source.filter.semantics)" != null ]
	[ "$(hdr "$TMP/s.nd" .source.job_info_sha256)" = "\"$(sha256sum < "$SPOTJ" | cut -c1-64)\"" ]
}

@test "alibaba-spot: models, window, bounded warm-up and no warm-up Spot skip and count rows" {
	trace-import alibaba-spot --nodes "$SPOTN" --jobs "$SPOTJ" --gpu-model H800 --gpu-model A10 \
		--eval-start 86400 --eval-end 172800 --warmup-start 3600 --no-warmup-spot > "$TMP/w.nd"
	assert_schema "$TMP/w.nd"
	head -1 "$TMP/w.nd" | grep -qF '"window":{"eval_start":86400.0,"eval_end":172800.0,"warmup_start":3600.0}'
	[ "$(hdr "$TMP/w.nd" .skipped_rows)" = '{"node_gpu_model_not_selected":1565,"gpu_model_not_selected":9,"after_max_submit":0,"before_warmup_start":2,"warmup_spot_excluded":3}' ]
	[ "$(hdr "$TMP/w.nd" .source.filter.gpu_models)" = '["A10","H800"]' ]
	head -1 "$TMP/w.nd" | grep -qF '"max_submit_time_seconds":172800.0,'
	[ "$(hdr "$TMP/w.nd" .source.filter.include_warmup_spot)" = false ]
	run -0 jq -r 'select(.type=="job") | "\(.job_id) \(.phase) \(.class)"' "$TMP/w.nd"
	assert_output "301124 warmup HP
301130 warmup HP
301132 warmup HP
301134 warmup HP
301137 eval Spot
301139 eval Spot"
	# plain cut-off
	trace-import alibaba-spot --nodes "$SPOTN" --jobs "$SPOTJ" --max-submit 86000 > "$TMP/c.nd"
	[ "$(hdr "$TMP/c.nd" .skipped_rows.after_max_submit)" -eq 6 ]
	[ "$(hdr "$TMP/c.nd" .window)" = null ]
	[ "$(jq -s 'map(select(.type=="job") | .submit) | max' "$TMP/c.nd")" -eq 86000 ]
}

# ---- philly ----

@test "philly: spec rules on a hand-made log (origin over all records, gaps excluded, max GPUs, generated ids)" {
	trace-import philly --machines "$MACH" --job-log "$ROOT/tests/cases/trace-import/philly-small.json" --class Spot > "$TMP/p.nd"
	assert_schema "$TMP/p.nd"
	[ "$(grep -c '"type":"node"' "$TMP/p.nd")" -eq 552 ]
	[ "$(grep '"type":"node"' "$TMP/p.nd" | jq -s 'map(.gpu_count) | add')" -eq 2490 ]
	[ "$(hdr "$TMP/p.nd" .time_origin)" = '"2017-10-07 01:00:00.500000"' ]
	[ "$(hdr "$TMP/p.nd" .skipped_rows)" = '{"missing_submitted_time":1,"attempts_not_a_list":1,"no_positive_runtime":1,"no_gpus":1,"machine_rows_without_id":0}' ]
	[ "$(hdr "$TMP/p.nd" .source.skipped_job_count)" -eq 4 ]
	[ "$(hdr "$TMP/p.nd" .source.service_class_mapping)" = '{"mode":"caller_supplied_constant","value":"Spot","reason":"the Philly trace has no service-class labels; the caller chose one class for every job"}' ]
	run -0 grep '"type":"job"' "$TMP/p.nd"
	assert_output '{"type":"job","job_id":"application_1","submit":698.5,"duration":134.0,"gpus":3,"class":"Spot","gpu_model":"philly-gpu"}
{"type":"job","job_id":"philly-00000001","submit":3599.5,"duration":30.25,"gpus":1,"class":"Spot","gpu_model":"philly-gpu"}'
}

@test "philly: generated log streamed from stdin in 1-31 byte chunks, compressed or not, gives identical output" {
	python3 "$ROOT/tests/gen-philly-log.py" --jobs 300 --seed 5 "$TMP/gen.json"
	trace-import philly --machines "$MACH" --job-log - --class HP < "$TMP/gen.json" > "$TMP/whole.nd"
	feed_chunked "$TMP/gen.json" trace-import philly --machines "$MACH" --job-log - --class HP > "$TMP/chunked.nd"
	cmp "$TMP/whole.nd" "$TMP/chunked.nd"
	zstd -q "$TMP/gen.json" -o "$TMP/gen.json.zst"
	feed_chunked "$TMP/gen.json.zst" trace-import philly --machines "$MACH" --job-log - --class HP > "$TMP/z.nd"
	[ "$(sans_header "$TMP/z.nd" | tail -1)" = "$(sans_header "$TMP/whole.nd" | tail -1)" ]
	python3 "$ROOT/tests/gen-philly-log.py" --jobs 300 --seed 5 --compact "$TMP/compact.json"
	trace-import philly --machines "$MACH" --job-log "$TMP/compact.json" --class HP > "$TMP/c.nd"
	[ "$(sans_header "$TMP/c.nd" | tail -1)" = "$(sans_header "$TMP/whole.nd" | tail -1)" ]
	[ "$(jobs "$TMP/whole.nd")" -gt 250 ]
	assert_schema "$TMP/whole.nd"
}

@test "philly: generated log agrees with a direct reading of the spec rules" {
	python3 "$ROOT/tests/gen-philly-log.py" --jobs 2000 --seed 11 "$TMP/gen.json"
	trace-import philly --machines "$MACH" --job-log "$TMP/gen.json" --class HP > "$TMP/p.nd"
	python3 - "$TMP/gen.json" "$TMP/p.nd" <<'EOF'
import json, sys, datetime
recs = json.load(open(sys.argv[1]))
def t(v):
    return None if v in (None, "", "None") else datetime.datetime.fromisoformat(v)
origin = min(t(r.get("submitted_time")) for r in recs if t(r.get("submitted_time")))
want, skipped = [], 0
for r in recs:
    s, att = t(r.get("submitted_time")), r.get("attempts")
    if s is None or not isinstance(att, list):
        skipped += 1; continue
    run, mg = 0, 0
    for a in att:
        st, en = t(a.get("start_time")), t(a.get("end_time"))
        if st is None or en is None or not en > st: continue
        run += (en - st).total_seconds()
        if isinstance(a.get("detail"), list):
            mg = max(mg, sum(len(d["gpus"]) for d in a["detail"] if isinstance(d, dict) and isinstance(d.get("gpus"), list)))
    if run <= 0 or mg <= 0:
        skipped += 1; continue
    want.append((r["jobid"] or "philly-%08d" % len(want), (s - origin).total_seconds(), run, mg))
lines = [json.loads(l) for l in open(sys.argv[2])]
got = {j["job_id"]: (j["job_id"], j["submit"], j["duration"], j["gpus"]) for j in lines if j["type"] == "job"}
assert len(got) == len(want), (len(got), len(want))
assert all(got[w[0]] == w for w in want)
assert lines[0]["source"]["skipped_job_count"] == skipped
assert lines[0]["time_origin"] == str(origin)
EOF
}

# ---- csv ----

@test "csv: Chronus MIX1 on the Philly machine list (strict/soft -> HP, best -> Spot, VC -> tenant, 184 zero-GPU rows skipped)" {
	trace-import csv --map "$MAP" --nodes-file "$MACH" "$MIX1" > "$TMP/m.nd"
	assert_schema "$TMP/m.nd"
	zstdcat "$MIX1" > "$TMP/mix1.csv"
	rows=$(($(wc -l < "$TMP/mix1.csv") - 1))
	zero=$(awk -F, 'NR > 1 && $3 == 0' "$TMP/mix1.csv" | wc -l)
	best=$(awk -F, 'NR > 1 && $3 > 0 && $12 == "best"' "$TMP/mix1.csv" | wc -l)
	[ "$zero" -eq 184 ]
	[ "$(jobs "$TMP/m.nd")" -eq $((rows - zero)) ]
	[ "$(grep -c '"class":"Spot"' "$TMP/m.nd")" -eq "$best" ]
	[ "$(hdr "$TMP/m.nd" .skipped_rows)" = '{"zero_gpu_rows_in_source_file":184}' ]
	[ "$(hdr "$TMP/m.nd" .schema)" = '"schednav.trace/2"' ]
	[ "$(hdr "$TMP/m.nd" .source.service_class_mapping)" = '{"mode":"column_labels","column":"job_type","mapping":{"strict":"HP","soft":"HP","best":"Spot"}}' ]
	[ "$(hdr "$TMP/m.nd" .source.map.format)" = '"schednav.csv-map/1"' ]
	[ "$(hdr "$TMP/m.nd" .source.dataset)" = '"Philly-derived Chronus trace"' ]
	[ "$(hdr "$TMP/m.nd" '.inputs | length')" -eq 3 ]
	run -0 jq -c 'select(.job_id=="2")' "$TMP/m.nd"
	assert_output '{"type":"job","job_id":"2","submit":14341,"duration":30,"gpus":1,"class":"Spot","gpu_model":"philly-gpu","tenant":"vc_ee9e8c"}'
	# the 0/1 best_effort column gives the same classes
	trace-import csv --map "$ROOT/configs/maps/chronus-philly-besteffort.json" --nodes-file "$MACH" "$MIX1" > "$TMP/b.nd"
	[ "$(hdr "$TMP/b.nd" .schema)" = '"schednav.trace/1"' ]
	[ "$(grep -c '"class":"Spot"' "$TMP/b.nd")" -eq "$best" ]
}

@test "csv: Chronus jobs equal the original corpus rows (golden g-chr-mix1-*)" {
	require_shared
	trace-import csv --map "$MAP" --nodes-file "$MACH" "$MIX1" -o "$TMP/mix1.nd"
	jq -c 'select(.type=="job")' "$TMP/mix1.nd" > "$TMP/jobs"
	for c in g-chr-mix1-tight g-chr-mix1-v2-float g-chr-mix1-w; do
		python3 - "$TMP/jobs" "$GOLDEN/cases/$c/jobs.csv" <<'EOF'
import csv, json, sys
mine = {j["job_id"]: j for j in map(json.loads, open(sys.argv[1]))}
rows = list(csv.DictReader(open(sys.argv[2])))
assert rows
for r in rows:
    j = mine[r["job_id"]]
    assert (j["submit"], j["duration"], j["gpus"], j["class"]) == (float(r["submit_time_seconds"]), float(r["duration_seconds"]), float(r["gpu_count"]), r["service_class"]), r
    assert r.get("tenant_id", j["tenant"]) == j["tenant"]
EOF
	done
}

@test "csv: seeded node subset is deterministic, recorded, and depends on the seed" {
	trace-import csv --map "$MAP" --nodes-file "$MACH" --node-subset-gpus 500 --seed 1 "$MIX1" > "$TMP/a.nd"
	trace-import csv --map "$MAP" --nodes-file "$MACH" --node-subset-gpus 500 --seed 1 "$MIX1" > "$TMP/b.nd"
	trace-import csv --map "$MAP" --nodes-file "$MACH" --node-subset-gpus 500 --seed 2 "$MIX1" > "$TMP/c.nd"
	cmp "$TMP/a.nd" "$TMP/b.nd"
	cap=$(grep '"type":"node"' "$TMP/a.nd" | jq -s 'map(.gpu_count) | add')
	n=$(grep -c '"type":"node"' "$TMP/a.nd")
	[ "$cap" -ge 500 ] || fail "subset capacity $cap < 500"
	[ "$cap" -lt 508 ] || fail "subset capacity $cap overshoots"
	[ "$(hdr "$TMP/a.nd" .source.node_subset.selected_capacity_gpus)" -eq "$cap" ]
	[ "$(hdr "$TMP/a.nd" .source.node_subset.selected_node_count)" -eq "$n" ]
	[ "$(hdr "$TMP/a.nd" .source.node_subset.seed)" -eq 1 ]
	[ "$(hdr "$TMP/a.nd" .source.node_subset.source_capacity_gpus)" -eq 2490 ]
	[ "$(hdr "$TMP/a.nd" .params.seed)" -eq 1 ]
	run cmp -s <(grep '"type":"node"' "$TMP/a.nd") <(grep '"type":"node"' "$TMP/c.nd")
	assert_failure 1
	# jobs are the same, only the nodes change
	diff <(grep '"type":"job"' "$TMP/a.nd") <(grep '"type":"job"' "$TMP/c.nd")
}

@test "csv: constants, time scale, min-submit origin, several files and oversize skips" {
	printf 'id,t,d,g\na,100,2,1\nb,160,1.5,4\n' > "$TMP/j1.csv"
	printf 'id,t,d,g\nc,130,3,64\n' > "$TMP/j2.csv"
	cat > "$TMP/map.json" <<'EOF'
{"format": "schednav.csv-map/1", "trace_id": "private", "time_origin": "2020-01-01 00:00:00",
 "columns": {"job_id": "id", "submit": "t", "duration": "d", "gpus": "g", "class": {"constant": "HP"}, "gpu_model": {"constant": "*"}},
 "time_scale": 60, "submit_origin": "min_submit", "oversize_jobs": "skip",
 "nodes": {"id_column": "machineId", "gpu_count_column": "number of GPUs", "gpu_model": {"constant": "philly-gpu"}}}
EOF
	trace-import csv --map "$TMP/map.json" --nodes-file "$MACH" --node-subset-gpus 16 --seed 3 "$TMP/j1.csv" "$TMP/j2.csv" > "$TMP/o.nd"
	assert_schema "$TMP/o.nd"
	run -0 grep '"type":"job"' "$TMP/o.nd"
	assert_output '{"type":"job","job_id":"a","submit":0.0,"duration":120.0,"gpus":1,"class":"HP","gpu_model":"*"}
{"type":"job","job_id":"b","submit":3600.0,"duration":90.0,"gpus":4,"class":"HP","gpu_model":"*"}'
	[ "$(hdr "$TMP/o.nd" .skipped_rows)" = '{"larger_than_node_capacity":1}' ]
	head -1 "$TMP/o.nd" | grep -qF '"submit_origin":{"mode":"min_submit","subtracted_seconds":6000.0}'
	[ "$(hdr "$TMP/o.nd" .source.service_class_mapping)" = '{"mode":"caller_supplied_constant","value":"HP"}' ]
	[ "$(hdr "$TMP/o.nd" '.source.job_files | length')" -eq 2 ]
	[ "$(hdr "$TMP/o.nd" .time_origin)" = '"2020-01-01 00:00:00"' ]
}

@test "csv: job file fed in 1-31 byte chunks gives identical output; zstd output round-trips" {
	zstdcat "$MIX1" | head -3000 > "$TMP/part.csv"
	trace-import csv --map "$MAP" --nodes-file "$MACH" - < "$TMP/part.csv" > "$TMP/whole.nd"
	feed_chunked "$TMP/part.csv" trace-import csv --map "$MAP" --nodes-file "$MACH" - > "$TMP/chunked.nd"
	cmp "$TMP/whole.nd" "$TMP/chunked.nd"
	trace-import csv --map "$MAP" --nodes-file "$MACH" -o "$TMP/out.nd.zst" - < "$TMP/part.csv"
	zstdcat "$TMP/out.nd.zst" | cmp - "$TMP/whole.nd"
}

# ---- every format ----

# body_of FILE: the stream without its header line and end record (what --trace-id must not change).
body_of() { sed -e 1d -e '$d' "$1"; }

@test "trace-import: --trace-id replaces every format's own trace_id and params record it" {
	python3 "$ROOT/tests/gen-philly-log.py" --jobs 50 --seed 3 "$TMP/log.json"
	stream-seal -o "$TMP/small.nd" "$ROOT/tests/cases/trace-window/small.body"
	trace-export "$TMP/canon" "$TMP/small.nd"
	local f own
	for f in "alibaba-spot-gpu alibaba-spot --nodes $SPOTN --jobs $SPOTJ" \
	    "alibaba-gpu-v2023 alibaba-v2023 --nodes $V23N --pods $V23P" \
	    "philly philly --machines $MACH --job-log $TMP/log.json --class Spot" \
	    "small canonical $TMP/canon" \
	    "chronus-philly csv --map $MAP --nodes-file $MACH $MIX1"; do
		set -- $f
		own=$1
		shift
		trace-import "$@" -o "$TMP/own.nd"
		trace-import "$@" --trace-id "receipt-id 7" -o "$TMP/id.nd"
		[ "$(hdr "$TMP/own.nd" .trace_id)" = "\"$own\"" ] || fail "$2: default trace_id $(hdr "$TMP/own.nd" .trace_id)"
		[ "$(hdr "$TMP/own.nd" .params.trace_id)" = null ] || fail "$2: params.trace_id without --trace-id"
		[ "$(hdr "$TMP/id.nd" .trace_id)" = '"receipt-id 7"' ] || fail "$2: --trace-id not applied"
		[ "$(hdr "$TMP/id.nd" .params.trace_id)" = '"receipt-id 7"' ] || fail "$2: params.trace_id not recorded"
		cmp <(body_of "$TMP/own.nd") <(body_of "$TMP/id.nd") || fail "$2: --trace-id changed the body"
		stream-verify "$TMP/id.nd"
	done
}

@test "trace-import: --progress says when reading and writing end, with the counts; quiet without it off a terminal" {
	run --separate-stderr trace-import csv --map "$MAP" --nodes-file "$MACH" --node-subset-gpus 200 --seed 1 --progress -o "$TMP/p.nd" "$MIX1"
	assert_success
	n=$(jobs "$TMP/p.nd")
	[[ "${stderr_lines[0]}" == "trace-import: read $n jobs on 40 nodes in "* ]] || fail "stderr: $stderr"
	[[ "${stderr_lines[1]}" == "trace-import: wrote $n jobs to '$TMP/p.nd' in "* ]] || fail "stderr: $stderr"
	run --separate-stderr trace-import csv --map "$MAP" --nodes-file "$MACH" --node-subset-gpus 200 --seed 1 -o "$TMP/q.nd" "$MIX1"
	assert_success
	[ -z "$stderr" ] || fail "stderr: $stderr"
	cmp "$TMP/p.nd" "$TMP/q.nd"
}

# ---- issue 36: --resources ----

@test "alibaba-v2023 --resources: nodes and pods carry CPU, memory, one worker, the GPU share and spec; off, the output is unchanged" {
	local n="$ROOT/tests/data/res/v2023-nodes.csv" p="$ROOT/tests/data/res/v2023-pods.csv"
	run -0 trace-import alibaba-v2023 --nodes "$n" --pods "$p" --resources -o "$TMP/r.nd"
	run -0 grep -v '"type":"header"' "$TMP/r.nd"
	assert_line --index 0 '{"type":"node","node_id":"node-a","gpu_model":"P100","gpu_count":2,"cpu_milli":64000,"memory_mib":262144}'
	assert_line --index 2 '{"type":"job","job_id":"pod-1","submit":0.0,"duration":1000.0,"gpus":1.0,"class":"HP","gpu_model":"*","workers":1,"cpu_milli":12000,"memory_mib":16384}'
	assert_line --index 3 '{"type":"job","job_id":"pod-2","submit":10.0,"duration":488.0,"gpus":0.46,"class":"Spot","gpu_model":"*","workers":1,"cpu_milli":6000,"memory_mib":12288,"gpu_milli":460}'
	assert_line --index 4 '{"type":"job","job_id":"pod-3","submit":20.0,"duration":880.0,"gpus":4.0,"class":"HP","gpu_model":"*","workers":1,"cpu_milli":16000,"memory_mib":65536,"gpu_spec":"V100M32|P100"}'
	run -0 hdr "$TMP/r.nd" '[.params.resources, .skipped_rows.no_gpu]'
	assert_output '[true,1]'
	# without the option: no resource key and no params.resources, the bytes of the plain importer
	run -0 trace-import alibaba-v2023 --nodes "$n" --pods "$p" -o "$TMP/plain.nd"
	run -1 grep -c 'cpu_milli\|"resources"' "$TMP/plain.nd"
	assert_output 0
	run -0 python3 "$ROOT/tests/validate-schema.py" "$TMP/r.nd"
}

@test "alibaba-v2023 --resources: the default pod list sample keeps the same jobs, 160 of them shares of one GPU" {
	run -0 trace-import alibaba-v2023 --nodes "$V23N" --pods "$V23P" -o "$TMP/plain.nd"
	run -0 trace-import alibaba-v2023 --nodes "$V23N" --pods "$V23P" --resources -o "$TMP/r.nd"
	# the same jobs and nodes, field for field, once the resource keys are dropped
	run -0 diff <(jq -c 'select(.type == "job" or .type == "node")' "$TMP/plain.nd") \
		<(jq -c 'select(.type == "job" or .type == "node") | del(.workers, .cpu_milli, .memory_mib, .gpu_milli, .gpu_spec)' "$TMP/r.nd")
	run -0 jq -s '[.[] | select(.type == "job" and .gpu_milli != null and .gpus * 1000 == .gpu_milli)] | length' "$TMP/r.nd"
	assert_output 160
}

@test "alibaba-spot --resources: cpu_num becomes the nodes' cpu_milli; jobs get no resource fields" {
	run -0 trace-import alibaba-spot --nodes "$SPOTN" --jobs "$SPOTJ" --resources -o "$TMP/r.nd"
	run -0 sed -n 2p "$TMP/r.nd"
	assert_output '{"type":"node","node_id":"0","gpu_model":"GPU-series-1","gpu_count":4,"cpu_milli":192000}'
	run -0 jq -s '[.[] | select(.type == "job" and (.cpu_milli != null or .workers != null))] | length' "$TMP/r.nd"
	assert_output 0
	# a cpu_num that is not an integer stops the import at its row
	zstdcat "$SPOTN" | sed '2s/,192,/,19x,/' > "$TMP/n.csv"
	run -1 trace-import alibaba-spot --nodes "$TMP/n.csv" --jobs "$SPOTJ" --resources -o "$TMP/bad.nd"
	assert_output "trace-import: $TMP/n.csv:2: node '0': 'cpu_num' is not an integer: '19x'"
	assert [ ! -e "$TMP/bad.nd" ]
}
