#!/usr/bin/env python3
"""A decider that accepts every recommendation, and kills roll (its parent) with SIGKILL at
fixed decisions: at decision K of "K1,K2,..." the first time it is asked it (MARKER.K does
not exist yet), it creates MARKER.K and sends SIGKILL to roll before replying, so the run
dies at that decision whatever the machine's speed; a resumed run with the same arguments
is killed at the next K, and once every MARKER.K exists it runs to the end like the rule.
usage: kill-at.py K1,K2,... MARKER"""
import json, os, signal, sys

kill_at, marker = {int(k) for k in sys.argv[1].split(",")}, sys.argv[2]
for line in sys.stdin:
    r = json.loads(line)
    k = r["decision_index"]
    if k in kill_at and not os.path.exists("%s.%d" % (marker, k)):
        open("%s.%d" % (marker, k), "w").close()
        os.kill(os.getppid(), signal.SIGKILL)
        sys.exit(0)
    sys.stdout.write(json.dumps({"type": "decision", "request_id": r["request_id"], "action_id": r["recommended_action_id"],
                                 "reason_code": "kill-at-test"}) + "\n")
    sys.stdout.flush()
