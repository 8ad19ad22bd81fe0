#!/usr/bin/env bats
# quota: the quota function as a filter, over bundles and over forecast_point records.
load helper

CTRL="$ROOT/configs/controllers/predictive-spot-v1.json"
WARM="$ROOT/tests/data/sim/warmup-window.trace.ndjson"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

# a forecast_point + inventory stream: q 5.281552 x 2, then 9.5 and 10 (C 12)
points() {
	cat <<'P' | stream-seal
{"type":"header","schema":"schednav.forecast-points/1","tool":"hand","version":"0","inputs":[],"params":{}}
{"type":"inventory","capacity_gpus":12}
{"type":"forecast_point","cutoff_time_seconds":0.0,"horizon_step":1,"target_time_seconds":3600.0,"mu_gpus":4.0,"sigma_gpus":1.0,"guarantee_quantile_gpus":5.281552}
{"type":"forecast_point","cutoff_time_seconds":0.0,"horizon_step":2,"target_time_seconds":7200.0,"mu_gpus":4.0,"sigma_gpus":1.0,"guarantee_quantile_gpus":5.281552}
{"type":"forecast_point","cutoff_time_seconds":0.0,"horizon_step":3,"target_time_seconds":10800.0,"mu_gpus":8.0,"sigma_gpus":1.0,"guarantee_quantile_gpus":9.5}
{"type":"forecast_point","cutoff_time_seconds":0.0,"horizon_step":4,"target_time_seconds":14400.0,"mu_gpus":8.0,"sigma_gpus":1.0,"guarantee_quantile_gpus":10}
{"type":"inventory","capacity_gpus":12,"eta":1.21}
{"type":"forecast_point","cutoff_time_seconds":300.0,"horizon_step":1,"target_time_seconds":3900.0,"mu_gpus":4.0,"sigma_gpus":1.0,"guarantee_quantile_gpus":5.281552}
{"type":"note","text":"ignored"}
P
}

@test "quota: --help matches the man page; a bad option exits 2; --controller is required" {
	assert_tool_invariants quota
	run quota < /dev/null
	assert_failure 2
	assert_output --partial "missing --controller"
	run quota -c "$CTRL" --eta 0 < /dev/null
	assert_failure 2
	run quota -c "$CTRL" --eta abc < /dev/null
	assert_failure 2
	assert_output --partial "quota: --eta: invalid number 'abc'"
}

@test "quota: empty input and a truncated stream are errors" {
	run quota -c "$CTRL" < /dev/null
	assert_failure 1
	assert_output --partial "empty input"
	points | head -n 4 > "$TMP/t.nd"
	run quota -c "$CTRL" -o "$TMP/out" "$TMP/t.nd"
	assert_failure 1
	assert_output --regexp "^quota: .*t\.nd:[0-9]+: "
	[ ! -e "$TMP/out" ]
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

@test "quota: bad input is refused with a message" {
	printf '%s\n' '{"type":"header","schema":"x/1","tool":"hand","version":"0","inputs":[],"params":{}}' \
		'{"type":"forecast_point","cutoff_time_seconds":0,"horizon_step":2,"target_time_seconds":3600,"mu_gpus":1,"sigma_gpus":1,"guarantee_quantile_gpus":2}' | stream-seal > "$TMP/s.nd"
	run quota -c "$CTRL" --capacity 10 "$TMP/s.nd"
	assert_failure 1
	assert_output --partial "horizon_step 2 where step 1 was expected"
	printf '%s\n' '{"type":"header","schema":"x/1","tool":"hand","version":"0","inputs":[],"params":{}}' \
		'{"type":"forecast_point","cutoff_time_seconds":0,"horizon_step":1,"target_time_seconds":3600,"mu_gpus":1,"sigma_gpus":1,"guarantee_quantile_gpus":2}' | stream-seal > "$TMP/n.nd"
	run quota -c "$CTRL" "$TMP/n.nd"
	assert_failure 1
	assert_output --partial "without a capacity"
	sed 's/"guarantee_quantile_gpus":2/"guarantee_quantile_gpus":"2"/' "$TMP/n.nd" | stream-seal > "$TMP/x.nd"
	run quota -c "$CTRL" --capacity 10 "$TMP/x.nd"
	assert_failure 1
	assert_output --partial "'guarantee_quantile_gpus' is missing or not a finite number"
	printf '%s\n' '{"type":"header","schema":"x/1","tool":"hand","version":"0","inputs":[],"params":{}}' \
		'{"type":"inventory","capacity_gpus":10,"eta":-1}' | stream-seal > "$TMP/e.nd"
	run quota -c "$CTRL" "$TMP/e.nd"
	assert_failure 1
	assert_output --regexp "quota: .*e\.nd:2: inventory: eta must be > 0"
	# a bundle of another controller
	jq '.maximum_eta = 1.5' "$CTRL" > "$TMP/c.json"
	forecast -c "$CTRL" -t 100000 "$WARM" > "$TMP/b"
	run quota -c "$TMP/c.json" "$TMP/b"
	assert_failure 1
	assert_output --partial "observation_bundle of another controller"
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

@test "quota: the capacity is bounded by the trace model's 2^40 GPUs (option, inventory), never overflows a quota" {
	points > "$TMP/p.nd"
	local c
	for c in 1e308 9223372036854775807 1099511627777; do
		run quota -c "$CTRL" --capacity "$c" "$TMP/p.nd"
		assert_failure 2
		assert_output --partial "quota: --capacity: must be in (0, 2^40 = 1099511627776], not '"
	done
	# the largest capacity gives the largest quota, not a negative one
	run sh -c "quota -c '$CTRL' --capacity 1099511627776 '$TMP/p.nd' > '$TMP/q' && jq -c 'select(.type == \"quota_plan\") | .spot_quota_gpus_by_guarantee_hour' '$TMP/q'"
	assert_success
	assert_line --index 0 '{"1":1099511627770,"2":1099511627770,"4":1099511627766}'
	sed 's/"capacity_gpus":12}/"capacity_gpus":1e308}/' "$TMP/p.nd" | grep -v '"type":"end"' | stream-seal > "$TMP/i.nd"
	run quota -c "$CTRL" -o "$TMP/out" "$TMP/i.nd"
	assert_failure 1
	assert_output --regexp "quota: .*i\.nd:2: inventory: capacity_gpus must be in \(0, 2\^40 = 1099511627776\], not 1e\+308$"
	assert_no_output "$TMP/out"
}

@test "quota: a forecast_point out of range is refused at its line (mu, sigma below 0, a target at or before the cutoff)" {
	points > "$TMP/p.nd"
	local edit
	for edit in 's/"mu_gpus":4.0,/"mu_gpus":-5,/' 's/"sigma_gpus":1.0,/"sigma_gpus":-1,/' 's/"target_time_seconds":3600.0,/"target_time_seconds":-10,/'; do
		sed "0,/\"mu_gpus\":4.0,/{$edit}" "$TMP/p.nd" | grep -v '"type":"end"' | stream-seal > "$TMP/e.nd"
		run quota -c "$CTRL" "$TMP/e.nd"
		assert_failure 1
		assert_output --regexp "quota: .*e\.nd:3: forecast_point: (mu_gpus must be a finite number >= 0|sigma_gpus must be a finite number >= 0|target_time_seconds must lie after the cutoff \(by at most 1e12 s\)) \(step 1: "
	done
}

@test "quota: a bundle is verified: every edit is refused, by its fingerprints or, resealed, by its value ranges" {
	forecast -c "$CTRL" -t 100000 "$WARM" > "$TMP/b"
	# edited without resealing the documents: the fingerprints catch each edit
	local edit
	for edit in '.spot_quota_plan.eta = 1e308' '.spot_quota_plan.capacity_gpus = 1e15' 'del(.observation_bundle_fingerprint)' \
		'.demand_forecast.points[0].guarantee_quantile_gpus = 1'; do
		{ head -n 1 "$TMP/b"; sed -n 2p "$TMP/b" | jq -c "$edit"; } | stream-seal > "$TMP/e.nd"
		run quota -c "$CTRL" -o "$TMP/out" "$TMP/e.nd"
		assert_failure 1
		assert_output --regexp "quota: .*e\.nd:2: observation_bundle: .*(does not match its .*_fingerprint \(edited or missing\)|does not name its snapshot)"
		assert_no_output "$TMP/out"
	done
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
