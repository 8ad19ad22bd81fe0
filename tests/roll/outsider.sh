#!/bin/sh
# A decider that names an action outside the candidates (native-preemptive-3600 is a
# catalogue policy but not in the rolling action space) and echoes the request id correctly.
while read -r line; do
	id=$(printf '%s\n' "$line" | jq -r .request_id)
	printf '{"type":"decision","request_id":"%s","action_id":"native-preemptive-3600","reason_code":"outsider"}\n' "$id"
done
