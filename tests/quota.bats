#!/usr/bin/env bats
# quota: the quota function as a filter, over bundles and over forecast_point records.
load helper
load run_cases

CTRL="$ROOT/configs/controllers/predictive-spot-v1.json"
WARM="$ROOT/tests/data/sim/warmup-window.trace.ndjson"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

# a forecast_point + inventory stream: q 5.281552 x 2, then 9.5 and 10 (C 12)
points() { stream-seal -i "$ROOT/tests/cases/quota/points.body"; }

@test "quota: --help matches the man page; a bad option exits 2" {
	assert_tool_invariants quota
}

@test "quota: forecast points and inventory: one plan per cutoff, the minimum over each horizon, eta from the inventory" {
	points > "$TMP/p.nd"
	quota -c "$CTRL" "$TMP/p.nd" > "$TMP/q"
	assert_schema "$TMP/q"
	run -0 jq -c 'select(.type == "quota_plan") | [.cutoff_time_seconds, .capacity_gpus, .eta, .spot_quota_gpus_by_guarantee_hour]' "$TMP/q"
	assert_line --index 0 '[0,12,1,{"1":6,"2":6,"4":2}]'
	assert_line --index 1 '[300,12,1.21,{"1":8,"2":0,"4":0}]'
	# options override the inventory
	run -0 sh -c "quota -c '$CTRL' --eta 0.5 --capacity 24 '$TMP/p.nd' | jq -c 'select(.type == \"quota_plan\") | .spot_quota_gpus_by_guarantee_hour'"
	assert_line --index 0 '{"1":9,"2":9,"4":7}'
}

@test "quota: a bundle gives exactly the bundle's own quota plan, fingerprints included" {
	forecast -c "$CTRL" -t 100000 "$WARM" > "$TMP/b"
	forecast -c "$CTRL" -t 110000 "$WARM" >> "$TMP/b"
	quota -c "$CTRL" "$TMP/b" > "$TMP/q"
	diff <(jq -cS 'select(.type == "observation_bundle") | .spot_quota_plan' "$TMP/b") <(jq -cS 'select(.type == "quota_plan") | del(.type)' "$TMP/q")
	[ "$(grep -c '"type":"quota_plan"' "$TMP/q")" -eq 2 ]
}

@test "quota: the error cases (tests/cases/quota/*.case)" {
	points > "$TMP/p.nd"
	forecast -c "$CTRL" -t 100000 "$WARM" > "$TMP/b"
	run_cases quota ctrl="$CTRL" points="$TMP/p.nd" bundle="$TMP/b"
}

@test "quota: chunked input and reruns are byte-identical" {
	points > "$TMP/p.nd"
	quota -c "$CTRL" "$TMP/p.nd" > "$TMP/a"
	quota -c "$CTRL" "$TMP/p.nd" > "$TMP/b"
	cmp "$TMP/a" "$TMP/b"
	feed_chunked "$TMP/p.nd" quota -c "$CTRL" > "$TMP/c"
	diff <(sans_header "$TMP/a") <(sans_header "$TMP/c")
}

# reseal_bundle PY-EXPR BUNDLE-STREAM: edit the bundle record `b` with a Python statement,
# recompute every fingerprint the bundle carries (snapshot -> forecast -> plan -> bundle),
# and seal the stream again: an edit that no fingerprint can catch, only the value ranges.
reseal_bundle() {
	python3 -c '
import hashlib, json, sys
lines = open(sys.argv[2]).read().splitlines()
b = json.loads(lines[1])
def fp(d, key):
    x = {k: v for k, v in d.items() if k not in (key, "type")}
    return hashlib.sha256(json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
exec(sys.argv[1])
s, f, q = b["observation_snapshot"], b["demand_forecast"], b["spot_quota_plan"]
s["snapshot_fingerprint"] = fp(s, "snapshot_fingerprint")
f["observation_snapshot_fingerprint"] = s["snapshot_fingerprint"]
f["forecast_fingerprint"] = fp(f, "forecast_fingerprint")
q["forecast_fingerprint"] = f["forecast_fingerprint"]
q["quota_plan_fingerprint"] = fp(q, "quota_plan_fingerprint")
if "observation_bundle_fingerprint" in b:
    b["observation_bundle_fingerprint"] = fp(b, "observation_bundle_fingerprint")
print(lines[0]); print(json.dumps(b, separators=(",", ":")))' "$1" "$2" | stream-seal
}

@test "quota: the largest capacity the trace model allows (2^40 GPUs) gives the largest quota, not a negative one" {
	points > "$TMP/p.nd"
	run sh -c "quota -c '$CTRL' --capacity 1099511627776 '$TMP/p.nd' > '$TMP/q' && jq -c 'select(.type == \"quota_plan\") | .spot_quota_gpus_by_guarantee_hour' '$TMP/q'"
	assert_success
	assert_line --index 0 '{"1":1099511627770,"2":1099511627770,"4":1099511627766}'
}

@test "quota: a resealed bundle (every fingerprint recomputed) is still verified by its value ranges and the plan's arithmetic" {
	forecast -c "$CTRL" -t 100000 "$WARM" > "$TMP/b"
	# every fingerprint recomputed: the value ranges and the plan's own arithmetic catch them
	reseal_bundle 'pass' "$TMP/b" > "$TMP/same.nd"
	quota -c "$CTRL" "$TMP/same.nd" > /dev/null
	reseal_bundle 'b["spot_quota_plan"]["eta"] = 1e308' "$TMP/b" > "$TMP/e.nd"
	run quota -c "$CTRL" "$TMP/e.nd"
	assert_failure 1
	assert_output --regexp "e\.nd:2: observation_bundle: spot_quota_plan: eta must lie within the controller's \[minimum_eta, maximum_eta\]$"
	reseal_bundle 'b["spot_quota_plan"]["capacity_gpus"] = 1e15' "$TMP/b" > "$TMP/e.nd"
	run quota -c "$CTRL" "$TMP/e.nd"
	assert_failure 1
	assert_output --regexp "e\.nd:2: observation_bundle: spot_quota_plan: capacity_gpus must be an integer in \[1, 2\^40\]$"
	reseal_bundle 'b["spot_quota_plan"]["capacity_gpus"] = 1000' "$TMP/b" > "$TMP/e.nd"
	run quota -c "$CTRL" "$TMP/e.nd"
	assert_failure 1
	assert_output --partial "e.nd:2: observation_bundle: spot_quota_plan: the quota of horizon 1 h is not the quota function of the plan's forecast, capacity and eta"
	reseal_bundle 'del(b["observation_bundle_fingerprint"])' "$TMP/b" > "$TMP/e.nd"
	run quota -c "$CTRL" "$TMP/e.nd"
	assert_failure 1
	assert_output --partial "e.nd:2: observation_bundle: the record does not match its observation_bundle_fingerprint (edited or missing)"
	reseal_bundle 'b["demand_forecast"]["points"][1]["mu_gpus"] = -5' "$TMP/b" > "$TMP/e.nd"
	run quota -c "$CTRL" "$TMP/e.nd"
	assert_failure 1
	assert_output --partial "e.nd:2: observation_bundle: point 2: mu_gpus must be a finite number >= 0 (step 2: "
	reseal_bundle 'b["demand_forecast"]["points"][0]["target_time_seconds"] = 100000' "$TMP/b" > "$TMP/e.nd"
	run quota -c "$CTRL" "$TMP/e.nd"
	assert_failure 1
	assert_output --partial "e.nd:2: observation_bundle: point 1: target_time_seconds must lie after the cutoff"
	reseal_bundle 'b["demand_forecast"]["points"][3]["guarantee_quantile_gpus"] = 33' "$TMP/b" > "$TMP/e.nd"
	run quota -c "$CTRL" "$TMP/e.nd"
	assert_failure 1
	assert_output --partial "e.nd:2: observation_bundle: point 4: mu_gpus and guarantee_quantile_gpus must not exceed the capacity"
}
