#!/usr/bin/env bats
# trace-scan: eligibility, signals and stratified medoid selection, checked by hand on a
# tiny trace and against an independent Python implementation on seeded synthetic traces.

load helper
load run_cases

CASES="$ROOT/tests/cases/trace-scan"
SMALL=(--day-seconds 100 --sample-seconds 10 --min-hp 1 --min-spot 1)

setup() {
	T="$BATS_TEST_TMPDIR"
	stream-seal -i "$CASES/known.body" -o "$T/known.nd"
}

# "index:selected:stratum" per window record.
picks() { jq -r 'select(.type == "window") | "\(.index):\(.selected):\(.stratum.pressure // "-")\(.stratum.share // "-")"' "$1" | paste -sd' '; }

synth() { python3 "$CASES/gen-trace.py" "$@" | stream-seal; }

@test "trace-scan: invariants (--help matches the man page, bad option exits 2)" {
	assert_tool_invariants trace-scan
}

@test "trace-scan: signals of a hand-computed trace" {
	trace-scan "${SMALL[@]}" --pressure-strata 1 --share-strata 1 --warmup-days 0 -i "$T/known.nd" -o "$T/out.nd"
	# day 0: the Spot job (1..6 s) covers no 10-s sample; day 1: 2 GPUs all day, 4 at 150 s;
	# day 2: 9 GPUs for 50 s; the Spot job at 299 s starts after the last sample (290 s).
	run -0 grep '"type":"window"' "$T/out.nd"
	assert_output '{"type":"window","window_id":"window-0000","index":0,"start":0.0,"end":99.0,"warmup_start":0.0,"eligible":true,"hp_arrivals":1,"spot_arrivals":1,"hp_requested_gpus":1.0,"spot_requested_gpus":1.0,"peak_pressure":0.1,"mean_pressure":0.1,"spot_share":0.5,"active_gpus_min":1.0,"active_gpus_mean":1.0,"active_gpus_max":1.0,"active_gpus_cv":0.0,"stratum":{"pressure":0,"share":0},"selected":false}
{"type":"window","window_id":"window-0001","index":1,"start":100.0,"end":199.0,"warmup_start":100.0,"eligible":true,"hp_arrivals":1,"spot_arrivals":1,"hp_requested_gpus":2.0,"spot_requested_gpus":2.0,"peak_pressure":0.4,"mean_pressure":0.22,"spot_share":0.5,"active_gpus_min":2.0,"active_gpus_mean":2.2,"active_gpus_max":4.0,"active_gpus_cv":0.272727,"stratum":{"pressure":0,"share":0},"selected":true}
{"type":"window","window_id":"window-0002","index":2,"start":200.0,"end":299.0,"warmup_start":200.0,"eligible":true,"hp_arrivals":1,"spot_arrivals":1,"hp_requested_gpus":9.0,"spot_requested_gpus":1.0,"peak_pressure":0.9,"mean_pressure":0.45,"spot_share":0.1,"active_gpus_min":0.0,"active_gpus_mean":4.5,"active_gpus_max":9.0,"active_gpus_cv":1.0,"stratum":{"pressure":0,"share":0},"selected":false}'
	# medoid of one cell: medians (0.4, 0.5), spans (0.8, 0.4) => distances 0.375, 0, 1.625
	run -0 head -n1 "$T/out.nd"
	assert_output --partial '"trace_id":"known","capacity_gpus":10,"window_count":3,"eligible_count":3,"selected_count":1}'
	assert_output --partial '"params":{"day_seconds":100,"sample_seconds":10,"min_hp_arrivals":1,"min_spot_arrivals":1,"pressure_strata":1,"share_strata":1,"warmup_days":0,"selection":"stratified_medoid","all_days":false}'
	assert_output --partial "\"fingerprint\":\"$(tail -n1 "$T/known.nd" | jq -r .fingerprint)\""
}

@test "trace-scan: strata split by peak, then by share; one cell per window" {
	trace-scan "${SMALL[@]}" --pressure-strata 3 --share-strata 1 -i "$T/known.nd" -o "$T/p.nd"
	[ "$(picks "$T/p.nd")" = "0:true:00 1:true:10 2:true:20" ]
	# share order (share, start): day 2 (0.1), day 0 (0.5), day 1 (0.5, later)
	trace-scan "${SMALL[@]}" --pressure-strata 1 --share-strata 3 -i "$T/known.nd" -o "$T/s.nd"
	[ "$(picks "$T/s.nd")" = "0:true:01 1:true:02 2:true:00" ]
	# 3 windows in 2 pressure parts: 2 + 1 (the first part gets the extra one)
	trace-scan "${SMALL[@]}" --pressure-strata 2 --share-strata 1 -i "$T/known.nd" -o "$T/b.nd"
	[ "$(picks "$T/b.nd")" = "0:true:00 1:false:00 2:true:10" ]
}

@test "trace-scan: equal distances go to the earliest window" {
	# windows 0 and 1 only: peaks 0.1 and 0.4, same share => both 0.5 away from the medians;
	# the two late jobs make window 1 complete and cover no sample inside [0, 200)
	{ head -n 6 "$CASES/known.body"
	  echo '{"type":"job","job_id":"d1-late-hp","submit":198,"duration":1,"gpus":1,"class":"HP","gpu_model":"X"}'
	  echo '{"type":"job","job_id":"d1-late-spot","submit":199,"duration":1,"gpus":1,"class":"Spot","gpu_model":"X"}'
	} | stream-seal > "$T/two.nd"
	trace-scan "${SMALL[@]}" --pressure-strata 1 --share-strata 1 -i "$T/two.nd" -o "$T/out.nd"
	[ "$(jq -r 'select(.type=="window") | "\(.peak_pressure) \(.spot_share)"' "$T/out.nd" | paste -sd' ')" = "0.1 0.5 0.4 0.5" ]
	[ "$(picks "$T/out.nd")" = "0:true:00 1:false:00" ]
}

@test "trace-scan: eligibility thresholds, --all-days and --all-eligible" {
	trace-scan --day-seconds 100 --sample-seconds 10 --min-hp 1 --min-spot 2 --all-eligible -i "$T/known.nd" -o "$T/out.nd"
	run -1 grep -c '"type":"window"' "$T/out.nd"
	assert_output 0
	head -n1 "$T/out.nd" | grep -q '"window_count":3,"eligible_count":0,"selected_count":0'
	trace-scan --day-seconds 100 --sample-seconds 10 --min-hp 1 --min-spot 2 --all-eligible --all-days -i "$T/known.nd" -o "$T/all.nd"
	[ "$(jq -r 'select(.type=="window") | "\(.eligible):\(.selected):\(.stratum)"' "$T/all.nd" | sort -u)" = "false:false:null" ]
	trace-scan "${SMALL[@]}" --all-eligible -i "$T/known.nd" -o "$T/sel.nd"
	[ "$(picks "$T/sel.nd")" = "0:true:-- 1:true:-- 2:true:--" ]
	# a window without arrivals is never eligible, even with zero thresholds
	trace-scan --day-seconds 50 --sample-seconds 10 --min-hp 0 --min-spot 0 --all-eligible --all-days -i "$T/known.nd" -o "$T/z.nd"
	[ "$(jq -r 'select(.type=="window") | "\(.index):\(.eligible):\(.spot_share)"' "$T/z.nd" | paste -sd' ')" = "0:true:0.5 1:false:null 2:true:0 3:true:1 4:true:0 5:true:1" ]
}

@test "trace-scan: stratified selection equals the independent Python reference" {
	for seed in 3 11; do
		synth $seed 36 > "$T/syn.nd"
		trace-scan -i "$T/syn.nd" -o "$T/out.nd"
		run python3 "$CASES/reference.py" "$T/syn.nd" "$T/out.nd"
		assert_success
		assert_output --regexp "^reference: 36 windows, [0-9]+ eligible, 12 selected, 0 mismatches$"
		trace-scan -i "$T/syn.nd" --all-days --pressure-strata 2 --share-strata 5 --warmup-days 7 -o "$T/out2.nd"
		run python3 "$CASES/reference.py" "$T/syn.nd" "$T/out2.nd" --all-days --pressure-strata 2 --share-strata 5 --warmup-days 7
		assert_success
		assert_output --regexp "^reference: 36 windows, [0-9]+ eligible, 10 selected, 0 mismatches$"
	done
	# other window and sample lengths, and the all-eligible mode
	synth 5 30 43200 > "$T/half.nd"
	trace-scan -i "$T/half.nd" --day-seconds 43200 --sample-seconds 900 --min-hp 15 --min-spot 10 -o "$T/out3.nd"
	run python3 "$CASES/reference.py" "$T/half.nd" "$T/out3.nd" --day-seconds 43200 --sample-seconds 900 --min-hp 15 --min-spot 10
	assert_success
	trace-scan -i "$T/half.nd" --day-seconds 43200 --all-eligible -o "$T/out4.nd"
	run python3 "$CASES/reference.py" "$T/half.nd" "$T/out4.nd" --day-seconds 43200 --all-eligible
	assert_success
	# the reference does notice a different selection
	run python3 "$CASES/reference.py" "$T/half.nd" "$T/out3.nd" --day-seconds 43200 --sample-seconds 900 --min-hp 15 --min-spot 10 --share-strata 2
	assert_failure 1
}

@test "trace-scan: balanced parts on a synthetic trace" {
	synth 7 40 > "$T/syn.nd"
	trace-scan -i "$T/syn.nd" -o "$T/out.nd"
	n=$(jq -s '[.[] | select(.type=="window")] | length' "$T/out.nd")
	[ "$n" -eq 25 ]
	# 25 = 9 + 8 + 8; the first part's 9 = 3 + 2 + 2 + 2
	[ "$(jq -r 'select(.type=="window") | .stratum.pressure' "$T/out.nd" | sort | uniq -c | awk '{print $1}' | paste -sd' ')" = "9 8 8" ]
	[ "$(jq -r 'select(.type=="window" and .stratum.pressure==0) | .stratum.share' "$T/out.nd" | sort | uniq -c | awk '{print $1}' | paste -sd' ')" = "3 2 2 2" ]
	# one selected window per cell
	[ "$(jq -r 'select(.type=="window" and .selected) | "\(.stratum.pressure)\(.stratum.share)"' "$T/out.nd" | sort -u | wc -l)" -eq 12 ]
	# every pressure part lies below the next one
	jq -s '[.[] | select(.type=="window")] | group_by(.stratum.pressure) | map([(map(.peak_pressure)|min), (map(.peak_pressure)|max)]) | (.[0][1] <= .[1][0] and .[1][1] <= .[2][0])' "$T/out.nd" | grep -qx true
	# warm-up start is 30 days back, not before 0
	jq -s '[.[] | select(.type=="window")] | all(.warmup_start == ([0, .start - 2592000] | max)) and any(.warmup_start > 0)' "$T/out.nd" | grep -qx true
}

@test "trace-scan: the error cases (tests/cases/trace-scan/*.case)" {
	run_cases trace-scan known="$T/known.nd"
}

@test "trace-scan: zstd in and out, chunked input, deterministic output" {
	synth 3 30 > "$T/syn.nd"
	trace-scan -i "$T/syn.nd" -o "$T/plain.nd"
	zstd -q -c "$T/syn.nd" > "$T/syn.nd.zst"
	trace-scan -i "$T/syn.nd.zst" -o "$T/out.nd.zst"
	head -c 4 "$T/out.nd.zst" | od -An -tx1 | grep -q '28 b5 2f fd'
	diff <(sans_header "$T/out.nd.zst") <(sans_header "$T/plain.nd")
	trace-scan < "$T/syn.nd" > "$T/stdin.nd"
	feed_chunked "$T/syn.nd" trace-scan > "$T/chunked.nd"
	cmp "$T/stdin.nd" "$T/chunked.nd"
	zstd -q -c "$T/syn.nd" | trace-scan > "$T/zstdin.nd"
	cmp "$T/stdin.nd" "$T/zstdin.nd"
	trace-scan -i "$T/syn.nd" -o "$T/again.nd"
	cmp "$T/plain.nd" "$T/again.nd"
}

@test "trace-scan: records are valid against the schemas" {
	synth 11 40 > "$T/syn.nd"
	trace-scan --all-days -i "$T/syn.nd" -o "$T/out.nd"
	trace-scan --all-eligible -i "$T/syn.nd" -o "$T/all.nd"
	assert_schema "$T/out.nd" "$T/all.nd" "$T/syn.nd"
	# a selected but ineligible window must not pass
	sed '2s/"eligible":true/"eligible":false/; 2s/"eligible":false\(.*\)"selected":false/"eligible":false\1"selected":true/' "$T/all.nd" > "$T/bad.nd"
	run python3 "$ROOT/tests/validate-schema.py" "$T/bad.nd"
	assert_failure 1
}
