#!/usr/bin/env bats
# trace-import canonical: the original three-file directory, every §1 load check in order.
load helper

FIX="$BATS_TEST_DIRNAME/canon-fixture.py"

setup() {
	T="$BATS_TEST_TMPDIR"
}

# Fixture: small valid case, then run a python edit of jobs.csv lines and re-seal.
fixture() {
	python3 "$FIX" make "$T/$1" "$2"
}

reseal() {
	python3 "$FIX" reseal "$@"
}

@test "canonical: every golden case imports, with schema-valid records" {
	require_shared
	local n=0 c
	for c in "$GOLDEN"/cases/*/; do
		trace-import canonical "$c" > "$T/out.nd" || fail "import failed: $c"
		assert_schema "$T/out.nd"
		n=$((n + 1))
	done
	[ "$n" -ge 1 ] || fail "no golden cases found"
	echo "# $n/$n golden cases imported" >&3
}

@test "canonical: the stream carries the manifest's facts and the three files' hashes" {
	fixture f v2
	reseal "$T/f" 'evaluation_window_seconds={"start":10.0,"end":20.0}'
	local c="$T/f"
	trace-import canonical "$c" > "$T/out.nd"
	local h; h=$(head -1 "$T/out.nd")
	python3 - "$c" "$h" <<'EOF'
import hashlib, json, sys
d, h = sys.argv[1], json.loads(sys.argv[2])
m = json.load(open(d + "/trace.json"))
assert h["schema"] == "schednav.trace/2", h["schema"]
assert h["trace_id"] == m["trace_id"] and h["time_origin"] == m["time_origin"]
assert h["source"] == m["source"]
w = m["evaluation_window_seconds"]
assert h["window"] == {"eval_start": w["start"], "eval_end": w["end"]}, h["window"]
assert h["params"] == {"format": "canonical", "dir": d, "trace_id": None}, h["params"]
names = [i["path"].rsplit("/", 1)[1] for i in h["inputs"]]
assert names == ["trace.json", "nodes.csv", "jobs.csv"], names
for i in h["inputs"]:
    raw = open(i["path"], "rb").read()
    assert i["bytes"] == len(raw) and i["sha256"] == hashlib.sha256(raw).hexdigest(), i
EOF
	# jobs are sorted by (submit, job_id) with phases from the window
	run -0 jq -r 'select(.type=="job") | .phase' "$T/out.nd"
	assert_output --partial warmup
	assert_output --partial eval
}

@test "canonical: integer and float cells keep their kind in the stream" {
	fixture k v1
	sed -i 's/^j2,10,50.5,/j2,10.0,50.5,/' "$T/k/jobs.csv"
	reseal "$T/k"
	run trace-import canonical "$T/k"
	assert_success
	assert_line --partial '"job_id":"j1","submit":5,"duration":100,"gpus":2,'
	assert_line --partial '"job_id":"j2","submit":10.0,"duration":50.5,"gpus":0.5,'
}

@test "canonical: numbers are read like Python int() and float()" {
	fixture p v1
	sed -i 's/^n1,A,8$/n1,A, +8 /; s/^n2,B,4$/n2,B,0_4/' "$T/p/nodes.csv"
	sed -i 's/^j1,5,100,/j1, 5 ,1_00.0_0,/' "$T/p/jobs.csv"
	reseal "$T/p"
	run trace-import canonical "$T/p"
	assert_success
	assert_line --partial '"node_id":"n1","gpu_model":"A","gpu_count":8}'
	assert_line --partial '"node_id":"n2","gpu_model":"B","gpu_count":4}'
	assert_line --partial '"job_id":"j1","submit":5,"duration":100.0,'
	local bad
	for bad in '8.0' '1__0' '_8' '8_' '0x8' ''; do
		fixture q v1
		sed -i "s/^n1,A,8\$/n1,A,$bad/" "$T/q/nodes.csv"
		reseal "$T/q"
		run trace-import canonical "$T/q"
		assert_failure 1
		assert_output --regexp "^trace-import: .*/q/nodes\.csv:2: node 'n1': gpu_count '.*' is not an integer$"
		rm -rf "$T/q"
	done
}

@test "canonical: the original's trace_fingerprint of the golden preemption-small case verifies" {
	require_shared
	grep -q '"trace_fingerprint": "ae8db123c9b6cdb7' "$GOLDEN/cases/g-micro-preemption-small/trace.json"
	run trace-import canonical "$GOLDEN/cases/g-micro-preemption-small"
	assert_success
}

@test "canonical: an independently sealed trace_fingerprint verifies; a manifest edit breaks it" {
	fixture e v1
	run trace-import canonical "$T/e"
	assert_success
	sed -i 's/"dataset": "bats-fixture"/"dataset": "bats-fixturE"/' "$T/e/trace.json"
	run trace-import canonical "$T/e"
	assert_failure 1
	assert_output --regexp "^trace-import: .*/e/trace\.json: trace_fingerprint does not match"
}

@test "canonical: int and float differ in the fingerprint (10 != 10.0)" {
	fixture w v1
	reseal "$T/w" 'evaluation_window_seconds={"start":10.0,"end":20.0}'
	run trace-import canonical "$T/w"
	assert_success
	grep -q '"end": 20.0,$' "$T/w/trace.json"
	sed -i 's/"end": 20.0,$/"end": 20,/' "$T/w/trace.json"
	run trace-import canonical "$T/w"
	assert_failure 1
	assert_output --partial "trace_fingerprint does not match"
}

@test "canonical: a changed byte or an added newline in jobs.csv fails the sha256" {
	fixture b v1
	sed -i 's/^j1,5,100,2,HP,A$/j1,6,100,2,HP,A/' "$T/b/jobs.csv"
	grep -q '^j1,6,' "$T/b/jobs.csv"
	run trace-import canonical "$T/b"
	assert_failure 1
	assert_output --regexp "^trace-import: .*/b/jobs\.csv: sha256 [0-9a-f]{64} does not match 'jobs\.csv' in .*/trace\.json$"
	fixture n v1
	printf '\n' >> "$T/n/jobs.csv"
	run trace-import canonical "$T/n"
	assert_failure 1
	assert_output --regexp "^trace-import: .*/n/jobs\.csv: sha256 "
}

@test "canonical: window rules (first arrival <= start, last arrival <= end, an arrival inside, exact keys)" {
	fixture w v1
	reseal "$T/w" 'evaluation_window_seconds={"start":5.0,"end":20.0}'
	run trace-import canonical "$T/w"
	assert_success
	assert_line --partial '"window":{"eval_start":5.0,"eval_end":20.0}'
	reseal "$T/w" 'evaluation_window_seconds={"start":2.0,"end":20.0}'
	run trace-import canonical "$T/w"
	assert_failure 1
	assert_output --regexp "^trace-import: .*/w/trace\.json: evaluation window starts before the first arrival$"
	reseal "$T/w" 'evaluation_window_seconds={"start":5.0,"end":15.0}'
	run trace-import canonical "$T/w"
	assert_failure 1
	assert_output --regexp "^trace-import: .*/w/trace\.json: job 'j3' arrives after the evaluation window ends$"
	reseal "$T/w" 'evaluation_window_seconds={"start":20.0,"end":5.0}'
	run trace-import canonical "$T/w"
	assert_failure 1
	assert_output --partial "0 <= start < end"
	reseal "$T/w" 'evaluation_window_seconds={"start":5.0,"end":20.0,"warmup":0.0}'
	run trace-import canonical "$T/w"
	assert_failure 1
	assert_output --partial "exactly numbers 'start' and 'end'"
}

@test "canonical: a job larger than its model's capacity is rejected at its row" {
	fixture o v1
	sed -i 's/^j1,5,100,2,HP,A$/j1,5,100,9,HP,A/' "$T/o/jobs.csv"
	reseal "$T/o"
	run trace-import canonical "$T/o"
	assert_failure 1
	assert_output "trace-import: $T/o/jobs.csv:2: job 'j1': asks for 9 GPUs of model 'A', capacity is 8"
	# "*" may use the total capacity (12), not more
	fixture s v1
	sed -i 's/^j3,20,30,12,Spot,\*$/j3,20,30,12.5,Spot,*/' "$T/s/jobs.csv"
	reseal "$T/s"
	run trace-import canonical "$T/s"
	assert_failure 1
	assert_output --regexp "jobs\.csv:4: job 'j3': asks for 12\.5 GPUs of model '\*', capacity is 12$"
}

@test "canonical: the tenant column must match the schema version" {
	fixture a v2
	reseal "$T/a" 'schema_version="schednav.trace/v1"'
	run trace-import canonical "$T/a"
	assert_failure 1
	assert_output --regexp "^trace-import: .*/a/jobs\.csv:1: header must be exactly 'job_id,submit_time_seconds,duration_seconds,gpu_count,service_class,gpu_model'$"
	fixture b v1
	reseal "$T/b" 'schema_version="schednav.trace/v2"'
	run trace-import canonical "$T/b"
	assert_failure 1
	assert_output --regexp "^trace-import: .*/b/jobs\.csv:1: header must be exactly '.*,tenant_id'$"
	fixture c v2
	sed -i 's/,org1$/, /' "$T/c/jobs.csv"
	reseal "$T/c"
	run trace-import canonical "$T/c"
	assert_failure 1
	assert_output --regexp "jobs\.csv:2: job 'j1': empty tenant_id$"
}

@test "canonical: manifest key set, schema, time_origin, trace_id, source" {
	fixture m v1
	reseal "$T/m" 'comment="hi"'
	run trace-import canonical "$T/m"
	assert_failure 1
	assert_output "trace-import: $T/m/trace.json: unknown key 'comment'"
	fixture m2 v1
	reseal "$T/m2" 'source='
	run trace-import canonical "$T/m2"
	assert_failure 1
	assert_output "trace-import: $T/m2/trace.json: missing key 'source'"
	local kv
	for kv in 'schema_version="schednav.trace/v3"' 'time_origin="2026-13-01 00:00:00"' 'time_origin="yesterday"' \
	          'trace_id=""' 'trace_id=7' 'source=[]'; do
		fixture m3 v1
		reseal "$T/m3" "$kv"
		run trace-import canonical "$T/m3"
		assert_failure 1
		assert_output --regexp "^trace-import: .*/m3/trace\.json: (schema_version|time_origin|trace_id|source) must"
		rm -rf "$T/m3"
	done
	fixture m4 v1
	reseal "$T/m4" 'time_origin="2026-02-29"'
	run trace-import canonical "$T/m4"
	assert_failure 1
	assert_output "trace-import: $T/m4/trace.json: time_origin must be an ISO 8601 date-time string"
	for kv in 'time_origin="2024-02-29"' 'time_origin="2024-02-29T23:59:59.5+01:00"' 'time_origin="20260101T0000Z"'; do
		reseal "$T/m4" "$kv"
		run trace-import canonical "$T/m4"
		assert_success
	done
}

@test "canonical: file paths must be relative, without '..', inside the directory, regular files" {
	fixture d v1
	mkdir "$T/elsewhere"
	cp "$T/d/nodes.csv" "$T/elsewhere/"
	reseal "$T/d" 'nodes_file="../elsewhere/nodes.csv"'
	run trace-import canonical "$T/d"
	assert_failure 1
	assert_output "trace-import: $T/d/trace.json: nodes_file: '../elsewhere/nodes.csv' must not contain '..'"
	fixture d2 v1
	reseal "$T/d2" "nodes_file=\"$T/d2/nodes.csv\""
	run trace-import canonical "$T/d2"
	assert_failure 1
	assert_output --partial "must be a relative path"
	fixture d3 v1
	mv "$T/d3/nodes.csv" "$T/elsewhere/n3.csv"
	ln -s "$T/elsewhere/n3.csv" "$T/d3/nodes.csv"
	run trace-import canonical "$T/d3"
	assert_failure 1
	assert_output --regexp "nodes_file: 'nodes\.csv' resolves outside"
	# a symlink that stays inside is fine
	fixture d4 v1
	mkdir "$T/d4/sub"
	mv "$T/d4/jobs.csv" "$T/d4/sub/j.csv"
	ln -s sub/j.csv "$T/d4/jobs.csv"
	run trace-import canonical "$T/d4"
	assert_success
	fixture d5 v1
	rm "$T/d5/jobs.csv"
	mkdir "$T/d5/jobs.csv"
	run trace-import canonical "$T/d5"
	assert_failure 1
	assert_output --partial "'jobs.csv' is not a regular file"
}

@test "canonical: files must list exactly the two declared files" {
	fixture f v1
	python3 - "$T/f/trace.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1])); m["files"]["extra.csv"] = "0" * 64
open(sys.argv[1], "w").write(json.dumps(m, indent=2, sort_keys=True) + "\n")
EOF
	run trace-import canonical "$T/f"
	assert_failure 1
	assert_output "trace-import: $T/f/trace.json: 'files' must list exactly 'nodes.csv' and 'jobs.csv'"
}

@test "canonical: duplicate ids, bad class, empty fields, bad field counts are rejected at their line" {
	fixture u v1
	sed -i 's/^j3,/j1,/' "$T/u/jobs.csv"
	reseal "$T/u"
	run trace-import canonical "$T/u"
	assert_failure 1
	assert_output "trace-import: $T/u/jobs.csv:4: duplicate job_id 'j1'"
	fixture u2 v1
	printf 'n1 ,C,2\n' >> "$T/u2/nodes.csv"
	reseal "$T/u2"
	run trace-import canonical "$T/u2"
	assert_failure 1
	assert_output "trace-import: $T/u2/nodes.csv:4: duplicate node_id 'n1'"
	fixture u3 v1
	sed -i 's/,Spot,B$/,BE,B/' "$T/u3/jobs.csv"
	reseal "$T/u3"
	run trace-import canonical "$T/u3"
	assert_failure 1
	assert_output "trace-import: $T/u3/jobs.csv:3: job 'j2': service_class must be 'HP' or 'Spot', not 'BE'"
	fixture u4 v1
	sed -i 's/^j2,10,50.5,0.5,Spot,B$/j2,10,50.5,0.5,Spot/' "$T/u4/jobs.csv"
	reseal "$T/u4"
	run trace-import canonical "$T/u4"
	assert_failure 1
	assert_output "trace-import: $T/u4/jobs.csv:3: expected 6 fields, found 5"
	fixture u5 v1
	sed -i 's/^j2,10,50.5,/j2,10,1e-10,/' "$T/u5/jobs.csv"
	reseal "$T/u5"
	run trace-import canonical "$T/u5"
	assert_failure 1
	assert_output "trace-import: $T/u5/jobs.csv:3: job 'j2': duration_seconds must be > 1e-9"
}

@test "canonical: NaN and infinite cells are rejected" {
	local cell
	for cell in nan NaN inf -Infinity 1e999; do
		fixture x v1
		sed -i "s/^j2,10,/j2,$cell,/" "$T/x/jobs.csv"
		reseal "$T/x"
		run trace-import canonical "$T/x"
		assert_failure 1
		assert_output "trace-import: $T/x/jobs.csv:3: job 'j2': submit_time_seconds '$cell' is not finite"
		rm -rf "$T/x"
	done
	fixture y v1
	sed -i 's/^j1,5,100,2,/j1,5,100,inf,/' "$T/y/jobs.csv"
	reseal "$T/y"
	run trace-import canonical "$T/y"
	assert_failure 1
	assert_output "trace-import: $T/y/jobs.csv:2: job 'j1': gpu_count 'inf' is not finite"
}

@test "canonical: invalid UTF-8 is rejected with its line" {
	fixture z v2
	printf 'j9,30,5,1,HP,A,org\377\n' >> "$T/z/jobs.csv"
	reseal "$T/z"
	run trace-import canonical "$T/z"
	assert_failure 1
	assert_output "trace-import: $T/z/jobs.csv:5: not valid UTF-8 (byte 0xff at column 19)"
}

@test "canonical: empty or missing directory, missing operand" {
	mkdir "$T/empty"
	run trace-import canonical "$T/empty"
	assert_failure 1
	assert_output --regexp "^trace-import: .*/empty/trace\.json: cannot open: No such file or directory$"
	run trace-import canonical "$T/nope"
	assert_failure 1
	assert_output "trace-import: $T/nope: no such directory"
	run trace-import canonical
	assert_failure 2
	assert_output --partial "usage:"
	run trace-import canonical "$T/empty" extra
	assert_failure 2
}

@test "canonical: a failed import writes no output file" {
	mkdir "$T/empty"
	run trace-import canonical "$T/empty" -o "$T/out.nd"
	assert_failure 1
	assert_no_output "$T/out.nd"
}
