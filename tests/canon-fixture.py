#!/usr/bin/python3
"""Build and re-seal original-format trace directories for the Bats tests.

usage: canon-fixture.py make DIR v1|v2        small valid case (2 nodes, 3 jobs)
       canon-fixture.py reseal DIR [KEY=JSON]...
           set (or with KEY=, delete) manifest keys, then recompute `files` (SHA-256 of the
           raw bytes) and `trace_fingerprint` (CJSHA), and rewrite trace.json the way the
           original writer does (indent 2, sorted keys, raw UTF-8, final newline).
This is an independent implementation of the original writer's sealing, so a test that
tampers with a file can make every earlier check pass and hit exactly the one it targets.
"""
import hashlib, json, os, sys

def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()

def reseal(d, sets):
    p = os.path.join(d, "trace.json")
    with open(p, encoding="utf-8") as f:
        m = json.load(f)
    for kv in sets:
        k, v = kv.split("=", 1)
        if v == "":
            m.pop(k, None)
        else:
            m[k] = json.loads(v)
    m["files"] = {m["nodes_file"]: sha(os.path.join(d, m["nodes_file"])),
                  m["jobs_file"]: sha(os.path.join(d, m["jobs_file"]))}
    m.pop("trace_fingerprint", None)
    canon = json.dumps(m, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    m["trace_fingerprint"] = hashlib.sha256(canon.encode("utf-8")).hexdigest()
    with open(p, "w", encoding="utf-8") as f:
        f.write(json.dumps(m, indent=2, sort_keys=True, ensure_ascii=False) + "\n")

def make(d, ver):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "nodes.csv"), "w") as f:
        f.write("node_id,gpu_model,gpu_count\nn1,A,8\nn2,B,4\n")
    t = ver == "v2"
    with open(os.path.join(d, "jobs.csv"), "w") as f:
        f.write("job_id,submit_time_seconds,duration_seconds,gpu_count,service_class,gpu_model" + (",tenant_id" if t else "") + "\n")
        for row in (["j1", "5", "100", "2", "HP", "A"], ["j2", "10", "50.5", "0.5", "Spot", "B"], ["j3", "20", "30", "12", "Spot", "*"]):
            f.write(",".join(row + (["org1"] if t else [])) + "\n")
    with open(os.path.join(d, "trace.json"), "w") as f:
        json.dump({"schema_version": "schednav.trace/" + ver, "trace_id": "fixture", "time_origin": "2026-01-01 00:00:00",
                   "source": {"dataset": "bats-fixture"}, "nodes_file": "nodes.csv", "jobs_file": "jobs.csv"}, f)
    reseal(d, [])

if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "make" and len(sys.argv) == 4:
        make(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "reseal":
        reseal(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
