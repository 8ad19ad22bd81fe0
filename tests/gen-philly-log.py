#!/usr/bin/python3
"""Generate a synthetic Philly-format cluster_job_log (a JSON array of job objects).

usage: gen-philly-log.py [--jobs N | --bytes B] [--seed S] [--compact] [OUT]

The records have the shape the upstream README documents (status, vc, jobid, attempts with
start_time/end_time/detail[{ip, gpus}], submitted_time, user) and the irregularities it
warns about: jobs without attempts, attempts without start or end time ("None" or null),
a last attempt still running, multi-machine attempts. Times fall in 2017-08-07..2017-12-22.
Machine ids m0..m551 as in cluster_machine_list. Output is indented like the upstream file
(4 spaces) unless --compact. Deterministic for a given seed. Synthetic data, never real.
"""
import random, sys, datetime

def main():
    args = sys.argv[1:]
    jobs, limit, seed, compact, out = None, None, 1, False, "-"
    while args:
        a = args.pop(0)
        if a == "--jobs": jobs = int(args.pop(0))
        elif a == "--bytes": limit = int(float(args.pop(0)))
        elif a == "--seed": seed = int(args.pop(0))
        elif a == "--compact": compact = True
        elif a.startswith("-") and a != "-": sys.exit("usage: gen-philly-log.py [--jobs N | --bytes B] [--seed S] [--compact] [OUT]")
        else: out = a
    if jobs is None and limit is None:
        jobs = 1000
    rng = random.Random(seed)
    f = sys.stdout if out == "-" else open(out, "w")
    base = datetime.datetime(2017, 8, 7)
    span = int((datetime.datetime(2017, 12, 22) - base).total_seconds())
    vcs = ["6214e9", "7f04ca", "11cb48", "b436b2", "ee9e8c", "e13805", "6c71a0", "2869ce", "ed69ec", "103959", "0e4a51"]
    ind = (lambda n: "") if compact else (lambda n: "\n" + " " * (4 * n))
    sep = "," if compact else ", "
    written = 0
    t = 0
    i = 0
    f.write("[")
    written += 1
    days = [(base + datetime.timedelta(days=d)).strftime("%Y-%m-%d ") for d in range(span // 86400 + 400)]
    def ts(sec):
        d, r = divmod(sec, 86400)
        return "%s%02d:%02d:%02d" % (days[d], r // 3600, r // 60 % 60, r % 60)
    gpu_names = {g: sep.join('"gpu%d"' % n for n in range(g)) for g in range(1, 9)}
    while (jobs is not None and i < jobs) or (limit is not None and written < limit):
        t = min(span - 1, t + int(rng.expovariate(1 / 90.0)))
        parts = []
        status = rng.choice(["Pass", "Pass", "Pass", "Killed", "Failed"])
        parts.append('"status": "%s"' % status)
        parts.append('"vc": "%s"' % rng.choice(vcs))
        parts.append('"jobid": "application_1506638472019_%d"' % (10000 + i))
        r = rng.random()
        natt = 0 if r < 0.04 else 1 if r < 0.75 else rng.randint(2, 4)
        gpus = rng.choice([1, 1, 1, 1, 2, 2, 4, 8, 8, 16])
        atts = []
        at = t + rng.randint(0, 600)
        for k in range(natt):
            dur = int(rng.lognormvariate(7.5, 1.6)) + 1
            start = ts(at)
            end = ts(at + dur)
            q = rng.random()
            if q < 0.02: start = "None"
            elif q < 0.04: end = None
            if k == natt - 1 and status == "Pass" and rng.random() < 0.01: end = None
            dets = []
            left = gpus
            while left > 0:
                g = min(8, left)
                left -= g
                names = gpu_names[g]
                dets.append("{" + ind(5) + '"ip": "m%d",' % rng.randrange(552) + ind(5) + '"gpus": [' + names + "]" + ind(4) + "}")
            atts.append("{" + ind(3) + '"start_time": "%s",' % start + ind(3) +
                        ('"end_time": null' if end is None else '"end_time": "%s"' % end) + "," + ind(3) +
                        '"detail": [' + ind(4) + ("," + ind(4)).join(dets) + ind(3) + "]" + ind(2) + "}")
            at += dur + rng.randint(5, 120)
        parts.append('"attempts": [' + (ind(2) + ("," + ind(2)).join(atts) + ind(1) if atts else "") + "]")
        parts.append('"submitted_time": %s' % ('"None"' if rng.random() < 0.002 else '"%s"' % ts(t)))
        parts.append('"user": "%08x"' % rng.getrandbits(32))
        rec = ("," if i else "") + ind(0) + "{" + ind(1) + ("," + ind(1)).join(parts) + ind(0) + "}"
        f.write(rec)
        written += len(rec)
        i += 1
    f.write(ind(0) + "]\n")
    if f is not sys.stdout:
        f.close()

main()
