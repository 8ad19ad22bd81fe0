#!/usr/bin/env python3
"""Run a tool's error cases: the files tests/cases/TOOL/*.case (format: docs/testing.md).

usage: run-cases.py [--var NAME=VALUE]... [--only NAME] TOOL SCRATCH-DIR

Each case derives its input (a fixture, or literal lines) by a list of edits, runs TOOL
with its argv (never through a shell), and checks the exit status, stderr and that
stdout is empty. One line per case: "ok NAME" or "not ok NAME" followed by what differed.
Exit 0 when every case passed, 1 when one failed, 2 when a case file is malformed (the
message names its PATH:LINE) or the tool has no case files. --only NAME runs the cases
NAME matches (a name, or a shell pattern such as 'slurm-*'). The --var values are what
the suite built (fixture paths); a case names them as {NAME}. TOOL is also the name of
the case directory; a suite about several tools (tests/tenant-controller.bats) keeps its
cases in tests/cases/SUITE/ and each case names its program with the 'tool' key. A
directory input is copied whole and each edit names its file first
('jobs.csv replace A => B'); 'canon-reseal' reseals a trace directory (docs/testing.md).
"""
import fnmatch
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EDIT = os.path.join(HERE, "stream_edit.py")
PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")
# key -> may it repeat
KEYS = {
    "args": False, "input": False, "input-name": False, "line": True, "edit": True,
    "stdin": False, "status": False, "stderr": True, "stderr-has": True,
    "stderr-matches": True, "no-file": True, "tool": False,
}
EDITS = ("replace", "line", "delete-line", "crlf", "head", "drop-last-lines", "drop-last-bytes", "drop-end", "seal",
         "reseal", "set", "jq", "jq-line", "truncate", "append")
# edits of a directory input (a trace directory of trace-import canonical) as a whole
DIR_EDITS = ("canon-reseal",)
CANON = os.path.join(HERE, "canon-fixture.py")
ESCAPE = re.compile(rb"\\(x[0-9a-fA-F]{2}|[nrt0\\])")


class Malformed(Exception):
    pass


def parse(path):
    """The case as {key: [(line number, value)...]} plus its description; Malformed on error."""
    case, about = {}, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for no, line in enumerate(lines, 1):
        if line.startswith("#"):
            if about is None:
                about = line[1:].strip()
            continue
        if not line.strip():
            continue
        m = re.match(r"^([a-z-]+): ?(.*)$", line)
        if not m:
            raise Malformed("%s:%d: expected 'key: value', a '# comment' or a blank line" % (path, no))
        key, value = m.group(1), m.group(2)
        if key not in KEYS:
            raise Malformed("%s:%d: unknown key '%s' (known: %s)" % (path, no, key, ", ".join(sorted(KEYS))))
        if key in case and not KEYS[key]:
            raise Malformed("%s:%d: '%s' given twice" % (path, no, key))
        case.setdefault(key, []).append((no, value))
    if not about:
        raise Malformed("%s:1: a case starts with a '# comment' saying what it tests" % path)
    for key in ("args", "status"):
        if key not in case:
            raise Malformed("%s: missing '%s'" % (path, key))
    if not any(k in case for k in ("stderr", "stderr-has", "stderr-matches")):
        raise Malformed("%s: no stderr expectation (stderr, stderr-has or stderr-matches)" % path)
    if "input" in case and "line" in case:
        raise Malformed("%s:%d: 'input' and 'line' both given: the input is a fixture or literal lines" % (path, case["line"][0][0]))
    if ("edit" in case or "input-name" in case) and "input" not in case and "line" not in case:
        raise Malformed("%s:%d: an edit or input-name without an input ('input' or 'line')" % (path, case.get("edit", case.get("input-name"))[0][0]))
    no, status = case["status"][0]
    if not re.fullmatch(r"[0-9]{1,3}", status):
        raise Malformed("%s:%d: status must be an exit code, not '%s'" % (path, no, status))
    for no, e in case.get("edit", []):
        words = e.split(" ", 2)
        if words[0] not in EDITS + DIR_EDITS and (len(words) < 2 or words[1] not in EDITS):
            raise Malformed("%s:%d: unknown edit '%s' (known: %s)" % (path, no, words[0], ", ".join(EDITS + DIR_EDITS)))
    for no, pattern in case.get("stderr-matches", []):
        try:
            re.compile(pattern)
        except re.error as err:
            raise Malformed("%s:%d: stderr-matches: bad regular expression: %s" % (path, no, err))
    return case, about


def expand(path, no, text, env):
    def one(m):
        if m.group(1) not in env:
            raise Malformed("%s:%d: unknown placeholder {%s} (known: %s)" % (path, no, m.group(1), ", ".join(sorted(env))))
        return env[m.group(1)]
    return PLACEHOLDER.sub(one, text)


def tool(argv, data):
    """Run a helper (stream-seal, stream_edit.py, jq) on data; its failure is the case's."""
    p = subprocess.run(argv, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise Malformed("edit: %s exited %d: %s" % (argv[0], p.returncode, p.stderr.decode(errors="replace").strip()))
    return p.stdout


def unescape(text):
    """append's TEXT as bytes: \\n, \\r, \\t, \\0, \\\\ and \\xHH are escapes (a NUL or a byte
    that is not UTF-8 can be written), every other character is its UTF-8 encoding."""
    plain = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"0": b"\0", b"\\": b"\\"}
    return ESCAPE.sub(lambda m: plain.get(m.group(1)) or bytes([int(m.group(1)[1:], 16)]), text.encode())


def apply_edit(path, no, edit, data):
    """One edit of the input bytes. An edit that changes nothing is an error: the case
    would then test the fixture, not the edit."""
    verb, _, rest = edit.partition(" ")
    lines = data.split(b"\n")
    if verb == "replace":
        old, sep, new = rest.partition(" => ")
        if not sep or not old:
            raise Malformed("%s:%d: replace OLD => NEW" % (path, no))
        if old.encode() not in data:
            raise Malformed("%s:%d: replace: '%s' is not in the input" % (path, no, old))
        out = data.replace(old.encode(), new.encode())
    elif verb == "line":
        n, sep, text = rest.partition(" => ")
        if not sep or not n.isdigit() or not 1 <= int(n) < len(lines):
            raise Malformed("%s:%d: line N => TEXT, with N an input line" % (path, no))
        lines[int(n) - 1] = text.encode()
        out = b"\n".join(lines)
    elif verb == "delete-line":
        if not rest.isdigit() or not 1 <= int(rest) < len(lines):
            raise Malformed("%s:%d: delete-line N, with N an input line" % (path, no))
        del lines[int(rest) - 1]
        out = b"\n".join(lines)
    elif verb == "crlf":
        if rest:
            raise Malformed("%s:%d: crlf takes no argument" % (path, no))
        out = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    elif verb in ("head", "drop-last-lines", "drop-last-bytes"):
        if not rest.isdigit() or int(rest) < 1:
            raise Malformed("%s:%d: %s N, N >= 1" % (path, no, verb))
        n = int(rest)
        body = lines[:-1] if lines[-1] == b"" else lines
        if verb == "head":
            out = b"".join(l + b"\n" for l in body[:n])
        elif verb == "drop-last-lines":
            out = b"".join(l + b"\n" for l in body[:-n])
        else:
            out = data[:-n]
    elif verb == "truncate":
        if not rest.isdigit() or not 0 <= int(rest) < len(data):
            raise Malformed("%s:%d: truncate N keeps the first N bytes, N < the input's size" % (path, no))
        out = data[:int(rest)]
    elif verb == "append":
        if not rest:
            raise Malformed("%s:%d: append TEXT" % (path, no))
        out = data + unescape(rest)
    elif verb == "drop-end":
        out = b"".join(l + b"\n" for l in lines if l and b'"type":"end"' not in l)
    elif verb == "seal":
        out = tool([os.path.join(BIN, "stream-seal")], data)
    elif verb == "reseal":
        out = tool([sys.executable, EDIT, "--reseal"], data)
    elif verb == "set":
        out = tool([sys.executable, EDIT, "--set"] + shlex.split(rest), data)
    elif verb == "jq":
        out = tool(["jq", rest], data)
    elif verb == "jq-line":
        n, _, flt = rest.partition(" ")
        if not n.isdigit() or not 1 <= int(n) < len(lines) or not flt:
            raise Malformed("%s:%d: jq-line N FILTER, with N an input line" % (path, no))
        lines[int(n) - 1] = tool(["jq", "-c", flt], lines[int(n) - 1]).rstrip(b"\n")
        out = b"\n".join(lines)
    if verb != "seal" and verb != "reseal" and out == data:
        raise Malformed("%s:%d: the edit '%s' changed nothing" % (path, no, edit))
    return out


def derive_dir(path, case, src, work, env):
    """A directory input: copied whole (symbolic links as links) to {tmp}/NAME, which is
    {input}; an edit names the file it edits first ('jobs.csv replace A => B'), and
    'canon-reseal [KEY=JSON]...' reseals a trace directory (tests/canon-fixture.py)."""
    name = os.path.basename(os.path.normpath(src))
    if "input-name" in case:
        no, name = case["input-name"][0]
        if "/" in name or name in ("", ".", ".."):
            raise Malformed("%s:%d: input-name is a plain file name" % (path, no))
    env["input"] = os.path.join(work, name)
    shutil.copytree(src, env["input"], symlinks=True)
    for no, e in case.get("edit", []):
        first, _, rest = e.partition(" ")
        if first == "canon-reseal":
            tool([sys.executable, CANON, "reseal", env["input"]] + shlex.split(rest), b"")
            continue
        target = os.path.normpath(os.path.join(env["input"], first))
        if first.startswith("/") or not target.startswith(env["input"] + os.sep) or not os.path.isfile(target):
            raise Malformed("%s:%d: '%s': an edit of a directory input names one of its files first" % (path, no, e))
        with open(target, "rb") as f:
            data = f.read()
        data = apply_edit(path, no, rest, data)
        with open(target, "wb") as f:
            f.write(data)


def run_case(path, name, scratch, variables):
    case, about = parse(path)
    work = os.path.join(scratch, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(variables, tmp=work, root=ROOT)
    data = None
    if "input" in case and os.path.isdir(expand(path, *case["input"][0], env)):
        derive_dir(path, case, expand(path, *case["input"][0], env), work, env)
    elif "input" in case:
        no, src = case["input"][0]
        src = expand(path, no, src, env)
        with open(src, "rb") as f:
            data = f.read()
        name_in = os.path.basename(src)
    elif "line" in case:
        data = b"".join(v.encode() + b"\n" for _, v in case["line"])
        name_in = "input.ndjson"
    if data is not None:
        if "input-name" in case:
            no, name_in = case["input-name"][0]
            if "/" in name_in or name_in in ("", ".", ".."):
                raise Malformed("%s:%d: input-name is a plain file name" % (path, no))
        for no, e in case.get("edit", []):
            if e.split(" ", 1)[0] not in EDITS:
                raise Malformed("%s:%d: '%s': the input is a file, not a directory" % (path, no, e))
            data = apply_edit(path, no, e, data)
        env["input"] = os.path.join(work, name_in)
        with open(env["input"], "wb") as f:
            f.write(data)
    no, args = case["args"][0]
    try:
        words = shlex.split(args)
    except ValueError as err:
        raise Malformed("%s:%d: args: %s" % (path, no, err))
    program = TOOL
    if "tool" in case:
        no, name = case["tool"][0]
        if not re.fullmatch(r"[a-z][a-z0-9-]*", name):
            raise Malformed("%s:%d: tool is the name of a program in the tools' directory" % (path, no))
        program = os.path.join(BIN, name)
    argv = [program] + [expand(path, no, w, env) for w in words]
    stdin = subprocess.DEVNULL
    if "stdin" in case:
        no, src = case["stdin"][0]
        stdin = open(expand(path, no, src, env), "rb")
    try:
        p = subprocess.run(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=work)
    finally:
        if stdin is not subprocess.DEVNULL:
            stdin.close()
    err = p.stderr.decode("utf-8", errors="replace")
    want = int(case["status"][0][1])
    problems = []
    if p.returncode != want:
        problems.append("exit status %d, expected %d" % (p.returncode, want))
    if p.stdout:
        problems.append("stdout is not empty: %r" % p.stdout[:200])
    if "stderr" in case:
        values = [expand(path, no, v, env) for no, v in case["stderr"]]
        exact = "" if values == [""] else "".join(v + "\n" for v in values)
        if err != exact:
            problems.append("stderr differs; expected:\n%s" % exact.rstrip("\n"))
    for no, v in case.get("stderr-has", []):
        v = expand(path, no, v, env)
        if v not in err:
            problems.append("stderr lacks: %s" % v)
    for no, v in case.get("stderr-matches", []):
        v = expand(path, no, v, env)
        if not re.search(v, err, re.M):
            problems.append("stderr does not match: %s" % v)
    for no, v in case.get("no-file", []):
        f = expand(path, no, v, env)
        left = [f] if os.path.lexists(f) else []
        d, b = os.path.split(f)
        left += [os.path.join(d, x) for x in sorted(os.listdir(d or ".")) if x.startswith(b + ".") or x.startswith("." + b)]
        if left:
            problems.append("left behind after the failed run: %s" % ", ".join(left))
    if problems:
        problems.append("argv: %s" % " ".join(shlex.quote(a) for a in argv))
        problems.append("stderr was:\n%s" % err.rstrip("\n"))
    return about, problems


def main():
    global TOOL, BIN
    args = sys.argv[1:]
    variables, only = {}, None
    while args and args[0].startswith("--"):
        if args[0] == "--var" and len(args) > 1 and re.fullmatch(r"[a-z][a-z0-9_]*=.*", args[1]):
            k, v = args[1].split("=", 1)
            variables[k] = v
        elif args[0] == "--only" and len(args) > 1:
            only = args[1]
        else:
            sys.exit(__doc__.split("\n\n")[1])
        args = args[2:]
    if len(args) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    name, scratch = args
    BIN = os.environ.get("SCHEDNAV_BIN", os.path.join(ROOT, "bin"))
    TOOL = os.path.join(BIN, name)
    files = sorted(glob.glob(os.path.join(HERE, "cases", name, "*.case")))
    if only is not None:
        files = [f for f in files if fnmatch.fnmatchcase(os.path.basename(f)[:-5], only)]
    if not files:
        print("run-cases: no case files tests/cases/%s/%s.case" % (name, only or "*"))
        return 2
    failed = malformed = 0
    for path in files:
        case = os.path.basename(path)[:-5]
        try:
            about, problems = run_case(path, case, scratch, variables)
        except (Malformed, OSError) as err:
            print("not ok %s: malformed case: %s" % (case, err))
            malformed += 1
            continue
        if problems:
            print("not ok %s: %s" % (case, about))
            for line in "\n".join(problems).split("\n"):
                print("    " + line)
            failed += 1
        else:
            print("ok %s: %s" % (case, about))
    print("%s: %d cases, %d failed, %d malformed" % (name, len(files), failed, malformed))
    return 2 if malformed else 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
