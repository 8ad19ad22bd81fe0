# study-config.jq — turn a study config (schednav.study/v1) into make variable assignments.
# Every value is checked here, so a typo in the config stops the study before any work.
def fail(m): error("study config: " + m);
# make-safe: a control character (a newline would start a new make line) is refused;
# '$' and '#' (a comment) are escaped, and so are the backslashes before a '#' (make halves
# them: "\\#" would be one backslash and a comment)
def mk: tostring | (if test("[[:cntrl:]]") then fail("control character in '\(. | @json)'") else . end)
  | gsub("\\$"; "$$") | gsub("(?<b>\\\\*)#"; .b + .b + "\\#");
def shq: "'" + (tostring | gsub("'"; "'\\''")) + "'" | mk;      # shell-quoted, make-safe
# Every other value reaches make rules and shell commands unquoted (several through $(eval),
# which expands them twice), so it must mean nothing to either (docs/hardening.md, "Study
# configs"): a file name of letters, digits, '.', '_', '/', '+', '-' (no component starting
# with '-', at most 4096 bytes), or an identifier (letters, digits, '.', '_', '-').
def shown: tojson | if length > 80 then .[:77] + "..." else . end;
def path(what): if type == "string" and test("\\A[A-Za-z0-9._/+-]{1,4096}\\z") and (test("(\\A|/)-") | not) then .
  else fail("\(what) must be a file name of letters, digits, '.', '_', '/', '+', '-' (no part starting with '-'), not \(shown)") end;
def ident(what): if type == "string" and test("\\A[A-Za-z0-9][A-Za-z0-9._-]{0,1023}\\z") then .
  else fail("\(what) must be an identifier of letters, digits, '.', '_', '-', not \(shown)") end;
def num(k): (.[k] | if type == "number" then . else fail("'\(k)' must be a number") end);
# Every number of a config is checked for its type and its range before any command runs
# (docs/hardening.md, "Study configs": the bounds table). null = not given (its default).
def int_in($lo; $hi): type == "number" and . == floor and . >= $lo and . <= $hi;
def num_in($lo; $hi): type == "number" and . >= $lo and . <= $hi;
def want_int($v; $what; $lo; $hi): if $v == null or ($v | int_in($lo; $hi)) then .
  else fail("\($what) must be an integer in \($lo)..\($hi), not \($v | shown)") end;
def want_num($v; $what; $lo; $hi): if $v == null or ($v | num_in($lo; $hi)) then .
  else fail("\($what) must be a number in [\($lo), \($hi)], not \($v | shown)") end;
# A key set to false (or 0, "") is a value, never "not given": only null takes the default
# (jq's `A // B` would take B for false too, so a `false` was silently a default).
def dflt($d): if . == null then $d else . end;
def need($k; $want): .[$k] | if . == null then fail("missing '\($k)'")
  elif type != $want then fail("'\($k)' must be an \($want), not \(shown)") else . end;
def known(keys): (keys_unsorted - keys) as $extra
  | if ($extra | length) > 0 then fail("unknown key '\($extra[0])'") else . end;

if .schema_version != "schednav.study/v1" then fail("schema_version must be 'schednav.study/v1'") else . end
| known(["schema_version", "description", "trace", "windows", "warmup_seconds", "warmup_spot",
         "split", "arms", "baseline", "slo", "repetitions", "adaptive", "placement_strategy", "placement_seed"])
| need("trace"; "object") as $t
| need("windows"; "object") as $w
| need("split"; "object") as $s
| (.arms | if . == null then fail("missing 'arms'") else . end) as $arms0
# An arm is a policy name (configs/policies/NAME.json), or {"policy": NAME-or-FILE.json,
# "controller": FILE} for a policy (by name, or a file of its own) run with a predictive
# controller inside sim-run; the policy's name (the file's without .json) is the arm's id.
| (if ($arms0 | type) != "array" then fail("'arms' must be a list") else . end)
| ($arms0 | map(if type == "string" then {policy: .}
                elif type == "object" then
                  (keys_unsorted - ["policy", "controller"]) as $x
                  | if ($x | length) > 0 then fail("arm has unknown key '\($x[0])'")
                    elif (.policy | type) != "string" then fail("an arm object needs a 'policy' name")
                    elif .controller != null and (.controller | type) != "string" then fail("arm '\(.policy)': 'controller' must be a file name")
                    else . end
                else fail("an arm is a policy name or {\"policy\": NAME, \"controller\": FILE}") end)) as $armobjs
| ($armobjs | map(if (.policy | endswith(".json")) then . + {file: .policy, policy: (.policy | split("/") | last | rtrimstr(".json"))}
                  else . end)) as $armobjs
| ($armobjs | map(.policy)) as $arms
| (if ($arms | length) < 3 or ($arms | length) > 8 or ($arms | unique | length) != ($arms | length)
   then fail("'arms' must list 3 to 8 distinct policies") else . end)
| (if any($arms[]; test("\\A[A-Za-z0-9][A-Za-z0-9._-]*\\z") | not) then fail("arm names may only use letters, digits, '.', '_', '-'") else . end)
| (.baseline | dflt("native-fifo")) as $base
| (if ($arms | index($base)) == null then fail("baseline '\($base)' is not an arm") else . end)
| (.repetitions | dflt(2)) as $reps
| want_int($reps; "'repetitions'"; 2; 100)
| want_num(.warmup_seconds; "'warmup_seconds'"; 0; 1000000000000)
| want_int($w.day_seconds; "windows.day_seconds"; 60; 1000000000)
| want_int($w.sample_seconds; "windows.sample_seconds"; 1; 1000000000)
| (if ($w.day_seconds | dflt(86400) | int_in(1; 1e9)) and ($w.sample_seconds | dflt(3600) | int_in(1; 1e9))
     and (($w.day_seconds | dflt(86400)) % ($w.sample_seconds | dflt(3600))) != 0
   then fail("windows.day_seconds must be a multiple of windows.sample_seconds") else . end)
| want_int($w.min_hp; "windows.min_hp"; 0; 1000000000)
| want_int($w.min_spot; "windows.min_spot"; 0; 1000000000)
| want_int($w.pressure_strata; "windows.pressure_strata"; 1; 100)
| want_int($w.share_strata; "windows.share_strata"; 1; 100)
| want_num($w.min_history_hours; "windows.min_history_hours"; 0; 1000000)
| want_int($s.calibration_windows; "split.calibration_windows"; 1; 100000)
| want_int($s.holdout_windows; "split.holdout_windows"; 1; 100000)
| ($w | known(["rule", "day_seconds", "sample_seconds", "min_hp", "min_spot", "pressure_strata", "share_strata", "exclude",
               "min_history_hours"])) as $_
| (if .warmup_spot != null and (.warmup_spot | type) != "boolean" then fail("'warmup_spot' must be true or false, not \(.warmup_spot | shown)") else . end)
| (if $w.min_history_hours != null and (($w.min_history_hours | type) != "number" or $w.min_history_hours < 0)
   then fail("windows.min_history_hours must be a number >= 0") else . end)
| (if ($w.rule | IN("all-eligible", "stratified")) | not then fail("windows.rule must be 'all-eligible' or 'stratified'") else . end)
| ($s | known(["calibration_fraction", "calibration_windows", "holdout_windows"])) as $_
| (if $s.calibration_fraction != null then
     (if ($s.calibration_fraction | type) != "number" or $s.calibration_fraction <= 0 or $s.calibration_fraction >= 1
      then fail("split.calibration_fraction must be in (0, 1)") else . end)
   elif ($s.calibration_windows | type) == "number" and ($s.holdout_windows | type) == "number" then .
   else fail("split needs calibration_fraction, or calibration_windows and holdout_windows") end)
| (if .adaptive != null then
     (.adaptive | if type != "object" then fail("'adaptive' must be an object") else . end
      | known(["agent_selections", "rule"])
      | if (.agent_selections | type) != "string" or .agent_selections == "" then fail("adaptive.agent_selections must name the agent's selections file") else . end
      | if (.rule | dflt("workload-rule-v1")) != "workload-rule-v1" then fail("adaptive.rule must be 'workload-rule-v1'") else . end)
     | if $w.rule != "all-eligible" then fail("an adaptive study takes every eligible window: windows.rule must be 'all-eligible'") else . end
     | if ($s.calibration_fraction | type) != "number" or $s.calibration_fraction < 0.5
       then fail("an adaptive study splits by split.calibration_fraction in [0.5, 1) (cut = int(f*n))") else . end
   else . end) as $_
| ($t | known(["import", "synth", "stream", "files"])) as $_
| ([$t.import, $t.synth, $t.stream] | map(select(. != null)) | length) as $nsrc
| (if $nsrc != 1 then fail("trace needs exactly one of 'import', 'synth', 'stream'") else . end)
| [
  "# generated from the study config by pipelines/study-config.jq: do not edit",
  "TRACE_KIND := " + (if $t.import != null then "import" elif $t.synth != null then "synth" else "stream" end),
  "TRACE_ARGS := " + ((if $t.import != null then $t.import else $t.synth | dflt([]) end) | if type != "array" or any(.[]; type != "string") then fail("trace.import and trace.synth must be lists of strings") else . end
                      | map(shq) | join(" ")),
  "TRACE_FILES := " + (($t.files | dflt([])) | if type != "array" then fail("trace.files must be a list of file names") else . end
                       | map(path("a file of trace.files")) + (if $t.stream != null then [$t.stream | path("trace.stream")] else [] end) | join(" ")),
  "TRACE_STREAM := " + (if $t.stream != null then $t.stream | path("trace.stream") else "" end),
  "SCAN_ARGS := " + ([
      (if $w.day_seconds then "--day-seconds \($w | num("day_seconds"))" else empty end),
      (if $w.sample_seconds then "--sample-seconds \($w | num("sample_seconds"))" else empty end),
      (if $w.min_hp then "--min-hp \($w | num("min_hp"))" else empty end),
      (if $w.min_spot then "--min-spot \($w | num("min_spot"))" else empty end),
      (if $w.pressure_strata then "--pressure-strata \($w | num("pressure_strata"))" else empty end),
      (if $w.share_strata then "--share-strata \($w | num("share_strata"))" else empty end),
      (if $w.rule == "all-eligible" then "--all-eligible" else empty end)] | join(" ")),
  "EXCLUDE := " + (($w.exclude | dflt([])) | if type != "array" then fail("windows.exclude must be a list of window ids") else . end
                   | map(ident("a window id of windows.exclude")) | join(" ")),
  "MIN_START := \(($w.min_history_hours | dflt(0)) * 3600)",
  "WARMUP_SECONDS := \(if .warmup_seconds == null then 2592000 else num("warmup_seconds") end)",
  "WARMUP_SPOT := " + (if .warmup_spot == false then "no" else "yes" end),
  "SPLIT := " + (if $s.calibration_fraction != null then "fraction \($s.calibration_fraction)"
                 else "counts \($s.calibration_windows) \($s.holdout_windows)" end),
  "ARMS := " + ($arms | map(mk) | join(" ")),
  "CONTROLLERS := " + ($armobjs | map(.controller | select(. != null) | path("an arm's 'controller'")) | unique | join(" ")),
  ($armobjs[] | select(.controller != null) | "CONTROLLER_\(.policy) := \(.controller | path("a 'controller'"))"),
  ($armobjs[] | select(.file != null) | "POLICY_\(.policy) := \(.file | path("an arm's 'policy' file"))"),
  "BASELINE := " + ($base | ident("'baseline'")),
  "SLO := " + ((.slo | dflt("configs/slos/schednav-demo-slo-v1.json")) | path("'slo'")),
  "REPETITIONS := \($reps)",
  "ADAPTIVE := " + (if .adaptive != null then "yes" else "" end),
  "AGENT_SELECTIONS := " + (if .adaptive != null then .adaptive.agent_selections | path("adaptive.agent_selections") else "" end),
  "CALIBRATION_FRACTION := \($s.calibration_fraction | dflt(""))",
  # issue 36: every arm's placement_strategy (and seed) replaced (sim-run --placement); the
  # make variables PLACEMENT and PLACEMENT_SEED on the command line override these
  # (written only when given, so the config.mk of a config without them keeps its bytes)
  (if .placement_strategy == null then empty else "PLACEMENT := " + (if false then ""
                     elif (.placement_strategy | type == "string") and ([.placement_strategy] | inside(["deterministic_best_fit",
                       "largest-free", "random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd"]))
                     then .placement_strategy
                     else fail("'placement_strategy' must be deterministic_best_fit, largest-free, random, dot-product, gpu-clustering, gpu-packing, best-fit or fgd, not \(.placement_strategy | shown)") end) end),
  (if .placement_seed == null then empty
   elif (.placement_seed | int_in(0; 1000000000000)) and .placement_strategy != null then "PLACEMENT_SEED := \(.placement_seed)"
   else fail("'placement_seed' must be an integer in 0..1000000000000, with 'placement_strategy'") end)
  ] | join("\n")
