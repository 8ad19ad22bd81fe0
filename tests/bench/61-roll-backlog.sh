#!/bin/sh
# roll under contention (issue 23): the rolling v3 arm (--decider rule, the tenant inner
# predictor) on trace-synth's v2026 profile, seed 1, all 184 days, pool A10, where HP
# queues for weeks:
# - the backlogged day: the last day (day 183) with HP from the origin, 27,000 jobs queued
#   at the first cutoff; beside it the plain replay of the same execution trace (sim-run,
#   without and with the controller) for peak RSS, and metrics on the predictive and the
#   plain result;
# - whole-window runs: the evaluation window from 4 h after the origin to the end of day 29,
#   and to the end of the whole 184-day trace (about 2,200 decisions; ROLL_BENCH_FULL_WINDOW=0 leaves it out and says so),
#   beside a one-day window (day 29) for the "30 days <= 30 x one day" check;
# - a day and a 30-day window on the faithful pool GPU-series-2 of the v3
#   profile (configs/profiles/alibaba-spot-gpu-v2026-v3.json, seed 1, as the rolling-ablation study); its
#   30-day window starts at day 36, as the study (from 4 h after the origin roll stops at an early cutoff
#   whose scenario holds no job: "result stream has no job_result records", on main too).
# CPU s = user + sys (getrusage of the child), peak RSS = its maxrss, one run each under
# nice (the machine is shared: the load averages are printed). Prints one Markdown section.
set -eu
cd "$(dirname "$0")/../.."
BIN=${SCHEDNAV_BIN:-$PWD/bin}
WORK=${TMPDIR:-/tmp}/schednav-bench-roll-backlog
mkdir -p "$WORK"
CFG=configs/rolling/rolling-v3.json
CTRL=configs/controllers/schednav-tenant-linear-v2.json
FULL=${ROLL_BENCH_FULL_WINDOW:-1}
DAY=86400
[ -s "$WORK/a10.ndjson.zst" ] || "$BIN/trace-synth" --profile configs/profiles/alibaba-spot-gpu-v2026.json --seed 1 \
	--gpu-model A10 -o "$WORK/a10.ndjson.zst"
[ -s "$WORK/g2.ndjson.zst" ] || "$BIN/trace-synth" --profile configs/profiles/alibaba-spot-gpu-v2026-v3.json --seed 1 \
	--gpu-model GPU-series-2 -o "$WORK/g2.ndjson.zst"
window() {   # POOL TRACE NAME EVAL_START EVAL_END: NAME.exec (HP from the origin, no warm-up Spot) and NAME.hist
	[ -s "$WORK/$3.exec.ndjson.zst" ] || "$BIN/trace-window" --gpu-model "$1" --eval-start "$4" --eval-end "$5" --warmup-start 0 \
		--no-warmup-spot -i "$WORK/$2.ndjson.zst" -o "$WORK/$3.exec.ndjson.zst"
	h=$(($4 - 14400)); [ "$h" -ge 0 ] || h=0
	[ -s "$WORK/$3.hist.ndjson.zst" ] || "$BIN/trace-window" --gpu-model "$1" --eval-start "$4" --eval-end "$5" --warmup-start "$h" \
		-i "$WORK/$2.ndjson.zst" -o "$WORK/$3.hist.ndjson.zst"
}
window A10 a10 day183 $((183 * DAY)) $((184 * DAY - 1))
window A10 a10 day29 $((29 * DAY)) $((30 * DAY - 1))
# whole windows start 4 h after the origin (trace-window needs a job at or before the start)
window A10 a10 first30 14400 $((30 * DAY - 1))
[ "$FULL" = 0 ] || window A10 a10 all184 14400 $((184 * DAY - 1))
window GPU-series-2 g2 g2day122 $((122 * DAY)) $((123 * DAY - 1))
window GPU-series-2 g2 g2d36x30 $((36 * DAY)) $((66 * DAY - 1))
load0=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$BIN" "$WORK" "$CFG" "$CTRL" "$FULL" <<'PY' > "$WORK/rows.md"
import json, os, resource, subprocess, sys, time
bin_, work, cfg, ctrl, full = sys.argv[1:]

def measure(cmd):
    """CPU s (user + sys) and peak RSS MiB of cmd, run in a fresh child under nice."""
    pid = os.fork()
    if pid == 0:
        os.nice(10)
        os.execvp(cmd[0], cmd)
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        sys.exit("failed: " + " ".join(cmd))
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0

def roll(name, out):
    t = work + "/" + name + ".timing.json"
    cpu, rss = measure([bin_ + "/roll", "--config", cfg, "--history", work + "/" + name + ".hist.ndjson.zst", "--controller", ctrl,
                        "--decider", "rule", "--timing", t, "-o", out, work + "/" + name + ".exec.ndjson.zst"])
    return cpu, rss, json.load(open(t))

def first_queue(out):
    """Jobs queued (HP, Spot) at the first cutoff and the decision count, from the result."""
    p = subprocess.run("zstdcat -f %s | jq -c 'select(.type == \"rolling_observation\") | .scheduler_state.queue'" % out, shell=True,
                       check=True, capture_output=True, text=True)
    q = [json.loads(l) for l in p.stdout.splitlines()]
    return q[0]["hp_job_count"], q[0]["spot_job_count"], len(q)

def jobs(name):
    p = subprocess.run("zstdcat %s/%s.exec.ndjson.zst | grep -c '\"type\":\"job\"'" % (work, name), shell=True, check=True,
                       capture_output=True, text=True)
    return int(p.stdout)

rows = []
# the backlogged day
out = work + "/day183.roll.ndjson.zst"
cpu, rss, t = roll("day183", out)
hpq, spq, n = first_queue(out)
plain_cpu, plain_rss = measure([bin_ + "/sim-run", "--policy", "configs/policies/rolling-fifo-open.json", "-o", work + "/plain.ndjson.zst",
                                work + "/day183.exec.ndjson.zst"])
pred_cpu, pred_rss = measure([bin_ + "/sim-run", "--policy", "configs/policies/rolling-fifo-open.json", "--controller", ctrl,
                              "-o", work + "/pred.ndjson.zst", work + "/day183.exec.ndjson.zst"])
# interleaved, best of 7: on a shared machine the two results see the same load
m_plain, m_pred = float("inf"), float("inf")
for _ in range(7):
    m_plain = min(m_plain, measure([bin_ + "/metrics", "-i", work + "/plain.ndjson.zst", "-o", "/dev/null"])[0])
    m_pred = min(m_pred, measure([bin_ + "/metrics", "-i", work + "/pred.ndjson.zst", "-o", "/dev/null"])[0])
m_roll = min(measure([bin_ + "/metrics", "-i", out, "-o", "/dev/null"])[0] for _ in range(3))
print("DAY|%d|%d|%d|%d|%.2f|%.2f|%.2f|%.0f|%.2f|%.0f|%.2f|%.0f|%.3f|%.3f|%.3f" % (jobs("day183"), hpq, spq, n, t["cpu_rolling_day"], t["cpu_before_first_cutoff"],
      cpu, rss, plain_cpu, plain_rss, pred_cpu, pred_rss, m_plain, m_pred, m_roll))
def plain(name, controller):
    cmd = [bin_ + "/sim-run", "--policy", "configs/policies/rolling-fifo-open.json"] + (["--controller", ctrl] if controller else [])
    return measure(cmd + ["-o", "/dev/null", work + "/" + name + ".exec.ndjson.zst"])

for name, label in (("day29", "A10, one day (day 29)"), ("first30", "A10, 30 days"), ("all184", "A10, 184 days"),
                    ("g2day122", "GPU-series-2, day 122 (its most queued day start in a plain replay)"), ("g2d36x30", "GPU-series-2, 30 days from day 36 (the ablation study's first day)")):
    if name == "all184" and full == "0":
        print("WIN|%s|not run (ROLL_BENCH_FULL_WINDOW=0)" % label)
        continue
    out = work + "/" + name + ".roll.ndjson.zst"
    cpu, rss, t = roll(name, out)
    hpq, spq, n = first_queue(out)
    pc, pr = plain(name, False)
    cc, cr = plain(name, True)
    print("WIN|%s|%d|%d / %d|%d|%.1f|%.0f|%.2f / %.0f|%.2f / %.0f|%.2f" % (label, jobs(name), hpq, spq, n, cpu, rss, pc, pr, cc, cr, rss / pr))
    os.unlink(out)
PY
load1=$(cut -d' ' -f1-3 /proc/loadavg)
echo "## roll under contention: the backlogged day and whole-window runs"
echo
echo "Issue 23. trace-synth v2026 profile, seed 1, all 184 days, pool A10 (on this trace HP"
echo "queues for weeks: the backlog is HP), one rolling v3 arm (\`--decider rule\`, the snapshot"
echo "evaluator, inner predictor \`$(basename "$CTRL" .json)\`), one run each under \`nice\`; CPU s ="
echo "user + sys of the process, peak RSS its maxrss. Load averages $load0 before, $load1 after,"
echo "on $(nproc) shared cores: CPU seconds on a loaded machine run above those of an idle one."
echo
echo "The backlogged day (day 183, HP from the origin plus the day's jobs):"
echo
echo "| jobs | HP / Spot queued at the first cutoff | decisions | roll CPU s rolling day | CPU s before the first cutoff | roll CPU s total | roll peak RSS MiB | plain sim-run CPU s / MiB | sim-run --controller CPU s / MiB | metrics CPU s: plain / predictive / roll result |"
echo "|---|---|---|---|---|---|---|---|---|---|"
grep '^DAY|' "$WORK/rows.md" | awk -F'|' '{printf "| %s | %s / %s | %s | **%s** | %s | %s | %s | %s / %s | %s / %s | %s / %s / %s |\n", $2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16}'
echo
echo "Whole-window runs (the evaluation window from 4 h after the origin over the first 30 days, and over the"
echo "whole trace), a one-day window, and the faithful pool GPU-series-2 (v3 profile, seed 1):"
echo
echo "| window | jobs | HP / Spot queued at the first cutoff | decisions | roll CPU s | roll peak RSS MiB | plain sim-run CPU s / MiB | sim-run --controller CPU s / MiB | roll RSS / plain RSS |"
echo "|---|---|---|---|---|---|---|---|---|"
grep '^WIN|' "$WORK/rows.md" | awk -F'|' 'NF == 3 {printf "| %s | %s |||||||\n", $2, $3; next} {printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $2,$3,$4,$5,$6,$7,$8,$9,$10}'
rm -f "$WORK/rows.md" "$WORK"/*.timing.json "$WORK/plain.ndjson.zst" "$WORK/pred.ndjson.zst" "$WORK/day183.roll.ndjson.zst"
