# rolling-config.jq — a rolling ablation study config (schednav.rolling-ablation-study/1)
# as make variable assignments (pipelines/rolling.mk). Every value is checked here.
def fail(m): error("rolling study config: " + m);
# make-safe: a control character is refused, '$' and '#' (a comment) are escaped, and so are
# the backslashes before a '#' (make halves them: "\\#" would be one backslash and a comment)
def mk: tostring | (if test("[[:cntrl:]]") then fail("control character in '\(. | @json)'") else . end)
  | gsub("\\$"; "$$") | gsub("(?<b>\\\\*)#"; .b + .b + "\\#");
def shq: "'" + (tostring | gsub("'"; "'\\''")) + "'" | mk;
def known(keys): (keys_unsorted - keys) as $extra
  | if ($extra | length) > 0 then fail("unknown key '\($extra[0])'") else . end;
# A key set to false (or 0, "") is a value, never "not given": only null takes the default
# (jq's `A // B` would take B for false too, so a `false` was silently a default).
def dflt($d): if . == null then $d else . end;
def need($k; $want): .[$k] | if . == null then fail("missing '\($k)'")
  elif type != $want then fail("'\($k)' must be an \($want), not \(tojson)") else . end;
def int_in($lo; $hi): type == "number" and . == floor and . >= $lo and . <= $hi;
# Every value below reaches make rules and shell commands (several through $(eval), which
# expands them twice). Strings that cannot be plain words are refused (docs/hardening.md,
# "Study configs"): file names of letters, digits, '.', '_', '/', '+', '-' (no component
# starting with '-'), identifiers of letters, digits, '.', '_', '-'; the two free strings
# (trace-synth's arguments and a decider) are one shell-quoted word each, referenced by
# name inside $(eval) so that they are expanded once.
def shown: tojson | if length > 80 then .[:77] + "..." else . end;
def path(what): if type == "string" and test("\\A[A-Za-z0-9._/+-]{1,4096}\\z") and (test("(\\A|/)-") | not) then .
  else fail("\(what) must be a file name of letters, digits, '.', '_', '/', '+', '-' (no part starting with '-'), not \(shown)") end;
def ident(what): if type == "string" and test("\\A[A-Za-z0-9][A-Za-z0-9._-]{0,1023}\\z") then .
  else fail("\(what) must be an identifier of letters, digits, '.', '_', '-', not \(shown)") end;
def nocntrl(what): if type == "string" and (test("[[:cntrl:]]") | not) then .
  else fail("\(what) must be a string without control characters, not \(shown)") end;

# the id before issue 20 item 8, ".../v1", is read too (docs/design.md "Schema ids")
if (.schema_version | IN("schednav.rolling-ablation-study/1", "schednav.rolling-ablation-study/v1")) | not then fail("schema_version must be 'schednav.rolling-ablation-study/1'") else . end
| known(["schema_version", "study_id", "description", "trace", "gpu_model", "minimum_history_hours", "windows", "history_seconds",
         "rolling_config", "inner_controller", "slo", "repetitions", "decider_timeout_seconds", "arms"])
| need("trace"; "object") as $t
| ($t | known(["synth", "stream", "files"])) as $_
| (if ([$t.synth, $t.stream] | map(select(. != null)) | length) != 1 then fail("trace needs exactly one of 'synth', 'stream'") else . end)
| need("windows"; "object") as $w
| ($w | known(["first_day", "count", "day_seconds"])) as $_
| (if (.history_seconds | dflt(14400) | int_in(0; 1000000000)) | not then fail("'history_seconds' must be an integer in 0..1000000000") else . end)
| (if (.decider_timeout_seconds | dflt(30) | type == "number" and . > 0 and . <= 86400) | not then fail("'decider_timeout_seconds' must be a number in (0, 86400]") else . end)
| (if (.minimum_history_hours | dflt(0) | type == "number" and . >= 0 and . <= 1000000) | not then fail("'minimum_history_hours' must be a number in [0, 1000000]") else . end)
| (if ($w.first_day | int_in(0; 100000)) and ($w.count | int_in(1; 64)) and ($w.day_seconds | dflt(86400) | int_in(3600; 864000)) | not
   then fail("windows needs integer first_day >= 0, count in 1..64, day_seconds >= 3600") else . end)
| ($w.day_seconds | dflt(86400)) as $day
| (.minimum_history_hours | dflt(0)) as $minh
| (if ($w.first_day * $day) < ($minh * 3600) then fail("the first window starts before minimum_history_hours of history") else . end)
| (.repetitions | dflt(2)) as $reps
| (if ($reps | int_in(2; 10)) | not then fail("'repetitions' must be an integer in 2..10") else . end)
| (.arms | if . == null then fail("missing 'arms'") else . end) as $arms
| (if ($arms | type) != "array" or ($arms | length) < 2 or ($arms | length) > 8 then fail("'arms' must list 2 to 8 arms") else . end)
| ($arms[] | known(["arm_id", "role", "policy", "controller", "decider", "candidates"])
   | if (.arm_id | type) != "string" or (.arm_id | test("^[A-Za-z0-9][A-Za-z0-9._-]*$") | not) then fail("arm ids may only use letters, digits, '.', '_', '-'") else . end
   | if (.role | IN("baseline", "comparator", "agent", "masked", "oracle")) | not then fail("arm '\(.arm_id)': unknown role") else . end
   | if (.decider == null) == (.policy == null) then fail("arm '\(.arm_id)' needs exactly one of 'policy' (static) and 'decider' (rolling)") else . end
   | if .controller != null and (.controller | type) != "boolean" then fail("arm '\(.arm_id)': 'controller' must be true or false, not \(.controller | shown)") else . end) as $_
| (if ([$arms[] | select(.role == "baseline")] | length) != 1 then fail("exactly one baseline arm") else . end)
| ($arms | map(select(.role == "baseline"))[0]) as $base
| (if $base.policy == null or $base.controller == true then fail("the baseline must be a static policy without controller") else . end)
| [
  "# generated from the rolling study config by pipelines/rolling-config.jq: do not edit",
  "RA_TRACE_KIND := " + (if $t.synth != null then "synth" else "stream" end),
  "RA_TRACE_ARGS := " + (($t.synth | dflt([])) | if type != "array" or any(.[]; type != "string") then fail("trace.synth must be a list of strings") else . end
                         | map(nocntrl("an argument of trace.synth") | shq) | join(" ")),
  "RA_TRACE_FILES := " + (($t.files | dflt([])) | if type != "array" then fail("trace.files must be a list of file names") else . end
                          | map(path("a file of trace.files")) + (if $t.stream != null then [$t.stream | path("trace.stream")] else [] end) | join(" ")),
  "RA_TRACE_STREAM := " + (if $t.stream != null then $t.stream | path("trace.stream") else "" end),
  "RA_MODEL := " + (if .gpu_model != null then .gpu_model | ident("'gpu_model'") else "" end),
  "RA_HISTORY := \(.history_seconds | dflt(14400))",
  "RA_DAY := \($day)",
  "RA_WINDOWS := " + ([range($w.first_day; $w.first_day + $w.count) | "day-" + (tostring | if length < 3 then ("000" + .)[-3:] else . end)] | join(" ")),
  ([range($w.first_day; $w.first_day + $w.count)] | map("RA_START_day-" + (tostring | if length < 3 then ("000" + .)[-3:] else . end) + " := \(. * $day)") | join("\n")),
  "RA_CONFIG := " + ((.rolling_config | dflt("configs/rolling/rolling-v3.json")) | path("'rolling_config'")),
  "RA_CONTROLLER := " + (if .inner_controller != null then .inner_controller | path("'inner_controller'") else "" end),
  "RA_SLO := " + ((.slo | dflt("configs/slos/schednav-demo-slo-v1.json")) | path("'slo'")),
  "RA_REPS := \($reps)",
  "RA_TIMEOUT := \(.decider_timeout_seconds | dflt(30))",
  "RA_ARMS := " + ($arms | map(.arm_id) | join(" ")),
  "RA_BASELINE := " + $base.arm_id,
  ($arms[] | "RA_KIND_\(.arm_id) := " + (if .decider != null then "rolling" elif .controller == true then "controlled" else "static" end)),
  ($arms[] | select(.policy != null) | .arm_id as $id | "RA_POLICY_\($id) := " + (.policy | path("arm '\($id)': 'policy'"))),
  ($arms[] | select(.decider != null) | .arm_id as $id | "RA_DECIDER_\($id) := " + (.decider | nocntrl("arm '\($id)': 'decider'") | shq)),
  ($arms[] | select(.candidates != null) | .arm_id as $id | "RA_CANDIDATES_\($id) := " + (.candidates
     | if type != "array" then fail("arm '\($id)': 'candidates' must be a list of action ids") else . end
     | map(ident("a candidate")) | join(",")))
  ] | join("\n")
