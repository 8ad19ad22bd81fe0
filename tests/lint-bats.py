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

A list that ends in `|| fail ...` (or `|| return|exit|skip`) is an explicit check and is
allowed, and so are `cond && continue|break|return|skip|exit` (control flow) and the
conditions of `if`, `elif`, `while` and `until`. Heredoc bodies, comments, quoted strings,
`$( )`, `( )` subshells and `[[ ]]` are not looked into.
"""
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


def lint(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    found = []
    for no, line in logical_lines(text):
        for st in statements(line):
            msg = check_statement(st)
            if msg:
                found.append("%s:%d: %s" % (path, no, msg))
    return found


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
