#!/usr/bin/env bats
# trace-synth: seeded synthetic traces calibrated to a profile (docs/profiles.md).
load helper
load run_cases
bats_require_minimum_version 1.5.0

PROFILE="$ROOT/configs/profiles/alibaba-spot-gpu-v2026.json"
TINY="$DATA/synth/tiny.json"

# One full-scale run (with its fit report) shared by the tests that need it.
setup_file() {
	export FULL="$BATS_FILE_TMPDIR/full.ndjson" FULLREPORT="$BATS_FILE_TMPDIR/full-fit.md"
	trace-synth --profile "$PROFILE" --seed 1 --report "$FULLREPORT" -o "$FULL"
}

# The checks below use awk and jq (fast on the 62 MB full trace); job lines are
# {"type":"job","job_id":ID,"submit":S,"duration":D,"gpus":G,"class":C,"gpu_model":M,"tenant":T},
# so with '"' as the separator: $8 ID, $11 :S, $13 :D, $15 :G, $18 C, $22 M, $26 T; node
# lines {"type":"node","node_id":N,"gpu_model":M,"gpu_count":G}: $12 M, $15 :G}.

# Expected jobs per hour: differences of floor(F * cumulative + 0.5), as documented.
hours_expected() {
	jq -r --argjson f "$2" 'foreach .hourly_jobs[] as $c ({cum: 0, prev: 0};
		.cum += $c | .cur = (($f * .cum + 0.5) | floor) | .out = .cur - .prev | .prev = .cur; .out)' "$1"
}

hours_actual() {
	awk -F'"' -v n="$2" '$4 == "job" { sub(/^:/, "", $11); c[int($11 / 3600)]++ }
		END { for (h = 0; h < n; h++) print c[h] + 0 }' "$1"
}

# Every count the profile fixes at load factor 1: hours, days x class, models, organizations.
assert_profile_counts() {
	local trace="$1" profile="$2" n
	n=$(jq '.hourly_jobs | length' "$profile")
	diff <(hours_expected "$profile" 1) <(hours_actual "$trace" "$n") > /dev/null || fail "hourly counts differ"
	diff <(jq -r '.daily_class_jobs[] | "\(.[0]) \(.[1])"' "$profile") \
		<(awk -F'"' -v n="$n" '$4 == "job" { sub(/^:/, "", $11); d = int($11 / 86400); if ($18 == "HP") hp[d]++; else sp[d]++ }
			END { for (d = 0; d * 24 < n; d++) print hp[d] + 0, sp[d] + 0 }' "$trace") > /dev/null || fail "daily HP/Spot counts differ"
	diff <(jq -r '.gpu_models[] | select(.jobs > 0) | "\(.model) \(.jobs)"' "$profile" | sort) \
		<(awk -F'"' '$4 == "job" { c[$22]++ } END { for (m in c) print m, c[m] }' "$trace" | sort) || fail "model counts differ"
	diff <(jq -r '.organizations[] | select(.[1] > 0) | "\(.[0]) \(.[1])"' "$profile" | sort) \
		<(awk -F'"' '$4 == "job" { c[$26]++ } END { for (m in c) print m, c[m] }' "$trace" | sort) > /dev/null || fail "organization counts differ"
}

# Prints: jobs, jobs over their model's capacity, jobs out of (submit, job_id) order,
# non-integral submits.
trace_sanity() {
	awk -F'"' '
		$4 == "node" { c = $15; sub(/^:/, "", c); sub(/}$/, "", c); cap[$12] += c; next }
		$4 == "job" {
			s = $11; sub(/^:/, "", s); sub(/,$/, "", s); g = $15; sub(/^:/, "", g); sub(/,$/, "", g)
			if (g + 0 > cap[$22]) over++
			if (n && (s + 0 < ps || (s + 0 == ps && $8 <= pid))) order++
			if (s + 0 != int(s + 0)) frac++
			ps = s + 0; pid = $8; n++
		}
		END { print n + 0, over + 0, order + 0, frac + 0 }' "$1"
}

@test "trace-synth: invariants (--help equals the man page, bad option exits 2)" {
	assert_tool_invariants trace-synth
}

@test "trace-synth: full scale hourly, daily class, model and organization counts equal the profile" {
	assert_profile_counts "$FULL" "$PROFILE"
	run -0 trace_sanity "$FULL"
	assert_output "466867 0 0 0"
	run -0 tail -n 1 "$FULL"
	assert_output --regexp '^\{"type":"end","records":471145,"fingerprint":"[0-9a-f]{32}","header_fingerprint":"[0-9a-f]{32}"\}$'
}

@test "trace-synth: full scale keeps the real node inventory (4278 nodes, 10412 GPUs, 6 models)" {
	run -0 awk -F'"' '$4 == "node" { c = $15; sub(/^:/, "", c); n++; g += c; m[$12] = 1 } END { print n, g, length(m) }' "$FULL"
	assert_output "4278 10412 6"
	# The real node list, verbatim.
	diff <(jq -r '.nodes[] | "\(.[0]) \(.[1]) \(.[2])"' "$PROFILE" | sort) \
		<(awk -F'"' '$4 == "node" { c = $15; sub(/^:/, "", c); sub(/}$/, "", c); print $8, $12, c }' "$FULL" | sort)
}

@test "trace-synth: provenance says synthetic and names the profile" {
	run -0 jq -c 'select(.type=="header") | [.schema, .trace_id, .time_origin, .source.dataset, .source.synthetic, .source.profile.name, .source.seed, .source.attribution.aggregates.license, .inputs[0].path, .inputs[0].bytes]' "$FULL"
	assert_output "[\"schednav.trace/2\",\"synth-alibaba-spot-gpu-v2026-s1\",\"2024-03-01 00:00:00\",\"synthetic\",true,\"alibaba-spot-gpu-v2026\",1,\"MIT\",\"$PROFILE\",$(stat -c %s "$PROFILE")]"
	run -0 jq -r 'select(.type=="header") | [.source.profile.xxh3 == .inputs[0].xxh3, (.inputs[0].xxh3|test("^[0-9a-f]{32}$")), .source.generator.name] | @tsv' "$FULL"
	assert_output "$(printf 'true\ttrue\ttrace-synth')"
	run -0 head -n 1 "$FULL"
	assert_output --partial '"load_factor":1.0,"days":null,"gpu_models":null,'
	# Another profile file (one byte more) is another input: the hash follows the bytes.
	cp "$TINY" "$BATS_TEST_TMPDIR/p.json"
	trace-synth --profile "$BATS_TEST_TMPDIR/p.json" -o "$BATS_TEST_TMPDIR/a.ndjson"
	echo >> "$BATS_TEST_TMPDIR/p.json"
	trace-synth --profile "$BATS_TEST_TMPDIR/p.json" -o "$BATS_TEST_TMPDIR/b.ndjson"
	run -0 jq -r 'select(.type=="header").source.profile.xxh3' "$BATS_TEST_TMPDIR/a.ndjson" "$BATS_TEST_TMPDIR/b.ndjson"
	[ "${lines[0]}" != "${lines[1]}" ] || fail "profile hash did not change"
}

@test "trace-synth: the full-scale fit report is exact where the tables allow and matches docs/trace-synth-fit.md" {
	run grep -F '| 4418 | 466867 | 466867 | 0 | 0 |' "$FULLREPORT"
	assert_success
	run grep -F '| HP jobs | 415713 | 415713 |' "$FULLREPORT"
	assert_success
	run -0 grep -c 'distance.*: 0.000000\.' "$FULLREPORT"
	assert_output 3
	# The document is this report, then the /3 fidelity section (make-fit-report.sh writes both).
	awk '/^# Profile \/3/ { exit } { print }' "$ROOT/docs/trace-synth-fit.md" | sed '$d' > "$BATS_TEST_TMPDIR/v2-part.md"
	run diff "$FULLREPORT" "$BATS_TEST_TMPDIR/v2-part.md"
	assert_success
}

@test "trace-synth: full scale joint fit (recomputed from the trace): per-model GPU demand within 0.1%, GPU-seconds within 2%, classes and total within 1%" {
	# Per model: jobs, sum of gpus, sum of gpus x duration, against the profile's reference.
	run -0 bash -c "diff <(jq -r '.gpu_models[] | \"\\(.model) \\(.reference.gpu_demand) \\(.reference.gpu_seconds)\"' '$PROFILE' | sort) \
		<(awk -F'\"' '\$4 == \"job\" { d = \$13; g = \$15; sub(/^:/, \"\", d); sub(/,\$/, \"\", d); sub(/^:/, \"\", g); sub(/,\$/, \"\", g)
			gp[\$22] += g; gs[\$22] += g * d; c[\$18] += g * d; t += g * d }
			END { for (m in gp) printf \"%s %.17g %.17g\\n\", m, gp[m], gs[m]; printf \"HP %.17g\\nSpot %.17g\\nTOTAL %.17g\\n\", c[\"HP\"], c[\"Spot\"], t }' '$FULL' | sort) | grep '^>'"
	local ok
	ok=$(awk -v prof="$(jq -r '.gpu_models[] | "\(.model) \(.reference.gpu_demand) \(.reference.gpu_seconds)"' "$PROFILE")" '
		BEGIN { n = split(prof, L, "\n"); for (i = 1; i <= n; i++) { split(L[i], f, " "); dem[f[1]] = f[2]; sec[f[1]] = f[3] } }
		/^> / { m = $2; if (m in dem) { e1 = $3 / dem[m] - 1; e2 = $4 / sec[m] - 1; if (e1 < 0) e1 = -e1; if (e2 < 0) e2 = -e2
			if (e1 > 0.001 || e2 > 0.02) bad = bad " " m; seen++ } }
		END { print (seen == n && bad == "") ? "ok" : "bad:" bad " seen " seen }' <<< "$output")
	[ "$ok" = ok ] || fail "per-model fit: $ok"
	ok=$(awk -v hp="$(jq '.classes.HP.gpu_seconds' "$PROFILE")" -v sp="$(jq '.classes.Spot.gpu_seconds' "$PROFILE")" \
		-v tot="$(jq '[.gpu_models[].reference.gpu_seconds] | add' "$PROFILE")" '
		function a(x) { return x < 0 ? -x : x }
		$2 == "HP" { e = a($3 / hp - 1) } $2 == "Spot" { f = a($3 / sp - 1) } $2 == "TOTAL" { g = a($3 / tot - 1) }
		END { print (e < 0.01 && f < 0.01 && g < 0.01) ? "ok" : "bad " e " " f " " g }' <<< "$output")
	[ "$ok" = ok ] || fail "class/total fit: $ok"
	# The worker-count distribution stays exact: the fit report says so.
	run grep -F 'worker counts of the table: 0.000000.' "$FULLREPORT"
	assert_success
}

@test "trace-synth: the full trace is byte-identical across runs" {
	trace-synth --profile "$PROFILE" --seed 1 -o "$BATS_TEST_TMPDIR/again.ndjson"
	cmp "$FULL" "$BATS_TEST_TMPDIR/again.ndjson"
}

@test "trace-synth: day-range and tiny outputs validate against the schemas" {
	trace-synth --profile "$PROFILE" --days 10 -o "$BATS_TEST_TMPDIR/days.ndjson"
	trace-synth --profile "$TINY" -o "$BATS_TEST_TMPDIR/tiny.ndjson"
	assert_schema "$BATS_TEST_TMPDIR/days.ndjson" "$BATS_TEST_TMPDIR/tiny.ndjson"
	# The schemas are strict: an extra key fails.
	sed '6s/}$/,"extra":1}/' "$BATS_TEST_TMPDIR/tiny.ndjson" > "$BATS_TEST_TMPDIR/bad.ndjson"
	run python3 "$ROOT/tests/validate-schema.py" "$BATS_TEST_TMPDIR/bad.ndjson"
	assert_failure 1
	assert_output --partial "bad.ndjson:6: job:"
}

@test "trace-synth: same seed gives byte-identical output, another seed differs" {
	trace-synth --profile "$TINY" --seed 7 -o "$BATS_TEST_TMPDIR/a.ndjson"
	trace-synth --profile "$TINY" --seed 7 -o "$BATS_TEST_TMPDIR/b.ndjson"
	trace-synth --profile "$TINY" --seed 8 -o "$BATS_TEST_TMPDIR/c.ndjson"
	cmp "$BATS_TEST_TMPDIR/a.ndjson" "$BATS_TEST_TMPDIR/b.ndjson"
	run cmp -s <(grep '"job"' "$BATS_TEST_TMPDIR/a.ndjson") <(grep '"job"' "$BATS_TEST_TMPDIR/c.ndjson")
	assert_failure 1
	run -0 jq -r 'select(.type=="header").trace_id' "$BATS_TEST_TMPDIR/c.ndjson"
	assert_output "synth-tiny-s8"
	# Every seed gives the profile's exact counts.
	assert_profile_counts "$BATS_TEST_TMPDIR/a.ndjson" "$TINY"
	assert_profile_counts "$BATS_TEST_TMPDIR/c.ndjson" "$TINY"
	run -0 trace_sanity "$BATS_TEST_TMPDIR/c.ndjson"
	assert_output "753 0 0 0"
}

@test "trace-synth: jobs never exceed their model's capacity; oversize requests are capped and counted" {
	trace-synth --profile "$TINY" -o "$BATS_TEST_TMPDIR/t.ndjson"
	run -0 trace_sanity "$BATS_TEST_TMPDIR/t.ndjson"
	assert_output "753 0 0 0"
	# The 10 jobs with 64 workers ask for 64 or 256 GPUs of M1 (8 GPUs) or 32 of M2 (8 GPUs):
	# all are cut to 8 and counted.
	run -0 jq -r 'select(.type=="header").source.capacity_capped_jobs' "$BATS_TEST_TMPDIR/t.ndjson"
	assert_output 10
	run -0 jq -s -c '[.[]|select(.type=="job" and .gpu_model=="M2")|.gpus]|[max, (map(select(. == 8))|length)]' "$BATS_TEST_TMPDIR/t.ndjson"
	assert_output --regexp '^\[8,[1-9][0-9]*\]$'
	run -0 jq -r 'select(.type=="header").source.capacity_capped_jobs' "$FULL"
	assert_output 0
}

@test "trace-synth: --days keeps a day range of the same trace without rebasing" {
	trace-synth --profile "$TINY" -o "$BATS_TEST_TMPDIR/all.ndjson"
	trace-synth --profile "$TINY" --days 1-2 -o "$BATS_TEST_TMPDIR/d.ndjson"
	diff <(jq -c 'select(.type=="job" and .submit >= 86400)' "$BATS_TEST_TMPDIR/all.ndjson") <(jq -c 'select(.type=="job")' "$BATS_TEST_TMPDIR/d.ndjson")
	run -0 jq -s -c '[.[]|select(.type=="job")|.submit]|[min >= 86400, length]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output "[true,467]"
	run -0 jq -c 'select(.type=="header")|[.trace_id,.source.days,.params.days]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '["synth-tiny-s1-d1-2",[1,2],[1,2]]'
	trace-synth --profile "$TINY" --days 0 -o "$BATS_TEST_TMPDIR/d0.ndjson"
	run -0 jq -s -c '[.[]|select(.type=="job")|.submit]|[max < 86400, length]' "$BATS_TEST_TMPDIR/d0.ndjson"
	assert_output "[true,286]"
	# Real profile, one day: exactly that day's hourly counts, the same jobs as the full trace.
	trace-synth --profile "$PROFILE" --days 100 -o "$BATS_TEST_TMPDIR/r.ndjson"
	diff <(hours_expected "$PROFILE" 1 | sed -n '2401,2424p') <(hours_actual "$BATS_TEST_TMPDIR/r.ndjson" 4418 | sed -n '2401,2424p')
	run -0 hours_actual "$BATS_TEST_TMPDIR/r.ndjson" 4418
	[ "$(printf '%s\n' "${lines[@]}" | awk '{ s += $1 } END { print s }')" = "$(jq '.hourly_jobs[2400:2424]|add' "$PROFILE")" ]
	diff <(grep '"job"' "$BATS_TEST_TMPDIR/r.ndjson") <(awk -F'"' '$4 == "job" { s = $11; sub(/^:/, "", s); if (s + 0 >= 8640000 && s + 0 < 8726400) print }' "$FULL")
}

@test "trace-synth: --gpu-model keeps that model's nodes and jobs of the same trace" {
	trace-synth --profile "$TINY" -o "$BATS_TEST_TMPDIR/all.ndjson"
	trace-synth --profile "$TINY" --gpu-model M2 -o "$BATS_TEST_TMPDIR/m.ndjson"
	diff <(jq -c 'select(.type=="job" and .gpu_model=="M2")' "$BATS_TEST_TMPDIR/all.ndjson") <(jq -c 'select(.type=="job")' "$BATS_TEST_TMPDIR/m.ndjson")
	run -0 jq -c 'select(.type=="node")|.node_id' "$BATS_TEST_TMPDIR/m.ndjson"
	assert_output '"n3"'
	run -0 jq -c 'select(.type=="header")|[.source.gpu_models,.trace_id]' "$BATS_TEST_TMPDIR/m.ndjson"
	assert_output '[["M2"],"synth-tiny-s1-M2"]'
	trace-synth --profile "$PROFILE" --gpu-model H800 --gpu-model A10 --days 5 -o "$BATS_TEST_TMPDIR/r.ndjson"
	run -0 jq -s -c '[.[]|select(.type=="job" or .type=="node")|.gpu_model]|unique' "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output '["A10","H800"]'
	run -0 jq -s -c '[.[]|select(.type=="node")]|[length,(map(.gpu_count)|add)]' "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output '[2713,4246]'
	run -0 jq -c 'select(.type=="header").source.gpu_models' "$BATS_TEST_TMPDIR/r.ndjson"
	assert_output '["A10","H800"]'
}

@test "trace-synth: --load-factor scales the hourly counts by cumulative rounding" {
	trace-synth --profile "$TINY" --load-factor 2.5 -o "$BATS_TEST_TMPDIR/f.ndjson"
	diff <(hours_expected "$TINY" 2.5) <(hours_actual "$BATS_TEST_TMPDIR/f.ndjson" 60)
	run -0 trace_sanity "$BATS_TEST_TMPDIR/f.ndjson"
	assert_output "$(( (753 * 5 + 1) / 2 )) 0 0 0"
	trace-synth --profile "$TINY" --load-factor 0.3 -o "$BATS_TEST_TMPDIR/g.ndjson"
	diff <(hours_expected "$TINY" 0.3) <(hours_actual "$BATS_TEST_TMPDIR/g.ndjson" 60)
	run -0 trace_sanity "$BATS_TEST_TMPDIR/g.ndjson"
	assert_output "226 0 0 0"
	run -0 jq -c 'select(.type=="header")|[.trace_id,.source.load_factor]' "$BATS_TEST_TMPDIR/g.ndjson"
	assert_output '["synth-tiny-s1-f0.3",0.3]'
}

@test "trace-synth: zstd output decompresses to the plain output" {
	trace-synth --profile "$TINY" -o "$BATS_TEST_TMPDIR/t.ndjson"
	trace-synth --profile "$TINY" -o "$BATS_TEST_TMPDIR/t.ndjson.zst"
	run zstd -t "$BATS_TEST_TMPDIR/t.ndjson.zst"
	assert_success
	cmp <(zstdcat "$BATS_TEST_TMPDIR/t.ndjson.zst") "$BATS_TEST_TMPDIR/t.ndjson"
}

@test "trace-synth: profile from stdin, zstd stdin and chunked stdin give the same trace" {
	trace-synth --profile - < "$TINY" > "$BATS_TEST_TMPDIR/a.ndjson"
	feed_chunked "$TINY" trace-synth --profile - > "$BATS_TEST_TMPDIR/c.ndjson"
	cmp "$BATS_TEST_TMPDIR/a.ndjson" "$BATS_TEST_TMPDIR/c.ndjson"
	zstd -q -c "$TINY" | trace-synth --profile - > "$BATS_TEST_TMPDIR/b.ndjson"
	# The compressed profile has other raw bytes, so only the header's input facts differ.
	cmp <(sed '1d;$d' "$BATS_TEST_TMPDIR/a.ndjson") <(sed '1d;$d' "$BATS_TEST_TMPDIR/b.ndjson")
	run -0 jq -r 'select(.type=="header").inputs[0].path' "$BATS_TEST_TMPDIR/a.ndjson"
	[ "$output" = "-" ]
}

@test "trace-synth: the error cases: bad and malformed profiles, usage errors, filters that keep nothing (tests/cases/trace-synth/*.case)" {
	run_cases trace-synth
}

@test "trace-synth: the shipped profile is rebuilt byte for byte from the shared tables" {
	require_shared data
	python3 "$ROOT/configs/profiles/build-alibaba-spot-profile.py" "$SHARED/data" "$BATS_TEST_TMPDIR/p.json"
	cmp "$BATS_TEST_TMPDIR/p.json" "$PROFILE"
}

@test "trace-synth: the shipped /3 profile is rebuilt byte for byte from the shared tables" {
	require_shared data
	python3 "$ROOT/configs/profiles/build-alibaba-spot-profile-v3.py" "$SHARED/data" "$BATS_TEST_TMPDIR/p3.json"
	cmp "$BATS_TEST_TMPDIR/p3.json" "$ROOT/configs/profiles/alibaba-spot-gpu-v2026-v3.json"
}

@test "trace-synth: /3 keeps every hour's job count, places the real rows as they were, same seed same bytes" {
	local p3="$ROOT/configs/profiles/alibaba-spot-gpu-v2026-v3.json" n
	trace-synth --profile "$p3" --seed 1 -o "$BATS_TEST_TMPDIR/a.ndjson"
	trace-synth --profile "$p3" --seed 1 -o "$BATS_TEST_TMPDIR/b.ndjson"
	cmp "$BATS_TEST_TMPDIR/a.ndjson" "$BATS_TEST_TMPDIR/b.ndjson"
	n=$(jq '.hourly_jobs | length' "$p3")
	diff <(hours_expected "$p3" 1) <(hours_actual "$BATS_TEST_TMPDIR/a.ndjson" "$n") > /dev/null || fail "hourly counts differ"
	# The real rows: as many as the profile lists, each with its submit, duration, GPUs, class,
	# organization and model.
	jq -r '.v3.real_jobs.rows[] | "real-\(.[0]) \(.[4]) \(.[5]) \(.[6] * .[7]) \(.[2]) \(.[3]) \(.[1])"' "$p3" | sort > "$BATS_TEST_TMPDIR/want"
	awk -F'"' '$4 == "job" && $8 ~ /^real-/ { sub(/^:/, "", $11); sub(/,$/, "", $11); sub(/^:/, "", $13); sub(/,$/, "", $13);
		sub(/^:/, "", $15); sub(/,$/, "", $15); printf "%s %d %d %g %s %s %s\n", $8, $11, $13, $15, $18, $22, $26 }' \
		"$BATS_TEST_TMPDIR/a.ndjson" | sort > "$BATS_TEST_TMPDIR/got"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/want")" -eq 1392 ] || fail "expected 1392 real rows in the profile"
	diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" > /dev/null || fail "real rows differ: $(diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" | head -4)"
	run -0 jq -c 'select(.type == "header") | [.source.real_jobs.jobs, .source.real_jobs.id_prefix]' "$BATS_TEST_TMPDIR/a.ndjson"
	assert_output '[1392,"real-"]'
	# Another seed, other bytes.
	trace-synth --profile "$p3" --seed 2 --days 10 -o "$BATS_TEST_TMPDIR/c.ndjson"
	run -0 jq -r 'select(.type == "header") | .trace_id' "$BATS_TEST_TMPDIR/c.ndjson"
	assert_output "synth-alibaba-spot-gpu-v2026-v3-s2-d10-10"
}

@test "trace-synth: /3 repairs the whole population, so --days and --gpu-model cut the same jobs; per-model counts exact" {
	local p3="$ROOT/configs/profiles/alibaba-spot-gpu-v2026-v3.json"
	trace-synth --profile "$p3" --seed 1 -o "$BATS_TEST_TMPDIR/a.ndjson"
	trace-synth --profile "$p3" --seed 1 --days 40-45 --gpu-model H800 -o "$BATS_TEST_TMPDIR/f.ndjson"
	# The filtered trace's jobs are the full trace's H800 jobs submitted on days 40..45, byte for byte.
	grep '"type":"job"' "$BATS_TEST_TMPDIR/f.ndjson" > "$BATS_TEST_TMPDIR/f.jobs"
	awk -F'"' '$4 == "job" && $22 == "H800" { s = $11; sub(/^:/, "", s); sub(/,$/, "", s);
		if (s + 0 >= 40 * 86400 && s + 0 < 46 * 86400) print }' "$BATS_TEST_TMPDIR/a.ndjson" > "$BATS_TEST_TMPDIR/a.jobs"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/f.jobs")" -gt 100 ] || fail "too few H800 jobs on days 40..45"
	cmp "$BATS_TEST_TMPDIR/a.jobs" "$BATS_TEST_TMPDIR/f.jobs"
	# Every model keeps its job count of the profile.
	run -0 jq -r '.gpu_models[] | "\(.model) \(.jobs)"' "$p3"
	local want="$output"
	run -0 awk -F'"' '$4 == "job" { c[$22]++ } END { for (m in c) print m, c[m] }' "$BATS_TEST_TMPDIR/a.ndjson"
	[ "$(sort <<< "$output")" = "$(sort <<< "$want")" ] || fail "per-model counts: $output"
}

@test "trace-synth: a tiny /3 profile: exact hourly counts and its real job" {
	local p3="$DATA/synth/tiny3.json"
	trace-synth --profile "$p3" --seed 5 -o "$BATS_TEST_TMPDIR/t.ndjson"
	diff <(hours_expected "$p3" 1) <(hours_actual "$BATS_TEST_TMPDIR/t.ndjson" 48) > /dev/null || fail "hourly counts differ"
	run -0 jq -c 'select(.type == "job" and .job_id == "real-77") | [.submit, .duration, .gpus, .class, .gpu_model, .tenant]' "$BATS_TEST_TMPDIR/t.ndjson"
	assert_output '[0,7200,4,"HP","M1","org-a"]'
}

@test "trace-synth: under --gpu-model the report compares the kept model's classes, not every model's" {
	trace-synth --profile "$PROFILE" --gpu-model GPU-series-2 --report "$BATS_TEST_TMPDIR/r.md" -o "$BATS_TEST_TMPDIR/g.ndjson"
	# GPU-series-2 has 30,397 of the 466,867 jobs: the expected HP jobs are 415,713 x that share.
	run -0 grep -F '| HP jobs |' "$BATS_TEST_TMPDIR/r.md"
	assert_output '| HP jobs | 27066 | 27105 |'
	run -0 grep -c '"class":"HP"' "$BATS_TEST_TMPDIR/g.ndjson"
	assert_output 27105
}

@test "trace-synth: --progress says when generating and writing end; quiet without it off a terminal" {
	run --separate-stderr trace-synth --profile "$PROFILE" --days 3 --gpu-model A10 --progress -o "$BATS_TEST_TMPDIR/p.nd"
	assert_success
	n=$(grep -c '"type":"job"' "$BATS_TEST_TMPDIR/p.nd")
	[[ "${stderr_lines[0]}" == "trace-synth: generated $n jobs on "*" nodes in "* ]] || fail "stderr: $stderr"
	[[ "${stderr_lines[1]}" == "trace-synth: wrote $n jobs to '$BATS_TEST_TMPDIR/p.nd' in "* ]] || fail "stderr: $stderr"
	run --separate-stderr trace-synth --profile "$PROFILE" --days 3 --gpu-model A10 -o "$BATS_TEST_TMPDIR/q.nd"
	assert_success
	[ -z "$stderr" ] || fail "stderr: $stderr"
	cmp "$BATS_TEST_TMPDIR/p.nd" "$BATS_TEST_TMPDIR/q.nd"
}

# Identifiers are kept whole up to the 1,024-byte limit (before, the trace id was cut at
# 511 bytes and real job ids at 95, and different ids collided).
@test "trace-synth: ids stay whole: a long profile name keeps seeds apart, long real job names stay distinct" {
	local long
	long=$(printf 'p%.0s' $(seq 790))
	jq --arg n "$long" '.name = $n' "$DATA/synth/tiny.json" > "$BATS_TEST_TMPDIR/long.json"
	trace-synth --profile "$BATS_TEST_TMPDIR/long.json" --seed 1 -o "$BATS_TEST_TMPDIR/s1.nd"
	trace-synth --profile "$BATS_TEST_TMPDIR/long.json" --seed 2 -o "$BATS_TEST_TMPDIR/s2.nd"
	run -0 jq -r 'select(.type == "header") | .trace_id' "$BATS_TEST_TMPDIR/s1.nd"
	assert_output "synth-$long-s1"
	run -0 jq -r 'select(.type == "header") | .trace_id' "$BATS_TEST_TMPDIR/s2.nd"
	assert_output "synth-$long-s2"
	# two real job names of 500 bytes that differ only in their last byte
	local a b
	a="$(printf 'r%.0s' $(seq 499))a" b="$(printf 'r%.0s' $(seq 499))b"
	jq --arg a "$a" --arg b "$b" '.v3.real_jobs.rows = [[$a, "org-a", "HP", "M1", 0, 600, 1, 1], [$b, "org-a", "HP", "M1", 3600, 600, 1, 1]]' \
		"$DATA/synth/tiny3.json" > "$BATS_TEST_TMPDIR/real.json"
	trace-synth --profile "$BATS_TEST_TMPDIR/real.json" -o "$BATS_TEST_TMPDIR/r.nd"
	run -0 jq -r 'select(.type == "job" and (.job_id | startswith("real-"))) | .job_id' "$BATS_TEST_TMPDIR/r.nd"
	assert_line --index 0 "real-$a"
	assert_line --index 1 "real-$b"
	[ "${#lines[@]}" -eq 2 ]
}
