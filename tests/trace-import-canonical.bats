#!/usr/bin/env bats
# trace-import canonical: the original three-file directory. Its error cases (every §1 load
# check) are tests/cases/trace-import/canonical-*.case, run by trace-import.bats on the two
# directories canon-fixture.py makes; what needs a symbolic link or a directory stays here.
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
}

@test "canonical: the original's trace_fingerprint of the golden preemption-small case verifies" {
	require_shared
	grep -q '"trace_fingerprint": "ae8db123c9b6cdb7' "$GOLDEN/cases/g-micro-preemption-small/trace.json"
	run trace-import canonical "$GOLDEN/cases/g-micro-preemption-small"
	assert_success
}

@test "canonical: an independently sealed trace_fingerprint verifies" {
	fixture e v1
	run trace-import canonical "$T/e"
	assert_success
}

@test "canonical: a window from the first arrival to the last is kept in the header" {
	fixture w v1
	reseal "$T/w" 'evaluation_window_seconds={"start":5.0,"end":20.0}'
	run trace-import canonical "$T/w"
	assert_success
	assert_line --partial '"window":{"eval_start":5.0,"eval_end":20.0}'
}

@test "canonical: time_origin may be a date, a date-time with a fraction and an offset, or ISO 8601 basic form" {
	fixture m4 v1
	local kv
	for kv in 'time_origin="2024-02-29"' 'time_origin="2024-02-29T23:59:59.5+01:00"' 'time_origin="20260101T0000Z"'; do
		reseal "$T/m4" "$kv"
		run trace-import canonical "$T/m4"
		assert_success
	done
}

@test "canonical: file paths must resolve inside the directory, to regular files" {
	mkdir "$T/elsewhere"
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
