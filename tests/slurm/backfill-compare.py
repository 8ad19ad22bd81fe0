#!/usr/bin/env python3
"""backfill-compare.py: each job's start in a Slurm run against its replay (issue 37).

  backfill-compare.py --mode backfill|multifactor --sacct SACCT --trace TRACE
                      --sim-run BIN --policy POLICY --work DIR [--ids FILE] [--others] [--json]

SACCT is `sacct -P -X` of the run (the fields of docs/slurm-import.md section 1), TRACE its
`trace-import slurm` (classes qos:high=HP, qos:normal=Spot). The script replays TRACE with
POLICY (sim-run, into DIR) three ways (docs/slurm-import.md section 8): the decision replay
(at every instant of Slurm's run, Slurm's own state, and which queued jobs the policy starts
then; see decisions()), and two whole replays: as imported (each job holds its GPUs for its
Elapsed) and with each job's hand-off latency added to its run (the seconds from a job's End
to the next start Slurm made, when that is at most the tolerance below). For each it prints
the share of jobs whose (predicted) start is within the tolerance of Slurm's start and the
per-decision check: for every job Slurm started out of order (a job of higher priority,
submitted before it, started after it), did the replay start it out of order too.

--ids FILE names the workload's jobs (one id a line, as backfill-live.sh writes them): only
those are compared and counted. Every other job of SACCT (a job someone else ran on a shared
Slurm meanwhile) stays in the replays' state, since it held GPUs and had its place in the queue,
but is not counted; the JSON lists them under "others", and --others prints them too (another's
job that trace-import left out by its state rules is listed under "others_not_imported").
Without --ids every job of SACCT is the workload's and must be in TRACE.

The decision replay is reported three ways: "decision" (with the two unknowns of Slurm's
whole-second records tried at an instant whose starts differ: which ends of that second the
pass had seen, and whether a backfill cycle ran in it; an answer is kept only if it is exactly
Slurm's), "decision, a cycle every second" (the ends tried, a cycle at every instant) and
"decision, ends first" (neither: every end before a pass with a cycle).

bf_resolution's grid: Slurm rounds a reservation's times down to multiples of bf_resolution
in epoch seconds; the replays count seconds from the first submit, so the policy is given
backfill_resolution_phase_seconds = (first submit, epoch) mod backfill_resolution_seconds
(docs/simulator.md section 3.10), which puts the replay's grid on Slurm's.

Tolerance: 1 s (Slurm stores times truncated to the second) + bf_interval (a backfilled
start waits for the next backfill cycle) + 2 s (a scheduling pass's latency after an event on
this loaded machine, docs/slurm-import.md section 6) = 5 s with bf_interval 2.
Exit 0 whatever the agreement (tests/backfill-live.bats and tests/backfill-compare.bats assert
it); 1 on bad input.
"""
import argparse
import calendar
import itertools
import json
import os
import subprocess
import sys
import time


def die(msg):
    sys.stderr.write("backfill-compare: %s\n" % msg)
    sys.exit(1)


def epoch(s, where):
    try:
        return calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        die("%s: not a time: %r" % (where, s))


def read_sacct(path):
    jobs = {}
    with open(path, encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("|")
        col = {n: i for i, n in enumerate(head)}
        for need in ("JobID", "Submit", "Start", "End", "QOS"):
            if need not in col:
                die("%s:1: no %s column" % (path, need))
        for ln, line in enumerate(f, 2):
            r = line.rstrip("\n").split("|")
            if len(r) != len(head):
                die("%s:%d: %d fields, the header has %d" % (path, ln, len(r), len(head)))
            jid = r[col["JobID"]]
            if "." in jid or r[col["Start"]] in ("Unknown", "None", ""):
                continue
            w = "%s:%d" % (path, ln)
            jobs[jid] = {"submit": epoch(r[col["Submit"]], w), "start": epoch(r[col["Start"]], w),
                         "end": epoch(r[col["End"]], w), "qos": r[col["QOS"]]}
    if not jobs:
        die("%s: no job that ran" % path)
    return jobs


def read_trace(path):
    """Every record but the end, in order (header, nodes, jobs)."""
    recs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") != "end":
                recs.append(rec)
    return recs


def handoff(slurm, tol):
    """Per job: seconds from its End to the first Slurm start at or after it, if <= tol."""
    starts = sorted(j["start"] for j in slurm.values())
    out = {}
    for jid, j in slurm.items():
        nxt = next((s for s in starts if s >= j["end"]), None)
        lat = nxt - j["end"] if nxt is not None else 0
        out[jid] = lat if lat <= tol else 0
    return out


def read_ids(path, slurm):
    """The workload's job ids (a line each); every one must be a job of SACCT that ran."""
    ids = []
    with open(path, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            jid = line.strip()
            if not jid.isdigit():
                die("%s:%d: not a job id: %r" % (path, ln, jid))
            if jid not in slurm:
                die("%s:%d: job %s is not a job of the sacct export that ran" % (path, ln, jid))
            ids.append(jid)
    if not ids:
        die("%s: no job id" % path)
    return set(ids)


def phased_policy(args, origin, name, interval=None):
    """POLICY with backfill_resolution_phase_seconds set to the first submit's phase on
    Slurm's epoch grid (and backfill_interval_seconds replaced when interval is given)."""
    with open(args.policy, encoding="utf-8") as f:
        pol = json.load(f)
    res = pol.get("backfill_resolution_seconds", 0)
    if res > 0 and origin % res:
        pol["backfill_resolution_phase_seconds"] = origin % res
    if interval is not None:
        pol["backfill_interval_seconds"] = interval
    path = "%s/%s-policy.json" % (args.work, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(pol, f)
    return path


def replay(args, recs, extra, name, policy):
    """The trace with each job's run lengthened by extra[job], sealed again, replayed."""
    lines = []
    for r in recs:
        if r.get("type") == "job" and extra.get(r["job_id"]):
            r = dict(r, duration=r["duration"] + extra[r["job_id"]])
        lines.append(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n")
    path = "%s/%s.trace.ndjson" % (args.work, name)
    seal = os.path.join(os.path.dirname(args.sim_run), "stream-seal")
    with open(path, "w", encoding="utf-8") as f:
        subprocess.run([seal], input="".join(lines), text=True, stdout=f, check=True)
    out = "%s/%s.result.ndjson" % (args.work, name)
    subprocess.run([args.sim_run, "--no-progress", "--policy", policy, "--input", path, "-o", out], check=True)
    starts = {}
    with open(out, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "job_result":
                starts[rec["job_id"]] = rec["start_time_seconds"]
    return starts


def seal_run(args, lines, policy, name):
    """Seal NDJSON lines into a trace, replay it under policy, the job_result starts."""
    path = "%s/%s.trace.ndjson" % (args.work, name)
    seal = os.path.join(os.path.dirname(args.sim_run), "stream-seal")
    with open(path, "w", encoding="utf-8") as f:
        subprocess.run([seal], input="".join(lines), text=True, stdout=f, check=True)
    out = "%s/%s.result.ndjson" % (args.work, name)
    subprocess.run([args.sim_run, "--no-progress", "--policy", policy, "--input", path, "-o", out], check=True)
    starts = {}
    with open(out, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "job_result":
                starts[rec["job_id"]] = rec["start_time_seconds"]
    return starts


def decisions(args, recs, slurm, origin):
    """The decision replay: at every instant T of Slurm's run (a submit, a start or an end,
    in whole seconds from the first submit) the simulator is given Slurm's own state (the
    jobs Slurm ran at T, started at their Slurm starts, planned by their limits; the jobs
    Slurm had queued at T, in its priority order) and asked which queued jobs start at T
    under the policy, with a backfill cycle at T (backfill_interval_seconds 0). Slurm's
    records are whole seconds, so they do not order a job's end and a scheduling pass within
    the same second: the controller processes each end some milliseconds after it happens,
    and a pass can run between two of them. When some jobs end at T and the simulator's starts
    differ from Slurm's, T is tried again with a part of those jobs still running: every
    nonempty subset of them, the smaller first (a subset in the jobs' end order: the order of
    sacct's End, then of their Start, then of the job id, since the records do not order ends
    within a second any better), and the first answer that is exactly Slurm's is kept (a pass
    that ran before the controller processed those ends); with more than MAX_RACE jobs ending
    at T only the subsets "the last k in that order" are tried. Slurm's backfill cycle runs
    every bf_interval seconds (2 s: in about one whole second of two), and its records do not
    say in which seconds it ran; between cycles only the main scheduler's in-order pass starts
    jobs (after an end or a submit). So when the starts still differ, T is tried without a
    backfill cycle (the in-order pass only, with every end processed, then with each subset
    above still running), and that answer too is kept only if it is exactly Slurm's. A job's
    predicted start is the first T at which the simulator starts it. Returns (predicted starts,
    the same with every end first and a cycle at every T (no other try), the same with a cycle
    at every T (the end orders tried), instants, instants at
    which the simulator starts exactly the jobs Slurm started, instants that needed an end
    after the pass, instants that needed no cycle)."""
    ppath = phased_policy(args, origin, "decision", interval=0)
    # no cycle at T: one cycle at the first instant of the replay, the next one far past the run
    quiet = phased_policy(args, origin, "decision-quiet",
                          interval=1 + max(v["end"] for v in slurm.values()) - origin)
    head = [r for r in recs if r.get("type") != "job"]
    job = {r["job_id"]: r for r in recs if r.get("type") == "job"}
    sub = {j: v["submit"] - origin for j, v in slurm.items()}
    st = {j: v["start"] - origin for j, v in slurm.items()}
    en = {j: v["end"] - origin for j, v in slurm.items()}
    ids = sorted(slurm, key=lambda x: int(x.split("_")[0].split("+")[0]))
    # A trace orders jobs of one submit time by job_id as a string, and the simulator queues
    # them in that order; Slurm's ids are numbers ("9" before "10"). Each job enters the
    # decision traces under its rank in Slurm's order, zero-padded, so both orders agree
    # whatever the ids' lengths (a fresh Slurm counts from 1).
    pos = {j: i for i, j in enumerate(ids)}
    rank = {j: "%07d" % i for j, i in pos.items()}
    def line(rec):
        return json.dumps(rec, separators=(",", ":"), ensure_ascii=False) + "\n"

    def at(T, queued, late, policy=ppath):
        """The simulator's starts at T; late: the jobs ending at T that still run."""
        running = sorted((j for j in ids if st[j] < T and (en[j] > T or (en[j] == T and j in late))),
                         key=lambda j: (st[j], pos[j]))
        lines = [line(r) for r in head]
        lines += [line(dict(job[j], job_id=rank[j], submit=st[j], duration=max(en[j], T + 1) - st[j]))
                  for j in running]
        lines += [line(dict(job[j], job_id=rank[j], submit=T, duration=max(1, en[j] - st[j]))) for j in queued]
        got = seal_run(args, lines, policy, "decision")
        return {j for j in queued if got[rank[j]] == T}

    pred, strict, cyc, agree, n, late_n, quiet_n = {}, {}, {}, 0, 0, 0, 0
    for T in sorted(set(sub.values()) | set(st.values()) | set(en.values())):
        queued = [j for j in ids if sub[j] <= T <= st[j]]
        if not queued:
            continue
        real = {j for j in queued if st[j] == T}
        model = at(T, queued, ())
        for j in model:
            strict.setdefault(j, T)
        ending = sorted((j for j in ids if st[j] < T == en[j]), key=lambda j: (st[j], pos[j]))
        if model != real and ending:
            for late in race_orders(ending):
                if at(T, queued, set(late)) == real:
                    model, late_n = real, late_n + 1
                    break
        for j in model:
            cyc.setdefault(j, T)
        if model != real:
            for late in [()] + race_orders(ending):
                if at(T, queued, set(late), quiet) == real:
                    model, quiet_n = real, quiet_n + 1
                    late_n += bool(late)
                    break
        n += 1
        agree += model == real
        for j in model:
            pred.setdefault(j, T)
    return pred, strict, cyc, n, agree, late_n, quiet_n


MAX_RACE = 5


def race_orders(ending):
    """The sets of jobs ending in one second that a pass may have seen still running, the
    smaller first: every nonempty subset (in end order) up to MAX_RACE jobs, else the last
    k for every k."""
    n = len(ending)
    if n > MAX_RACE:
        return [ending[n - k:] for k in range(1, n + 1)]
    return [list(c) for k in range(1, n + 1) for c in itertools.combinations(ending, k)]


def rank(mode, slurm, jid):
    """The priority order Slurm used: submit order (job id) under priority/basic; QOS high
    first, then job id, under the QOS-only multifactor of start-local.sh."""
    return ((0 if slurm[jid]["qos"] == "high" else 1) if mode == "multifactor" else 0, int(jid.split("_")[0].split("+")[0]))


def out_of_order(ids, sub, start, key):
    """The jobs started while a job of higher priority (key), submitted before, still waited
    (a job the decision replay never starts, start inf, is left out on both sides)."""
    res = set()
    for j in ids:
        if start[j] == float("inf"):
            continue
        for h in ids:
            if key(h) < key(j) and sub[h] <= start[j] and start[j] < start[h] < float("inf"):
                res.add(j)
                break
    return res


def compare(mode, slurm, origin, sim, tol, ours):
    ids = sorted(ours, key=lambda x: int(x.split("_")[0].split("+")[0]))
    s_start = {j: slurm[j]["start"] - origin for j in ids}
    sub = {j: slurm[j]["submit"] - origin for j in ids}
    r_start = {j: sim[j] for j in ids}
    diff = {j: r_start[j] - s_start[j] for j in ids}
    within = [j for j in ids if abs(diff[j]) <= tol]
    key = lambda j: rank(mode, slurm, j)
    s_ooo = out_of_order(ids, sub, s_start, key)
    r_ooo = out_of_order(ids, sub, r_start, key)
    return {"jobs": len(ids), "within": len(within), "share": len(within) / len(ids),
            "slurm_out_of_order": len(s_ooo), "replay_too": len(s_ooo & r_ooo),
            "replay_only": len(r_ooo - s_ooo),
            "outside": [(j, s_start[j], r_start[j], diff[j]) for j in ids if abs(diff[j]) > tol]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=("backfill", "multifactor"), required=True)
    ap.add_argument("--sacct", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--sim-run", required=True)
    ap.add_argument("--policy", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--ids")
    ap.add_argument("--others", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with open(args.policy, encoding="utf-8") as f:
        interval = json.load(f).get("backfill_interval_seconds", 0)
    tol = 1 + interval + 2
    slurm = read_sacct(args.sacct)
    recs = read_trace(args.trace)
    ours = read_ids(args.ids, slurm) if args.ids else set(slurm)
    traced = {r["job_id"] for r in recs if r.get("type") == "job"}
    # another's job that the importer left out by its state rules (an attempt that was
    # requeued, docs/slurm-import.md section 3) is not in the replay: dropped, and counted
    not_imported = sorted(set(slurm) - ours - traced)
    for j in not_imported:
        del slurm[j]
    if traced != set(slurm):
        die("%s: the trace's jobs are not the jobs of %s that ran" % (args.trace, args.sacct))
    others = sorted(set(slurm) - ours, key=lambda x: (int(x.split("_")[0].split("+")[0]), x))
    origin = min(j["submit"] for j in slurm.values())
    res = {}
    pred, strict, cyc, n_inst, n_agree, n_late, n_quiet = decisions(args, recs, slurm, origin)
    res["decision"] = compare(args.mode, slurm, origin, {j: pred.get(j, float("inf")) for j in slurm}, tol, ours)
    res["decision, a cycle every second"] = compare(args.mode, slurm, origin, {j: cyc.get(j, float("inf")) for j in slurm}, tol, ours)
    res["decision, ends first"] = compare(args.mode, slurm, origin, {j: strict.get(j, float("inf")) for j in slurm}, tol, ours)
    res["decision"]["instants"], res["decision"]["instants_agreeing"] = n_inst, n_agree
    res["decision"]["instants_end_after_pass"] = n_late
    res["decision"]["instants_no_cycle"] = n_quiet
    whole = phased_policy(args, origin, "whole")
    for name, extra in (("as-imported", {}), ("hand-off", handoff(slurm, tol))):
        res[name] = compare(args.mode, slurm, origin, replay(args, recs, extra, name, whole), tol, ours)
    other_rows = [{"job": j, "submit": slurm[j]["submit"] - origin, "start": slurm[j]["start"] - origin,
                   "end": slurm[j]["end"] - origin, "qos": slurm[j]["qos"]} for j in others]
    if args.json:
        print(json.dumps({"mode": args.mode, "tolerance_seconds": tol, "replays": res, "others": other_rows,
                          "others_not_imported": not_imported}, sort_keys=True))
        return
    print("### %s run: %d jobs, tolerance %d s\n" % (args.mode, res["as-imported"]["jobs"], tol))
    print("| replay | within %d s | share | Slurm out of order | replay too | replay only |" % tol)
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in res.items():
        print("| %s | %d / %d | %.1f %% | %d | %d | %d |" % (name, r["within"], r["jobs"], 100 * r["share"],
              r["slurm_out_of_order"], r["replay_too"], r["replay_only"]))
    d = res["decision"]
    print("\nDecision replay: at %d of %d instants the simulator starts exactly the jobs Slurm started"
          " (%d of them with a job ending in the same second still running, %d without a backfill cycle).\n" %
          (d["instants_agreeing"], d["instants"], d["instants_end_after_pass"], d["instants_no_cycle"]))
    print("Outside the tolerance (decision replay): job, Slurm start, predicted start, difference (s)\n")
    for j, s, r, d in res["decision"]["outside"]:
        print("- %s: %d, %g, %+g" % (j, s, r, d))
    print("\nJobs of the export that are not the workload's (in the replays' state, not counted): %d" % len(others))
    if not_imported:
        print("Not the workload's and not imported (trace-import's state rules): %s" % ", ".join(not_imported))
    if args.others:
        for o in other_rows:
            print("- %s: QOS %s, submit %d, start %d, end %d" % (o["job"], o["qos"], o["submit"], o["start"], o["end"]))


if __name__ == "__main__":
    main()
