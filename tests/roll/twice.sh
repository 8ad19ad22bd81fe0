#!/bin/sh
# A decider that answers every request twice: the second reply names a request already
# answered and must be discarded, never taken as the answer to the next request.
exec jq -c --unbuffered '{type: "decision", request_id, action_id: .recommended_action_id, reason_code: "twice"} | (., .)'
