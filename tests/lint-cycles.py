#!/usr/bin/env python3
"""lint-cycles.py [--known FOLDER]... BUILD -- no file-level dependency circle in a lib folder.

A file A uses a file B of the same folder when A's object leaves undefined a symbol that B's
object defines (nm: B's global T/D/B/R/C symbols, A's U symbols). A circle is a set of two or
more files of one folder each of which reaches every other through such uses (a strongly
connected component). The folder is the object's directory under BUILD/lib/ (lib/predict and
lib/predict/tenant are two folders). docs/design.md "No circles" says why.

Prints, for every folder, its files and circles ("lint-cycles: lib/eval: 7 files, 0 circles"),
then each circle as "lint-cycles: lib/FOLDER: circle: a.c -> b.c -> a.c" with the symbols of
each step, and exits 1 when a folder has a circle, unless it is named with --known (a circle
left for later: listed, counted, not a failure).
"""
import os
import subprocess
import sys


def symbols(obj):
    """(defined globals, undefined) of one object file."""
    out = subprocess.run(["nm", obj], stdout=subprocess.PIPE, check=True).stdout.decode()
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRCGSV":
            defined.add(parts[2])
    return defined, undefined


def circles(nodes, edges):
    """The strongly connected components of two or more nodes (Tarjan), each sorted, sorted."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(out)


def path_in(comp, edges):
    """One closed walk through comp's files, in name order where it can (for the message)."""
    start = comp[0]
    walk, seen, v = [start], {start}, start
    while True:
        nxt = sorted(w for w in edges.get(v, ()) if w in comp and w not in seen)
        if not nxt:
            break
        v = nxt[0]
        walk.append(v)
        seen.add(v)
    back = [w for w in comp if start in edges.get(w, ())]
    return walk, back


def main():
    args, known = sys.argv[1:], set()
    while len(args) >= 2 and args[0] == "--known":
        known.add(args[1].rstrip("/"))
        args = args[2:]
    if len(args) != 1:
        sys.stderr.write("usage: lint-cycles.py [--known lib/FOLDER]... BUILD\n")
        return 2
    build = args[0]
    folders = {}
    for dirpath, _, files in os.walk(os.path.join(build, "lib")):
        objs = sorted(f for f in files if f.endswith(".o"))
        if objs:
            folders[os.path.relpath(dirpath, build)] = [os.path.join(dirpath, f) for f in objs]
    if not folders:
        sys.stderr.write("lint-cycles: no objects under %s/lib: build first\n" % build)
        return 2
    failed = False
    total = 0
    for folder in sorted(folders):
        syms = {os.path.basename(o)[:-2] + ".c": symbols(o) for o in folders[folder]}
        owner = {}
        for f, (defined, _) in syms.items():
            for s in defined:
                owner.setdefault(s, f)
        edges, why = {}, {}
        for f, (_, undefined) in syms.items():
            for s in sorted(undefined):
                g = owner.get(s)
                if g and g != f:
                    edges.setdefault(f, set()).add(g)
                    why.setdefault((f, g), []).append(s)
        comps = circles(syms.keys(), edges)
        total += len(comps)
        note = " (known: left for later)" if comps and folder in known else ""
        print("lint-cycles: %s: %d file%s, %d circle%s%s" % (folder, len(syms), "" if len(syms) == 1 else "s", len(comps),
                                                             "" if len(comps) == 1 else "s", note))
        for comp in comps:
            print("lint-cycles: %s: circle of %d files: %s" % (folder, len(comp), ", ".join(comp)))
            for f in comp:
                for g in sorted(edges.get(f, ())):
                    if g in comp:
                        syms_fg = why[(f, g)]
                        print("    %s uses %s: %s%s" % (f, g, ", ".join(syms_fg[:4]), " ..." if len(syms_fg) > 4 else ""))
            if folder not in known:
                failed = True
    print("lint-cycles: %d circle%s in %d folders" % (total, "" if total == 1 else "s", len(folders)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
