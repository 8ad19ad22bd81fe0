#!/bin/sh
# A decider that answers the first request with the controller's recommendation, then exits.
read -r line
printf '%s\n' "$line" | jq -c '{type: "decision", request_id, action_id: .recommended_action_id, reason_code: "once"}'
exit 0
