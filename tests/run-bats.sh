#!/bin/sh
# Run every Bats suite, keep the TAP output visible, and end with one plain summary line
# ("check: N passed, N failed, N skipped") that CI and people can read at a glance,
# followed by the documentation examples run and skipped, and the skipped tests counted by reason.
set -u
cd "$(dirname "$0")/.."
tap=$(mktemp)
trap 'rm -f "$tap"' EXIT
bats --tap tests/ | tee "$tap"
passed=$(grep -c '^ok ' "$tap" | tr -d ' ')
skipped=$(grep -c '^ok .* # skip' "$tap" | tr -d ' ')
failed=$(grep -c '^not ok ' "$tap" | tr -d ' ')
planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tap" | head -n 1)
passed=$((passed - skipped))
echo
echo "check: $passed passed, $failed failed, $skipped skipped"
# the documentation's shell blocks (tests/doc-examples.bats): run and skipped, per page set
sed -n 's/^# doc-examples: /  doc examples: /p' "$tap"
if [ "$skipped" -ne 0 ]; then
	sed -n 's/^ok .* # skip *//p' "$tap" | sed 's/^$/(no reason given)/' | sort | uniq -c | sort -rn |
		sed 's/^ *\([0-9]*\) /  skipped \1: /'
fi
if [ "$failed" -ne 0 ] || [ -z "$planned" ] || [ $((passed + skipped)) -ne "$planned" ]; then
	exit 1
fi
exit 0
