# make demo — the main job on the embedded default data set.
#
# Chronus Philly MIX1 (tests/data: Philly-derived jobs; job_type strict/soft -> HP,
# best -> Spot; the Philly virtual cluster becomes the tenant) on a seeded subset of the
# Philly machine list, small enough that jobs queue (the full 2,490 GPUs never contend).
# Pipeline: import -> evaluation slice with warm-up -> the five catalogue policies ->
# metrics -> SLO audit against FIFO -> rank -> decision table (stdout) and HTML report.
# Every intermediate is written to a temporary file and renamed by the tool that makes it; every
# step depends on this file, so changing a parameter below reruns what it affects.

DEMO_DIR        := work/demo
DEMO_JOBS       := tests/data/chronus-trace_job_Philly_MIX1.csv.zst
DEMO_MACHINES   := tests/data/philly-cluster_machine_list.zst
DEMO_MAP        := configs/maps/chronus-philly.json
# 800 GPUs of the 2,490: load about 1.4, so HP jobs queue behind Spot under FIFO.
DEMO_GPUS       := 800
DEMO_SEED       := 1
# Arrivals span 0..20,151 s. The first hour is warm-up (jobs run but are not scored);
# jobs arriving in [3600, 18000] are evaluated; later arrivals are cut, the rest drains.
DEMO_WARMUP     := 0
DEMO_EVAL_START := 3600
DEMO_EVAL_END   := 18000
DEMO_SLO        := configs/slos/schednav-demo-slo-v1.json
DEMO_BASELINE   := native-fifo
DEMO_POLICIES   := native-fifo native-preemptive-3600 native-preemptive-g3600-b09-d0000 \
	native-preemptive-g3600-b09-d0900 native-preemptive-g3600-b09-loss-aware
DEMO_TITLE      := SchedNav demo: Chronus Philly MIX1 on $(DEMO_GPUS) Philly GPUs

DEMO_RESULTS    := $(DEMO_POLICIES:%=$(DEMO_DIR)/%.result.ndjson.zst)
DEMO_METRICS    := $(DEMO_POLICIES:%=$(DEMO_DIR)/%.metrics.ndjson)
DEMO_APPROVALS  := $(DEMO_DIR)/approvals.ndjson
DEMO_DECISION   := $(DEMO_METRICS) $(DEMO_DIR)/audit.ndjson $(DEMO_DIR)/ranking.ndjson

.PHONY: demo demo-run demo-clean

## demo: install the Debian packages the demo needs (as root; else name them), then demo-run
demo:
	@pipelines/need-packages.sh demo $(DEMO_PACKAGES)
	@$(MAKE) --no-print-directory demo-run

## demo-run: build the tools (not the test programs), run the five catalogue policies on the embedded Chronus Philly sample, print the decision, write work/demo/report.html
demo-run: $(BINS) $(DEMO_DIR)/report.html
	@echo
	@$(OUT)/decision-table --approvals $(DEMO_APPROVALS) --approve-program $(OUT)/approve $(DEMO_DECISION)
	@echo
	@echo "report: $(DEMO_DIR)/report.html"

## demo-clean: remove work/demo (approvals included)
demo-clean:
	rm -rf $(DEMO_DIR)

$(DEMO_DIR)/trace.ndjson.zst: $(DEMO_JOBS) $(DEMO_MACHINES) $(DEMO_MAP) pipelines/demo.mk $(OUT)/trace-import
	@mkdir -p $(@D)
	@echo "demo: import MIX1 on a seeded $(DEMO_GPUS)-GPU Philly subset"
	@$(OUT)/trace-import csv --map $(DEMO_MAP) --nodes-file $(DEMO_MACHINES) \
		--node-subset-gpus $(DEMO_GPUS) --seed $(DEMO_SEED) $(DEMO_JOBS) -o $@

$(DEMO_DIR)/slice.ndjson.zst: $(DEMO_DIR)/trace.ndjson.zst $(OUT)/trace-window
	@echo "demo: evaluation window [$(DEMO_EVAL_START), $(DEMO_EVAL_END)] s, warm-up from $(DEMO_WARMUP) s"
	@$(OUT)/trace-window --eval-start $(DEMO_EVAL_START) --eval-end $(DEMO_EVAL_END) \
		--warmup-start $(DEMO_WARMUP) -i $< -o $@

$(DEMO_DIR)/%.result.ndjson.zst: $(DEMO_DIR)/slice.ndjson.zst configs/policies/%.json $(OUT)/sim-run
	@echo "demo: simulate $*"
	@$(OUT)/sim-run --policy configs/policies/$*.json -o $@ < $<

$(DEMO_DIR)/%.metrics.ndjson: $(DEMO_DIR)/%.result.ndjson.zst $(OUT)/metrics
	@$(OUT)/metrics -o $@ < $<

$(DEMO_DIR)/audit.ndjson: $(DEMO_METRICS) $(DEMO_SLO) $(OUT)/slo-audit
	@echo "demo: audit against $(DEMO_BASELINE), rank"
	@$(OUT)/slo-audit --slo $(DEMO_SLO) --baseline $(DEMO_DIR)/$(DEMO_BASELINE).metrics.ndjson -o $@ $(DEMO_METRICS)

$(DEMO_DIR)/ranking.ndjson: $(DEMO_METRICS) $(DEMO_DIR)/audit.ndjson $(DEMO_SLO) $(OUT)/rank
	@$(OUT)/rank --slo $(DEMO_SLO) -o $@ $(DEMO_METRICS) $(DEMO_DIR)/audit.ndjson

$(DEMO_DIR)/report.html: $(DEMO_RESULTS) $(DEMO_DECISION) $(wildcard $(DEMO_APPROVALS)) $(OUT)/report
	@echo "demo: report"
	@$(OUT)/report --title '$(DEMO_TITLE)' --approvals $(DEMO_APPROVALS) --approve-program $(OUT)/approve \
		-o $@ $(DEMO_RESULTS) $(DEMO_DECISION)
