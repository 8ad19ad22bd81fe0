#!/usr/bin/env python3
"""Fuzz the study config loader, pipelines/study-config.jq (jq, not C: libFuzzer cannot
reach it). Seeded structural mutations of configs/studies/*.json (values replaced by
hostile strings with control characters, '$', '#', quotes and backslashes, numbers,
booleans, nulls, arrays and objects; keys removed and added) are fed to ONE jq process
running the loader over each input, and every output is checked on two sides: either the
loader refused the config (a jq error), or
- make side: it wrote exactly the expected make variables, one a line, with no control
  character, every '$' doubled and every '#' escaped (after an odd number of backslashes),
  so no value can start a make line, a rule or a comment of its own;
- shell side: every variable, put into a recipe unquoted the way pipelines/study.mk uses it
  (the file names and identifiers expanded twice, as through $(eval) in the window rules;
  the trace tool's arguments once), and run by make and sh, reaches printf as exactly the
  config's values, one intact argv word each (numbers and fixed words as tokens that mean
  nothing to the shell). One make per batch runs the recipes in a scratch directory, so a
  value that did run a command could do no harm there.

usage: study_config.py [--runs N | --seconds T] [--seed S] [--batch B] [--save DIR] [--replay DIR]
Prints the executions and the accepted / refused counts; exit 1 (and the input saved
under DIR, default tests/fuzz/regressions/study_config/) on the first violation.
--replay DIR only checks the saved inputs in DIR (make check does)."""
import argparse, glob, json, os, random, re, shutil, subprocess, sys, tempfile, time

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

# A value of a make variable: no control character, '$' only doubled, '#' only escaped (make
# halves the backslashes before a '#': an even number of them leaves a comment).
def value_ok(v):
    if re.search(r"[\x00-\x1f\x7f]", v):
        return False
    if "$" in v.replace("$$", ""):
        return False
    return all(len(m.group(1)) % 2 == 1 for m in re.finditer(r"(\\*)#", v))

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

# --- the shell side -------------------------------------------------------------------------
DEFAULT_SLO = "configs/slos/schednav-demo-slo-v1.json"
# Values that are not the config's strings: numbers and fixed words, which must be plain tokens.
TOKEN = re.compile(r"^(--?[a-z][a-z-]*|[-+]?[0-9][0-9.eE+-]*|yes|no|import|synth|stream|fraction|counts)$")
ONCE = {"TRACE_ARGS"}           # used only in plain rules and $(shell): expanded once
TOKENS = {"TRACE_KIND", "SCAN_ARGS", "MIN_START", "WARMUP_SECONDS", "WARMUP_SPOT", "SPLIT", "REPETITIONS",
          "ADAPTIVE", "CALIBRATION_FRACTION"}

def expected_words(doc):
    """What each variable must deliver to a command, from the config itself (None: tokens)."""
    t, w = doc["trace"], doc["windows"]
    arms, ctl, pol = [], {}, {}
    for a in doc["arms"]:
        a = {"policy": a} if isinstance(a, str) else a
        name = a["policy"]
        if name.endswith(".json"):
            pol[name.split("/")[-1][:-5]] = name
            name = name.split("/")[-1][:-5]
        arms.append(name)
        if a.get("controller") is not None:
            ctl[name] = a["controller"]
    stream = t.get("stream")
    exp = {"TRACE_ARGS": list(t.get("import") or t.get("synth") or []),
           "TRACE_FILES": list(t.get("files") or []) + ([stream] if stream else []),
           "TRACE_STREAM": [stream] if stream else [], "EXCLUDE": list(w.get("exclude") or []),
           "ARMS": arms, "CONTROLLERS": sorted(set(ctl.values())), "BASELINE": [doc.get("baseline") or "native-fifo"],
           "SLO": [doc.get("slo") or DEFAULT_SLO],
           "AGENT_SELECTIONS": [doc["adaptive"]["agent_selections"]] if doc.get("adaptive") is not None else []}
    for k, v in ctl.items():
        exp["CONTROLLER_" + k] = [v]
    for k, v in pol.items():
        exp["POLICY_" + k] = [v]
    return exp

def variables(out):
    return [tuple(re.match(r"^([A-Za-z0-9_.-]+) := (.*)$", line).groups()) for line in out.split("\n")[1:]]

def shell_batch(items, workdir):
    """items: [(key, config.mk text)]. Runs every variable through make and sh; returns
    {key: [[words of variable 1], ...]} for the configs whose recipe ran."""
    mk = []
    chunks = [items[i:i + 50] for i in range(0, len(items), 50)]   # one sh -c argument stays < 128 KiB
    for c, chunk in enumerate(chunks):
        recipe = []
        for key, out in chunk:
            recipe.append("printf '\\035%%s\\036' %s" % key)
            for name, value in variables(out):
                mk.append("C%s_%s := %s" % (key, name, value))
                ref = "$$(C%s_%s)" % (key, name) if name in ONCE else "$(C%s_%s)" % (key, name)
                recipe.append("printf '%%s\\037' x %s; printf '\\036'" % ref)
        mk.append("define fz_%d\n%s\nendef" % (c, "; ".join(recipe)))
        # $(call) expands the file names and identifiers once, the recipe a second time
        mk.append("$(eval fz-%d: ; @$(call fz_%d))" % (c, c))
    mk.append("all: " + " ".join("fz-%d" % c for c in range(len(chunks))))
    path = os.path.join(workdir, "batch.mk")
    with open(path, "w") as f:
        f.write("\n".join(mk) + "\n")
    p = subprocess.run(["make", "-k", "-s", "-f", path, "all"], cwd=workdir, capture_output=True)
    got = {}
    for seg in p.stdout.decode("utf-8", "replace").split("\035")[1:]:
        parts = seg.split("\036")
        got[parts[0]] = [f.split("\037")[:-1] for f in parts[1:-1]]
    return got

def shell_check(doc, out, words):
    if words is None:
        return "its recipe did not run (make or sh failed)"
    exp = expected_words(doc)
    names = [n for n, _ in variables(out)]
    if len(words) != len(names):
        return "%d variables reached the shell, not %d" % (len(words), len(names))
    for name, got in zip(names, words):
        if got[:1] != ["x"]:
            return "variable %s lost its marker: %r" % (name, got[:3])
        got = got[1:]
        if name in TOKENS:
            if not all(TOKEN.match(wd) for wd in got):
                return "variable %s: %r is not a plain token" % (name, got)
        elif got != exp.get(name):
            return "variable %s reached the command as %r, not %r" % (name, got, exp.get(name))
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
    scratch = tempfile.mkdtemp(prefix="study-config-fuzz.")
    try:
        fuzz(a, rnd, seeds, program, scratch)
    finally:
        shutil.rmtree(scratch)

def fuzz(a, rnd, seeds, program, scratch):
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
        shell = []
        for i, (doc, r) in enumerate(zip(docs, results)):
            if "ok" in r:
                accepted += 1
                why = check(r["ok"]) if isinstance(r["ok"], str) else "output is not text"
                if why:
                    violation(a, replay, doc, why, done + i + 1)
                shell.append(("k%d" % i, doc, r["ok"]))
        got = shell_batch([(k, out) for k, _, out in shell], scratch)
        for k, doc, out in shell:
            why = shell_check(doc, out, got.get(k))
            # a config that broke its chunk's recipe is found by running each config alone
            if why and shell_check(doc, out, shell_batch([(k, out)], scratch).get(k)):
                violation(a, replay, doc, "shell: " + why, done + int(k[1:]) + 1)
        done += n
    print("study_config: %d executions, %d accepted, %d refused, 0 violations (make and shell side)" % (done, accepted, done - accepted))

def violation(a, replay, doc, why, n):
    if replay is not None:
        print("study_config: VIOLATION (%s) in a saved input" % why)
        sys.exit(1)
    os.makedirs(a.save, exist_ok=True)
    path = os.path.join(a.save, "violation-%d.json" % n)
    json.dump(doc, open(path, "w"))
    print("study_config: VIOLATION (%s), input saved as %s" % (why, path))
    sys.exit(1)

if __name__ == "__main__":
    main()
