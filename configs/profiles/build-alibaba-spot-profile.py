#!/usr/bin/python3
"""Build configs/profiles/alibaba-spot-gpu-v2026.json from the shared tables.

usage: build-alibaba-spot-profile.py [DATA_DIR] [OUT]
  DATA_DIR  the shared data folder (default: $SCHEDNAV_SHARED/data, else ../shared/data
            beside the clone, else /work/shared/data)
  OUT       default: alibaba-spot-gpu-v2026.json beside this script

Reads alibaba-spot-gpu-v2026/node_info_df.csv and the MIT aggregate tables in
alibaba-spot-gpu-v2026/derived-aggregates-sultanul-ovi/ and writes the
schednav.synth-profile/2 document that trace-synth(1) reads (docs/profiles.md).
Deterministic: the same tables give the same bytes.
"""
import os, sys

sys.dont_write_bytecode = True   # no __pycache__ beside the profiles
from profile_tables import AG, DS, Tables, default_data, write

here = os.path.dirname(os.path.abspath(__file__))
data = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else default_data("build-alibaba-spot-profile")
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "alibaba-spot-gpu-v2026.json")
used = []
tables = Tables(data, used)
read, table = tables.read, tables.table


def whole(x):
    v = float(x)
    if v != int(v) or v < 0:
        sys.exit("build-alibaba-spot-profile: not a count: %r" % x)
    return int(v)


# Nodes: the real inventory, names and capacities verbatim (cpu_num is not used).
nodes = [[r["node_name"].strip(), r["gpu_model"].strip(), int(r["gpu_capacity_num"])]
         for r in table(DS + "/node_info_df.csv")]
cap = {}
node_max = {}
for _, m, g in nodes:
    cap[m] = cap.get(m, 0) + g
    node_max[m] = max(node_max.get(m, 0), g)

hourly_rows = table(AG + "/hourly_summary.csv")
hours = max(int(r["submit_hour"]) for r in hourly_rows) + 1
hourly = [0] * hours
for r in hourly_rows:
    hourly[int(r["submit_hour"])] = whole(r["jobs"])

days = (hours + 23) // 24
daily = [[0, 0] for _ in range(days)]
for r in table(AG + "/daily_summary.csv"):
    d = int(r["submit_day"])
    daily[d] = [whole(r["hp_jobs"]), whole(r["spot_jobs"])]
    if whole(r["jobs"]) != sum(hourly[24 * d:24 * d + 24]) or sum(daily[d]) != whole(r["jobs"]):
        sys.exit("build-alibaba-spot-profile: day %d: daily and hourly tables disagree" % d)

workers = [[int(r["worker_num"]), whole(r["jobs"])] for r in table(AG + "/worker_count_distribution.csv")]
njobs = sum(hourly)

# The joint (workers, GPUs per worker) table of each model. The tables give, per model, the
# job count, the median GPU request per worker and the total GPU demand; globally, the
# worker-count distribution. Assumptions that close the system:
#  - GPUs per worker take two values per model: the median request, and the largest node size
#    (A10, one-GPU nodes: 1 and 0.5, the fractional share that brings the mean below 1); the
#    other value stays under half of the model's jobs so the median is the table's;
#  - every model's "other value" share is the same fraction s of that cap, s solved so the
#    models need exactly the worker total of the distribution (A10 and H800 excepted: A10
#    single-worker, H800 at its median 8 for every worker);
#  - multi-worker jobs, largest first, go to the model with the largest remaining worker need
#    that can hold them (workers x median <= the model's capacity); ties by table order.
# The model and worker marginals are then exact, and each model's sum of GPUs is the table's
# gpu_demand up to less than one job's step.
def two_values(m, med):
    if m == "A10" or node_max[m] == 1:
        return med, 0.5
    return med, float(node_max[m])


model_rows = table(AG + "/demand_by_model.csv")
worker_total = sum(w * n for w, n in workers)


def need_at(s):
    out = {}
    for r in model_rows:
        m, jobs, demand, med = r["gpu_model"], whole(r["jobs"]), float(r["gpu_demand"]), float(r["median_gpu_req"])
        lo_hi = two_values(m, med)
        if m == "A10" or lo_hi[1] == med:
            mean = demand / jobs if m == "A10" else med
            out[m] = jobs if m == "A10" else max(jobs, demand / mean)
            continue
        g = med + 0.49 * s * (lo_hi[1] - med)
        out[m] = max(jobs, demand / g)
    return out


lo_s, hi_s = 0.0, 1.0
for _ in range(60):
    mid = (lo_s + hi_s) / 2
    if sum(need_at(mid).values()) > worker_total:
        lo_s = mid
    else:
        hi_s = mid
need = need_at(hi_s)
multi = sorted((w for w, n in workers if w > 1 for _ in range(n)), reverse=True)
left = {r["gpu_model"]: need[r["gpu_model"]] - whole(r["jobs"]) for r in model_rows}
slots = {r["gpu_model"]: whole(r["jobs"]) for r in model_rows}
alloc = {r["gpu_model"]: {} for r in model_rows}
for w in multi:
    best = None
    for r in model_rows:
        m = r["gpu_model"]
        if m == "A10" or slots[m] == 0 or w * float(r["median_gpu_req"]) > cap[m]:
            continue
        if best is None or left[m] > left[best]:
            best = m
    if best is None:
        sys.exit("build-alibaba-spot-profile: no model can hold a job of %d workers" % w)
    alloc[best][w] = alloc[best].get(w, 0) + 1
    left[best] -= w - 1
    slots[best] -= 1

models = []
for r in model_rows:
    m, jobs, demand, med = r["gpu_model"], whole(r["jobs"]), float(r["gpu_demand"]), float(r["median_gpu_req"])
    a = alloc[m]
    a[1] = jobs - sum(a.values())
    base, other = two_values(m, med)
    wsum = sum(w * n for w, n in a.items())
    # Jobs at the other value, so the GPU total hits gpu_demand: worker units needed, taken
    # from single-worker jobs first, then from the largest jobs that fit (workers x other <=
    # capacity), never more than half of the model's jobs.
    units0 = (demand - base * wsum) / (other - base) if other != base else 0.0

    def pick(single_cap):
        units, limit, take = units0, (jobs - 1) // 2, {}
        if units < 0:  # A10: base 1, other 0.5
            take[1] = min(a[1], int(round(-units)), limit)
            return take, 0.0
        for w in [1] + sorted((x for x in a if x > 1), reverse=True):
            if w * other > cap[m] or limit == 0 or units < w:
                continue
            n = min(a[w], int(units // w), limit, single_cap if w == 1 else limit)
            take[w] = n
            units -= n * w
            limit -= n
        if units >= 1 and a[1] - take.get(1, 0) > 0 and limit > 0:
            n = min(int(units), limit, a[1] - take.get(1, 0))
            take[1] = take.get(1, 0) + n
            units -= n
        return take, units

    # Fewer single-worker jobs at the other value when the half-of-jobs limit binds.
    single_cap = a[1]
    take, rest = pick(single_cap)
    while rest >= 1 and single_cap > 0:
        single_cap = max(0, single_cap - max(1, a[1] // 100))
        take, rest = pick(single_cap)
    cells = []
    for w in sorted(a):
        n_other = take.get(w, 0)
        if a[w] - n_other:
            cells.append([w, base, a[w] - n_other])
        if n_other:
            cells.append([w, other, n_other])
    cells.sort(key=lambda c: (c[0], c[1]))
    models.append({"model": m, "jobs": jobs, "workers": cells,
                   "gpu_seconds": float(r["gpu_seconds"]),
                   "reference": {"gpu_demand": demand, "gpu_seconds": float(r["gpu_seconds"]),
                                 "median_gpu_request": med}})

q = table(AG + "/duration_quantiles.csv")
# The table gives p50/p90/p95/p99. The ends are this profile's assumptions: 1 s, and the
# longest duration the tables show (15,897,599 s, the median of several one-job organizations).
orgs_rows = table(AG + "/org_by_gpu_seconds.csv")
longest = max(float(r["median_duration"]) for r in orgs_rows if whole(r["jobs"]) == 1)
quant = [[0.0, 1.0]] + [[float(r[""]), float(r["duration_seconds"])] for r in q] + [[1.0, longest]]
orgs = [[r["organization"].strip(), whole(r["jobs"]), float(r["gpu_seconds"]), float(r["median_duration"])]
        for r in orgs_rows]

types = {r["job_type"]: r for r in table(AG + "/job_type_summary.csv")}
summary = read(AG + "/summary.txt")
license_text = read(AG + "/LICENSE")

for what, total in (("models", sum(m["jobs"] for m in models)), ("workers", sum(n for _, n in workers)),
                    ("organizations", sum(o[1] for o in orgs)), ("classes", sum(a + b for a, b in daily))):
    if total != njobs:
        sys.exit("build-alibaba-spot-profile: %s sum to %d jobs, hourly table to %d" % (what, total, njobs))

profile = {
    "schema": "schednav.synth-profile/2",
    "name": DS,
    "description": "Alibaba cluster-trace-v2026-spot-gpu: the real node inventory and the "
                   "published aggregates of its 466,867-job file; for synthetic traces only",
    "attribution": {
        "dataset": {
            "name": "Alibaba cluster-trace-v2026-spot-gpu",
            "repository": "https://github.com/alibaba/clusterdata/tree/master/cluster-trace-v2026-spot-gpu",
            "paper": "Duan et al., GFS: A Preemptive Scheduling Framework for GPU Clusters with "
                     "Predictive Spot Management, ASPLOS 2026",
            "terms": "research/study use (alibaba/clusterdata README)",
            "used": "node_info_df.csv verbatim as the nodes list (node_name, gpu_model, gpu_capacity_num)",
        },
        "aggregates": {
            "name": "derived aggregates of job_info_df.csv",
            "author": "Md Sultanul Islam Ovi",
            "license": "MIT",
            "used": "hourly and daily job counts, HP/Spot per day, jobs, GPU demand, GPU-seconds and "
                    "median GPU request per GPU model, worker-count distribution, duration quantiles, "
                    "GPU-seconds and duration median/p90 per class, jobs, GPU-seconds and median "
                    "duration per organization",
            "license_text": license_text,
        },
    },
    "builder": "configs/profiles/build-alibaba-spot-profile.py",
    "built_from": used,
    "time_origin": "2024-03-01 00:00:00",
    "hourly_jobs": hourly,
    "daily_class_jobs": daily,
    "gpu_models": models,
    "worker_counts": workers,
    "duration_quantiles": quant,
    "organizations": orgs,
    "classes": {c: {"gpu_seconds": float(types[c]["gpu_seconds"]), "median_duration": float(types[c]["median_duration"]),
                    "p90_duration": float(types[c]["p90_duration"])} for c in ("HP", "Spot")},
    "reference": {
        "jobs": njobs,
        "span_days": 184.06,
        "total_gpu_seconds": sum(m["reference"]["gpu_seconds"] for m in models),
        "class": {c: {"jobs": whole(types[c]["jobs"]), "median_duration": float(types[c]["median_duration"]),
                      "p90_duration": float(types[c]["p90_duration"])} for c in ("HP", "Spot")},
        "summary_txt": summary,
    },
    "nodes": nodes,
}


write(out, profile)
print("wrote %s: %d hours, %d jobs, %d nodes, %d GPUs" % (out, hours, njobs, len(nodes), sum(cap.values())),
      file=sys.stderr)
