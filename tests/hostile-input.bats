#!/usr/bin/env bats
# Regression tests for issue 9 (input and output hardening): each test names the defect it
# pins down and fails on the code before the fix. Classes, not cases: where a test shows a
# rule (UTF-8, identifiers, bounds, temporary files, record verification), it tries it on
# more than one tool. docs/hardening.md documents every rule and limit tested here.
load helper

POL="$ROOT/configs/policies"
SMALL="$ROOT/tests/data/sim/preemption-small.trace.ndjson"

setup() {
	T="$BATS_TEST_TMPDIR"
	cd "$T"
}

# A node file and a job file for trace-import csv, and a map for them.
csv_fixture() {
	printf 'node,gpus\nn1,4\nn2,4\n' > nodes.csv
	printf 'id,submit,duration,gpus,model,org\nj1,0,10,2,A,o1\nj2,5,10,4,A,o2\n' > jobs.csv
	cat > map.json <<-EOF
	{"format":"schednav.csv-map/1","trace_id":"hostile","columns":{"job_id":"id","submit":"submit","duration":"duration",
	 "gpus":"gpus","class":{"constant":"HP"},"gpu_model":"model","tenant":"org"},
	 "nodes":{"file":"$T/nodes.csv","id_column":"node","gpu_count_column":"gpus","gpu_model":{"constant":"A"}}}
	EOF
}

@test "defect 2: an unknown key in a map's 'columns' is reported, not read past the end of the key list" {
	csv_fixture
	jq -c '.columns.bogus = "x"' map.json > bad.json
	run trace-import csv --map bad.json jobs.csv
	assert_failure 1
	assert_output "trace-import: bad.json: 'columns' must be an object of job fields: unknown key 'bogus'"
	run trace-import csv --map map.json jobs.csv -o ok.nd
	assert_success
	stream-verify ok.nd
}
