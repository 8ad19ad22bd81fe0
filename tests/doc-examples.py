#!/usr/bin/env python3
"""doc-examples.py BIN ROOT DOC... -- run the runnable shell blocks of Markdown pages.
doc-examples.py --in CLONE DOC... -- the same from the top of CLONE, as a reader of its README.

Every fenced block whose info string starts with "sh" must be preceded (the nearest
non-blank line above its opening fence) by one marker:

  <!-- runnable -->                  run it
  <!-- runnable requires=PATH -->    run it when ROOT/PATH exists, else skip naming PATH
  <!-- skip: REASON -->              never run it; REASON says why (../shared, minutes of CPU)

A block without a marker is an error, so a new example cannot escape the test. The blocks
of one page run in order in one scratch directory (a later block may use the files an
earlier one wrote) holding links to ROOT's configs, tests, examples, pipelines, schemas and
docs and bin -> BIN; PATH starts with BIN, LC_ALL=C, TZ=UTC.

A block with lines starting with "$ " is a transcript: those lines (and the lines that
continue them: after a trailing backslash or pipe) are the commands, the other lines the
exact stdout expected. Any other block runs as a bash script with -e -o pipefail and must
exit 0. Prints one line per block ("ran", "skipped" with the reason, "FAILED" with the
output) and a summary "DOC: N run, M skipped"; exits 1 if any block failed or lacks a marker.

With --in CLONE the blocks run from the top of CLONE itself (a fresh clone with its bin/
built), with PATH as it is (nothing of bin/ added: the examples must call bin/TOOL), and a
block's requires= path is looked up in CLONE. tests/doc-examples.bats checks that CLONE
holds no file afterwards that it did not hold before.
"""
import os
import shutil
import re
import subprocess
import sys
import tempfile

MARKER = re.compile(r'^<!--\s*(runnable(?:\s+requires=(\S+))?|skip:\s*(.+?))\s*-->\s*$')
LINKS = ("configs", "tests", "examples", "pipelines", "schemas", "docs")


def blocks(path):
    """(line, marker, requires, reason, body lines) for every ```sh block of path."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r'^(\s*)(```+)\s*(\S*)', lines[i])
        if not m:
            i += 1
            continue
        fence, info, start = m.group(2), m.group(3), i
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        if info == "sh" or info.startswith("sh "):
            k = start - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            mk = MARKER.match(lines[k].strip()) if k >= 0 else None
            body = [ln[len(m.group(1)):] if ln.startswith(m.group(1)) else ln for ln in lines[start + 1:j]]
            if not mk:
                out.append((start + 1, None, None, None, body))
            elif mk.group(3):
                out.append((start + 1, "skip", None, mk.group(3), body))
            else:
                out.append((start + 1, "run", mk.group(2), None, body))
        i = j + 1
    return out


def transcript(body):
    """Split a "$ " block into (script, expected stdout)."""
    cmds, expected, cont = [], [], False
    for ln in body:
        if ln.startswith("$ ") or cont:
            cmd = ln[2:] if ln.startswith("$ ") and not cont else ln
            cmds.append(cmd)
            s = cmd.rstrip()
            cont = s.endswith("\\") or s.endswith("|")
        else:
            expected.append(ln)
    return "\n".join(cmds) + "\n", "\n".join(expected).rstrip("\n") + "\n" if expected else ""


def scratch_dir(bin_dir, root, env):
    """A scratch directory with links to ROOT's data and bin/, and the environment to run in."""
    scratch = tempfile.mkdtemp(prefix="doc-examples.")
    for d in LINKS:
        os.symlink(os.path.join(root, d), os.path.join(scratch, d))
    doc_env = env
    if os.path.isdir(os.path.join(bin_dir, "..", "configs")):
        os.symlink(bin_dir, os.path.join(scratch, "bin"))
    else:
        # a build outside bin/ (make asan: build-asan/bin): the tools that find their
        # data beside them (schednav-mcp: EXEC/../configs) must run from scratch/bin,
        # as from a clone's bin/, so copy them there
        os.mkdir(os.path.join(scratch, "bin"))
        for t in sorted(os.listdir(bin_dir)):
            src = os.path.join(bin_dir, t)
            if os.path.isfile(src):
                shutil.copy2(src, os.path.join(scratch, "bin", t))
        doc_env = dict(env, PATH=os.path.join(scratch, "bin") + ":" + env["PATH"])
    return scratch, doc_env


def main():
    clone = None
    if len(sys.argv) >= 3 and sys.argv[1] == "--in":
        clone, docs = os.path.abspath(sys.argv[2]), sys.argv[3:]
        root = clone
    elif len(sys.argv) >= 4:
        bin_dir, root, docs = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3:]
    if (clone is None and len(sys.argv) < 4) or not docs:
        sys.stderr.write("usage: doc-examples.py BIN ROOT DOC...\n       doc-examples.py --in CLONE DOC...\n")
        return 2
    env = dict(os.environ, LC_ALL="C", TZ="UTC")
    env.pop("SCHEDNAV_BIN", None)   # examples/ find bin/ beside them, as in a clone
    if clone is None:
        env["PATH"] = bin_dir + ":" + os.environ.get("PATH", "")
    else:
        # nothing of SchedNav on PATH: a directory holding sim-run is dropped from it
        env["PATH"] = ":".join(d for d in env.get("PATH", "").split(":")
                               if d and not os.path.exists(os.path.join(d, "sim-run")))
    failed = ran = skipped = 0
    for doc in docs:
        name = os.path.relpath(os.path.abspath(doc), root)
        if name.startswith(".."):
            name = doc
        if clone is None:
            scratch, doc_env = scratch_dir(bin_dir, root, env)
        else:
            scratch, doc_env = clone, env
        for line, mode, requires, reason, body in blocks(doc):
            where = "%s:%d" % (name, line)
            if mode is None:
                print("FAILED %s: an sh block without <!-- runnable --> or <!-- skip: REASON -->" % where)
                failed += 1
                continue
            if mode == "skip":
                print("skipped %s: %s" % (where, reason))
                skipped += 1
                continue
            if requires and not os.path.exists(os.path.join(root, requires)):
                print("skipped %s: needs %s" % (where, requires))
                skipped += 1
                continue
            is_transcript = any(ln.startswith("$ ") for ln in body)
            script, expected = transcript(body) if is_transcript else ("\n".join(body) + "\n", None)
            p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=scratch, env=doc_env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT if not is_transcript else subprocess.PIPE)
            out = p.stdout.decode("utf-8", "replace")
            ok = p.returncode == 0 and (expected is None or out == expected)
            ran += 1
            if ok:
                print("ran %s" % where)
                continue
            failed += 1
            print("FAILED %s: exit %d" % (where, p.returncode))
            print("  script:\n" + "".join("    " + ln + "\n" for ln in script.rstrip("\n").split("\n")))
            if expected is not None:
                print("  expected:\n" + "".join("    " + ln + "\n" for ln in expected.rstrip("\n").split("\n")))
                if p.stderr:
                    out += p.stderr.decode("utf-8", "replace")
            print("  got:\n" + "".join("    " + ln + "\n" for ln in out.rstrip("\n").split("\n")[-40:]))
        if clone is None:
            subprocess.run(["rm", "-rf", scratch])
    print("doc-examples: %d run, %d skipped, %d failed" % (ran, skipped, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
