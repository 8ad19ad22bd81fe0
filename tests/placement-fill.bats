#!/usr/bin/env bats
# placement-fill: the FGD paper's experiment on the openb CSVs (tests/data/fgd/tiny-*.csv, a
# 4-node, 15-GPU cluster; the real lists of ../shared/data only where said).

load helper

NODES="$DATA/fgd/tiny-nodes.csv"
PODS="$DATA/fgd/tiny-pods.csv"
POLICIES="random dot-product gpu-clustering gpu-packing best-fit fgd"

setup() {
	T="$BATS_TEST_TMPDIR"
}

# fill_error NODES PODS MESSAGE: exit 1, MESSAGE on stderr, nothing on stdout, no -o file left.
fill_error() {
	run placement-fill --nodes "$1" --pods "$2" --policy fgd -o "$T/out.nd"
	assert_failure 1
	assert_output --partial "$3"
	assert_no_output "$T/out.nd"
}

@test "placement-fill: invariants; the required options and bad values are usage errors" {
	assert_tool_invariants placement-fill
	run placement-fill --nodes "$NODES" --pods "$PODS"
	assert_failure 2
	assert_output --partial "--nodes, --pods and --policy are required"
	run placement-fill --nodes "$NODES" --pods "$PODS" --policy tetris
	assert_failure 2
	assert_output --partial "unknown policy 'tetris'"
	for bad in --seed=x --seed=9-3 --tune=0 --tune=nan --format=png --metric=waste; do
		run placement-fill --nodes "$NODES" --pods "$PODS" --policy fgd "$bad"
		assert_failure 2
	done
}

@test "placement-fill: one node, two whole-GPU pods, tune 1: the curves by hand, for every policy" {
	printf 'sn,cpu_milli,memory_mib,gpu,model\nn0,8000,8000,2,T4\n' > "$T/n.csv"
	printf 'name,cpu_milli,memory_mib,num_gpu\na,1000,100,1\nb,1000,100,1\n' > "$T/p.csv"
	for p in $POLICIES; do
		placement-fill --nodes "$T/n.csv" --pods "$T/p.csv" --policy $p --tune 1 -o "$T/$p.nd"
		# arrived 50 % -> 50 % allocated, 100 % -> 100 %; x 49 and 51 fall back to x +- 1;
		# no GPU is ever fragmented (the one type is a whole GPU)
		run -0 jq -c 'select(.type == "placement_point" and (.arrived == 0 or .arrived == 49 or .arrived == 50 or .arrived == 51 or .arrived == 100)) | [.arrived, .alloc, .frag, .frag_ratio]' "$T/$p.nd"
		assert_output "$(printf '%s\n' '[0,null,null,null]' '[49,50,0,0]' '[50,50,0,0]' '[51,50,0,0]' '[100,100,0,0]')"
		run -0 jq -c 'select(.type == "placement_run") | [.pods, .placed, .rejected]' "$T/$p.nd"
		assert_output '[2,2,0]'
	done
}

@test "placement-fill: the three formats, deterministic by seed; the CSV row layout is the artifact's" {
	for p in $POLICIES; do
		placement-fill --nodes "$NODES" --pods "$PODS" --policy $p --seed 1-3 -o "$T/a.nd"
		placement-fill --nodes "$NODES" --pods "$PODS" --policy $p --seed 1-3 -o "$T/b.nd"
		cmp "$T/a.nd" "$T/b.nd" || fail "$p: two runs differ"
		[ "$(jq -c 'select(.type == "placement_point")' "$T/a.nd" | wc -l)" -eq 393 ] || fail "$p: not 3 x 131 points"
	done
	assert_schema "$T/a.nd"
	placement-fill --nodes "$NODES" --pods "$PODS" --policy fgd --seed 7 --format fgd-csv --metric frag-ratio -o "$T/f.csv"
	run -0 head -c 60 "$T/f.csv"
	assert_output --partial 'workload,sc_policy,tune,seed,total_gpus,0,1,2,3,'
	run -0 awk -F, 'NR == 2 { print $1, $2, $3, $4, $5, NF }' "$T/f.csv"
	assert_output 'tiny-pods 06-FGD 1.3 7 15 136'
	placement-fill --nodes "$NODES" --pods "$PODS" --policy best-fit --seed 1-2 --format svg --workload '<b>&x' -o "$T/c.svg"
	python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$T/c.svg" || fail "the chart is not well-formed XML"
	run -0 grep -c '<polyline' "$T/c.svg"
	assert_output 3
	grep -q '&lt;b&gt;&amp;x' "$T/c.svg" || fail "the workload name reached the SVG unescaped"
}

@test "placement-fill: hostile node and pod lists name PATH:LINE, exit 1 and write nothing" {
	H='name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec'
	printf '%s\na,-5,100,1,500,\n' "$H" > "$T/neg.csv"
	fill_error "$NODES" "$T/neg.csv" "neg.csv:2: 'cpu_milli' -5 out of range"
	printf '%s\na,5,100,1,-1,\n' "$H" > "$T/negmilli.csv"
	fill_error "$NODES" "$T/negmilli.csv" "negmilli.csv:2: 'gpu_milli' -1 out of range 0..1000"
	printf '%s\na,5,100,1,1500,\n' "$H" > "$T/big.csv"
	fill_error "$NODES" "$T/big.csv" "big.csv:2: 'gpu_milli' 1500 out of range 0..1000"
	printf '%s\na,5,100,1,500,\nb,5,100,1,500,H100|B200\n' "$H" > "$T/spec.csv"
	fill_error "$NODES" "$T/spec.csv" "spec.csv:3: gpu_spec 'H100|B200' names no node's GPU model"
	printf '%s\na,5,100,2,500,\n' "$H" > "$T/split.csv"
	fill_error "$NODES" "$T/split.csv" "split.csv:2: 'gpu_milli' 500 below 1000 with 'num_gpu' 2"
	printf '%s\na,5,100,9,1000,\n' "$H" > "$T/nine.csv"
	fill_error "$NODES" "$T/nine.csv" "nine.csv:2: 'num_gpu' 9 out of range 0..8"
	printf '%s\na,1.5,100,1,1000,\n' "$H" > "$T/real.csv"
	fill_error "$NODES" "$T/real.csv" "real.csv:2: 'cpu_milli' is not an integer: '1.5'"
	printf 'name,memory_mib,num_gpu\na,1,1\n' > "$T/nocpu.csv"
	fill_error "$NODES" "$T/nocpu.csv" "nocpu.csv:1: no 'cpu_milli' column"
	printf '%s\n' "$H" > "$T/nopods.csv"
	fill_error "$NODES" "$T/nopods.csv" "nopods.csv:1: no pods"
	printf '%s\na,5,100,0,0,\n' "$H" > "$T/cpuonly.csv"
	fill_error "$NODES" "$T/cpuonly.csv" "cpuonly.csv: no pod asks for a GPU"
	printf 'sn,cpu_milli,memory_mib,gpu,model\n' > "$T/empty-nodes.csv"
	fill_error "$T/empty-nodes.csv" "$PODS" "empty-nodes.csv:1: no node with a GPU"
	printf 'sn,cpu_milli,memory_mib,gpu,model\nn0,8000,8000,2,\n' > "$T/nomodel.csv"
	fill_error "$T/nomodel.csv" "$PODS" "nomodel.csv:2: a node with GPUs needs a 'model'"
	: > "$T/void.csv"
	fill_error "$T/void.csv" "$PODS" "void.csv: empty file (no header)"
	fill_error "$T/missing.csv" "$PODS" "missing.csv"
}

@test "placement-fill: CPU-only pods are placed by CPU and memory and move no curve" {
	# one 2-GPU node with 4 cores: two CPU-only pods of 3 cores (the second fits nowhere),
	# then a whole-GPU pod that needs a core: the second CPU pod is dropped, the GPU pod placed
	printf 'sn,cpu_milli,memory_mib,gpu,model\nn0,4000,8000,2,T4\n' > "$T/n.csv"
	printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,3000,1,0,0\nb,3000,1,0,0\nc,1000,1,1,1000\n' > "$T/p.csv"
	placement-fill --nodes "$T/n.csv" --pods "$T/p.csv" --policy best-fit --tune 0.5 --seed 3 -o "$T/o.nd"
	run -0 jq -c 'select(.type == "placement_run") | [.pods, .placed, .rejected]' "$T/o.nd"
	assert_output '[3,2,1]'
	run -0 jq -c 'select(.type == "placement_point" and .arrived == 50) | .alloc' "$T/o.nd"
	assert_output 50
}

@test "placement-fill: openb default, two seeds of best-fit and fgd, against the artifact's 10-seed means" {
	require_shared data
	local D="$SHARED/data/alibaba-gpu-v2023"
	for p in best-fit fgd; do
		placement-fill --nodes "$D/openb_node_list_gpu_node.csv" --pods "$D/openb_pod_list_default.csv" \
			--policy $p --seed 42-43 --format fgd-csv -o "$T/$p.csv"
	done
	# every arrived percent within 1 pp of the paper's mean; FGD above best-fit from 95 %
	run -0 python3 "$ROOT/pipelines/placement-compare.py" --expected "$DATA/fgd/expected-alloc-default.csv" \
		--tolerance 1.0 "$T/best-fit.csv" "$T/fgd.csv"
	assert_output --partial 'within 1.0 pp'
	run -0 awk -F, 'NR > 1 { s[$2] += $(5 + 1 + 130); n[$2]++ } END { print (s["06-FGD"] / n["06-FGD"] > s["05-BestFit"] / n["05-BestFit"] + 1.5) }' "$T/best-fit.csv" "$T/fgd.csv"
	assert_output 1
}

@test "placement-fill: the grid is its own goal; the top Makefile's all never runs it" {
	cd "$ROOT"
	# hermetic: not the variables of a make that runs this suite (make asan passes OUT= and BUILD=)
	run env -u MAKEFLAGS -u MAKELEVEL make -n all
	assert_success
	refute_output --partial "placement-fill --nodes"
	run env -u MAKEFLAGS -u MAKELEVEL make -n -f pipelines/placement.mk WORKLOADS=default POLICIES=fgd SEEDS=42 PLACEMENT_OUT="$T/grid" BIN="$BIN"
	assert_success
	assert_output --partial "placement-fill --nodes"
	assert_output --partial "$T/grid/default/fgd.alloc.csv"
	run env -u MAKEFLAGS -u MAKELEVEL make -n placement-grid WORKLOADS=default POLICIES=fgd SEEDS=42 PLACEMENT_OUT="$T/grid" BIN="$BIN"
	assert_success
	assert_output --partial "$T/grid/default/fgd.alloc.csv"
}

# ---- issue 36: --trace ----

@test "placement-fill --trace: an imported openb sample gives the CSVs' curves over the same pods, byte for byte" {
	zstdcat "$DATA/v2023-openb_node_list_gpu_node.csv.zst" > "$T/n.csv"
	zstdcat "$DATA/v2023-openb_pod_list_default.head500.csv.zst" > "$T/p.csv"
	run -0 trace-import alibaba-v2023 --nodes "$T/n.csv" --pods "$T/p.csv" --resources -o "$T/t.nd"
	# the pods trace-import keeps: LS/BE, a kept phase, GPUs, a valid interval
	awk -F, 'NR == 1 || (($7 == "LS" || $7 == "BE") && ($8 == "Running" || $8 == "Failed" || $8 == "Succeeded") && $4 > 0 && $11 != "" && $9 >= 0 && $11 >= $9 && $10 > $11)' "$T/p.csv" > "$T/kept.csv"
	[ "$(($(wc -l < "$T/kept.csv") - 1))" -eq "$(grep -c '"type":"job"' "$T/t.nd")" ] || fail "the filter and the importer keep different pods"
	for p in fgd best-fit; do
		run -0 placement-fill --trace "$T/t.nd" --policy $p --seed 1-2 -o "$T/a.nd"
		run -0 placement-fill --nodes "$T/n.csv" --pods "$T/kept.csv" --policy $p --seed 1-2 -o "$T/b.nd"
		run -0 diff <(grep -v '"type":"header"\|"type":"end"' "$T/a.nd") <(grep -v '"type":"header"\|"type":"end"' "$T/b.nd")
		assert_output ""
	done
	run -0 jq -c 'select(.type == "header") | [.params.trace, .params.total_gpus]' "$T/a.nd"
	assert_output "[\"$T/t.nd\",6212]"
	run -0 placement-fill --trace "$T/t.nd" --policy fgd --format fgd-csv -o "$T/f.csv"
	run -0 cut -d, -f1-5 "$T/f.csv"
	assert_line --index 1 'alibaba-gpu-v2023,06-FGD,1.3,42,6212'
}

@test "placement-fill --trace: a job of several workers is that many pods" {
	cat > "$T/w.body" <<'BODY'
{"type":"header","schema":"schednav.trace/1","tool":"hand","version":"0","inputs":[],"params":{},"trace_id":"w","time_origin":"1970-01-01 00:00:00","window":null,"source":{},"skipped_rows":{}}
{"type":"node","node_id":"n1","gpu_model":"A","gpu_count":8,"cpu_milli":64000,"memory_mib":65536}
{"type":"node","node_id":"n2","gpu_model":"A","gpu_count":8,"cpu_milli":64000,"memory_mib":65536}
{"type":"job","job_id":"j1","submit":0,"duration":1,"gpus":8,"class":"HP","gpu_model":"*","workers":4,"cpu_milli":8000,"memory_mib":1024}
{"type":"job","job_id":"j2","submit":1,"duration":1,"gpus":0.25,"class":"Spot","gpu_model":"A","cpu_milli":1000,"gpu_milli":250}
BODY
	stream-seal -i "$T/w.body" -o "$T/w.nd"
	# 4 workers of 2 GPUs and a quarter GPU ask for 8.25 of the 16 GPUs: at tune 8.25 / 16 the
	# tuning neither adds nor drops a pod, all 5 are placed, and 51.5625 % is arrived and allocated
	run -0 placement-fill --trace "$T/w.nd" --policy fgd --tune 0.515625 -o "$T/o.nd"
	run -0 jq -c 'select(.type == "placement_run") | [.pods, .placed, .rejected]' "$T/o.nd"
	assert_output '[5,5,0]'
	run -0 jq -c 'select(.type == "placement_point" and .arrived == 52) | .alloc' "$T/o.nd"
	assert_output '51.5625'
}

@test "placement-fill --trace: hostile traces name the node or job, exit 1 and write nothing; --trace with --nodes is a usage error" {
	local src="$ROOT/tests/data/res/small.trace.ndjson"
	# node n2 has no cpu_milli
	run placement-fill --trace "$src" --policy fgd -o "$T/out.nd"
	assert_failure 1
	assert_output "placement-fill: $src: node 'n2': no cpu_milli or memory_mib (the physical model needs both: trace-import --resources)"
	assert_no_output "$T/out.nd"
	# a plain import has fractional GPU jobs without gpu_milli
	run -0 trace-import alibaba-v2023 --nodes "$ROOT/tests/data/res/v2023-nodes.csv" --pods "$ROOT/tests/data/res/v2023-pods.csv" -o "$T/plain.nd"
	run placement-fill --trace "$T/plain.nd" --policy fgd -o "$T/out.nd"
	assert_failure 1
	assert_output "placement-fill: $T/plain.nd: node 'node-a': no cpu_milli or memory_mib (the physical model needs both: trace-import --resources)"
	run -0 trace-import alibaba-v2023 --nodes "$ROOT/tests/data/res/v2023-nodes.csv" --pods "$ROOT/tests/data/res/v2023-pods.csv" --resources -o "$T/r.nd"
	# a pod asking more memory than any node has can never be placed
	sed 's/"memory_mib":65536,"gpu_spec"/"memory_mib":999999,"gpu_spec"/' "$T/r.nd" | grep -v '"type":"end"' > "$T/big.body"
	stream-seal -i "$T/big.body" -o "$T/big.nd"
	run placement-fill --trace "$T/big.nd" --policy fgd -o "$T/out.nd"
	assert_failure 1
	assert_output "placement-fill: $T/big.nd: job 'pod-3' can never be placed: a worker needs 999999 MiB of memory, and the most a node with its GPUs and CPUs has is 393216"
	assert_no_output "$T/out.nd"
	# a gpu_spec no node has
	sed 's/"gpu_spec":"V100M32|P100"/"gpu_spec":"T4"/' "$T/r.nd" | grep -v '"type":"end"' > "$T/spec.body"
	stream-seal -i "$T/spec.body" -o "$T/spec.nd"
	run placement-fill --trace "$T/spec.nd" --policy fgd -o "$T/out.nd"
	assert_failure 1
	assert_output "placement-fill: $T/spec.nd: job 'pod-3' can never be placed: no node has a model of its gpu_spec 'T4'"
	run placement-fill --trace "$T/r.nd" --nodes "$NODES" --policy fgd
	assert_failure 2
	assert_output --partial "--trace replaces --nodes and --pods"
}
