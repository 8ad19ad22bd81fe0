#!/usr/bin/python3
"""Build configs/profiles/alibaba-spot-gpu-v2026-v4.json from the shared tables.

usage: build-alibaba-spot-profile-v4.py [DATA_DIR] [OUT]
  DATA_DIR  the shared data folder (default: as build-alibaba-spot-profile.py finds it)
  OUT       default: alibaba-spot-gpu-v2026-v4.json beside this script

The schednav.synth-profile/4 document (docs/profiles.md) is the /3 document that
build-alibaba-spot-profile-v3.py builds from the same tables, plus the submission tables:
GPUs and GPU-seconds submitted per hour (hourly_summary.csv), HP/Spot jobs, GPUs and
GPU-seconds per day (daily_summary.csv), and each GPU model's GPU-seconds submitted per day
as the published capacity ratio (extra_daily_capacity_ratio_top_models.csv). `v4.fingerprint`
is the SHA-256 of those tables' numbers, one "%.17g" line each in document order, which
trace-synth checks. Deterministic: the same tables give the same bytes.
"""
import hashlib, json, os, subprocess, sys, tempfile

sys.dont_write_bytecode = True   # no __pycache__ beside the profiles
from profile_tables import AG, Tables, default_data, write

here = os.path.dirname(os.path.abspath(__file__))
v3_builder = os.path.join(here, "build-alibaba-spot-profile-v3.py")
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "alibaba-spot-gpu-v2026-v4.json")
data_root = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else default_data("build-alibaba-spot-profile-v4")

with tempfile.TemporaryDirectory() as tmp:
    v3_path = os.path.join(tmp, "v3.json")
    r = subprocess.run([sys.executable, v3_builder, data_root, v3_path], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("build-alibaba-spot-profile-v4: the /3 builder failed: " + r.stderr.strip())
    with open(v3_path, encoding="utf-8") as f:
        prof = json.load(f)
table = Tables(data_root, prof["built_from"]).table


def num(x):
    """A table number as the shortest float that keeps 6 decimals (no binary noise)."""
    v = round(float(x), 12)
    return int(v) if v == int(v) and abs(v) < 2 ** 53 else v


EDGES = prof["v3"]["gpu_demand_buckets"]["edges_gpus"]
GPW = [0.5, 1.0, 2.0, 4.0, 8.0]


def bucket(g):
    return max(i for i, e in enumerate(EDGES) if g >= e)


def rebalance(m, node_max, cap):
    """The /3 builder moved node-size single-worker jobs to smaller sizes for the GPU-demand
    bucket shares, which left A100, GPU-series-1 and A800 28.7, 28.6 and 23.3 % short of their
    published gpu_demand. Raise GPUs per worker (0.5, 1, 2, 4, 8, at most the model's node
    size) on as few jobs as it takes: moves inside a bucket first, then the moves across one
    with the largest gain per job. Returns (moved jobs, of them across a bucket)."""
    want = m["reference"]["gpu_demand"]
    cells = [list(c) for c in m["workers"]]
    have = sum(w * g * j for w, g, j in cells)
    moves = []
    for i, (w, g, j) in enumerate(cells):
        for g2 in GPW:
            if g < g2 <= node_max and w * g2 <= cap:
                moves.append((bucket(w * g2) != bucket(w * g), -w * (g2 - g), i, g2))
    moves.sort()
    moved = across = 0
    for cross, neg_gain, i, g2 in moves:
        need = want - have
        if need <= 0.001 * want:
            break
        w, g, j = cells[i]
        k = min(j, int(round(need / -neg_gain)))
        if k <= 0:
            continue
        cells[i][2] -= k
        cells.append([w, g2, k])
        have += k * -neg_gain
        moved += k
        across += k if cross else 0
    merged = {}
    for w, g, j in cells:
        if j > 0:
            merged[(w, g)] = merged.get((w, g), 0) + j
    m["workers"] = [[w, g, j] for (w, g), j in sorted(merged.items())]
    return moved, across


node_max, cap = {}, {}
for _, model, gpus in prof["nodes"]:
    node_max[model] = max(node_max.get(model, 0), gpus)
    cap[model] = cap.get(model, 0) + gpus
rebalanced = {}
for m in prof["gpu_models"]:
    rebalanced[m["model"]] = rebalance(m, node_max[m["model"]], cap[m["model"]])

hourly = table(AG + "/hourly_summary.csv")
n_hours = len(prof["hourly_jobs"])
if len(hourly) != n_hours:
    sys.exit("build-alibaba-spot-profile-v4: hourly_summary.csv has %d rows, the profile %d hours" % (len(hourly), n_hours))
hour_rows = [[num(r["gpu_demand"]), num(r["gpu_seconds"])] for r in hourly]
daily = table(AG + "/daily_summary.csv")
day_rows = [[int(r["hp_jobs"]), int(r["spot_jobs"]), num(r["gpu_demand"]), num(r["gpu_seconds"])] for r in daily]
ratio = table(AG + "/extra_daily_capacity_ratio_top_models.csv")
models = [m["model"] for m in prof["gpu_models"]]
ratio_rows = [[num(r[m]) for m in models] for r in ratio]

numbers = [x for row in hour_rows for x in row] + [x for row in day_rows for x in row] + \
    [x for row in ratio_rows for x in row]
fingerprint = hashlib.sha256("".join("%.17g\n" % float(x) for x in numbers).encode()).hexdigest()

prof["schema"] = "schednav.synth-profile/4"
prof["name"] = prof["name"].removesuffix("-v3") + "-v4"
prof["builder"] = "configs/profiles/build-alibaba-spot-profile-v4.py"
prof["attribution"]["aggregates"]["used"] += (
    "; v4: GPUs and GPU-seconds submitted per hour and day, per-model GPU-seconds submitted per day")
prof["v4"] = {
    "fingerprint": {"algorithm": "sha256 of every number of hourly_submitted, daily_submitted and "
                                 "model_daily_capacity_ratio in document order, one '%.17g' line each",
                    "sha256": fingerprint},
    "hourly_submitted": {"columns": ["gpu_demand", "gpu_seconds"], "rows": hour_rows},
    "daily_submitted": {"columns": ["hp_jobs", "spot_jobs", "gpu_demand", "gpu_seconds"], "rows": day_rows},
    "rebalanced_sizes": {
        "inferred": True,
        "derivation": "GPUs per worker raised on as few jobs as it takes so each model's joint table sums to its "
                      "published gpu_demand (demand_by_model.csv) within 0.1 %: inside a GPU-demand bucket first, then "
                      "across one, largest gain per job first",
        "moved_jobs": {k: {"jobs": v[0], "across_a_bucket": v[1]} for k, v in rebalanced.items()}},
    "model_daily_capacity_ratio": {
        "models": models,
        "rule": "GPU-seconds of the model's jobs submitted on the day / (the model's GPUs x 86400)",
        "rows": ratio_rows},
}
write(out, prof)
print("wrote %s: %d hours, %d days, fingerprint %s" % (out, n_hours, len(day_rows), fingerprint[:16]), file=sys.stderr)
