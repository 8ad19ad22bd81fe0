#!/bin/sh
# progress.sh MODE LABEL START BEFORE TOTAL DIR NAME — the study graphs' progress line,
# called by make after each simulation (pipelines/study.mk, rolling.mk). Counts the files
# named NAME (a find -name pattern) under DIR, at most TOTAL, and prints on stderr
#   LABEL: simulations DONE/TOTAL (P%), ETA 4m10s
# where the ETA is the rate of this make run (START: its epoch seconds, BEFORE: the files
# there when it started) applied to what is left. MODE: auto (only when stderr is a
# terminal), yes, no (PROGRESS=... on the make command line). Never fails the build.
# Under make -j two simulations can end together: the count and the line are made under a
# lock (flock on DIR/.progress.lock), and a line is printed only when its count is above the
# last one this make run printed (DIR/.progress: START and that count), so the lines of one
# run never repeat and never go backwards.
mode=$1 label=$2 start=$3 before=$4 total=$5 dir=$6 name=$7
case "$mode" in
yes) ;;
no) exit 0 ;;
*) [ -t 2 ] || exit 0 ;;
esac
[ "$total" -gt 0 ] 2>/dev/null || exit 0
[ -d "$dir" ] || exit 0
if command -v flock >/dev/null 2>&1; then
	exec 9>>"$dir/.progress.lock" && flock 9 || exit 0
fi
done=$(find "$dir" -name "$name" -type f 2>/dev/null | wc -l)
[ "$done" -le "$total" ] || done=$total
last=-1
if [ -f "$dir/.progress" ] && read -r run count < "$dir/.progress" && [ "$run" = "$start" ]; then
	last=$count
fi
[ "$done" -gt "$last" ] 2>/dev/null || exit 0
echo "$start $done" > "$dir/.progress"
now=$(date +%s)
line="$label: simulations $done/$total ($((done * 100 / total))%)"
ran=$((done - before))
if [ "$done" -ge "$total" ]; then
	line="$line, all done"
elif [ "$ran" -gt 0 ]; then
	left=$(( (now - start) * (total - done) / ran ))
	if [ "$left" -ge 3600 ]; then
		eta=$(printf '%dh%02dm' $((left / 3600)) $((left / 60 % 60)))
	elif [ "$left" -ge 60 ]; then
		eta=$(printf '%dm%02ds' $((left / 60)) $((left % 60)))
	else
		eta="${left}s"
	fi
	line="$line, ETA $eta"
fi
echo "$line" >&2
exit 0
