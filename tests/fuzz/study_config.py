#!/usr/bin/env python3
"""Fuzz the study config loader, pipelines/study-config.jq (jq, not C: libFuzzer cannot
reach it). Seeded structural mutations of configs/studies/*.json (values replaced by
hostile strings with control characters, '$', '#', quotes and backslashes, numbers,
booleans, nulls, arrays and objects; keys removed and added) are fed to ONE jq process
running the loader over each input, and every output is checked: either the loader
refused the config (a jq error), or it wrote exactly the expected make variables, one a
line, with no control character, every '$' doubled and every '#' escaped, so no value can
start a make line, a rule or a comment of its own.

usage: study_config.py [--runs N | --seconds T] [--seed S] [--batch B] [--save DIR] [--replay DIR]
Prints the executions and the accepted / refused counts; exit 1 (and the input saved
under DIR, default tests/fuzz/regressions/study_config/) on the first violation.
--replay DIR only checks the saved inputs in DIR (make check does)."""
import argparse, glob, json, os, random, re, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOADER = os.environ.get("STUDY_CONFIG_JQ", os.path.join(ROOT, "pipelines", "study-config.jq"))
# The variables in order; after CONTROLLERS come zero or more CONTROLLER_ARM and POLICY_ARM
# lines (one per controller arm and per arm whose policy is a file of its own).
VARS_HEAD = ["TRACE_KIND", "TRACE_ARGS", "TRACE_FILES", "TRACE_STREAM", "SCAN_ARGS", "EXCLUDE", "MIN_START",
             "WARMUP_SECONDS", "WARMUP_SPOT", "SPLIT", "ARMS", "CONTROLLERS"]
VARS_TAIL = ["BASELINE", "SLO", "REPETITIONS", "ADAPTIVE", "AGENT_SELECTIONS", "CALIBRATION_FRACTION"]
ARM_VAR = re.compile(r"^(CONTROLLER|POLICY)_[A-Za-z0-9][A-Za-z0-9._-]*$")
HOSTILE = ["\n", "\nall:\n\ttouch pwned\n", "\t", "\r", "\x1b[2J", "\x00", "$", "$(shell id)", "#", "# comment", "'", '"', "\\",
           "\\\n", " ", "", "native-fifo", "a b", ";rm -rf x;", "`id`", "\u2028", "\u00e9", "x" * 300, "--flag", "-"]

def rand_value(rnd, depth=0):
    k = rnd.randrange(9 if depth < 2 else 6)
    if k == 0:
        return "".join(rnd.choice(HOSTILE) for _ in range(rnd.randrange(1, 4)))
    if k == 1:
        return rnd.choice([0, 1, -1, 2, 3, 5, 2 ** 31, 2 ** 63, 0.5, -0.0, 1e300, 3600, 86400, 1.5])
    if k == 2:
        return rnd.choice([True, False, None])
    if k in (3, 4, 5):
        return rnd.choice(HOSTILE)
    if k in (6, 7):
        return [rand_value(rnd, depth + 1) for _ in range(rnd.randrange(0, 6))]
    return {rnd.choice(["rule", "stream", "x", "import", "calibration_windows", "min_hp"]): rand_value(rnd, depth + 1)}

def paths(v, prefix=()):
    yield prefix
    if isinstance(v, dict):
        for key, x in v.items():
            yield from paths(x, prefix + (key,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from paths(x, prefix + (i,))

def mutate(rnd, doc):
    doc = json.loads(json.dumps(doc))
    for _ in range(rnd.randrange(1, 4)):
        ps = [p for p in paths(doc) if p]
        if not ps:
            break
        p = rnd.choice(ps)
        parent = doc
        for step in p[:-1]:
            parent = parent[step]
        op = rnd.randrange(10)
        if op == 0 and isinstance(parent, dict):
            del parent[p[-1]]
        elif op == 1 and isinstance(parent, dict):
            parent[rnd.choice(["bogus", "arms", "slo", "trace", "windows"])] = rand_value(rnd)
        elif op == 2 and isinstance(parent[p[-1]], str):
            s = parent[p[-1]]
            i = rnd.randrange(len(s) + 1)
            parent[p[-1]] = s[:i] + rnd.choice(HOSTILE) + s[i:]
        else:
            parent[p[-1]] = rand_value(rnd)
    return doc

# A value of a make variable: no control character, '$' only doubled, '#' only escaped.
def value_ok(v):
    if re.search(r"[\x00-\x1f\x7f]", v):
        return False
    if "$" in v.replace("$$", ""):
        return False
    return re.search(r"(^|[^\\])#", v) is None

def check(out):
    lines = out.split("\n")
    if not lines or not lines[0].startswith("# generated"):
        return "no header comment"
    names = []
    for line in lines[1:]:
        m = re.match(r"^([A-Za-z0-9_.-]+) := (.*)$", line)
        if not m:
            return "not a variable line: %r" % line[:80]
        if not value_ok(m.group(2)):
            return "unsafe value: %r" % line[:120]
        names.append(m.group(1))
    k = len(VARS_HEAD)
    if names[:k] != VARS_HEAD or names[len(names) - len(VARS_TAIL):] != VARS_TAIL or len(names) < k + len(VARS_TAIL) \
            or not all(ARM_VAR.match(n) for n in names[k:len(names) - len(VARS_TAIL)]):
        return "variables %r" % names
    return None

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10 ** 9)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=20000)
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--save", default=os.path.join(ROOT, "tests", "fuzz", "regressions", "study_config"))
    ap.add_argument("--replay")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    seeds = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(ROOT, "configs", "studies", "*.json")))]
    program = "def load:\n" + open(LOADER).read() + "\n;\ninputs | try {ok: load} catch {err: (. | tostring)}"
    done = accepted = 0
    start = time.time()
    replay = sorted(glob.glob(os.path.join(a.replay, "*.json"))) if a.replay else None
    if replay is not None:
        a.runs = len(replay)
    while done < a.runs and not (a.seconds and time.time() - start > a.seconds):
        n = min(a.batch, a.runs - done)
        if replay is not None:
            docs = [json.load(open(f)) for f in replay]
        else:
            docs = [mutate(rnd, rnd.choice(seeds)) if rnd.random() < 0.97 else rnd.choice(seeds) for _ in range(n)]
        text = "".join(json.dumps(d) + "\n" for d in docs)
        p = subprocess.run(["jq", "-n", "-c", program], input=text.encode(), capture_output=True)
        if p.returncode != 0:
            sys.exit("jq failed: " + p.stderr.decode()[:300])
        results = [json.loads(l) for l in p.stdout.decode().split("\n") if l]
        if len(results) != n:
            sys.exit("jq gave %d results for %d inputs" % (len(results), n))
        for doc, r in zip(docs, results):
            if "ok" in r:
                accepted += 1
                why = check(r["ok"]) if isinstance(r["ok"], str) else "output is not text"
                if why and replay is not None:
                    print("study_config: VIOLATION (%s) in a saved input" % why)
                    sys.exit(1)
                if why:
                    os.makedirs(a.save, exist_ok=True)
                    path = os.path.join(a.save, "violation-%d.json" % (done + 1))
                    json.dump(doc, open(path, "w"))
                    print("study_config: VIOLATION (%s), input saved as %s" % (why, path))
                    sys.exit(1)
        done += n
    print("study_config: %d executions, %d accepted, %d refused, 0 violations" % (done, accepted, done - accepted))

if __name__ == "__main__":
    main()
