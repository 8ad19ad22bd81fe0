#!/usr/bin/env python3
"""A decider that stalls in the middle of the first request: it reads at most 1000 bytes of
it, then waits until roll has frozen that decision (the timeout: DIR/state-0001.ndjson.zst
of --checkpoint DIR), then answers every line it receives with the recommendation.
LOG gets one line per line received: "request K", or "torn N" for a line that is not one
whole decision_request. Nothing here depends on timing: roll cannot freeze decision 0
before its timeout, and the request (over 64 KiB) cannot fit into the pipe before it.
usage: torn.py DIR LOG"""
import json, os, sys, time

cpdir, log = sys.argv[1], sys.argv[2]
buf = os.read(0, 1000)
while not os.path.exists(os.path.join(cpdir, "state-0001.ndjson.zst")):
    time.sleep(0.05)
with open(log, "w") as out:
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                r = json.loads(line)
                if r.get("type") != "decision_request":
                    raise ValueError
            except ValueError:
                out.write("torn %d\n" % len(line))
                out.flush()
                continue
            out.write("request %d\n" % r["decision_index"])
            out.flush()
            sys.stdout.write(json.dumps({"type": "decision", "request_id": r["request_id"],
                                         "action_id": r["recommended_action_id"], "reason_code": "torn-test"}) + "\n")
            sys.stdout.flush()
        chunk = os.read(0, 65536)
        if not chunk:
            break
        buf += chunk
