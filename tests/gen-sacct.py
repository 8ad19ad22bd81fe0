#!/usr/bin/env python3
"""gen-sacct.py --rows N --seed S OUT_DIR: a synthetic sacct -P file (OUT_DIR/sacct.txt) of N
rows and its scontrol show node -o inventory (OUT_DIR/nodes.txt), for the import benchmark.
Every second row is a job, the other its .batch step; one job in 50 is requeued (two
records), one in 40 is an array task, one in 100 is cancelled before it starts. Seeded:
the same arguments give the same bytes."""
import argparse, os, random

p = argparse.ArgumentParser()
p.add_argument("--rows", type=int, required=True)
p.add_argument("--seed", type=int, default=1)
p.add_argument("out")
a = p.parse_args()
rnd = random.Random(a.seed)
NODES = 1000
os.makedirs(a.out, exist_ok=True)
with open(os.path.join(a.out, "nodes.txt"), "w") as f:
    for n in range(NODES):
        f.write(f"NodeName=gpu{n:04d} Arch=x86_64 CoresPerSocket=32 CPUAlloc=0 CPUTot=64 Gres=gpu:a100:8(S:0-1) "
                f"NodeAddr=gpu{n:04d} State=IDLE Partitions=gpu\n")

base = 1_700_000_000
def ts(t):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t))
cache = {}
def iso(t):
    # a small cache: strftime dominates otherwise
    d, s = divmod(t, 86400)
    if d not in cache:
        cache[d] = ts(d * 86400)[:11]
    return f"{cache[d]}{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"
def el(s):
    d, r = divmod(s, 86400)
    return (f"{d}-" if d else "") + f"{r // 3600:02d}:{r // 60 % 60:02d}:{r % 60:02d}"

accounts = [f"acct-{i:03d}" for i in range(200)]
users = [f"user{i:04d}" for i in range(1500)]
out = open(os.path.join(a.out, "sacct.txt"), "w")
out.write("JobID|JobIDRaw|Submit|Start|End|Elapsed|State|NNodes|AllocTRES|ReqTRES|Account|User|QOS|Partition\n")
rows, t, jid = 0, base, 1000
lines = []
while rows < a.rows:
    jid += 1
    t += rnd.randrange(0, 20)
    g = rnd.choice((1, 1, 2, 4, 8, 8, 16))
    nn = 1 if g <= 8 else 2
    wait = rnd.randrange(0, 600)
    dur = rnd.randrange(1, 86400)
    tres = f"billing={g * 4},cpu={g * 4},gres/gpu:a100={g},gres/gpu={g},mem={g * 32}G,node={nn}"
    acct, user = rnd.choice(accounts), rnd.choice(users)
    qos = "scavenger" if rnd.random() < 0.3 else "normal"
    jobid = f"{jid}_{rnd.randrange(1, 100)}" if jid % 40 == 0 else str(jid)
    if jid % 100 == 0:
        lines.append(f"{jobid}|{jid}|{iso(t)}|Unknown|{iso(t + wait)}|00:00:00|CANCELLED by 1000|{nn}||{tres}|{acct}|{user}|{qos}|gpu\n")
        rows += 1
        continue
    if jid % 50 == 0 and rows + 3 <= a.rows:
        s1 = t + wait
        lines.append(f"{jobid}|{jid}|{iso(t)}|{iso(s1)}|{iso(s1 + 60)}|00:01:00|REQUEUED|{nn}|{tres}|{tres}|{acct}|{user}|{qos}|gpu\n")
        rows += 1
        t2 = s1 + 61
        wait = 0
    else:
        t2 = t
    s = t2 + wait
    lines.append(f"{jobid}|{jid}|{iso(t2)}|{iso(s)}|{iso(s + dur)}|{el(dur)}|COMPLETED|{nn}|{tres}|{tres}|{acct}|{user}|{qos}|gpu\n")
    rows += 1
    if rows < a.rows:
        lines.append(f"{jobid}.batch|{jid}.batch|{iso(s)}|{iso(s)}|{iso(s + dur)}|{el(dur)}|COMPLETED|1|cpu={g * 4},gres/gpu:a100={g},gres/gpu={g},mem={g * 32}G,node=1||{acct}|||\n")
        rows += 1
    if len(lines) > 10000:
        out.writelines(lines)
        lines = []
out.writelines(lines)
out.close()
