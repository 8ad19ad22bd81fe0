#!/usr/bin/env bats
# Issue 37, replaying a cluster as its scheduler ran it: time limits (trace field, Slurm's
# Timelimit, TIMEOUT in the replay and in metrics) and the backfill policies on the
# hand-computed cases of docs/simulator.md §3.10.
load helper
bats_require_minimum_version 1.5.0

POL="$ROOT/configs/policies"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

# starts POLICY TRACE: "id=start" for every job, in job_id order
starts() {
	sim-run --policy "$1" --input "$2" > "$TMP/r" || fail "sim-run failed"
	jq -r 'select(.type == "job_result") | "\(.job_id)=\(.start_time_seconds)"' "$TMP/r" | tr '\n' ' '
}

# c98_trace: $TMP/c98.nd, the issue's case with c's run and limit 98 (it would end at 100, the
# instant b's reservation starts)
c98_trace() {
	sed 's/"job_id":"c","submit":2,"duration":50,\(.*\)"time_limit":50/"job_id":"c","submit":2,"duration":98,\1"time_limit":98/' \
		"$DATA/sim/backfill-issue.trace.ndjson" | grep -v '"type":"end"' | stream-seal > "$TMP/c98.nd"
}

# policy NAME SCHEDULER BACKFILL [EXTRA_JSON]: a policy file $TMP/NAME.json
policy() {
	printf '{"schema_version":"schednav.simulation-policy/v1","action_id":"%s","scheduler":"%s","spot_guarantee_seconds":60,"checkpoint_interval_seconds":3600,"preemption_overhead_seconds":0,"placement_strategy":"deterministic_best_fit","backfill":"%s"%s}\n' \
		"$1" "$2" "$3" "${4:-}" > "$TMP/$1.json"
}

@test "time_limit: trace-import slurm reads Timelimit by the declared rule and counts each kind" {
	run -0 trace-import slurm --jobs "$DATA/slurm/sacct-limits.txt" --nodes "$DATA/slurm/nodes.txt" --tenant-from none \
		--class qos:scavenger=Spot --class qos:normal=HP -o "$TMP/t.nd"
	run -0 jq -r 'select(.type == "job") | "\(.job_id):\(.time_limit // "none")"' "$TMP/t.nd"
	assert_output "$(printf '200:3600\n201:1800\n202:none\n203:none\n204:172800\n205:300')"
	run -0 jq -c '.source.time_limits' <(head -n 1 "$TMP/t.nd")
	assert_output '{"given":4,"unlimited":1,"partition_limit":1,"empty":0}'
}

@test "time_limit: a sacct file without Timelimit gives the same bytes as before (no key, no provenance)" {
	run -0 trace-import slurm --jobs "$DATA/slurm/sacct-states.txt" --nodes "$DATA/slurm/nodes.txt" \
		--class qos:scavenger=Spot --class qos:normal=HP --class qos:high=HP -o "$TMP/t.nd"
	run -1 grep -c 'time_limit' "$TMP/t.nd"
	assert_output 0
}

@test "time_limit: a bad Timelimit is refused at its line" {
	sed 's/|01:00:00|COMPLETED/|soon|COMPLETED/' "$DATA/slurm/sacct-limits.txt" > "$TMP/bad.txt"
	run -1 trace-import slurm --jobs "$TMP/bad.txt" --nodes "$DATA/slurm/nodes.txt" --tenant-from none \
		--class qos:scavenger=Spot --class qos:normal=HP -o "$TMP/t.nd"
	assert_output "trace-import: $TMP/bad.txt:2: job '200': Timelimit 'soon' is not [D-]HH:MM:SS, minutes, UNLIMITED or Partition_Limit"
	[ ! -e "$TMP/t.nd" ] || fail "partial output left"
}

@test "time_limit: a replay ends a longer run at its limit (TIMEOUT); job_result and metrics say so" {
	trace-import slurm --jobs "$DATA/slurm/sacct-limits.txt" --nodes "$DATA/slurm/nodes.txt" --tenant-from none \
		--class qos:scavenger=Spot --class qos:normal=HP -o "$TMP/t.nd"
	run -0 sim-run --policy "$POL/native-fifo.json" --input "$TMP/t.nd" -o "$TMP/r"
	run -0 jq -c 'select(.type == "job_result" and .job_id == "201") | [.start_time_seconds, .completion_time_seconds, .duration_seconds, .timed_out]' "$TMP/r"
	assert_output '[60,1860,1800,true]'
	run -0 jq -c 'select(.type == "job_result" and .job_id == "200") | has("timed_out")' "$TMP/r"
	assert_output false
	run -0 metrics --input "$TMP/r"
	run -0 jq -c 'select(.type == "metrics") | [.hp_timed_out_job_count, .spot_timed_out_job_count]' <<<"$output"
	assert_output '[1,0]'
	# without a timeout the metrics carry no such keys (existing outputs keep their bytes)
	run -0 sim-run --policy "$POL/native-fifo.json" --input "$DATA/sim/preemption-small.trace.ndjson" -o "$TMP/r2"
	run -0 metrics --input "$TMP/r2"
	refute_output --partial 'timed_out'
}

@test "time_limit: the trace reader keeps it through trace-window and refuses a non-integer or zero" {
	run -0 trace-window --max-submit 10 "$DATA/sim/backfill-issue.trace.ndjson" -o "$TMP/w.nd"
	run -0 jq -r 'select(.type == "job") | .time_limit' "$TMP/w.nd"
	assert_output "$(printf '100\n10\n50\n200')"
	for bad in 0 1.5 '"60"' -3; do
		sed "s/\"job_id\":\"c\",\(.*\)\"time_limit\":50/\"job_id\":\"c\",\1\"time_limit\":$bad/" "$DATA/sim/backfill-issue.trace.ndjson" | stream-seal > "$TMP/bad.nd"
		run -1 sim-run --policy "$POL/native-fifo.json" --input "$TMP/bad.nd"
		assert_output "sim-run: $TMP/bad.nd:5: job 'c': 'time_limit' must be an integer number of seconds > 0"
	done
}

@test "backfill: the issue's case on 4 GPUs: the limit-50 job backfills, the limit-200 one does not (easy and conservative)" {
	T="$DATA/sim/backfill-issue.trace.ndjson"
	# the original's greedy pass: d starts at 52 and the 4-GPU job waits until 252
	[ "$(starts "$POL/native-fifo.json" "$T")" = "a=0 b=252 c=2 d=52 " ] || fail "fifo: $(starts "$POL/native-fifo.json" "$T")"
	policy cons fifo conservative
	for p in "$POL/easy-backfill.json" "$TMP/cons.json"; do
		run -0 starts "$p" "$T"
		assert_output "a=0 b=100 c=2 d=110 "
	done
	# conservative-backfill.json has Slurm's bf_interval of 30 s: between cycles only the
	# in-order pass runs, so c waits for the cycle at 30 (and still ends before 120, a's end
	# by bf_resolution 60)
	run -0 starts "$POL/conservative-backfill.json" "$T"
	assert_output "a=0 b=100 c=30 d=110 "
}

@test "backfill: bf_interval: a cycle at each multiple (the engine visits it while a job is blocked), the in-order pass between" {
	T="$DATA/sim/backfill-issue.trace.ndjson"
	for iv in 2:2 10:10 100:110; do
		policy "iv${iv%%:*}" fifo conservative ",\"backfill_interval_seconds\":${iv%%:*}"
		run -0 starts "$TMP/iv${iv%%:*}.json" "$T"
		assert_output "a=0 b=100 c=${iv#*:} d=110 "
	done
}

@test "backfill: easy protects only the first blocked job, conservative every one" {
	T="$DATA/sim/backfill-easy-vs-conservative.trace.ndjson"
	run -0 starts "$POL/easy-backfill.json" "$T"
	assert_output "a=0 b=100 c=303 d=3 "
	run -0 starts "$POL/conservative-backfill.json" "$T"
	assert_output "a=0 b=100 c=200 d=210 "
}

@test "backfill: backfill_reservation whole_nodes keeps a reserved job's whole node, as Slurm's plan does (easy and conservative)" {
	# 4 GPUs of one node: a (3 GPUs, limit 100) runs; b (2 GPUs) is blocked and reserved at
	# [100, 200); c (1 GPU, limit 300) fits now. A reservation of b's 2 GPUs leaves 2 beside
	# it, so c backfills at 2; a reservation of b's whole node leaves none, so c waits for
	# the pass at 100 (a ends, b starts, 2 GPUs free and no reservation left)
	T="$DATA/sim/backfill-whole-nodes.trace.ndjson"
	sed 's/"gpu_model":"A","time/"gpu_model":"*","time/' "$T" | grep -v '"type":"end"' | stream-seal > "$TMP/any.nd"
	for b in easy conservative; do
		policy "$b-jobs" fifo "$b"
		policy "$b-whole" fifo "$b" ',"backfill_reservation":"whole_nodes"'
		for t in "$T" "$TMP/any.nd"; do   # the per-model plan (model A) and the all-model one ("*")
			run -0 starts "$TMP/$b-jobs.json" "$t"
			assert_output "a=0 b=100 c=2 "
			run -0 starts "$TMP/$b-whole.json" "$t"
			assert_output "a=0 b=100 c=100 "
		done
	done
	sim-run --policy "$TMP/easy-whole.json" --input "$T" -o "$TMP/rw" || fail "sim-run failed"
	run -0 jq -c '.policy.backfill_reservation' <(head -n 1 "$TMP/rw")
	assert_output '"whole_nodes"'
	sim-run --policy "$TMP/easy-jobs.json" --input "$T" -o "$TMP/rj" || fail "sim-run failed"
	run -0 jq -c '.policy | has("backfill_reservation")' <(head -n 1 "$TMP/rj")
	assert_output 'false'
	policy bad fifo easy ',"backfill_reservation":"nodes"'
	run -1 sim-run --policy "$TMP/bad.json" --input "$T"
	assert_output --partial "unknown backfill_reservation 'nodes' (want 'jobs' or 'whole_nodes')"
}

@test "backfill: backfill_plan_times slurm: a job must end strictly before a reservation starts; reservations on the bf_resolution grid rounded down" {
	# the issue's case with c's limit 98: c would end at 100, the instant b's reservation
	# starts. Ours lets it (half-open plan); Slurm's node_space test counts a reservation that
	# starts at a job's end, so c waits for b (starts at 110, with d)
	c98_trace
	for b in easy conservative; do
		policy "$b-ours" fifo "$b"
		policy "$b-slurm" fifo "$b" ',"backfill_plan_times":"slurm"'
		run -0 starts "$TMP/$b-ours.json" "$TMP/c98.nd"
		assert_output "a=0 b=100 c=2 d=110 "
		run -0 starts "$TMP/$b-slurm.json" "$TMP/c98.nd"
		assert_output "a=0 b=100 c=110 d=110 "
	done
	# bf_resolution 30: a's planned end stays 100 (exact), b's reservation [100, 110) becomes
	# [90, 90) on the grid, rounded down: empty, as in Slurm, so c backfills at 2
	policy grid fifo conservative ',"backfill_plan_times":"slurm","backfill_resolution_seconds":30'
	run -0 starts "$TMP/grid.json" "$TMP/c98.nd"
	assert_output "a=0 b=100 c=2 d=110 "
	policy bad fifo easy ',"backfill_plan_times":"exact"'
	run -1 sim-run --policy "$TMP/bad.json" --input "$TMP/c98.nd"
	assert_output --partial "unknown backfill_plan_times 'exact' (want 'rounded_up' or 'slurm')"
}

@test "backfill: backfill_resolution_phase_seconds moves the bf_resolution grid (Slurm's is on the epoch, the replay's on its origin)" {
	c98_trace
	# conservative, plan times slurm, bf_resolution 30. Phase 0: b's reservation [100, 110)
	# rounds down to [90, 90), empty, and c backfills at 2. Phase 10: the grid is {20, 50, 80,
	# 110, ...}; the reservation rounds down to [80, 110), and c (2 to 100) may not start before it
	policy conservative-p0 fifo conservative ',"backfill_plan_times":"slurm","backfill_resolution_seconds":30'
	policy conservative-p10 fifo conservative ',"backfill_plan_times":"slurm","backfill_resolution_seconds":30,"backfill_resolution_phase_seconds":10'
	run -0 starts "$TMP/conservative-p0.json" "$TMP/c98.nd"
	assert_output "a=0 b=100 c=2 d=110 "
	run -0 starts "$TMP/conservative-p10.json" "$TMP/c98.nd"
	assert_output "a=0 b=100 c=110 d=110 "
	# the key is in the canonical policy only when set
	sim-run --policy "$TMP/conservative-p10.json" --input "$TMP/c98.nd" -o "$TMP/r10" || fail "sim-run failed"
	run -0 jq -c '.policy.backfill_resolution_phase_seconds' <(head -n 1 "$TMP/r10")
	assert_output '10'
	sim-run --policy "$TMP/conservative-p0.json" --input "$TMP/c98.nd" -o "$TMP/r0" || fail "sim-run failed"
	run -0 jq -c '.policy | has("backfill_resolution_phase_seconds")' <(head -n 1 "$TMP/r0")
	assert_output 'false'
	# a phase of a whole step (or without a resolution) is refused
	policy bad fifo conservative ',"backfill_resolution_seconds":30,"backfill_resolution_phase_seconds":30'
	run -1 sim-run --policy "$TMP/bad.json" --input "$TMP/c98.nd"
	assert_output --partial "'backfill_resolution_phase_seconds' (30) shifts the bf_resolution grid: it needs 'backfill_resolution_seconds' greater than it"
	policy bad fifo conservative ',"backfill_resolution_phase_seconds":3'
	run -1 sim-run --policy "$TMP/bad.json" --input "$TMP/c98.nd"
	assert_output --partial "'backfill_resolution_phase_seconds' (3) shifts"
}

@test "backfill: plans with the limit, never the recorded run; a job without a limit uses the declared default" {
	# a's limit says 100, its run 20: at 20 b (4 GPUs) still waits for c (planned end 52) and
	# d (limit 200) may not pass b's reservation at 52, although c really ends there too.
	sed 's/"job_id":"a","submit":0,"duration":100/"job_id":"a","submit":0,"duration":20/' "$DATA/sim/backfill-issue.trace.ndjson" | stream-seal > "$TMP/t.nd"
	policy cons fifo conservative
	run -0 starts "$TMP/cons.json" "$TMP/t.nd"
	assert_output "a=0 b=52 c=2 d=62 "
	# without limits every job is planned with the default (90 s): a ends at 90 in the plan, b is
	# reserved from 90, and c (2 to 92 in the plan) would delay it: c and d wait behind b
	sed 's/,"time_limit":[0-9]*//' "$DATA/sim/backfill-issue.trace.ndjson" | stream-seal > "$TMP/nl.nd"
	policy dflt fifo conservative ',"backfill_default_time_limit_seconds":90'
	run -0 starts "$TMP/dflt.json" "$TMP/nl.nd"
	assert_output "a=0 b=100 c=110 d=110 "
	# default 0: a job without a limit never ends in the plan, so nothing is protected behind it
	policy never fifo conservative
	run -0 starts "$TMP/never.json" "$TMP/nl.nd"
	assert_output "a=0 b=252 c=2 d=52 "
}

@test "backfill: bf_window and bf_max_job_test bound the plan, bf_resolution rounds planned ends up" {
	T="$DATA/sim/backfill-easy-vs-conservative.trace.ndjson"
	# c's reservation at 200 lies beyond a 150-s window: no reservation, d passes as under easy
	policy win fifo conservative ',"backfill_window_seconds":150'
	run -0 starts "$TMP/win.json" "$T"
	assert_output "a=0 b=100 c=303 d=3 "
	# one job tested per pass: b is tested (reserved), c and d wait for their turn
	policy one fifo conservative ',"backfill_max_job_test":1'
	run -0 starts "$TMP/one.json" "$T"
	assert_output "a=0 b=100 c=200 d=210 "
	# a 64-s resolution plans a's end at 128: c (limit 50, from 2 to 52) still ends before it
	policy res fifo easy ',"backfill_resolution_seconds":64'
	run -0 starts "$TMP/res.json" "$DATA/sim/backfill-issue.trace.ndjson"
	assert_output "a=0 b=100 c=2 d=110 "
}

@test "backfill with HP-first preemption: Spot backfills within the HP reservation and is requeued by an eviction" {
	T="$DATA/sim/backfill-preempt.trace.ndjson"
	for b in easy conservative; do
		policy "pp-$b" priority_preemptive "$b"
		run -0 sim-run --policy "$TMP/pp-$b.json" --input "$T" -o "$TMP/r"
		run -0 jq -r 'select(.type == "job_result") | "\(.job_id)=\(.start_time_seconds)-\(.completion_time_seconds)/\(.preemption_count)"' "$TMP/r"
		assert_output "$(printf 'h=60-160/0\ns1=0-1160/1\ns2=20-50/0\ns3=160-2160/0')"
		run -0 jq -c 'select(.type == "preemption") | [.time_seconds, .preempted_job_id, .triggering_job_id]' "$TMP/r"
		assert_output '[60,"s1","h"]'
	done
	# the original's pass starts s3 at 50 in front of h and then cycles (docs/simulator.md §3.7)
	policy pp-none priority_preemptive none
	run -1 sim-run --policy "$TMP/pp-none.json" --input "$T"
	assert_output --partial "futile eviction cycle"
}

@test "backfill: the knobs are validated; the default policies keep their canonical form and fingerprint" {
	policy bad fifo sometimes
	run -1 sim-run --policy "$TMP/bad.json" --input "$DATA/sim/backfill-issue.trace.ndjson"
	assert_output "sim-run: $TMP/bad.json: unknown backfill 'sometimes' (want 'none', 'easy' or 'conservative')"
	policy neg fifo easy ',"backfill_window_seconds":-1'
	run -1 sim-run --policy "$TMP/neg.json" --input "$DATA/sim/backfill-issue.trace.ndjson"
	assert_output "sim-run: $TMP/neg.json: 'backfill_window_seconds' must be >= 0"
	# backfill "none" is the default: left out of the canonical policy
	policy none fifo none
	run -0 sim-run --policy "$TMP/none.json" --input "$DATA/sim/backfill-issue.trace.ndjson" -o "$TMP/r"
	run -0 jq -c '.policy | has("backfill")' <(head -n 1 "$TMP/r")
	assert_output false
	run -0 sim-run --policy "$POL/easy-backfill.json" --input "$DATA/sim/backfill-issue.trace.ndjson" -o "$TMP/r"
	run -0 jq -c '.policy | [.backfill, .backfill_default_time_limit_seconds]' <(head -n 1 "$TMP/r")
	assert_output '["easy",86400]'
}

@test "backfill: two runs are byte-identical" {
	for p in easy-backfill conservative-backfill; do
		sim-run --policy "$POL/$p.json" --input "$DATA/sim/backfill-easy-vs-conservative.trace.ndjson" > "$TMP/a"
		sim-run --policy "$POL/$p.json" --input "$DATA/sim/backfill-easy-vs-conservative.trace.ndjson" > "$TMP/b"
		cmp "$TMP/a" "$TMP/b" || fail "$p differs between runs"
	done
}

@test "hetjob: the components 112+0 and 112+1 become one job that starts whole (the default, --hetjob join); split keeps two" {
	run -0 trace-import slurm --jobs "$DATA/slurm/sacct-states.txt" --nodes "$DATA/slurm/nodes.txt" \
		--class qos:scavenger=Spot --class qos:normal=HP --class qos:high=HP -o "$TMP/j.nd"
	run -0 jq -c 'select(.type == "job" and (.job_id | startswith("112"))) | del(.type)' "$TMP/j.nd"
	assert_output '{"job_id":"112","submit":5400,"duration":900,"gpus":3,"class":"HP","gpu_model":"*","tenant":"vision"}'
	run -0 jq -c '[.source.kept_job_kinds.heterogeneous_jobs, (.params | has("hetjob"))]' <(head -n 1 "$TMP/j.nd")
	assert_output '[1,false]'
	# naming the default gives the same bytes
	run -0 trace-import slurm --jobs "$DATA/slurm/sacct-states.txt" --nodes "$DATA/slurm/nodes.txt" \
		--class qos:scavenger=Spot --class qos:normal=HP --class qos:high=HP --hetjob join -o "$TMP/j2.nd"
	run -0 cmp "$TMP/j.nd" "$TMP/j2.nd"
	run -0 trace-import slurm --jobs "$DATA/slurm/sacct-states.txt" --nodes "$DATA/slurm/nodes.txt" \
		--class qos:scavenger=Spot --class qos:normal=HP --class qos:high=HP --hetjob split -o "$TMP/s.nd"
	run -0 jq -r 'select(.type == "job" and (.job_id | startswith("112"))) | .job_id' "$TMP/s.nd"
	assert_output "$(printf '112+0\n112+1')"
	run -0 jq -c '[.params.hetjob, (.source.kept_job_kinds | has("heterogeneous_jobs"))]' <(head -n 1 "$TMP/s.nd")
	assert_output '["split",false]'
	run -2 trace-import slurm --jobs "$DATA/slurm/sacct-states.txt" --nodes "$DATA/slurm/nodes.txt" --class '*=HP' --hetjob both
	assert_line --index 0 "trace-import: --hetjob must be 'join' or 'split', not 'both'"
	# a joined job holds all its GPUs for its whole run: one start time
	run -0 sim-run --policy "$POL/easy-backfill.json" --input "$TMP/j.nd" -o "$TMP/r"
	run -0 jq -c 'select(.type == "job_result" and .job_id == "112") | [.gpu_count, .duration_seconds]' "$TMP/r"
	assert_output '[3,900]'
}

@test "multifactor: QOS and fair-share order the backfill queue (docs/simulator.md §3.12)" {
	T="$DATA/sim/multifactor.trace.ndjson"
	policy base fifo conservative
	run -0 starts "$TMP/base.json" "$T"
	assert_output "a=0 b=100 c=110 d=120 "
	# QOS: the HP job d (1000) passes the Spot jobs b and c (0), which keep their order
	policy qos fifo conservative ',"priority_multifactor":{"PriorityWeightQOS":1000,"QOSPriority":{"HP":100,"Spot":0}}'
	run -0 starts "$TMP/qos.json" "$T"
	assert_output "a=0 b=110 c=120 d=100 "
	# fair-share: at 100 only tenant x has used GPUs (U = 1, S = 1/2: 2^-2 x 1000 = 250);
	# tenant y's c (2^0 x 1000) goes first; b and d are both x's and keep their order
	policy fs fifo easy ',"priority_multifactor":{"PriorityWeightFairshare":1000,"PriorityDecayHalfLife":3600}'
	run -0 starts "$TMP/fs.json" "$T"
	assert_output "a=0 b=110 c=100 d=120 "
	# age with a 10-s PriorityMaxAge: every waiting job is at 1, QOS decides again
	policy age fifo conservative ',"priority_multifactor":{"PriorityWeightAge":1000,"PriorityMaxAge":10,"PriorityWeightQOS":1,"QOSPriority":{"HP":1,"Spot":0}}'
	run -0 starts "$TMP/age.json" "$T"
	assert_output "a=0 b=110 c=120 d=100 "
	# the canonical policy carries the object as given
	run -0 sim-run --policy "$TMP/qos.json" --input "$T" -o "$TMP/r"
	run -0 jq -c '.policy.priority_multifactor' <(head -n 1 "$TMP/r")
	assert_output '{"PriorityWeightQOS":1000,"QOSPriority":{"HP":100,"Spot":0}}'
}

@test "multifactor: refused without backfill, with an unknown key, a negative weight or an unknown class" {
	T="$DATA/sim/multifactor.trace.ndjson"
	policy p1 fifo none ',"priority_multifactor":{"PriorityWeightAge":1}'
	run -1 sim-run --policy "$TMP/p1.json" --input "$T"
	assert_output "sim-run: $TMP/p1.json: 'priority_multifactor' orders the backfill passes: it needs 'backfill' easy or conservative"
	policy p2 fifo easy ',"priority_multifactor":{"PriorityWeightNice":1}'
	run -1 sim-run --policy "$TMP/p2.json" --input "$T"
	assert_output "sim-run: $TMP/p2.json: 'priority_multifactor' has an unknown key 'PriorityWeightNice'"
	policy p3 fifo easy ',"priority_multifactor":{"PriorityWeightAge":-1}'
	run -1 sim-run --policy "$TMP/p3.json" --input "$T"
	assert_output "sim-run: $TMP/p3.json: 'priority_multifactor.PriorityWeightAge' must be a number in [0, 4294967295]"
	policy p4 fifo easy ',"priority_multifactor":{"QOSPriority":{"normal":1}}'
	run -1 sim-run --policy "$TMP/p4.json" --input "$T"
	assert_output "sim-run: $TMP/p4.json: 'priority_multifactor.QOSPriority' names a class 'normal' (want 'HP' and 'Spot')"
}
