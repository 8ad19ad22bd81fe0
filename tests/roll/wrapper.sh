#!/bin/sh
# A decider behind a wrapper script: it starts slow children without exec (the shell stays
# their parent) and never answers. Each child's pid is appended to $WRAPPER_PIDS.
sleep 1000 &
echo $! >> "$WRAPPER_PIDS"
while read -r line; do
	sleep 1000 &
	echo $! >> "$WRAPPER_PIDS"
	wait $!
done
