#!/bin/sh
# sim-run --controller over idle spans (issue 35): two jobs 10^12 s apart (the trace model's
# bound) and one Spot job of 10^12 s, under both controller families. Work must follow the
# jobs and the decisions that change something, not the simulated seconds: the target is
# every case under 1 s of CPU and 20 MB. CPU s (user + sys of the child) is the best of 3
# runs; a run is stopped after 60 s (then shown as "> 60 s, stopped"). Prints one Markdown section.
set -eu
cd "$(dirname "$0")/../.."
BIN=${SCHEDNAV_BIN:-$PWD/bin}
WORK=${TMPDIR:-/tmp}/schednav-bench-idle
mkdir -p "$WORK"
POLICY=configs/policies/native-preemptive-3600.json
seal() { # body lines -> a sealed trace/2 on stdout
	{ printf '%s\n' '{"type":"header","schema":"schednav.trace/2","trace_id":"idle-span","time_origin":"2026-01-01 00:00:00","window":null,"source":{"dataset":"bench"},"skipped_rows":{}}'
	  printf '%s\n' "$@"; } | "$BIN/stream-seal"
}
NODE='{"type":"node","node_id":"n1","gpu_model":"A","gpu_count":4}'
seal "$NODE" '{"type":"job","job_id":"a","submit":0,"duration":600,"gpus":1,"class":"Spot","gpu_model":"A","tenant":"t"}' \
	'{"type":"job","job_id":"b","submit":1000000000000,"duration":600,"gpus":1,"class":"HP","gpu_model":"A","tenant":"t"}' > "$WORK/two.nd"
seal "$NODE" '{"type":"job","job_id":"a","submit":0,"duration":1000000000000,"gpus":1,"class":"Spot","gpu_model":"A","tenant":"t"}' > "$WORK/one.nd"

measure() { # trace controller -> "cpu_s rss_kib decisions status"
	python3 - "$BIN/sim-run" "$POLICY" "$1" "$2" "$WORK/out.nd" <<'PY'
import resource, subprocess, sys
sim, policy, trace, ctrl, out = sys.argv[1:]
best, rss, status = None, 0, "ok"
for _ in range(3):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        subprocess.run([sim, "--policy", policy, "--controller", ctrl, "-i", trace, "-o", out], check=True, timeout=60,
                       stderr=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        status = "stopped"
    except subprocess.CalledProcessError:
        status = "refused"          # the tenant family's 3,650-day span bound: exit 1
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = (r.ru_utime + r.ru_stime) - (r0.ru_utime + r0.ru_stime)
    best = t if best is None else min(best, t)
    rss = max(rss, r.ru_maxrss)
    if status == "stopped":
        break
n = sum(1 for line in open(out) if '"type":"control_decision"' in line) if status == "ok" else -1
print("%.2f %d %d %s" % (best, rss, n, status))
PY
}

echo "## Controllers over idle spans (sim-run --controller)"
echo
echo "Two jobs 10^12 s apart and one Spot job of 10^12 s, \`native-preemptive-3600\`"
echo "(\`tests/bench/27-idle-spans.sh\`; target: each under 1 s and 20 MB)."
echo
echo "| trace | controller | CPU s | peak RSS MiB | decisions written |"
echo "|---|---|---:|---:|---:|"
for t in two one; do
	for c in predictive-spot-v1 schednav-tenant-linear-v2-weekday; do
		set -- $(measure "$WORK/$t.nd" "configs/controllers/$c.json")
		label=$([ "$t" = two ] && echo "two jobs 10^12 s apart" || echo "one job of 10^12 s")
		if [ "$4" = ok ]; then
			printf '| %s | %s | %s | %s | %s |\n' "$label" "$c" "$1" "$(( $2 / 1024 ))" "$3"
		elif [ "$4" = refused ]; then
			printf '| %s | %s | %s | %s | refused (exit 1: span over 3,650 days) |\n' "$label" "$c" "$1" "$(( $2 / 1024 ))"
		else
			printf '| %s | %s | > 60 (stopped) | %s | - |\n' "$label" "$c" "$(( $2 / 1024 ))"
		fi
	done
done
