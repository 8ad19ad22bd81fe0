#!/bin/sh
# study-verify.sh SW [BAND] — re-check every fingerprint of a finished study without trusting
# file times: each window's determinism gate and receipt are recomputed into a scratch
# directory and compared byte for byte, then the lock is verified again. An adaptive study's
# benchmark (SW/evaluation/adaptive.ndjson) is recomputed too, with allocation band BAND.
set -eu
sw=$1 band=${2:-0.01}
shift $#
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
for part in calibration holdout evaluation; do
	[ -d "$sw/$part" ] || continue
	for dir in "$sw/$part"/*/; do
		dir=${dir%/}
		[ -f "$dir/window.ndjson" ] || continue
		window=$(basename "$dir")
		# "BASELINE ARM..." of the receipt, in one read
		set -- $(zstdcat -qf "$dir/window.ndjson" | jq -r 'select(.type == "window_result") | [.baseline_action_id, .policies[].action_id] | join(" ")')
		baseline=$1
		shift
		arms=$*
		for arm in $arms; do
			sh pipelines/study-gate.sh "$window" "$arm" "$dir/slice.trace.ndjson.zst" "$tmp/result.fp" "$dir/$arm"/rep-*.result.ndjson.zst || bad=1
			cmp -s "$tmp/result.fp" "$dir/$arm/result.fp" || { echo "study: '$dir/$arm/result.fp' does not match its results" >&2; bad=1; }
		done
		RECEIPT_OUT=$tmp/window.ndjson sh pipelines/study-receipt.sh "$dir" "$window" "$part" "$sw/trace.fp" "$baseline" $arms || bad=1
		cmp -s "$tmp/window.ndjson" "$dir/window.ndjson" || { echo "study: '$dir/window.ndjson' does not match its window's files" >&2; bad=1; }
	done
done
if [ -f "$sw/evaluation/adaptive.ndjson" ]; then
	if adaptive-eval --design "$sw/controllers.ndjson" --selection "$sw/calibration/selection.ndjson" --band "$band" \
		-o "$tmp/adaptive.ndjson" "$sw"/evaluation/*/window.ndjson; then
		[ "$(stream-verify -p "$tmp/adaptive.ndjson")" = "$(stream-verify -p "$sw/evaluation/adaptive.ndjson")" ] ||
			{ echo "study: '$sw/evaluation/adaptive.ndjson' does not match its design, selection and receipts" >&2; bad=1; }
	else
		bad=1
	fi
fi
[ $bad -eq 0 ] || exit 1
echo "study: every fingerprint of '$sw' verifies"
