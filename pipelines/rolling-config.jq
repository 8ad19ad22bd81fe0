# rolling-config.jq — a rolling ablation study config (schednav.rolling-ablation-study/v1)
# as make variable assignments (pipelines/rolling.mk). Every value is checked here.
def fail(m): error("rolling study config: " + m);
def mk: tostring | gsub("\\$"; "$$");
def shq: "'" + (tostring | gsub("'"; "'\\''")) + "'" | mk;
def known(keys): (keys_unsorted - keys) as $extra
  | if ($extra | length) > 0 then fail("unknown key '\($extra[0])'") else . end;
def int_in($lo; $hi): type == "number" and . == floor and . >= $lo and . <= $hi;

if .schema_version != "schednav.rolling-ablation-study/v1" then fail("schema_version must be 'schednav.rolling-ablation-study/v1'") else . end
| known(["schema_version", "study_id", "description", "trace", "gpu_model", "minimum_history_hours", "windows", "history_seconds",
         "rolling_config", "inner_controller", "slo", "repetitions", "decider_timeout_seconds", "arms"])
| (.trace // fail("missing 'trace'")) as $t
| ($t | known(["synth", "stream", "files"])) as $_
| (if ([$t.synth, $t.stream] | map(select(. != null)) | length) != 1 then fail("trace needs exactly one of 'synth', 'stream'") else . end)
| (.windows // fail("missing 'windows'")) as $w
| ($w | known(["first_day", "count", "day_seconds"])) as $_
| (if ($w.first_day | int_in(0; 100000)) and ($w.count | int_in(1; 64)) and (($w.day_seconds // 86400) | int_in(3600; 864000)) | not
   then fail("windows needs integer first_day >= 0, count in 1..64, day_seconds >= 3600") else . end)
| ($w.day_seconds // 86400) as $day
| (.minimum_history_hours // 0) as $minh
| (if ($w.first_day * $day) < ($minh * 3600) then fail("the first window starts before minimum_history_hours of history") else . end)
| (.repetitions // 2) as $reps
| (if ($reps | int_in(2; 10)) | not then fail("'repetitions' must be an integer in 2..10") else . end)
| (.arms // fail("missing 'arms'")) as $arms
| (if ($arms | type) != "array" or ($arms | length) < 2 or ($arms | length) > 8 then fail("'arms' must list 2 to 8 arms") else . end)
| ($arms[] | known(["arm_id", "role", "policy", "controller", "decider", "candidates"])
   | if (.arm_id | type) != "string" or (.arm_id | test("^[A-Za-z0-9][A-Za-z0-9._-]*$") | not) then fail("arm ids may only use letters, digits, '.', '_', '-'") else . end
   | if (.role | IN("baseline", "comparator", "agent", "masked", "oracle")) | not then fail("arm '\(.arm_id)': unknown role") else . end
   | if (.decider == null) == (.policy == null) then fail("arm '\(.arm_id)' needs exactly one of 'policy' (static) and 'decider' (rolling)") else . end) as $_
| (if ([$arms[] | select(.role == "baseline")] | length) != 1 then fail("exactly one baseline arm") else . end)
| ($arms | map(select(.role == "baseline"))[0]) as $base
| (if $base.policy == null or $base.controller == true then fail("the baseline must be a static policy without controller") else . end)
| [
  "# generated from the rolling study config by pipelines/rolling-config.jq: do not edit",
  "RA_TRACE_KIND := " + (if $t.synth then "synth" else "stream" end),
  "RA_TRACE_ARGS := " + (($t.synth // []) | map(shq) | join(" ")),
  "RA_TRACE_FILES := " + (($t.files // []) + (if $t.stream then [$t.stream] else [] end) | map(mk) | join(" ")),
  "RA_TRACE_STREAM := " + (($t.stream // "") | mk),
  "RA_MODEL := " + ((.gpu_model // "") | mk),
  "RA_HISTORY := \(.history_seconds // 14400)",
  "RA_DAY := \($day)",
  "RA_WINDOWS := " + ([range($w.first_day; $w.first_day + $w.count) | "day-" + (tostring | if length < 3 then ("000" + .)[-3:] else . end)] | join(" ")),
  ([range($w.first_day; $w.first_day + $w.count)] | map("RA_START_day-" + (tostring | if length < 3 then ("000" + .)[-3:] else . end) + " := \(. * $day)") | join("\n")),
  "RA_CONFIG := " + ((.rolling_config // "configs/rolling/rolling-v3.json") | mk),
  "RA_CONTROLLER := " + ((.inner_controller // "") | mk),
  "RA_SLO := " + ((.slo // "configs/slos/schednav-demo-slo-v1.json") | mk),
  "RA_REPS := \($reps)",
  "RA_TIMEOUT := \(.decider_timeout_seconds // 30)",
  "RA_ARMS := " + ($arms | map(.arm_id) | join(" ")),
  "RA_BASELINE := " + $base.arm_id,
  ($arms[] | "RA_KIND_\(.arm_id) := " + (if .decider then "rolling" elif .controller == true then "controlled" else "static" end)),
  ($arms[] | select(.policy) | "RA_POLICY_\(.arm_id) := " + (.policy | mk)),
  ($arms[] | select(.decider) | "RA_DECIDER_\(.arm_id) := " + (.decider | shq)),
  ($arms[] | select(.candidates) | "RA_CANDIDATES_\(.arm_id) := " + (.candidates | join(",") | shq))
  ] | join("\n")
