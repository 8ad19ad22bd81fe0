#!/bin/sh
# study-receipt.sh DIR WINDOW PARTITION TRACE_FP_FILE BASELINE ARM... — the window's receipt.
# Checks the fingerprint chain of the window (slice ← trace, metrics ← result, audit ←
# metrics, ranking ← metrics + audit) and writes DIR/window.ndjson: one sealed
# `window_result` record with every fingerprint, each arm's decisions and headline
# metrics, and the window's ranking. No trace rows.
set -eu
dir=$1 window=$2 partition=$3 trace_fp=$(cat "$4") baseline=$5
shift 5
die() { echo "study: window '$window': $*" >&2; exit 1; }

slice=$dir/slice.trace.ndjson.zst
zstdcat -qf "$slice" | head -n 1 | jq -e --arg fp "$trace_fp" 'any(.inputs[]; .fingerprint == $fp)' >/dev/null ||
	die "'$slice' was not made from the study trace $trace_fp"
made_from=
for arm in "$@"; do
	m=$dir/$arm/metrics.ndjson.zst
	rfp=$(cat "$dir/$arm/result.fp")
	stream-verify "$m"
	zstdcat -qf "$m" | jq -en --arg fp "$rfp" '[inputs | select(.type == "metrics")] | length == 1 and .[0].result_fingerprint == $fp' >/dev/null ||
		die "'$m' was not computed from the result $rfp"
	made_from="$made_from --made-from $m"
done
audit_fp=$(stream-verify --print-fingerprint $made_from "$dir/audit.ndjson.zst")
ranking_fp=$(stream-verify --print-fingerprint $made_from --made-from "$dir/audit.ndjson.zst" "$dir/ranking.ndjson.zst")
slice_fp=$(zstdcat -qf "$slice" | tail -n 1 | jq -r .fingerprint)

# One line per arm: its metrics record, its stream fingerprint and result fingerprint.
arms=$(for arm in "$@"; do
	zstdcat -qf "$dir/$arm/metrics.ndjson.zst" | jq -c --arg arm "$arm" \
		--arg mfp "$(zstdcat -qf "$dir/$arm/metrics.ndjson.zst" | tail -n 1 | jq -r .fingerprint)" \
		--arg rfp "$(cat "$dir/$arm/result.fp")" \
		'select(.type == "metrics") | {arm: $arm, metrics_fingerprint: $mfp, result_fingerprint: $rfp, m: .}'
done)
{
	jq -nc --arg window "$window" --arg partition "$partition" --arg trace_fp "$trace_fp" \
		--arg slice_fp "$slice_fp" --arg audit_fp "$audit_fp" --arg ranking_fp "$ranking_fp" \
		'{type: "header", schema: "schednav.window-result/1", tool: "study-receipt.sh", version: "1",
		  inputs: [{path: "trace", fingerprint: $trace_fp}, {path: "slice", fingerprint: $slice_fp},
		           {path: "audit", fingerprint: $audit_fp}, {path: "ranking", fingerprint: $ranking_fp}],
		  params: {window_id: $window, partition: $partition}}'
	{ echo "$arms"; zstdcat -qf "$dir/audit.ndjson.zst" "$dir/ranking.ndjson.zst"; } | jq -sc \
		--arg window "$window" --arg partition "$partition" --arg baseline "$baseline" \
		--arg slice_fp "$slice_fp" --arg audit_fp "$audit_fp" --arg ranking_fp "$ranking_fp" '
		(map(select(.type == "audit")) | map({key: .metrics_fingerprint, value: .}) | from_entries) as $audits
		| (map(select(.type == "ranking")) | first) as $rank
		| map(select(.arm)) as $arms
		| {type: "window_result", window_id: $window, partition: $partition,
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
		     spot_jct_p95_seconds: .m.spot_jct_p95_seconds, spot_eviction_rate_per_run: .m.spot_eviction_rate_per_run}],
		   ranking: {selection_status: $rank.selection_status, selected_action_ids: $rank.selected_action_ids}}'
} | stream-seal -o "${RECEIPT_OUT:-$dir/window.ndjson}"
