#!/usr/bin/env bats
# trace-export: trace stream -> the original three-file directory, byte for byte.
load helper
load run_cases

FIX="$BATS_TEST_DIRNAME/canon-fixture.py"

setup() {
	T="$BATS_TEST_TMPDIR"
}

same_dir() {
	local f
	for f in trace.json nodes.csv jobs.csv; do
		cmp "$1/$f" "$2/$f" || fail "$2/$f differs from $1/$f"
	done
}

# A small case with every CSV quoting and number form an identifier can need: commas,
# quotes, inner spaces, non-ASCII, integer and float cells, 1e-07 and the largest time
# (1e12 s), a window. (CR, LF and other control characters are not allowed in identifiers,
# and cells have no white space at either end: docs/hardening.md.)
odd_case() {
	mkdir -p "$T/$1"
	printf 'node_id,gpu_model,gpu_count\n"n,3","A,x",4\nn1,A,8\nnœud,B,2\n' > "$T/$1/nodes.csv"
	{
		printf 'job_id,submit_time_seconds,duration_seconds,gpu_count,service_class,gpu_model,tenant_id\n'
		printf '"a""b",0,100,2,HP,A,t1\n'
		printf '"c,d",0.5,1e-07,0.25,Spot,"A,x","team,b"\n'
		printf 'e f,3600.0,7200,1,HP,*,团队\n'
		printf 'g;h,3600.0,12.5,14,Spot,*,"q""t"\n'
		printf 'z,1000000000000.0,1,1,HP,B,t1\n'
	} > "$T/$1/jobs.csv"
	printf '{"schema_version":"schednav.trace/v2","trace_id":"odd","time_origin":"2026-01-01T00:00:00","source":{"dataset":"bats","n":[1,2.5,{"k":null,"b":true}],"empty":{},"list":[]},"nodes_file":"nodes.csv","jobs_file":"jobs.csv","evaluation_window_seconds":{"start":0.5,"end":1000000000000.0}}' > "$T/$1/trace.json"
	python3 "$FIX" reseal "$T/$1"
}

@test "trace-export: tool invariants" {
	assert_tool_invariants trace-export
}

@test "trace-export: every golden case round-trips byte for byte" {
	require_shared
	local n=0 c name
	for c in "$GOLDEN"/cases/*/; do
		name=$(basename "$c")
		trace-import canonical "$c" -o "$T/$name.nd" || fail "import failed: $name"
		trace-export "$T/$name" "$T/$name.nd" || fail "export failed: $name"
		same_dir "$c" "$T/$name"
		n=$((n + 1))
	done
	[ "$n" -ge 1 ] || fail "no golden cases found"
	echo "# $n/$n golden round-trips byte-identical" >&3
}

@test "trace-export: re-importing the export gives the identical stream" {
	local c
	odd_case odd
	trace-export "$T/warmup" "$ROOT/tests/data/sim/warmup-window.trace.ndjson"
	trace-export "$T/drift" "$ROOT/tests/data/sim/drift.trace.ndjson"
	for c in "$T/odd" "$T/warmup" "$T/drift"; do
		(cd "$c" && trace-import canonical .) > "$T/a.nd"
		trace-export "$T/x" "$T/a.nd"
		(cd "$T/x" && trace-import canonical .) > "$T/b.nd"
		cmp "$T/a.nd" "$T/b.nd" || fail "re-import of $c differs"
		rm -rf "$T/x"
	done
}

@test "trace-export: quoting, non-ASCII and number forms round-trip" {
	odd_case odd
	trace-import canonical "$T/odd" > "$T/odd.nd"
	run -0 grep -c '"type":"job"' "$T/odd.nd"
	assert_output 5
	trace-export "$T/out" < "$T/odd.nd"
	same_dir "$T/odd" "$T/out"
	grep -q '^"c,d",0.5,1e-07,0.25,Spot,"A,x","team,b"$' "$T/out/jobs.csv"
	grep -q '^z,1000000000000.0,1,1,HP,B,t1$' "$T/out/jobs.csv"
	grep -q '"end": 1000000000000.0,' "$T/out/trace.json"
	grep -q '"empty": {},' "$T/out/trace.json"
}

@test "trace-export: the written manifest verifies under an independent CJSHA" {
	odd_case odd
	trace-import canonical "$T/odd" -o "$T/odd.trace.nd"
	trace-export "$T/out" "$T/odd.trace.nd"
	python3 - "$T/out" <<'EOF'
import hashlib, json, sys
d = sys.argv[1]
raw = open(d + "/trace.json", "rb").read()
m = json.loads(raw)
assert raw.decode() == json.dumps(m, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
for k in ("nodes.csv", "jobs.csv"):
    assert m["files"][k] == hashlib.sha256(open(d + "/" + k, "rb").read()).hexdigest(), k
fp = m.pop("trace_fingerprint")
assert fp == hashlib.sha256(json.dumps(m, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
assert m["evaluation_window_seconds"] == {"start": 0.5, "end": 1e12}
EOF
}

@test "trace-export: the error cases (tests/cases/trace-export/*.case)" {
	odd_case odd
	trace-import canonical "$T/odd" > "$T/s.nd"
	run_cases trace-export s="$T/s.nd"
}

@test "trace-export: zstd and chunked input give identical files" {
	local c="$T/odd"
	odd_case odd
	trace-import canonical "$c" > "$T/s.nd"
	zstd -q -c "$T/s.nd" | trace-export "$T/z"
	same_dir "$c" "$T/z"
	feed_chunked "$T/s.nd" trace-export "$T/k"
	same_dir "$c" "$T/k"
	zstd -q -c "$T/s.nd" > "$T/s.nd.zst"
	trace-export "$T/f" "$T/s.nd.zst"
	same_dir "$c" "$T/f"
}

@test "trace-export: existing trace files need --force; other files are left alone" {
	odd_case odd
	trace-import canonical "$T/odd" > "$T/s.nd"
	trace-export "$T/out" < "$T/s.nd"
	printf 'x' >> "$T/out/jobs.csv"
	run trace-export "$T/out" < "$T/s.nd"
	assert_failure 1
	assert_output "trace-export: $T/out/nodes.csv: already exists (use --force to overwrite)"
	! cmp -s "$T/odd/jobs.csv" "$T/out/jobs.csv" || fail "the refused export overwrote jobs.csv"
	run trace-export -f "$T/out" < "$T/s.nd"
	assert_success
	same_dir "$T/odd" "$T/out"
	run trace-export --force "$T/out" < "$T/s.nd"
	assert_success
	[ -z "$(ls "$T/out" | grep -v -x -e trace.json -e nodes.csv -e jobs.csv)" ] || fail "stray files in $T/out"
	# other files in an existing directory are left alone
	mkdir "$T/other"
	echo keep > "$T/other/README"
	trace-export "$T/other" < "$T/s.nd"
	[ "$(cat "$T/other/README")" = keep ]
	# (DIR a file: tests/cases/trace-export/dir-is-a-file.case)
}

@test "trace-export: stdout stays empty; --verbose reports on stderr" {
	odd_case odd
	trace-import canonical "$T/odd" > "$T/s.nd"
	trace-export "$T/a" < "$T/s.nd" > "$T/stdout"
	[ ! -s "$T/stdout" ]
	trace-export -v "$T/b" < "$T/s.nd" > "$T/stdout" 2> "$T/stderr"
	[ ! -s "$T/stdout" ]
	grep -q "^trace-export: wrote $T/b (3 nodes, 5 jobs, schema v2)$" "$T/stderr"
}

@test "trace-export: issue 36's resource fields round-trip through the directory's optional columns" {
	local src="$ROOT/tests/data/res/small.trace.ndjson"
	trace-export "$T/r" "$src"
	run cat "$T/r/nodes.csv"
	assert_success
	assert_output $'node_id,gpu_model,gpu_count,cpu_milli,memory_mib\nn1,A,4,64000,262144\nn2,B,8,,'
	run head -2 "$T/r/jobs.csv"
	assert_success
	assert_line --index 0 'job_id,submit_time_seconds,duration_seconds,gpu_count,service_class,gpu_model,workers,cpu_milli,memory_mib,gpu_milli,gpu_spec'
	assert_line --index 1 'a,0,100,4,HP,*,2,8000,1024,,A|B'
	(cd "$T/r" && trace-import canonical .) > "$T/a.nd"
	# every job and node keeps its resource keys (time_limit has no column in the directory)
	run diff <(jq -c 'select(.type == "job" or .type == "node") | del(.time_limit)' "$src") <(jq -c 'select(.type == "job" or .type == "node")' "$T/a.nd")
	assert_success
	assert_output ""
	# a trace without the fields keeps the original's header, byte for byte
	trace-export "$T/d" "$ROOT/tests/data/sim/drift.trace.ndjson"
	run head -1 "$T/d/nodes.csv"
	assert_success
	assert_output 'node_id,gpu_model,gpu_count'
	# a cell that is not an integer is refused at its line
	sed -i 's/^a,0,100,4,HP,\*,2,8000,/a,0,100,4,HP,*,2,8k,/' "$T/r/jobs.csv"
	python3 "$FIX" reseal "$T/r"
	run trace-import canonical "$T/r"
	assert_failure 1
	assert_output "trace-import: $T/r/jobs.csv:2: job 'a': cpu_milli '8k' is not an integer"
}
