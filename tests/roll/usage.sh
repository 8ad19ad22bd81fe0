#!/bin/sh
# A decider that accepts every recommendation and reports $1 prompt tokens in each reply
# (written as text: jq would round 2^63 - 1).
while read -r line; do
	printf '%s\n' "$line" | jq -c '{type: "decision", request_id, action_id: .recommended_action_id, reason_code: "usage"}' |
		sed "s/}\$/,\"prompt_tokens\":$1}/"
done
