# study-windows.jq — the selected windows of a trace-scan stream, split chronologically into
# calibration and holdout, as make variables. Input: the scan stream (jq -s).
# Args: --arg split "fraction F" | "counts C H", --argjson warmup SECONDS,
#       --arg exclude "ID ..." (windows the config leaves out, e.g. one without an arrival
#       at or before its start), --argjson min_start SECONDS (windows must start at or
#       after it: the history a predictive controller needs before its first window).
def fail(m): error("study windows: " + m);
($exclude | split(" ") | map(select(. != ""))) as $ex
| [ .[] | select(.type == "window" and .selected and ((.window_id | IN($ex[])) | not) and .start >= $min_start) ]
| sort_by(.start) as $w
| ($w | length) as $n
| ($split | split(" ")) as $s
| (if $s[0] == "fraction" then ($s[1] | tonumber) * $n | floor else ($s[1] | tonumber) end) as $ncal
| (if $s[0] == "fraction" then $n - $ncal else ($s[2] | tonumber) end) as $nhold
| if $n == 0 then fail("the scan selected no window")
  elif $ncal < 1 or $nhold < 1 or $ncal + $nhold > $n then
    fail("cannot split \($n) windows into \($ncal) calibration and \($nhold) holdout windows")
  else . end
| [ "# generated from the trace-scan stream by pipelines/study-windows.jq: do not edit",
    "CAL_WINDOWS := " + ($w[:$ncal] | map(.window_id) | join(" ")),
    "HOLD_WINDOWS := " + ($w[$ncal:$ncal + $nhold] | map(.window_id) | join(" ")),
    ($w[:$ncal + $nhold][]
     | "WINDOW_\(.window_id) := --eval-start \(.start) --eval-end \(.end) --warmup-start \([0, .start - $warmup] | max)") ]
| join("\n")
