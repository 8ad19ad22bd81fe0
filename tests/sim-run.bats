#!/usr/bin/env bats
load helper
load run_cases
bats_require_minimum_version 1.5.0

POL="$ROOT/configs/policies"
SMALL="$ROOT/tests/data/sim/preemption-small.trace.ndjson"
WARM="$ROOT/tests/data/sim/warmup-window.trace.ndjson"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

body() { grep -v '"type":"header"\|"type":"end"' "$1" > "$1.body"; echo "$1.body"; }

@test "sim-run: --help matches the man page; a bad option exits 2" {
	assert_tool_invariants sim-run
}

@test "sim-run: the error cases (tests/cases/sim-run/*.case)" {
	run_cases sim-run
}

@test "sim-run: the §3.8 golden trace under native-preemptive-3600 (guarantee protects the Spot run)" {
	run sim-run --policy "$POL/native-preemptive-3600.json" --input "$SMALL"
	assert_success
	assert_line --partial '{"type":"job_result","job_id":"hp","service_class":"HP","submit_time_seconds":2.0,"start_time_seconds":10.0,"completion_time_seconds":12.0'
	assert_line --partial '"type":"cluster","node_count":1,"capacity_gpus":2,"simulation_start":0.0,"simulation_end":12.0,"allocated_gpu_seconds":24.0'
	refute_line --partial '"type":"preemption"'
}

@test "sim-run: header carries the canonical policy, fingerprints, window and source" {
	sim-run --policy "$POL/native-preemptive-g3600-b09-d0000.json" --input "$SMALL" > "$TMP/r"
	head -n1 "$TMP/r" > "$TMP/h"
	run -0 jq -c '[.schema, .policy, .trace_id, .time_origin, .source, .evaluation_start, .evaluation_end, (.policy_fingerprint|length), .trace_fingerprint == .inputs[0].fingerprint]' "$TMP/h"
	assert_output '["schednav.result/1",{"action_id":"native-preemptive-g3600-b09-d0000","scheduler":"priority_preemptive","spot_guarantee_seconds":3600,"checkpoint_interval_seconds":3600,"preemption_overhead_seconds":80,"placement_strategy":"deterministic_best_fit","spot_eviction_budget_rate":0.09},"preemption-small","2026-01-01 00:00:00",{"dataset":"unit-fixture"},0,2,32,true]'
	grep -q '"evaluation_start":0.0,"evaluation_end":2.0}' "$TMP/h"
}

@test "sim-run: every record matches its schema; jobs sorted by id, warm-up included" {
	sim-run --policy "$POL/native-preemptive-0000.json" --input "$WARM" > "$TMP/r"
	assert_schema "$(body "$TMP/r")"
	run sh -c "jq -r 'select(.type==\"job_result\") | .job_id' '$TMP/r' | LC_ALL=C sort -c"
	assert_success
	n_trace=$(grep -c '"type":"job"' "$WARM")
	n_res=$(grep -c '"type":"job_result"' "$TMP/r")
	[ "$n_trace" -eq "$n_res" ]
	grep -q '"evaluation_population":false' "$TMP/r"
}

@test "sim-run: zstd in and out, chunked input, and two runs are byte-identical" {
	sim-run --policy "$POL/native-preemptive-g3600-b09-d0900.json" --input "$WARM" > "$TMP/a"
	zstd -q -c "$WARM" > "$TMP/w.zst"
	sim-run --policy "$POL/native-preemptive-g3600-b09-d0900.json" -o "$TMP/b.zst" < "$TMP/w.zst"
	zstd -q -d -c "$TMP/b.zst" > "$TMP/b"
	feed_chunked "$WARM" sim-run --policy "$POL/native-preemptive-g3600-b09-d0900.json" > "$TMP/c"
	sim-run --policy "$POL/native-preemptive-g3600-b09-d0900.json" --input "$WARM" > "$TMP/d"
	cmp "$TMP/a" "$TMP/d"
	cmp "$TMP/b" "$TMP/c"
	# stdin and a path differ only in the header's input path
	diff <(sans_header "$TMP/a") <(sans_header "$TMP/c")
}

@test "sim-run: integral float seconds are coerced (3600.0 == 3600)" {
	sed 's/"spot_guarantee_seconds": 3600/"spot_guarantee_seconds": 3600.0/' "$POL/native-preemptive-3600.json" > "$TMP/p.json"
	grep -q '3600.0' "$TMP/p.json"
	sim-run --policy "$POL/native-preemptive-3600.json" --input "$SMALL" > "$TMP/a"
	sim-run --policy "$TMP/p.json" --input "$SMALL" > "$TMP/b"
	cmp "$TMP/a" "$TMP/b"
}

@test "sim-run: predictive_admission_mode enforce is the default: same canonical policy, fingerprint and bytes" {
	jq '. + {predictive_admission_mode: "enforce"}' "$POL/native-preemptive-3600.json" > "$TMP/e.json"
	sim-run --policy "$POL/native-preemptive-3600.json" --input "$SMALL" > "$TMP/a"
	sim-run --policy "$TMP/e.json" --input "$SMALL" > "$TMP/b"
	cmp "$TMP/a" "$TMP/b"
	# bypass is part of the canonical policy (and so of the fingerprint); without a
	# controller it changes nothing else
	jq '. + {predictive_admission_mode: "bypass"}' "$POL/native-preemptive-3600.json" > "$TMP/y.json"
	sim-run --policy "$TMP/y.json" --input "$SMALL" > "$TMP/c"
	run -0 jq -c 'select(.type == "header") | .policy.predictive_admission_mode' "$TMP/c"
	assert_output '"bypass"'
	[ "$(head -1 "$TMP/a" | jq -r .policy_fingerprint)" != "$(head -1 "$TMP/c" | jq -r .policy_fingerprint)" ]
	diff <(grep -v '"type":"header"\|"type":"end"' "$TMP/a") <(grep -v '"type":"header"\|"type":"end"' "$TMP/c")
}

@test "sim-run: every catalogue policy file is valid" {
	for p in "$POL"/*.json; do
		run sim-run --policy "$p" --input "$SMALL"
		assert_success
	done
	[ "$(ls "$POL"/*.json | wc -l)" -eq 19 ]   # 11 native + 4 rolling-* (the rolling action spaces) + 2 backfill + 2 slurm-live-* (issue 37)
}

# ---- --controller: the predictive-spot-v1 controller inside the event loop ----

CTRL="$ROOT/configs/controllers/predictive-spot-v1.json"
MICRO="$ROOT/tests/data/sim/micro-quota.trace.ndjson"

# the worked example's decision columns at the times predictive.md walks through
rows() { jq -c 'select(.type == "control_decision" and ([.cutoff_time_seconds] | inside([0, 1800, 3600, 86100, 86400, 104400, 115500])))
	| [.cutoff_time_seconds, .eta, .spot_quota_gpus_by_guarantee_hour["1","2","4"], .feedback.adjustment_reason, .spot_backlog_gpus, .running_spot_gpus]' "$1"; }

@test "sim-run --controller: the worked example (C 12): quotas, eta paths and the decision before admission" {
	sim-run -p "$POL/native-preemptive-3600.json" -c "$CTRL" -i "$MICRO" > "$TMP/r"
	run -0 rows "$TMP/r"
	assert_line --index 0 '[0,1,6,6,6,"no-new-completed-runs",10,0]'
	assert_line --index 1 '[1800,1.1,7,7,7,"low-eviction-backlog-increase",4,4]'
	assert_line --index 2 '[3600,1.21,8,8,8,"starvation-backlog-increase",1,7]'
	assert_line --index 3 '[86100,1.21,7,7,7,"no-new-completed-runs",0,0]'
	assert_line --index 4 '[86400,1.21,8,8,7,"no-new-completed-runs",0,0]'
	assert_line --index 5 '[104400,1.21,8,8,3,"no-new-completed-runs",6,0]'
	assert_line --index 6 '[115500,0.25,0,0,0,"high-eviction-decrease",2,4]'
	# the gate: s01-s06 at t = 0, s07-s09 at 1800, s10 at 3600 (2 GPUs stay free at t = 0)
	run -0 jq -r 'select(.type == "job_result" and (.job_id | startswith("s"))) | "\(.job_id) \(.start_time_seconds)"' "$TMP/r"
	assert_output "$(printf 's01 0\ns02 0\ns03 0\ns04 0\ns05 0\ns06 0\ns07 1800\ns08 1800\ns09 1800\ns10 3600')"
	# at t = 86400 the fit: q = 5.309329, 5.337107, 5.364885, 5.392663, trend 1/36
	run -0 jq -c 'select(.type == "control_decision" and .cutoff_time_seconds == 86400) | [.trained_at_seconds, .history_point_count, .history_ready, [.points[].guarantee_quantile_gpus]]' "$TMP/r"
	assert_output '[86400,25,true,[5.309329,5.337107,5.364885,5.392663]]'
}

@test "sim-run --controller: one decision per update on the 300-s grid, the report last, the header names the controller" {
	sim-run -p "$POL/native-fifo.json" -c "$CTRL" -i "$MICRO" > "$TMP/r"
	assert_schema "$TMP/r"
	run -0 jq -c 'select(.type == "control_report") | [.update_count, .total_runtime_update_count, .first_cutoff_time_seconds, .last_cutoff_time_seconds, .eta, .spot_quota_gpus, .forecast_evaluation]' "$TMP/r"
	assert_output '[673,864,0,201600,{"initial":1,"final":1.21,"minimum_observed":1,"maximum_observed":1.21},{"mean":5.750371,"minimum":0,"maximum":8},{"evaluated_point_count":2572,"mae_gpus":1.895419,"wape":0.344670432,"mean_error_gpus":0.345412,"guarantee_quantile_coverage":0.813374806,"pinball_loss":0.988753}]'
	[ "$(grep -c '"type":"control_decision"' "$TMP/r")" -eq 864 ]
	[ "$(grep -c '"type":"control_decision","cutoff_time_seconds":[0-9.]*,"retained":true' "$TMP/r")" -eq 673 ]
	run -0 sh -c "jq -r 'select(.type == \"control_decision\") | .cutoff_time_seconds' '$TMP/r' | awk 'NR > 1 && \$1 != prev + 300 { bad = 1 } { prev = \$1 } END { print bad ? \"off grid\" : \"grid\" }'"
	assert_output grid
	[ "$(tail -n 2 "$TMP/r" | head -n 1 | jq -r .type)" = control_report ]
	run -0 jq -c 'select(.type == "header") | [.controller.controller_id, .controller_fingerprint]' "$TMP/r"
	assert_output '["predictive-spot-v1","efe5a0c84905f24e2cc9c2dad5e0ced857a56fc53d5999f883daf875efe854d8"]'
	# the plain records come first, the control records after the cluster record
	run -0 sh -c "jq -r .type '$TMP/r' | uniq | tr '\n' ' '"
	assert_output "header job_result run cluster control_decision control_report end "
}

@test "sim-run --controller: a guarantee beyond the largest horizon is refused before any output" {
	jq '.spot_guarantee_seconds = 14401' "$POL/native-fifo.json" > "$TMP/g.json"
	run sim-run -p "$TMP/g.json" -c "$CTRL" -i "$MICRO" -o "$TMP/out"
	assert_failure 1
	assert_output --partial "policy guarantee exceeds the predictive controller's declared horizons"
	assert_no_output "$TMP/out"
	run -0 sh -c "sim-run -p '$TMP/g.json' -c '$CTRL' -i '$MICRO' 2>/dev/null | wc -c"
	assert_output 0
	jq '.spot_guarantee_seconds = 14400' "$POL/native-fifo.json" > "$TMP/g4.json"
	run sim-run -p "$TMP/g4.json" -c "$CTRL" -i "$MICRO" -o "$TMP/out"
	assert_success
	# the guarantee is only the controller's business: without it 14401 s is a valid policy
	run sim-run -p "$TMP/g.json" -i "$MICRO" -o "$TMP/plain"
	assert_success
}

@test "sim-run --controller: bypass runs the controller and reports, but gates nothing" {
	jq '. + {predictive_admission_mode: "bypass"}' "$POL/native-fifo.json" > "$TMP/b.json"
	sim-run -p "$TMP/b.json" -c "$CTRL" -i "$MICRO" > "$TMP/r"
	sim-run -p "$TMP/b.json" -i "$MICRO" > "$TMP/plain"
	[ "$(grep -c '"type":"control_decision"' "$TMP/r")" -gt 800 ]
	# s07 and s08 start at t = 0 (8 GPUs free) although the quota is 6
	run -0 jq -r 'select(.type == "job_result" and (.job_id == "s07" or .job_id == "s08")) | .start_time_seconds' "$TMP/r"
	assert_output "$(printf '0\n0')"
	run -0 jq -c 'select(.type == "control_decision" and .cutoff_time_seconds == 0) | .spot_quota_gpus_by_guarantee_hour' "$TMP/r"
	assert_output '{"1":6,"2":6,"4":6}'
	# with integer times the update wake-ups leave every plain record as in a plain run
	diff <(grep '"type":"job_result"\|"type":"run"\|"type":"preemption"\|"type":"cluster"' "$TMP/plain") \
		<(grep '"type":"job_result"\|"type":"run"\|"type":"preemption"\|"type":"cluster"' "$TMP/r")
}

@test "sim-run --controller: two runs byte-identical; zstd and chunked input change nothing; metrics carries the block" {
	sim-run -p "$POL/native-preemptive-g3600-b09-d0900.json" -c "$CTRL" -i "$WARM" > "$TMP/a"
	sim-run -p "$POL/native-preemptive-g3600-b09-d0900.json" -c "$CTRL" -i "$WARM" > "$TMP/b"
	cmp "$TMP/a" "$TMP/b"
	feed_chunked "$WARM" sim-run -p "$POL/native-preemptive-g3600-b09-d0900.json" -c "$CTRL" > "$TMP/c"
	zstd -q -c "$WARM" | sim-run -p "$POL/native-preemptive-g3600-b09-d0900.json" -c "$CTRL" -o "$TMP/d.zst"
	diff <(sans_header "$TMP/a") <(sans_header "$TMP/c")
	diff <(sans_header "$TMP/c") <(sans_header "$TMP/d.zst")
	metrics -i "$TMP/a" > "$TMP/m"
	assert_schema "$TMP/a" "$TMP/m"
	run -0 jq -c 'select(.type == "metrics") | .predictive_control | [.available, .controller_id, .update_count < .total_runtime_update_count]' "$TMP/m"
	assert_output '[true,"predictive-spot-v1",true]'
	diff <(jq -cS 'select(.type == "control_report") | {controller_id, controller_fingerprint, update_count, total_runtime_update_count, evidence_window_seconds, eta, spot_quota_gpus, forecast_evaluation, information_boundary}' "$TMP/a") \
		<(jq -cS 'select(.type == "metrics") | .predictive_control | del(.available)' "$TMP/m")
}

@test "sim-run: --progress counts the jobs arrived on stderr; the output is the same bytes with or without it" {
	run --separate-stderr sim-run --policy "$POL/native-preemptive-3600.json" --progress -o "$TMP/p.nd" "$SMALL"
	assert_success
	n=$(grep -c '"type":"job"' "$SMALL")
	[[ "${stderr_lines[-1]}" == "sim-run: jobs arrived $n/$n (100%) in "* ]] || fail "stderr: $stderr"
	run --separate-stderr sim-run --policy "$POL/native-preemptive-3600.json" -o "$TMP/q.nd" "$SMALL"
	assert_success
	[ -z "$stderr" ] || fail "not a terminal, yet: $stderr"
	sim-run --policy "$POL/native-preemptive-3600.json" --no-progress -o "$TMP/r.nd" "$SMALL"
	cmp "$TMP/p.nd" "$TMP/q.nd"
	cmp "$TMP/p.nd" "$TMP/r.nd"
}

# issue 36: placement_strategy selects the physical node model (docs/simulator.md §3.13).
FRAG="$ROOT/tests/data/sim/fragmentation-small.trace.ndjson"
strategy() { jq ".placement_strategy = \"$1\" | .action_id = \"s-$1\" $2" "$POL/native-fifo.json" > "$TMP/$1.json"; echo "$TMP/$1.json"; }
starts() { jq -r 'select(.type=="job_result") | "\(.job_id) \(.start_time_seconds) \(.completion_time_seconds)"' "$1" | tr '\n' ' '; }

@test "sim-run: physical placement: largest-free leaves c fragmented until 100, best-fit and fgd start it at 1, the pool splits it" {
	for s in deterministic_best_fit largest-free best-fit fgd; do
		sim-run --policy "$(strategy $s)" --input "$FRAG" > "$TMP/$s.r"
	done
	run -0 starts "$TMP/largest-free.r"
	assert_output 'a 0 100 b 0 100 c 100 110 d 2 12 '
	for s in deterministic_best_fit best-fit fgd; do
		run -0 starts "$TMP/$s.r"
		assert_output 'a 0 100 b 0 100 c 1 11 d 2 12 '
	done
	run -0 jq -c '.policy.placement_strategy' "$TMP/fgd.r"
	assert_line --index 0 '"fgd"'
}

@test "sim-run: physical preemption evicts only the Spot job whose release makes the HP job fit" {
	p=$(strategy largest-free '| .scheduler = "priority_preemptive" | .spot_guarantee_seconds = 0')
	sim-run --policy "$p" --input "$FRAG" > "$TMP/r"
	run -0 jq -c 'select(.type=="preemption") | [.time_seconds, .preempted_job_id, .triggering_job_id]' "$TMP/r"
	assert_output '[1,"b","c"]'
	run -0 starts "$TMP/r"
	assert_output 'a 0 100 b 0 181 c 1 11 d 2 12 '
}

@test "sim-run: a fraction the physical model cannot place, an unknown strategy and a seed on the pool are refused, no output" {
	sed 's/"gpus":4,"class":"HP"/"gpus":1.5,"class":"HP"/' "$FRAG" | grep -v '"type":"end"' | stream-seal > "$TMP/bad.nd"
	run -1 sim-run --policy "$(strategy gpu-packing)" --input "$TMP/bad.nd" -o "$TMP/out"
	assert_output "sim-run: job 'c': gpus 1.5 over 1 worker(s) is neither whole GPUs per worker nor one share of a GPU in milli; the physical model cannot place it"
	assert [ ! -e "$TMP/out" ]
	run -1 sim-run --policy "$(strategy tetris)" --input "$FRAG"
	assert_output --partial "unknown placement_strategy 'tetris' (want 'deterministic_best_fit', 'largest-free', 'random'"
	run -1 sim-run --policy "$(strategy deterministic_best_fit '| .placement_seed = 7')" --input "$FRAG"
	assert_output --partial "'placement_seed' seeds the physical node model"
}

@test "sim-run: --placement and --placement-seed replace the policy's strategy and seed (header policy and fingerprint follow)" {
	sim-run --policy "$POL/native-fifo.json" --placement largest-free --input "$FRAG" > "$TMP/a"
	sim-run --policy "$(strategy largest-free)" --input "$FRAG" > "$TMP/b"
	run -0 jq -c 'select(.type=="header") | [.policy.placement_strategy, .policy.placement_seed]' "$TMP/a"
	assert_output '["largest-free",null]'
	run -0 starts "$TMP/a"
	assert_output 'a 0 100 b 0 100 c 100 110 d 2 12 '
	sim-run --policy "$POL/native-fifo.json" --placement random --placement-seed 9 --input "$FRAG" > "$TMP/c"
	run -0 jq -c 'select(.type=="header") | [.policy.placement_strategy, .policy.placement_seed]' "$TMP/c"
	assert_output '["random",9]'
	run -2 sim-run --policy "$POL/native-fifo.json" --placement-seed 9 --input "$FRAG"
	assert_line --index 0 'sim-run: --placement-seed needs --placement'
	run -2 sim-run --policy "$POL/native-fifo.json" --placement fgd --placement-seed -1 --input "$FRAG"
	assert_line --index 0 'sim-run: --placement-seed wants a whole number in 0..10^12'
	run -1 sim-run --policy "$POL/native-fifo.json" --placement tetris --input "$FRAG"
	assert_output --partial "unknown placement_strategy 'tetris'"
}

@test "pipelines/placement-sim-compare.sh: the docs/placement.md table on a fixture, the same bytes twice" {
	mkdir -p "$TMP/d"
	cp "$ROOT/tests/data/res/v2023-nodes.csv" "$TMP/d/openb_node_list_gpu_node.csv"
	cp "$ROOT/tests/data/res/v2023-pods.csv" "$TMP/d/openb_pod_list_default.csv"
	cd "$ROOT"
	KEEP=1 sh pipelines/placement-sim-compare.sh "$TMP/d" "$TMP/w1" > "$TMP/t1"
	KEEP=1 sh pipelines/placement-sim-compare.sh "$TMP/d" "$TMP/w2" > "$TMP/t2"
	cmp "$TMP/t1" "$TMP/t2"
	run -0 sed -n 3,4p "$TMP/t1"
	assert_output '| full (2 nodes, 10 GPUs) | deterministic_best_fit | 0 | 0 | 0 | 0 | 0 | 0 | – | – | – |
| full (2 nodes, 10 GPUs) | largest-free | 0 | 0 | 0 | 0 | 0 | 0 | 1.56 | 0 | 0 |'
	[ "$(grep -c '^| ' "$TMP/t1")" -eq 9 ]   # the header and 2 clusters x 4 placements
}
