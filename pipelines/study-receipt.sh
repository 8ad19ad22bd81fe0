#!/bin/sh
# study-receipt.sh DIR WINDOW PARTITION TRACE_FP_FILE BASELINE ARM... — the window's receipt.
# Checks the fingerprint chain of the window (slice ← trace, metrics ← result, audit ←
# metrics, ranking ← metrics + audit) and writes DIR/window.ndjson: one sealed
# `window_result` record with every fingerprint, each arm's decisions and headline
# metrics, and the window's ranking. No trace rows.
# A handful of processes per window (studies have hundreds of windows): the streams are
# verified by stream-verify in three calls and read by one jq.
set -eu
dir=$1 window=$2 partition=$3 baseline=$5
read -r trace_fp < "$4"
shift 5
die() { echo "study: window '$window': $*" >&2; exit 1; }

slice=$dir/slice.trace.ndjson.zst
metrics= made_from=
for arm in "$@"; do
	metrics="$metrics $dir/$arm/metrics.ndjson.zst"
	made_from="$made_from --made-from $dir/$arm/metrics.ndjson.zst"
done
# Every metrics stream verifies (their fingerprints, in arm order), the slice verifies,
# the audit and the ranking were made from these metrics (+ the audit).
fps=$(stream-verify --print-fingerprint $metrics "$slice")
audit_fp=$(stream-verify --print-fingerprint $made_from "$dir/audit.ndjson.zst")
ranking_fp=$(stream-verify --print-fingerprint $made_from --made-from "$dir/audit.ndjson.zst" "$dir/ranking.ndjson.zst")

# One jq reads: per arm a marker line then its metrics stream, then the audit and ranking
# streams, then the slice's header. It prints the receipt's header and record, or one
# line "error: ..." naming the first broken link.
out=$({
	i=1
	for arm in "$@"; do
		read -r rfp < "$dir/$arm/result.fp"
		mfp=$(echo "$fps" | sed -n "${i}p")
		printf '{"type":"study-receipt-arm","arm":"%s","result_fingerprint":"%s","metrics_fingerprint":"%s"}\n' "$arm" "$rfp" "$mfp"
		zstdcat -qf "$dir/$arm/metrics.ndjson.zst"
		i=$((i + 1))
	done
	echo '{"type":"study-receipt-rest"}'
	zstdcat -qf "$dir/audit.ndjson.zst" "$dir/ranking.ndjson.zst"
	echo '{"type":"study-receipt-slice"}'
	zstdcat -qf "$slice" | head -n 1
} | jq -rsc --arg dir "$dir" --arg slice "$slice" --arg window "$window" --arg partition "$partition" --arg baseline "$baseline" \
	--arg trace_fp "$trace_fp" --arg slice_fp "$(echo "$fps" | tail -n 1)" \
	--arg audit_fp "$audit_fp" --arg ranking_fp "$ranking_fp" '
	# Group the records after each marker: [marker, records...].
	(reduce .[] as $r ([]; if ($r.type | startswith("study-receipt-")) then . + [[$r]] else .[-1] += [$r] end)) as $groups
	| ($groups | map(select(.[0].type == "study-receipt-arm"))) as $armgroups
	| ($groups | map(select(.[0].type == "study-receipt-rest")) | first | .[1:]) as $rest
	| ($groups | map(select(.[0].type == "study-receipt-slice")) | first | .[1]) as $slicehdr
	| ($armgroups | map(.[0] + {ms: (.[1:] | map(select(.type == "metrics")))})) as $arms0
	| (if ($slicehdr.inputs // [] | any(.fingerprint == $trace_fp)) | not then
	     "error: \u0027\($slice)\u0027 was not made from the study trace \($trace_fp)"
	   else ($arms0 | map(select((.ms | length) != 1 or .ms[0].result_fingerprint != .result_fingerprint)) | first) as $bad
	   | if $bad then "error: \u0027\($dir)/\($bad.arm)/metrics.ndjson.zst\u0027 was not computed from the result \($bad.result_fingerprint)"
	     else null end end) as $err
	| if $err then $err else
	  ($arms0 | map({arm, metrics_fingerprint, result_fingerprint, m: .ms[0]})) as $arms
	  | ($rest | map(select(.type == "audit")) | map({key: .metrics_fingerprint, value: .}) | from_entries) as $audits
	  | ($rest | map(select(.type == "ranking")) | first) as $rank
	  | {type: "header", schema: "schednav.window-result/1", tool: "study-receipt.sh", version: "1",
	     inputs: [{path: "trace", fingerprint: $trace_fp}, {path: "slice", fingerprint: $slice_fp},
	              {path: "audit", fingerprint: $audit_fp}, {path: "ranking", fingerprint: $ranking_fp}],
	     params: {window_id: $window, partition: $partition}},
	    {type: "window_result", window_id: $window, partition: $partition,
	     evaluation_start: $arms[0].m.evaluation_start, evaluation_end: $arms[0].m.evaluation_end,
	     slice_fingerprint: $slice_fp, audit_fingerprint: $audit_fp, ranking_fingerprint: $ranking_fp,
	     baseline_action_id: $baseline,
	     policies: [$arms[] | $audits[.metrics_fingerprint] as $a | {
	       action_id: .m.action_id, policy_fingerprint: .m.policy_fingerprint,
	       result_fingerprint: .result_fingerprint, metrics_fingerprint: .metrics_fingerprint,
	       deterministic_repetitions: true,
	       hard_slo_passed: $a.audit_passed,
	       allocation_soft_target_met: ([($a.constraints // [])[] | select(.id == "allocation-soft-target") | .passed] | if length > 0 then .[0] else null end),
	       failed_constraint_ids: ($a.failed_constraint_ids // []),
	       allocation_rate_mean: .m.allocation_rate_mean, hp_jct_p95_seconds: .m.hp_jct_p95_seconds,
	       spot_jct_p95_seconds: .m.spot_jct_p95_seconds, spot_eviction_rate_per_run: .m.spot_eviction_rate_per_run}
	       # a controller arm names its controller; the controller reads only the past
	       # (the leakage tests of sim-run and forecast)
	       + (if .m.predictive_control then {controller_id: .m.predictive_control.controller_id,
	            controller_fingerprint: .m.predictive_control.controller_fingerprint,
	            future_arrivals_visible_to_controller: false} else {} end)],
	     ranking: {selection_status: $rank.selection_status, selected_action_ids: $rank.selected_action_ids}}
	  end')
case $out in
"error: "*) die "${out#error: }" ;;
esac
printf '%s\n' "$out" | stream-seal -o "${RECEIPT_OUT:-$dir/window.ndjson}"
