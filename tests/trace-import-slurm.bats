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

@test "slurm: the state fixture gives 11 jobs on 3 GPU nodes, every rule counted, provenance complete" {
	imp
	[ "$(grep -c '"type":"node"' "$TMP/t.nd")" -eq 3 ]
	[ "$(job_ids)" = "100 101 102 104 105 106 109_1 109_2 112+0 112+1 118 " ]
	run -0 jq -c .skipped_rows <(head -n 1 "$TMP/t.nd")
	assert_output '{"job_step":6,"requeued_earlier_record":2,"pending_at_end":2,"running_at_end":1,"cancelled_before_start":2,"never_started":1,"zero_run_time":1,"no_gpus":1,"node_without_gpus":1}'
	run -0 jq -c '.source | [.service_class_mapping.rules, .tenant_mapping, .kept_by_final_state, .kept_job_kinds]' <(head -n 1 "$TMP/t.nd")
	assert_output '[["qos:scavenger=Spot","qos:normal=HP","qos:high=HP"],{"from":"account","hashed":false},{"COMPLETED":7,"FAILED":1,"TIMEOUT":1,"CANCELLED":1,"PREEMPTED":1},{"array_tasks":2,"heterogeneous_components":2,"requeued_jobs":2}]'
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

@test "slurm rule: heterogeneous job components (123+0) are jobs of their own" {
	imp
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
