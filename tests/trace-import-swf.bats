#!/usr/bin/env bats
# trace-import swf and trace-export --format swf (issue 37): the Standard Workload Format
# v2.2 on a fixture modelled on the Parallel Workloads Archive's format description
# (tests/data/swf/small.swf), the round trip, and the hostile cases.
load helper
bats_require_minimum_version 1.5.0

setup() {
	TMP="$BATS_TEST_TMPDIR"
	F="$DATA/swf/small.swf"
	MAP=(--gpus-per-node 4 --class queue:1=HP --class queue:2=Spot)
}

# imp FILE [ARGS...]: import FILE into $TMP/t.nd, expecting success
imp() {
	local f=$1
	shift
	run trace-import swf --jobs "$f" "${MAP[@]}" "$@" -o "$TMP/t.nd"
	assert_success
	assert_output ""
}
jobs_of() { grep '"type":"job"' "$1" | jq -c 'del(.type)'; }

# bad FILE MESSAGE: the import fails with exit 1 and MESSAGE, and writes nothing
bad() {
	rm -f "$TMP/t.nd"
	run -1 trace-import swf --jobs "$1" "${MAP[@]}" -o "$TMP/t.nd"
	assert_output "trace-import: $2"
	[ ! -e "$TMP/t.nd" ] || fail "partial output left"
}

# edit SED: the fixture through sed into $TMP/x.swf
edit() { sed "$1" "$F" > "$TMP/x.swf"; }

@test "swf: the fixture: 7 jobs on 4 nodes from MaxNodes, the status rules counted, header recorded" {
	imp "$F"
	run -0 jq -c '[.skipped_rows, .time_origin, .source.swf_header.MaxProcs, .source.swf_header.TimeZoneString]' <(head -n 1 "$TMP/t.nd")
	assert_output '[{"partial_execution":2,"cancelled_before_start":1,"unknown_run_time":0,"zero_run_time":1,"unknown_processors":0},"2025-12-01 00:00:00","16","UTC"]'
	[ "$(grep -c '"type":"node"' "$TMP/t.nd")" -eq 4 ]
	run -0 jobs_of "$TMP/t.nd"
	assert_line --index 0 '{"job_id":"1","submit":0,"duration":3600,"gpus":4,"class":"HP","gpu_model":"*","time_limit":7200}'
	assert_line --index 2 '{"job_id":"4","submit":90,"duration":120,"gpus":2,"class":"Spot","gpu_model":"*","time_limit":1800}'
	assert_line --index 5 '{"job_id":"7","submit":180,"duration":900,"gpus":4,"class":"HP","gpu_model":"*"}'
	[ "${#lines[@]}" -eq 7 ]
}

@test "swf: the resource mapping options: GPUs per processor, processors per GPU, node count, model, tenants" {
	imp "$F" --gpus-per-proc 2 --node-count 8 --gpu-model a100 --tenant-from user
	run -0 jq -r 'select(.type == "job" and .job_id == "5") | "\(.gpus) \(.tenant)"' "$TMP/t.nd"
	assert_output "16 u1"
	[ "$(grep -c '"gpu_model":"a100","gpu_count":4' "$TMP/t.nd")" -eq 8 ]
	imp "$F" --procs-per-gpu 4
	run -0 jq -r 'select(.type == "job") | .gpus' "$TMP/t.nd"
	assert_output "$(printf '1\n1\n1\n2\n1\n1\n4')"
	run -2 trace-import swf --jobs "$F" "${MAP[@]}" --procs-per-gpu 4 --gpus-per-proc 2 -o "$TMP/t.nd"
	assert_output --partial "give one"
}

@test "swf: classes come only from the declared rules (queue, partition, user); an unmatched job stops the import" {
	imp "$F" --class 'user:3=Spot'
	run trace-import swf --jobs "$F" --gpus-per-node 4 --class queue:1=HP -o "$TMP/t.nd"
	assert_failure 1
	assert_output "trace-import: $F:25: job 2: no --class rule for queue 2, partition 1, user 2 (declare one; there is no default)"
	run -0 trace-import swf --jobs "$F" --gpus-per-node 4 --class user:1=HP --class 'partition:1=Spot' -o "$TMP/t.nd"
	run -0 jq -r 'select(.type == "job") | "\(.job_id)=\(.class)"' "$TMP/t.nd"
	assert_output "$(printf '1=HP\n2=Spot\n4=Spot\n5=HP\n6=Spot\n7=Spot\n9=Spot')"
}

@test "swf: a replay: job 9 runs 2000 s against a Requested Time of 1800 and times out" {
	imp "$F"
	run -0 sim-run --policy "$ROOT/configs/policies/easy-backfill.json" --input "$TMP/t.nd" -o "$TMP/r"
	run -0 jq -c 'select(.type == "job_result" and .job_id == "9") | [.duration_seconds, .timed_out]' "$TMP/r"
	assert_output '[1800,true]'
}

@test "swf: trace-export --format swf and back keeps every job field SWF keeps" {
	imp "$F"
	run -0 trace-export --format swf -o "$TMP/back.swf" "$TMP/t.nd"
	run -0 grep -c '^; MaxProcs: 16$' "$TMP/back.swf"
	run -0 trace-import swf --jobs "$TMP/back.swf" "${MAP[@]}" -o "$TMP/t2.nd"
	diff <(jobs_of "$TMP/t.nd") <(jobs_of "$TMP/t2.nd") || fail "the round trip changed a job"
	diff <(grep '"type":"node"' "$TMP/t.nd") <(grep '"type":"node"' "$TMP/t2.nd") || fail "the round trip changed the nodes"
	# GPUs that are not whole processors are refused, nothing written
	run -1 trace-export --format swf --gpus-per-proc 4 -o "$TMP/x.swf" "$TMP/t.nd"
	assert_output "trace-export: job '2': 1 GPUs is not a whole number of processors of 4 GPUs (--gpus-per-proc)"
	[ ! -e "$TMP/x.swf" ] || fail "partial output left"
}

@test "swf hostile: 17 or 19 fields" {
	edit '26s/ -1  -1$/ -1/'
	bad "$TMP/x.swf" "$TMP/x.swf:26: 17 fields, SWF v2.2 has exactly 18"
	edit '26s/$/ 7/'
	bad "$TMP/x.swf" "$TMP/x.swf:26: more than 18 fields (SWF v2.2 has exactly 18)"
}

@test "swf hostile: a non-numeric field" {
	edit '27s/ 1800 / 1h /'
	bad "$TMP/x.swf" "$TMP/x.swf:27: field 9 (Requested Time) '1h' is not a number"
}

@test "swf hostile: submit times going backwards" {
	edit '27s/^    4       90/    4       10/'
	bad "$TMP/x.swf" "$TMP/x.swf:27: job 4: Submit Time 10 goes backwards (the line before: 60); SWF lines are sorted by submit time"
}

@test "swf hostile: a negative run time (other than -1, unknown)" {
	edit '27s/ 120 / -120 /'
	bad "$TMP/x.swf" "$TMP/x.swf:27: job 4: Run Time -120 is negative (-1 is the only negative value: unknown)"
}

@test "swf hostile: a header that lies about MaxProcs" {
	edit 's/^; MaxProcs: 16/; MaxProcs: 8/'
	bad "$TMP/x.swf" "$TMP/x.swf:34: job 9: 16 processors, more than the header's MaxProcs 8"
	edit 's/^; MaxProcs: 16/; MaxProcs: many/'
	bad "$TMP/x.swf" "$TMP/x.swf:15: header MaxProcs 'many' is not a whole number >= 0"
}

@test "swf hostile: CRLF line ends read as LF" {
	imp "$F"
	mv "$TMP/t.nd" "$TMP/lf.nd"
	sed 's/$/\r/' "$F" > "$TMP/crlf.swf"
	imp "$TMP/crlf.swf"
	diff <(grep -v '"type":"\(header\|end\)"' "$TMP/lf.nd") <(grep -v '"type":"\(header\|end\)"' "$TMP/t.nd") || fail "CRLF changed the trace"
	diff <(head -n 1 "$TMP/lf.nd" | jq -c '[.skipped_rows, .source.swf_header]') <(head -n 1 "$TMP/t.nd" | jq -c '[.skipped_rows, .source.swf_header]') ||
		fail "CRLF changed the header's facts"
}

@test "swf hostile: a 1 MB line, a NUL byte, no jobs, no node count" {
	{ head -n 25 "$F"; head -c 1048576 /dev/zero | tr '\0' '7'; echo; } > "$TMP/big.swf"
	bad "$TMP/big.swf" "$TMP/big.swf:26: line of 1048576 bytes (an SWF line holds 18 numbers: at most 4096 bytes)"
	{ head -n 25 "$F"; printf '1 0 0 10 1\0 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n'; } > "$TMP/nul.swf"
	bad "$TMP/nul.swf" "$TMP/nul.swf:26: NUL byte at byte 11"
	head -n 23 "$F" > "$TMP/none.swf"
	bad "$TMP/none.swf" "$TMP/none.swf: no job kept (every line was a comment or skipped: see skipped_rows rules in docs/slurm-import.md)"
	grep -v '^; Max\(Nodes\|Procs\)' "$F" > "$TMP/nonodes.swf"
	bad "$TMP/nonodes.swf" "$TMP/nonodes.swf: no node count: the header has neither MaxNodes nor MaxProcs (give --node-count N)"
}

@test "swf: usage errors exit 2: no --gpus-per-node, a rule without a number, a count of 0" {
	run -2 trace-import swf --jobs "$F" --class queue:1=HP -o "$TMP/t.nd"
	assert_line --index 0 "trace-import: swf needs --jobs, --gpus-per-node and at least one --class rule"
	run -2 trace-import swf --jobs "$F" --gpus-per-node 4 --class queue:x=HP -o "$TMP/t.nd"
	assert_line --index 0 "trace-import: --class: 'queue:x' needs a number after 'queue:'"
	run -2 trace-import swf --jobs "$F" --gpus-per-node 0 --class '*=HP' -o "$TMP/t.nd"
	assert_line --index 0 "trace-import: --gpus-per-node: '0' is not a whole number >= 1"
	[ ! -e "$TMP/t.nd" ] || fail "output written on a usage error"
}
