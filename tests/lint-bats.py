#!/usr/bin/env python3
"""Reject Bats lines that can never fail a test.

usage: lint-bats.py FILE...     (exit 0 clean, 1 with one "PATH:LINE: message" per finding)

Bats runs a test under `set -e`, and bash does not stop for a failing command that is
negated with `!` or that is a non-last part of an `&&` list. So, in the middle of a test,
`! grep -q x f` and `[ -e a ] && [ -e b ]` pass whatever happens. This lint rejects:

  - a statement that starts with `!`          (write `run ! cmd`, or `run cmd` + assert_failure N)
  - an `a && b` list                           (write two lines, or `if`)
  - `|| true` / `|| :` after an assertion      ([, [[, test, assert_*, refute_*, cmp, diff, grep)
  - a bare `assert_failure`                    (give the exact exit status)
  - a `run` whose status nothing checks        (before the next `run` or the end of the
                                                function: assert_success, assert_failure N,
                                                a test of $status; or `run -N` / `run !`)
  - a project tool (tools/*.c) on the left of a pipe or inside `<( )` / `>( )`, in any
    command, substitutions included: bash drops its exit status there

A list that ends in `|| fail ...` (or `|| return|exit|skip`) is an explicit check and is
allowed, and so are `cond && continue|break|return|skip|exit` (control flow) and the
conditions of `if`, `elif`, `while` and `until`. Heredoc bodies, comments, quoted strings,
`$( )`, `( )` subshells and `[[ ]]` are not looked into.
"""
import glob
import os
import re
import sys

ASSERTIONS = re.compile(r"^(\[|\[\[|test|assert_\w*|refute_\w*|cmp|diff|grep)$")
EXPLICIT = re.compile(r"^(fail|return|exit|skip)$")
CONTROL = re.compile(r"^(continue|break|return|skip|exit)$")
CONDITION = ("if", "elif", "while", "until")
HEREDOC = re.compile(r"(?<!<)<<-?(?!<)\s*(['\"]?)([A-Za-z_][A-Za-z_0-9]*)\1")


def blank(s):
    return " " * len(s)


def strip(line):
    """Replace quoted text, comments, $( ), ( ) and [[ ]] contents by spaces (same length)."""
    out, i, n = [], 0, len(line)
    depth, dq = 0, False
    while i < n:
        c = line[i]
        if not dq and line.startswith("$'", i):
            j = i + 2
            while j < n and line[j] != "'":
                j += 2 if line[j] == "\\" else 1
            out.append("$'" + blank(line[i + 2:j]) + "'" if j < n else blank(line[i:]))
            i = j + 1
            continue
        if not dq and c == "'":
            j = line.find("'", i + 1)
            j = n if j < 0 else j
            out.append("''" + blank(line[i + 1:j]) if j < n else blank(line[i:]))
            i = j + 1
            continue
        if c == "\\" and i + 1 < n:
            out.append("  ")
            i += 2
            continue
        if c == '"':
            dq = not dq
            out.append(c)
            i += 1
            continue
        if dq:
            out.append(" ")
            i += 1
            continue
        if c == "#" and depth == 0 and (i == 0 or line[i - 1] in " \t;"):
            break
        if line.startswith("[[", i) and depth == 0:
            j = line.find("]]", i + 2)
            if j >= 0:
                out.append("[[" + blank(line[i + 2:j]) + "]]")
                i = j + 2
                continue
        if c == "(":
            depth += 1
            out.append("(" if depth == 1 else " ")
            i += 1
            continue
        if c == ")" and depth:
            depth -= 1
            out.append(")" if depth == 0 else " ")
            i += 1
            continue
        out.append(c if depth == 0 else " ")
        i += 1
    return "".join(out)


def logical_lines(text):
    """(first line number, stripped text) per logical line: heredoc bodies dropped,
    backslash continuations and trailing && / || / | joined."""
    lines = text.split("\n")
    pending, start, heredoc = "", 0, None
    for no, raw in enumerate(lines, 1):
        if heredoc:
            if raw.strip() == heredoc:
                heredoc = None
            continue
        s = strip(raw)
        m = HEREDOC.search(raw) if "<<" in s else None
        if m:
            heredoc = m.group(2)
        if not pending:
            start = no
        if s.rstrip().endswith("\\"):
            pending += s.rstrip()[:-1] + " "
            continue
        if re.search(r"(&&|\|\||\|)\s*$", s):
            pending += s + " "
            continue
        yield start, pending + s
        pending = ""
    if pending:
        yield start, pending


def statements(line):
    """Split a stripped logical line at top-level ; and keywords that start a new statement."""
    for part in re.split(r";|\bthen\b|\bdo\b|\belse\b|\{|\}", line):
        part = part.strip()
        if part:
            yield part


def words(cmd):
    return cmd.split()


def check_statement(st):
    first = words(st)[0] if words(st) else ""
    if first in CONDITION or first in ("fi", "done", "esac"):
        return None
    # the last element of the || chain
    ors = [p.strip() for p in re.split(r"\|\|", st)]
    tail = words(ors[-1])[0] if len(ors) > 1 and words(ors[-1]) else ""
    explicit = len(ors) > 1 and EXPLICIT.match(tail)
    if first == "!" and not explicit:
        return "'! cmd' never fails a Bats test: use 'run ! cmd' or 'run cmd' and assert_failure N"
    ands = [p.strip() for p in re.split(r"&&", ors[0])]
    if len(ands) > 1 and not explicit:
        last = words(ands[-1])[0] if words(ands[-1]) else ""
        if not CONTROL.match(last):
            return "a failing non-last part of 'a && b' never fails a Bats test: split it, or end it with '|| fail \"...\"'"
    for k in range(1, len(ors)):
        w = words(ors[k])
        if w and w[0] in ("true", ":"):
            before = words(ors[k - 1].split("&&")[-1])
            if before and (ASSERTIONS.match(before[0]) or before[0] == "!" and len(before) > 1 and ASSERTIONS.match(before[1])):
                return "'|| true' after an assertion means it can never fail"
    if re.fullmatch(r"assert_failure", st):
        return "bare 'assert_failure': give the exact exit status (assert_failure N)"
    return None


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = {os.path.basename(f)[:-2] for f in glob.glob(os.path.join(ROOT, "tools", "*.c"))}
# Commands that run the command after their options (timeout N CMD, env A=B CMD, ...).
WRAPPERS = {"timeout", "env", "nice", "setsid", "command", "exec", "time", "stdbuf", "nohup"}


def run_checked(st):
    """A run statement: True when run itself checks the status (run -N, run !)."""
    w = st.split()
    for x in w[1:]:
        if x == "!" or re.fullmatch(r"-\d+", x):
            return True
        if not x.startswith("-"):
            break
    return False


def run_findings(text):
    """Line numbers of `run` statements whose status nothing checks before the next `run`
    or the end of the function or test (a line '}' at the start). A check is
    assert_success, assert_failure N, or any use of $status (quoted or not)."""
    found, pending = [], None
    for no, raw in raw_logical_lines(text):
        if re.match(r"^}\s*$", raw):
            if pending:
                found.append(pending)
            pending = None
            continue
        for st in statements(strip(raw)):
            st = re.sub(r"^(if|elif|while|until|!)\s+", "", st)
            if re.match(r"^run(\s|$)", st):
                if pending:
                    found.append(pending)
                pending = None if run_checked(st) else no
            elif re.match(r"^(assert_success|assert_failure\s+\d)", st):
                pending = None
        if re.search(r"\$\{?status\b", raw) and not re.match(r"^\s*run\s", raw):
            pending = None
    if pending:
        found.append(pending)
    return found


def command_words(line):
    """Every simple command of a raw logical line, looking into $( ), <( ), >( ), ( ) and
    backquotes, also inside double quotes: (command name, followed by a pipe, inside a
    process substitution)."""
    out = []
    stack = [{"cmd": None, "words": 0, "procsub": False, "dq": False}]
    i, n, dq, word = 0, len(line), False, ""

    def end_word():
        nonlocal word
        top = stack[-1]
        if word:
            if top["cmd"] is None and not re.match(r"^[A-Za-z_][A-Za-z_0-9]*=", word):
                if top["words"] == 0 and word in ("if", "elif", "while", "until", "then", "do", "else", "!", "{", "time"):
                    pass
                elif top.get("wrap"):
                    if not (word.startswith("-") or re.fullmatch(r"[0-9.]+[smhd]?", word) or "=" in word):
                        top["cmd"] = word
                        top["wrap"] = False
                elif word in WRAPPERS:
                    top["wrap"] = True
                else:
                    top["cmd"] = word
            top["words"] += 1
        word = ""

    def end_command(piped):
        end_word()
        top = stack[-1]
        if top["cmd"] is not None:
            out.append((os.path.basename(top["cmd"].strip("\"'")), piped, any(c["procsub"] for c in stack)))
        top["cmd"], top["words"], top["wrap"] = None, 0, False

    while i < n:
        c = line[i]
        if c == "\\" and i + 1 < n:
            word += line[i + 1]
            i += 2
            continue
        if not dq and c == "'":
            j = line.find("'", i + 1)
            j = n if j < 0 else j
            word += line[i + 1:j]
            i = j + 1
            continue
        if c == '"':
            dq = not dq
            i += 1
            continue
        if c == "$" and line.startswith("$((", i):
            j = line.find("))", i)
            j = n if j < 0 else j + 2
            word += "x"
            i = j
            continue
        if line.startswith("$(", i) or (not dq and line.startswith(("<(", ">("), i)):
            stack.append({"cmd": None, "words": 0, "procsub": line[i] in "<>", "dq": dq, "wrap": False})
            dq = False
            i += 2
            continue
        if dq:
            word += c
            i += 1
            continue
        if c == "#" and not word:
            break
        if c == ")" and len(stack) > 1:
            end_command(False)
            dq = stack.pop()["dq"]
            word += "x"
            i += 1
            continue
        if line.startswith("||", i) or line.startswith("&&", i):
            end_command(False)
            i += 2
            continue
        if c == "|":
            end_command(True)
            i += 1
            continue
        if c in ";&\n":
            end_command(False)
            i += 1
            continue
        if c in " \t":
            end_word()
            i += 1
            continue
        word += c
        i += 1
    while len(stack) > 1:
        end_command(False)
        stack.pop()
    end_command(False)
    return out


def raw_logical_lines(text):
    """(first line number, raw text) per logical line: heredoc bodies and comment lines
    dropped, continuations joined (as logical_lines, without stripping)."""
    lines = text.split("\n")
    pending, start, heredoc = "", 0, None
    for no, raw in enumerate(lines, 1):
        if heredoc:
            if raw.strip() == heredoc:
                heredoc = None
            continue
        s = strip(raw)
        m = HEREDOC.search(raw) if "<<" in s else None
        if m:
            heredoc = m.group(2)
            raw = raw[:m.start()]
        if not pending:
            start = no
        if s.rstrip().endswith("\\") and raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        if re.search(r"(&&|\|\||\|)\s*$", s):
            pending += raw + " "
            continue
        yield start, pending + raw
        pending = ""
    if pending:
        yield start, pending


def lint(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    found = []
    for no, line in logical_lines(text):
        for st in statements(line):
            msg = check_statement(st)
            if msg:
                found.append((no, msg))
    for no in run_findings(text):
        found.append((no, "nothing checks the status of this 'run': assert_success, assert_failure N, "
                          "a test of $status, or 'run -N'"))
    for no, raw in raw_logical_lines(text):
        if re.match(r"^\s*(@test|#)", raw):
            continue
        for cmd, piped, procsub in command_words(raw):
            if cmd in TOOLS and (piped or procsub):
                found.append((no, "'%s' %s loses its exit status: write its output to a file, or 'run' it "
                                  "and check $status" % (cmd, "inside <( )" if procsub else "on the left of a pipe")))
                break
    return ["%s:%d: %s" % (path, no, msg) for no, msg in sorted(found)]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: lint-bats.py FILE...")
    found = []
    for path in sys.argv[1:]:
        found += lint(path)
    for f in found:
        print(f)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
