# rolling.mk — the rolling ablation study as a Make graph (rolling.md "Arms", "Record",
# "Pairwise comparison", "Gates", "Closeout"):
#
#   make rolling-ablation ROLLING_STUDY=configs/studies/rolling-ablation.json
#
# Consecutive days of one trace (after the inner predictor's history), every arm on every
# day, each simulation run REPETITIONS times and gated on identical fingerprints
# (pipelines/study-gate.sh), metrics, one audit per day against ordinary FIFO, then
# roll-ablation: the records, the agent's pairwise comparisons, the gates and the
# closeout (always approval_pending), and the pools' saturation (saturation.ndjson).
# Outputs under $(ROLLING_WORK)/NAME/ (default work/).
# Static arms run sim-run (with the inner controller when the arm says so); rolling arms
# run roll on the day's execution trace (HP from the origin plus the day's HP and Spot)
# and its workload-history trace (HP and Spot from the day's start minus history_seconds).

ROLLING_TARGETS := rolling-ablation rolling-ablation-traces
.PHONY: $(ROLLING_TARGETS)

## rolling-ablation: ROLLING_STUDY=configs/studies/NAME.json: the rolling ablation study (evidence, gates, closeout)

ifndef ROLLING_STUDY
$(ROLLING_TARGETS):
	@echo "rolling: '$@' needs ROLLING_STUDY=configs/studies/NAME.json" >&2; exit 2
else

ROLLING_WORK ?= work
RA_NAME := $(basename $(notdir $(ROLLING_STUDY)))
RW := $(ROLLING_WORK)/$(RA_NAME)
ROLLING_BIN ?= $(abspath $(OUT))
export PATH := $(ROLLING_BIN):$(PATH)
ROLLING_TOOLS := trace-synth trace-window trace-analyze sim-run roll metrics slo-audit roll-ablation stream-verify jq

include $(RW)/config.mk
$(RW)/config.mk: $(ROLLING_STUDY) pipelines/rolling-config.jq
	@mkdir -p $(@D)
	@for t in $(ROLLING_TOOLS); do command -v $$t >/dev/null || { echo "rolling: tool '$$t' not found (ROLLING_BIN=$(ROLLING_BIN)): run make first" >&2; exit 1; }; done
	jq -r -f pipelines/rolling-config.jq $(ROLLING_STUDY) > $@.tmp && mv $@.tmp $@

ifneq ($(wildcard $(RW)/config.mk),)
RA_REPLIST := $(shell seq $(RA_REPS))
RA_TRACE := $(if $(filter stream,$(RA_TRACE_KIND)),$(RA_TRACE_STREAM),$(RW)/trace.ndjson.zst)
RA_MODEL_ARG := $(if $(RA_MODEL),--gpu-model $(RA_MODEL))
RA_CTL_ARG := $(if $(RA_CONTROLLER),--controller $(RA_CONTROLLER))
# What an arm's simulation depends on besides the day's traces.
RA_DEPS = $(ROLLING_STUDY) $(RA_SLO) $(if $(filter rolling,$(RA_KIND_$1)),$(RA_CONFIG) $(RA_CONTROLLER),$(RA_POLICY_$1) $(if $(filter controlled,$(RA_KIND_$1)),$(RA_CONTROLLER)))
RA_IMPL := $(foreach t,roll sim-run metrics slo-audit,$(ROLLING_BIN)/$t)

$(RW)/trace.ndjson.zst: $(ROLLING_STUDY) $(RA_TRACE_FILES)
	trace-synth $(RA_TRACE_ARGS) -o $@

# $1 = window id, $2 = arm. The decider (a shell-quoted word that may hold '$') is named,
# not expanded, here: $(eval) would expand its value a second time.
define ra_arm
$(RW)/$1/$2/rep-%.result.ndjson.zst: $(RW)/$1/exec.trace.ndjson.zst $(RW)/$1/history.trace.ndjson.zst $(call RA_DEPS,$2) $(RA_IMPL)
	@mkdir -p $$(@D)
	$(SIM_PREFIX) $(if $(filter rolling,$(RA_KIND_$2)),roll --config $(RA_CONFIG) --history $(RW)/$1/history.trace.ndjson.zst $(RA_CTL_ARG) \
		--decider $$(RA_DECIDER_$2) --arm-id $2 --decider-timeout $(RA_TIMEOUT) $(if $(RA_CANDIDATES_$2),--candidates $(RA_CANDIDATES_$2)) \
		--no-progress -o $$@ $(RW)/$1/exec.trace.ndjson.zst,sim-run --no-progress --policy $(RA_POLICY_$2) $(if $(filter controlled,$(RA_KIND_$2)),$(RA_CTL_ARG)) \
		-i $(RW)/$1/exec.trace.ndjson.zst -o $$@)
	@$$(RA_PROGRESS)

$(RW)/$1/$2/result.fp: $(foreach r,$(RA_REPLIST),$(RW)/$1/$2/rep-$r.result.ndjson.zst)
	@sh pipelines/study-gate.sh $1 $2 $(RW)/$1/exec.trace.ndjson.zst $$@ $$^

$(RW)/$1/$2/metrics.ndjson.zst: $(RW)/$1/$2/result.fp
	metrics -o $$@ < $(RW)/$1/$2/rep-1.result.ndjson.zst

endef

# $1 = window id
define ra_window
$(RW)/$1/exec.trace.ndjson.zst: $(RA_TRACE) $(ROLLING_STUDY)
	@mkdir -p $$(@D)
	trace-window $(RA_MODEL_ARG) --eval-start $(RA_START_$1) --eval-end $$$$(( $(RA_START_$1) + $(RA_DAY) - 1 )) --warmup-start 0 --no-warmup-spot -i $(RA_TRACE) -o $$@

$(RW)/$1/history.trace.ndjson.zst: $(RA_TRACE) $(ROLLING_STUDY)
	@mkdir -p $$(@D)
	trace-window $(RA_MODEL_ARG) --eval-start $(RA_START_$1) --eval-end $$$$(( $(RA_START_$1) + $(RA_DAY) - 1 )) \
		--warmup-start $$$$(( $(RA_START_$1) > $(RA_HISTORY) ? $(RA_START_$1) - $(RA_HISTORY) : 0 )) -i $(RA_TRACE) -o $$@

$(foreach a,$(RA_ARMS),$(call ra_arm,$1,$a))

$(RW)/$1/audit.ndjson.zst: $(foreach a,$(RA_ARMS),$(RW)/$1/$a/metrics.ndjson.zst) $(RA_SLO)
	cat $(foreach a,$(RA_ARMS),$(RW)/$1/$a/metrics.ndjson.zst) | slo-audit --slo $(RA_SLO) --baseline $(RW)/$1/$(RA_BASELINE)/metrics.ndjson.zst -o $$@

endef

# The progress line after each simulation (pipelines/progress.sh; PROGRESS=auto|yes|no).
PROGRESS ?= auto
RA_SIM_TOTAL := $(shell echo $$(( $(words $(RA_WINDOWS)) * $(words $(RA_ARMS)) * $(words $(RA_REPLIST)) )))
RA_PROGRESS = sh pipelines/progress.sh $(PROGRESS) rolling:$(RA_NAME) $(RA_PROGRESS_START) $(RA_SIM_BEFORE) $(RA_SIM_TOTAL) $(RW) 'rep-*.result.ndjson.zst'
RA_PROGRESS_START := $(shell date +%s)
RA_SIM_BEFORE := $(shell find $(RW) -name 'rep-*.result.ndjson.zst' -type f 2>/dev/null | wc -l)

$(foreach w,$(RA_WINDOWS),$(eval $(call ra_window,$w)))

$(RW)/evidence.ndjson: $(foreach w,$(RA_WINDOWS),$(RW)/$w/audit.ndjson.zst) $(ROLLING_STUDY) $(RA_IMPL)
	roll-ablation --study $(ROLLING_STUDY) $(foreach f,$(RA_IMPL),--implementation $f) \
		$(foreach w,$(RA_WINDOWS),--window $w $(RW)/$w/audit.ndjson.zst $(foreach a,$(RA_ARMS),$(RW)/$w/$a/metrics.ndjson.zst)) -o $@

# Pool saturation (issue 34), as study.mk does it (docs/studies.md "Saturated pools (issue 34)"): the
# trace's pool_saturation records (trace-analyze --saturation) in $(RW)/saturation.ndjson, which
# summary.txt reads and report(1) shows as its "Pool saturation" section. A pool of the study
# whose offered load is above its capacity is flagged, and its whole-pool queue figures (the
# arms' mean Spot p95 JCT) become an unbounded backlog unless QUEUE_FIGURES=yes;
# CAPACITY='MODEL=GPUS ...' judges a pool at an explicit capacity (recorded; the simulations run
# on the trace's nodes). Nothing changes in summary.txt on a bounded pool at its own capacity.
rolling_shq = '$(subst ','\'',$1)'
rolling_stamp = $(shell mkdir -p $(dir $1) && { printf '%s\n' $(call rolling_shq,$2) | cmp -s - $1 || printf '%s\n' $(call rolling_shq,$2) > $1; })
RA_SAT_ARGS := $(foreach c,$(CAPACITY),--capacity $c)
$(call rolling_stamp,$(RW)/stamp/saturation.args,trace-analyze $(VERSION) capacity $(CAPACITY) queue-figures $(QUEUE_FIGURES))

$(RW)/saturation.ndjson: $(RA_TRACE) $(RW)/stamp/saturation.args
	trace-analyze --saturation $(RA_SAT_ARGS) -o $@ $(RA_TRACE)

$(RW)/summary.txt: $(RW)/evidence.ndjson $(RW)/saturation.ndjson pipelines/rolling-summary.jq
	jq -r -s --slurpfile sat $(RW)/saturation.ndjson --arg model '$(RA_MODEL)' --arg sat_args '$(RA_SAT_ARGS)' \
		--arg queue_figures '$(QUEUE_FIGURES)' -f pipelines/rolling-summary.jq $< > $@.tmp && mv $@.tmp $@

rolling-ablation-traces: $(foreach w,$(RA_WINDOWS),$(RW)/$w/exec.trace.ndjson.zst $(RW)/$w/history.trace.ndjson.zst)
rolling-ablation: $(RW)/summary.txt
	@cat $<
endif
endif
