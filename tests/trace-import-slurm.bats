#!/usr/bin/env bats
# trace-import slurm on fixtures of sacct -P and scontrol show node -o output: one test per
# state rule (docs/slurm-import.md), two sacct output variants, the node inventory, the class
# rules and the privacy options; its error cases are tests/cases/trace-import/slurm-*.case
# (run by trace-import.bats). The live check against a real Slurm is
# tests/slurm-import.bats.
load helper

setup() {
	TMP="$BATS_TEST_TMPDIR"
	S="$DATA/slurm"
	CLASSES=(--class qos:scavenger=Spot --class qos:normal=HP --class qos:high=HP)
}

# imp [ARGS...]: import the state fixture into $TMP/t.nd (status checked)
imp() {
	run trace-import slurm --jobs "$S/sacct-states.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}" "$@" -o "$TMP/t.nd"
	assert_success
	assert_output ""
}
skipped() { head -n 1 "$TMP/t.nd" | jq -r ".skipped_rows.$1"; }
job() { grep '"type":"job"' "$TMP/t.nd" | jq -c "select(.job_id == \"$1\") | del(.type)"; }
job_ids() { grep '"type":"job"' "$TMP/t.nd" | jq -r .job_id | sort | tr '\n' ' '; }

@test "slurm: the state fixture gives 10 jobs on 3 GPU nodes, every rule counted, provenance complete" {
	imp
	[ "$(grep -c '"type":"node"' "$TMP/t.nd")" -eq 3 ]
	[ "$(job_ids)" = "100 101 102 104 105 106 109_1 109_2 112 118 " ]
	run -0 jq -c .skipped_rows <(head -n 1 "$TMP/t.nd")
	assert_output '{"job_step":6,"requeued_earlier_record":2,"pending_at_end":2,"running_at_end":1,"cancelled_before_start":2,"never_started":1,"zero_run_time":1,"no_gpus":1,"node_without_gpus":1}'
	run -0 jq -c '.source | [.service_class_mapping.rules, .tenant_mapping, .kept_by_final_state, .kept_job_kinds]' <(head -n 1 "$TMP/t.nd")
	assert_output '[["qos:scavenger=Spot","qos:normal=HP","qos:high=HP"],{"from":"account","hashed":false},{"COMPLETED":7,"FAILED":1,"TIMEOUT":1,"CANCELLED":1,"PREEMPTED":1},{"array_tasks":2,"heterogeneous_components":2,"heterogeneous_jobs":1,"requeued_jobs":2}]'
	[ "$(head -n 1 "$TMP/t.nd" | jq -r '.time_origin + " " + .schema')" = "2026-11-02 08:00:00 schednav.trace/2" ]
	[ "$(head -n 1 "$TMP/t.nd" | jq -r .source.sacct_sha256)" = "$(sha256sum < "$S/sacct-states.txt" | cut -c1-64)" ]
	assert_schema "$TMP/t.nd"
}

@test "slurm rule: COMPLETED, FAILED and TIMEOUT ran: submit, Elapsed, GPUs, model, class and tenant" {
	imp
	[ "$(job 100)" = '{"job_id":"100","submit":0,"duration":3600,"gpus":4,"class":"HP","gpu_model":"a100","tenant":"vision"}' ]
	[ "$(job 101)" = '{"job_id":"101","submit":60,"duration":1800,"gpus":2,"class":"HP","gpu_model":"*","tenant":"nlp"}' ]
	[ "$(job 102)" = '{"job_id":"102","submit":120,"duration":86400,"gpus":16,"class":"HP","gpu_model":"a100","tenant":"vision"}' ]
}

@test "slurm rule: job steps (JobID with a dot) are not jobs" {
	imp
	[ "$(skipped job_step)" -eq 6 ]
	[ "$(grep -c '"job_id":"[^"]*\.' "$TMP/t.nd")" -eq 0 ]
}

@test "slurm rule: CANCELLED before start is skipped, CANCELLED after start ran until cancelled" {
	imp
	# 103: Start Unknown; 117: what Slurm 22.05 records for a job cancelled while pending,
	# Start = End and no AllocTRES (it never held resources)
	[ "$(skipped cancelled_before_start)" -eq 2 ]
	[ -z "$(job 103)$(job 117)" ]
	[ "$(job 104)" = '{"job_id":"104","submit":240,"duration":630,"gpus":1,"class":"HP","gpu_model":"*","tenant":"speech"}' ]
}

@test "slurm rule: a REQUEUED or PREEMPTED record and its rerun make one job (first submit, last run)" {
	imp
	[ "$(skipped requeued_earlier_record)" -eq 2 ]
	[ "$(job 105)" = '{"job_id":"105","submit":600,"duration":3600,"gpus":2,"class":"Spot","gpu_model":"*","tenant":"nlp"}' ]
	# 118: preempted by QOS and requeued, as the live Slurm records it (PREEMPTED, then a
	# new record with Submit reset to the preemption)
	[ "$(job 118)" = '{"job_id":"118","submit":7200,"duration":3600,"gpus":8,"class":"Spot","gpu_model":"a100","tenant":"vision"}' ]
	# the record order in the file does not matter
	{ head -n 1 "$S/sacct-states.txt"; grep '^105|' "$S/sacct-states.txt" | tac; grep '^100|' "$S/sacct-states.txt"; } > "$TMP/rev.txt"
	run trace-import slurm --jobs "$TMP/rev.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}" -o "$TMP/t.nd"
	assert_success
	[ "$(job 105)" = '{"job_id":"105","submit":600,"duration":3600,"gpus":2,"class":"Spot","gpu_model":"*","tenant":"nlp"}' ]
}

@test "slurm rule: PREEMPTED as the last record ran until it was preempted" {
	imp
	[ "$(job 106)" = '{"job_id":"106","submit":1200,"duration":1200,"gpus":8,"class":"Spot","gpu_model":"a100","tenant":"vision"}' ]
}

@test "slurm rule: PENDING and RUNNING at the end of the range are skipped" {
	imp
	[ "$(skipped pending_at_end)" -eq 2 ]   # job 107 and the pending array range 109_[3-5]
	[ "$(skipped running_at_end)" -eq 1 ]
	[ -z "$(job 107)$(job 108)" ]
	# a job requeued and pending again at the end is pending
	{ head -n 1 "$S/sacct-states.txt"; grep '^105|' "$S/sacct-states.txt" | head -n 1; grep '^100|' "$S/sacct-states.txt"; } > "$TMP/rq.txt"
	run trace-import slurm --jobs "$TMP/rq.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}" -o "$TMP/t.nd"
	assert_success
	[ "$(skipped pending_at_end)" -eq 1 ]
}

@test "slurm rule: array tasks (123_4) are jobs of their own; a pending range is one pending row" {
	imp
	[ "$(job 109_1)" = '{"job_id":"109_1","submit":4500,"duration":300,"gpus":1,"class":"Spot","gpu_model":"*","tenant":"nlp"}' ]
	[ "$(job 109_2)" = '{"job_id":"109_2","submit":4500,"duration":600,"gpus":1,"class":"Spot","gpu_model":"*","tenant":"nlp"}' ]
	[ -z "$(job '109_[3-5]')" ]
}

@test "slurm rule: heterogeneous job components (123+0) become one job 123; with --hetjob split, jobs of their own" {
	imp
	[ "$(job 112)" = '{"job_id":"112","submit":5400,"duration":900,"gpus":3,"class":"HP","gpu_model":"*","tenant":"vision"}' ]
	[ -z "$(job 112+0)" ]
	imp --hetjob split
	[ "$(job 112+0)" = '{"job_id":"112+0","submit":5400,"duration":900,"gpus":2,"class":"HP","gpu_model":"*","tenant":"vision"}' ]
	[ "$(job 112+1)" = '{"job_id":"112+1","submit":5400,"duration":900,"gpus":1,"class":"HP","gpu_model":"a100","tenant":"vision"}' ]
}

@test "slurm rule: jobs without GPUs, with a zero run time, or that never started are skipped" {
	imp
	[ "$(skipped no_gpus)" -eq 1 ]
	[ "$(skipped zero_run_time)" -eq 1 ]
	[ "$(skipped never_started)" -eq 1 ]
	[ -z "$(job 114)$(job 115)$(job 116)" ]
}

@test "slurm: a second sacct variant (other column order, seconds since 1970, no Elapsed, untyped gres/gpu) gives the same jobs, model '*'" {
	imp
	grep '"type":"job"' "$TMP/t.nd" | jq -c '.gpu_model = "*"' > "$TMP/a.jobs"
	run trace-import slurm --jobs "$S/sacct-variant.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}" -o "$TMP/v.nd"
	assert_success
	grep '"type":"job"' "$TMP/v.nd" > "$TMP/v.jobs"
	diff "$TMP/a.jobs" "$TMP/v.jobs"
	[ "$(head -n 1 "$TMP/v.nd" | jq -c .skipped_rows)" = "$(head -n 1 "$TMP/t.nd" | jq -c .skipped_rows)" ]
	[ "$(head -n 1 "$TMP/v.nd" | jq -r .time_origin)" = "2026-11-02 08:00:00" ]
}

@test "slurm: the inventory reads Gres=gpu:a100:8(S:0-1) and gpu:8 and skips nodes without GPUs" {
	imp
	run -0 grep '"type":"node"' "$TMP/t.nd"
	assert_output '{"type":"node","node_id":"gpu-a01","gpu_model":"a100","gpu_count":8}
{"type":"node","node_id":"gpu-a02","gpu_model":"a100","gpu_count":8}
{"type":"node","node_id":"gpu-b01","gpu_model":"gpu","gpu_count":8}'
	[ "$(skipped node_without_gpus)" -eq 1 ]
	printf 'NodeName=n1 Gres=gpu:v100:no_consume:4,nic:2 State=IDLE\nNodeName=n2 Gres=gpu:v100:2(S:0),gpu:v100:2(S:1) State=IDLE\n' > "$TMP/n.txt"
	{ head -n 1 "$S/sacct-states.txt"; grep '^101|' "$S/sacct-states.txt"; } > "$TMP/j.txt"
	run trace-import slurm --jobs "$TMP/j.txt" --nodes "$TMP/n.txt" --class '*=HP'
	assert_success
	[ "$(echo "$output" | grep '"type":"node"' | jq -c '[.node_id, .gpu_model, .gpu_count]' | tr -d '\n')" = '["n1","v100",4]["n2","v100",4]' ]
}

@test "slurm: classes come only from the declared rules, the first match wins" {
	imp --class '*=Spot'   # after the three rules: matches nothing new
	[ "$(grep -c '"class":"Spot"' "$TMP/t.nd")" -eq 5 ]
	run trace-import slurm --jobs "$S/sacct-states.txt" --nodes "$S/nodes.txt" --class partition:gpu=Spot --class '*=HP' -o "$TMP/p.nd"
	assert_success
	[ "$(grep -c '"class":"HP"' "$TMP/p.nd")" -eq 0 ]
	[ "$(head -n 1 "$TMP/p.nd" | jq -c .source.service_class_mapping.rules)" = '["partition:gpu=Spot","*=HP"]' ]
}

@test "slurm: privacy: --tenant-from user or none, --hash-key hashes tenants and records no key" {
	imp --tenant-from user
	[ "$(grep '"type":"job"' "$TMP/t.nd" | jq -r .tenant | sort -u | tr '\n' ' ')" = "alice bob carol dave " ]
	imp --tenant-from none
	[ "$(head -n 1 "$TMP/t.nd" | jq -r .schema)" = "schednav.trace/1" ]
	[ "$(grep -c '"tenant"' "$TMP/t.nd")" -eq 0 ]
	printf 'a secret key\n' > "$TMP/key"
	imp --hash-key "$TMP/key"
	run -1 grep -c 'vision\|nlp\|speech\|secret' "$TMP/t.nd"
	[ "$output" -eq 0 ]
	[ "$(job 100 | jq -r .tenant)" = "t-$(printf 'a secret key\nvision' | sha256sum | cut -c1-16)" ]
	[ "$(head -n 1 "$TMP/t.nd" | jq -c '[.params.hash_tenants, .source.tenant_mapping.hashed]')" = '[true,true]' ]
}

@test "slurm: stdin, zstd and 1-31 byte chunks give the same trace body; --trace-id" {
	imp --trace-id my-cluster
	[ "$(head -n 1 "$TMP/t.nd" | jq -r .trace_id)" = my-cluster ]
	imp
	zstd -q -c "$S/sacct-states.txt" > "$TMP/s.zst"
	run trace-import slurm --jobs "$TMP/s.zst" --nodes "$S/nodes.txt" "${CLASSES[@]}" -o "$TMP/z.nd"
	assert_success
	[ "$(sans_header "$TMP/z.nd")" = "$(sans_header "$TMP/t.nd")" ]
	feed_chunked "$S/sacct-states.txt" trace-import slurm --jobs - --nodes "$S/nodes.txt" "${CLASSES[@]}" -o "$TMP/c.nd"
	[ "$(sans_header "$TMP/c.nd")" = "$(sans_header "$TMP/t.nd")" ]
}

@test "slurm: a header row with End and without Account imports under --tenant-from none" {
	printf 'JobID|Submit|Start|End|State|AllocTRES\n1|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:00:09|COMPLETED|gres/gpu=1\n' > "$TMP/h.txt"
	run trace-import slurm --jobs "$TMP/h.txt" --nodes "$S/nodes.txt" --class '*=HP' --tenant-from none -o "$TMP/t.nd"
	assert_success
	[ "$(grep -c '"type":"job"' "$TMP/t.nd")" -eq 1 ]
}

# The error cases (usage, malformed rows, empty, header-only, NUL and nodeless inputs, a job no
# --class rule matches) are tests/cases/trace-import/slurm-*.case, run by trace-import.bats.

# ---- issue 35: real-world exports (Cluster, reused JobIDs, overlapping exports, dates) ----

# imp_file FILE [ARGS...]: import FILE into $TMP/t.nd with the usual nodes and classes
imp_file() {
	local f=$1
	shift
	run trace-import slurm --jobs "$f" --nodes "$S/nodes.txt" "${CLASSES[@]}" "$@" -o "$TMP/t.nd"
	assert_success
	assert_output ""
}

@test "slurm: sacct -M all: each cluster's job 100 is a job of its own, ids CLUSTER:JOBID" {
	imp_file "$S/sacct-multicluster.txt"
	[ "$(job_ids)" = "alpha:100 alpha:101 beta:100 " ]
	[ "$(job beta:100)" = '{"job_id":"beta:100","submit":1800,"duration":1200,"gpus":2,"class":"HP","gpu_model":"*","tenant":"speech"}' ]
	[ "$(skipped requeued_earlier_record)" -eq 0 ]
	# one cluster named: the ids stay Slurm's own
	grep -v '^beta|' "$S/sacct-multicluster.txt" > "$TMP/one.txt"
	imp_file "$TMP/one.txt"
	[ "$(job_ids)" = "100 101 " ]
}

@test "slurm: a JobID reused after MaxJobId wrapped is two jobs (JOBID@SUBMIT); a requeue is one" {
	imp_file "$S/sacct-reused-id.txt"
	[ "$(job_ids)" = "100@2026-11-02T08:00:00 100@2026-11-20T10:00:00 105 " ]
	[ "$(job 100@2026-11-02T08:00:00)" = '{"job_id":"100@2026-11-02T08:00:00","submit":0,"duration":3600,"gpus":4,"class":"HP","gpu_model":"a100","tenant":"vision"}' ]
	[ "$(job 100@2026-11-20T10:00:00)" = '{"job_id":"100@2026-11-20T10:00:00","submit":1562400,"duration":1800,"gpus":2,"class":"HP","gpu_model":"*","tenant":"speech"}' ]
	[ "$(skipped requeued_earlier_record)" -eq 1 ]
	run -0 jq -c .source.kept_job_kinds <(head -n 1 "$TMP/t.nd")
	assert_output '{"array_tasks":0,"heterogeneous_components":0,"heterogeneous_jobs":0,"requeued_jobs":1,"reused_job_ids":2}'
	# a REQUEUED record followed by one of another user is not a requeue of it
	sed 's/^105|105|2026-11-02T08:40:11\(.*\)|nlp|bob|/105|105|2026-11-02T08:40:11\1|nlp|carol|/' "$S/sacct-reused-id.txt" > "$TMP/other.txt"
	imp_file "$TMP/other.txt"
	[ "$(job_ids)" = "100@2026-11-02T08:00:00 100@2026-11-20T10:00:00 105@2026-11-02T08:40:11 " ]
	[ "$(skipped pending_at_end)" -eq 1 ]
}

@test "slurm: row order never matters: an exact copy is one row, a stale RUNNING row loses to COMPLETED" {
	imp_file "$S/sacct-overlap.txt"
	[ "$(job_ids)" = "100 101 " ]
	[ "$(job 101)" = '{"job_id":"101","submit":60,"duration":1800,"gpus":2,"class":"HP","gpu_model":"*","tenant":"nlp"}' ]
	[ "$(skipped duplicate_record)" -eq 2 ]
	[ "$(skipped requeued_earlier_record)" -eq 0 ]
	[ "$(skipped running_at_end)" -eq 0 ]
	# every permutation of the rows of two fixtures gives the same trace
	for f in sacct-overlap.txt sacct-reused-id.txt; do
		imp_file "$S/$f"
		cp "$TMP/t.nd" "$TMP/ref.nd"
		for seed in 1 2 3 4 5 6 7 8; do
			{ head -n 1 "$S/$f"; tail -n +2 "$S/$f" | shuf --random-source=<(yes "$seed"); } > "$TMP/p.txt"
			imp_file "$TMP/p.txt"
			# the jobs, their fingerprint, the counts and the origin (not the input's hash)
			run -0 cmp <(sed -n '2,$p' "$TMP/t.nd" | jq -c 'del(.header_fingerprint)') <(sed -n '2,$p' "$TMP/ref.nd" | jq -c 'del(.header_fingerprint)')
			run -0 cmp <(head -n 1 "$TMP/t.nd" | jq -c '[.skipped_rows, .source.kept_by_final_state, .source.kept_job_kinds, .time_origin]') \
				<(head -n 1 "$TMP/ref.nd" | jq -c '[.skipped_rows, .source.kept_by_final_state, .source.kept_job_kinds, .time_origin]')
		done
	done
}

@test "slurm: a date beyond the export's 3650-day span (9999-01-01, 2058) is refused at its line" {
	for end in 9999-01-01T00:00:00 2058-06-01T00:00:00; do
		{ cat "$S/sacct-overlap.txt"; echo "102|102|2026-11-02T08:02:00|2026-11-02T08:05:00|$end|00:10:00|COMPLETED|1|gres/gpu=1|gres/gpu=1|nlp|bob|normal|gpu"; } > "$TMP/d.txt"
		run -1 trace-import slurm --jobs "$TMP/d.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}" -o "$TMP/d.nd"
		assert_output --regexp "^trace-import: $TMP/d.txt:6: job '102' ends at $end, [0-9.]+ years after the earliest Submit \(2026-11-02T08:00:00, job '100' at line 2\): an export spans at most 3650 days \(a wrong date\? docs/slurm-import.md\)\$"
		[ ! -e "$TMP/d.nd" ]
	done
	# a submit in 9999 is refused too (its End is later still)
	{ cat "$S/sacct-overlap.txt"; echo "103|103|9999-01-01T00:00:00|9999-01-01T00:00:00|9999-01-01T00:10:00|00:10:00|COMPLETED|1|gres/gpu=1|gres/gpu=1|nlp|bob|normal|gpu"; } > "$TMP/d.txt"
	run -1 trace-import slurm --jobs "$TMP/d.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}" -o "$TMP/d.nd"
	assert_output --partial ":6: job '103' ends at 9999-01-01T00:10:00, 7972.0 years after the earliest Submit"
}

@test "slurm: --hash-key: the key is the first line of FILE, the rest is not read (the documented formula)" {
	printf 'first line\nsecond line\n' > "$TMP/key2"
	imp --hash-key "$TMP/key2"
	[ "$(job 100 | jq -r .tenant)" = "t-$(printf 'first line\nvision' | sha256sum | cut -c1-16)" ]
	printf 'first line\r\n' > "$TMP/key1"
	imp --hash-key "$TMP/key1"
	[ "$(job 100 | jq -r .tenant)" = "t-$(printf 'first line\nvision' | sha256sum | cut -c1-16)" ]
}

@test "slurm: a JobID or Account over 1024 bytes: the message shows a cut value and the whole reason" {
	long=$(printf 'a%.0s' $(seq 2000))
	{ head -n 1 "$S/sacct-overlap.txt"; echo "${long}|1|2026-11-02T08:00:00|2026-11-02T08:00:05|2026-11-02T09:00:05|01:00:00|COMPLETED|1|gres/gpu=1|gres/gpu=1|nlp|bob|normal|gpu"; } > "$TMP/l.txt"
	run -1 trace-import slurm --jobs "$TMP/l.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}"
	assert_output "trace-import: $TMP/l.txt:2: JobID '$(printf 'a%.0s' $(seq 80))...' is longer than 1024 bytes"
	{ head -n 1 "$S/sacct-overlap.txt"; echo "100|100|2026-11-02T08:00:00|2026-11-02T08:00:05|2026-11-02T09:00:05|01:00:00|COMPLETED|1|gres/gpu=1|gres/gpu=1|${long}|bob|normal|gpu"; } > "$TMP/l.txt"
	run -1 trace-import slurm --jobs "$TMP/l.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}"
	assert_output "trace-import: $TMP/l.txt:2: job '100': Account '$(printf 'a%.0s' $(seq 80))...' is longer than 1024 bytes"
}

@test "slurm: messages point the right way: header only, gzip, daylight saving, GPU accounting off" {
	head -n 1 "$S/sacct-overlap.txt" > "$TMP/h.txt"
	run -1 trace-import slurm --jobs "$TMP/h.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}"
	assert_output "trace-import: $TMP/h.txt: no job rows: the file holds only sacct's header row (no job in the range? widen --starttime/--endtime)"
	gzip -c "$S/sacct-overlap.txt" > "$TMP/s.txt.gz"
	run -1 trace-import slurm --jobs "$TMP/s.txt.gz" --nodes "$S/nodes.txt" "${CLASSES[@]}"
	assert_output "trace-import: $TMP/s.txt.gz:1: a gzip-compressed file, not text: decompress it first (gzip -dc FILE > FILE.txt, or gzip -dc FILE | trace-import slurm ... -; zstd files are read as they are)"
	# a local-time export across the end of daylight saving: 01:50 CDT to 01:20 CST
	{ head -n 1 "$S/sacct-overlap.txt"; echo "100|100|2026-11-01T01:40:00|2026-11-01T01:50:00|2026-11-01T01:20:00|00:30:00|COMPLETED|1|gres/gpu=1|gres/gpu=1|nlp|bob|normal|gpu"; } > "$TMP/dst.txt"
	run -1 trace-import slurm --jobs "$TMP/dst.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}"
	assert_output "trace-import: $TMP/dst.txt:2: job '100': times out of order (Submit <= Start <= End) (times in local time across a daylight-saving change? export with TZ=UTC: docs/slurm-import.md)"
	# ... or 01:50 CDT to 02:10 CST, 80 minutes later
	sed -i 's/2026-11-01T01:20:00|00:30:00/2026-11-01T02:10:00|01:20:00/' "$TMP/dst.txt"
	run -1 trace-import slurm --jobs "$TMP/dst.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}"
	assert_output "trace-import: $TMP/dst.txt:2: job '100': Elapsed 4800s is longer than End - Start (1200s) (times in local time across a daylight-saving change? export with TZ=UTC: docs/slurm-import.md)"
	# 500 jobs, none with gres/gpu: GPU accounting is off
	{ head -n 1 "$S/sacct-overlap.txt"; for i in $(seq 500); do echo "$i|$i|2026-11-02T08:00:00|2026-11-02T08:00:05|2026-11-02T09:00:05|01:00:00|COMPLETED|1|billing=1,cpu=1,mem=4G,node=1|billing=1,cpu=1,mem=4G,node=1|nlp|bob|normal|gpu"; done; } > "$TMP/nogpu.txt"
	run -1 trace-import slurm --jobs "$TMP/nogpu.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}"
	assert_output "trace-import: $TMP/nogpu.txt: no job kept: 500 of the jobs have no gres/gpu in AllocTRES or ReqTRES (is GPU accounting off? Slurm records GPUs only with AccountingStorageTRES=gres/gpu in slurm.conf)"
}

@test "slurm --resources: AllocTRES cpu/mem split over NNodes workers, CPUTot/RealMemory on nodes; uneven jobs get none" {
	run -0 trace-import slurm --jobs "$S/sacct-resources.txt" --nodes "$S/nodes.txt" --class '*=HP' --tenant-from none --resources -o "$TMP/r.nd"
	run -0 jq -c 'select(.type == "node") | [.node_id, .cpu_milli, .memory_mib]' "$TMP/r.nd"
	assert_output $'["gpu-a01",64000,515000]\n["gpu-a02",64000,515000]\n["gpu-b01",32000,256000]'
	run -0 jq -c 'select(.type == "job") | [.job_id, .gpus, .workers, .cpu_milli, .memory_mib]' "$TMP/r.nd"
	assert_line --index 0 '["300",2,1,8000,65536]'
	assert_line --index 1 '["301",4,2,8000,51200]'
	assert_line --index 2 '["302",3,null,null,null]'
	assert_line --index 3 '["303",1,1,4000,1536]'
	assert_line --index 4 '["304",1,1,2000,4000]'
	assert_line --index 5 '["305",1,null,null,null]'
	run -0 head -1 "$TMP/r.nd"
	run -0 jq -c '[.params.resources, .source.resources.jobs_with_resources, .source.resources.jobs_uneven]' <<<"$output"
	assert_output '[true,4,1]'
	# off: the same jobs without any resource key
	run -0 trace-import slurm --jobs "$S/sacct-resources.txt" --nodes "$S/nodes.txt" --class '*=HP' --tenant-from none -o "$TMP/p.nd"
	run -1 grep -c 'cpu_milli\|"resources"' "$TMP/p.nd"
	assert_output 0
	run -0 python3 "$ROOT/tests/validate-schema.py" "$TMP/r.nd"
}

@test "slurm: a JobID with ':' or '@', or a Cluster with ':' or empty, is refused at its line (they would make CLUSTER:JOBID and JOBID@SUBMIT ids ambiguous)" {
	row='2026-11-02T08:00:00|2026-11-02T08:00:05|2026-11-02T09:00:05|01:00:00|COMPLETED|1|gres/gpu=1|gres/gpu=1|nlp|bob|normal|gpu'
	# cluster alpha's job 'b:1' and cluster 'alpha:b''s job 1 were both written alpha:b:1
	for case in 'b:1 :' '100@2026-11-02T08:00:00 @' ': :' '@ @'; do
		id=${case% *}
		{ cat "$S/sacct-reused-id.txt"; echo "$id|100|$row"; } > "$TMP/j.txt"
		run -1 trace-import slurm --jobs "$TMP/j.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}" -o "$TMP/j.nd"
		assert_output "trace-import: $TMP/j.txt:7: JobID '$id' holds '${case##* }' (':' and '@' separate the ids written for several clusters, CLUSTER:JOBID, and for a reused JobID, JOBID@SUBMIT; Slurm's own JobIDs have neither)"
		[ ! -e "$TMP/j.nd" ]
	done
	# ... in a -M all export too, and a step row is checked the same way
	{ cat "$S/sacct-multicluster.txt"; echo "alpha|b:1.batch|1|$row"; } > "$TMP/j.txt"
	run -1 trace-import slurm --jobs "$TMP/j.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}" -o "$TMP/j.nd"
	assert_output --partial "$TMP/j.txt:7: JobID 'b:1.batch' holds ':'"
	# a Cluster with ':'
	{ cat "$S/sacct-multicluster.txt"; echo "alpha:b|1|1|$row"; } > "$TMP/c.txt"
	run -1 trace-import slurm --jobs "$TMP/c.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}" -o "$TMP/c.nd"
	assert_output "trace-import: $TMP/c.txt:7: job '1': Cluster 'alpha:b' holds ':' (it separates CLUSTER:JOBID in the ids written for several clusters; Slurm's cluster names have none)"
	[ ! -e "$TMP/c.nd" ]
	# an empty Cluster cell, when the export has a Cluster column (it was written ':102')
	{ cat "$S/sacct-multicluster.txt"; echo "|102|102|$row"; } > "$TMP/e.txt"
	run -1 trace-import slurm --jobs "$TMP/e.txt" --nodes "$S/nodes.txt" "${CLASSES[@]}" -o "$TMP/e.nd"
	assert_output "trace-import: $TMP/e.txt:7: job '102': Cluster is empty (the export has a Cluster column, so each job row names its cluster; sacct -M all fills it)"
	[ ! -e "$TMP/e.nd" ]
	# the same rows with plain ids and a named cluster import
	{ cat "$S/sacct-multicluster.txt"; echo "alpha|102|102|$row"; } > "$TMP/ok.txt"
	imp_file "$TMP/ok.txt"
	[ "$(job_ids)" = "alpha:100 alpha:101 alpha:102 beta:100 " ]
}
