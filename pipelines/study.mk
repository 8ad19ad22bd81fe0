# study.mk — a study as a Make graph: calibration → selection-lock → holdout.
#
#   make calibration|selection-lock|holdout|study STUDY=configs/studies/NAME.json
#   make adaptive STUDY=configs/studies/adaptive-holdout.json   (a config with "adaptive")
#
# Outputs go under $(STUDY_WORK)/NAME/ (default work/NAME/); docs/studies.md explains the
# layout, the fingerprint chain and how to run the simulations elsewhere (SIM_LAUNCHER).
# Files have logical names so that Make can plan the graph; what made each file is recorded
# in small stamp files (tool version + normalised arguments, rewritten only when they
# change) and in the streams themselves (header inputs + end fingerprints), which every
# consumer verifies before use.

STUDY_TARGETS := calibration selection-lock holdout study calibration-slices holdout-slices study-verify study-summary \
	adaptive adaptive-design evaluation-slices
.PHONY: $(STUDY_TARGETS)

## calibration: STUDY=configs/studies/NAME.json: simulate, audit and rank the calibration windows, select an arm
## selection-lock: STUDY=...: freeze the calibration selection (refused once holdout outputs exist)
## holdout: STUDY=...: run the holdout windows against the lock; write work/NAME/evidence.json
## study: STUDY=...: calibration, selection-lock and holdout
## study-verify: STUDY=...: re-check every fingerprint of the study's files
## adaptive: STUDY=...: the adaptive holdout study (a config with "adaptive"): design, calibration, lock, evaluation
## adaptive-design: STUDY=...: only the frozen design (work/NAME/design.ndjson) an agent chooses its candidates from

ifndef STUDY
$(STUDY_TARGETS):
	@echo "study: '$@' needs STUDY=configs/studies/NAME.json" >&2; exit 2
else

STUDY_WORK ?= work
STUDY_NAME := $(basename $(notdir $(STUDY)))
SW := $(STUDY_WORK)/$(STUDY_NAME)
# The tools: bin/ of this tree unless told otherwise (a colon list is fine).
STUDY_BIN ?= $(abspath $(OUT))
export PATH := $(STUDY_BIN):$(PATH)
# Every simulation command starts with $(SIM_PREFIX) (pipelines/launcher.mk).
STUDY_TOOLS := trace-scan trace-window sim-run metrics slo-audit rank aggregate \
	stream-verify stream-seal study-select study-lock adaptive-design adaptive-eval jq zstd

# Write $2 into file $1 only when it differs: the file's time then says when the arguments
# it records last changed, and targets that depend on it rebuild exactly then.
study_shq = '$(subst ','\'',$1)'
study_stamp = $(shell mkdir -p $(dir $1) && { printf '%s\n' $(call study_shq,$2) | cmp -s - $1 || printf '%s\n' $(call study_shq,$2) > $1; })

# --- the config, as make variables --------------------------------------------------------
include $(SW)/config.mk
$(SW)/config.mk: $(STUDY) pipelines/study-config.jq
	@mkdir -p $(@D)
	@for t in $(STUDY_TOOLS); do command -v $$t >/dev/null || { echo "study: tool '$$t' not found (STUDY_BIN=$(STUDY_BIN)): run make first" >&2; exit 1; }; done
	jq -r -f pipelines/study-config.jq $(STUDY) > $@.tmp && mv $@.tmp $@

ifneq ($(wildcard $(SW)/config.mk),)
REPS := $(shell seq $(REPETITIONS))
POLICY = $(or $(POLICY_$1),configs/policies/$1.json)
# An arm with a controller runs it inside sim-run (the file is part of the design).
CONTROLLER = $(CONTROLLER_$1)
CONTROLLER_ARG = $(if $(CONTROLLER_$1),--controller $(CONTROLLER_$1))
# An adaptive study also freezes its design and both controllers' selections before any
# simulation (controllers.ndjson), and its second partition is "evaluation".
# The lock takes them by their stream fingerprint (controllers.fp): the file's header names work
# paths, its body does not, so a study locks the same wherever it runs.
ADAPTIVE_CONTROLLERS := $(if $(ADAPTIVE),$(SW)/controllers.ndjson)
ADAPTIVE_CONTROLLERS_FP := $(if $(ADAPTIVE),$(SW)/controllers.fp)
DESIGN_FILES := $(STUDY) $(SLO) $(foreach a,$(ARMS),$(call POLICY,$a)) $(CONTROLLERS) $(ADAPTIVE_CONTROLLERS_FP)
HOLD_PART := $(if $(ADAPTIVE),evaluation,holdout)
ADAPTIVE_DESIGN_ARGS = $(foreach a,$(ARMS),--policy $(call POLICY,$a)) --baseline $(BASELINE) \
	--calibration-fraction $(CALIBRATION_FRACTION) --warmup-seconds $(WARMUP_SECONDS) \
	$(if $(filter no,$(WARMUP_SPOT)),--no-warmup-spot) $(foreach x,$(EXCLUDE),--exclude $x)
BAND := $(shell jq -r '.ranking.allocation_tie_band // 0.01' $(SLO))
TRACE := $(if $(filter stream,$(TRACE_KIND)),$(TRACE_STREAM),$(SW)/trace.ndjson.zst)
# rank's default bound is 5 candidates; a study with more arms asks for its arm count.
RANK_ARGS := $(if $(filter-out 3 4 5,$(words $(ARMS))),--max-candidates $(words $(ARMS)))

$(call study_stamp,$(SW)/stamp/trace.args,$(TRACE_KIND) $(VERSION) $(TRACE_ARGS))
$(call study_stamp,$(SW)/stamp/scan.args,trace-scan $(VERSION) $(SCAN_ARGS))
$(call study_stamp,$(SW)/stamp/windows.args,$(SPLIT) warmup $(WARMUP_SECONDS) exclude $(EXCLUDE) min-start $(MIN_START))
# issue 36: PLACEMENT (the config's placement_strategy, or make PLACEMENT=fgd) replaces every
# arm's placement_strategy (sim-run --placement), PLACEMENT_SEED its placement_seed
PLACEMENT_ARG = $(if $(PLACEMENT),--placement $(PLACEMENT)$(if $(PLACEMENT_SEED), --placement-seed $(PLACEMENT_SEED)))
$(call study_stamp,$(SW)/stamp/sim.args,$(strip sim-run $(VERSION) $(PLACEMENT_ARG)))
$(call study_stamp,$(SW)/stamp/eval.args,metrics slo-audit rank $(VERSION) baseline $(BASELINE))
$(if $(ADAPTIVE),$(call study_stamp,$(SW)/stamp/design.args,adaptive-design $(VERSION) $(ADAPTIVE_DESIGN_ARGS)))
# Pool saturation (issue 34): CAPACITY='MODEL=GPUS ...' is the only way a pool's capacity
# changes (recorded in the receipt), QUEUE_FIGURES=yes asks for whole-pool queue figures on a
# saturated pool. The stamp exists once either was given, so dropping them rebuilds too.
SAT_ARGS := $(foreach c,$(CAPACITY),--capacity $c)
$(if $(CAPACITY)$(QUEUE_FIGURES)$(wildcard $(SW)/stamp/saturation.args),$(call study_stamp,$(SW)/stamp/saturation.args,capacity $(CAPACITY) queue-figures $(QUEUE_FIGURES)))

# --- trace, scan, windows -------------------------------------------------------------------
$(SW)/trace.ndjson.zst: $(SW)/stamp/trace.args $(TRACE_FILES)
	$(if $(filter import,$(TRACE_KIND)),trace-import,trace-synth) $(TRACE_ARGS) -o $@

$(SW)/trace.fp: $(TRACE)
	stream-verify --print-fingerprint $(TRACE) > $@.tmp && mv $@.tmp $@

$(SW)/windows.ndjson: $(SW)/trace.fp $(SW)/stamp/scan.args
	trace-scan $(SCAN_ARGS) -i $(TRACE) -o $@

include $(SW)/windows.mk
$(SW)/windows.mk: $(SW)/windows.ndjson $(SW)/stamp/windows.args pipelines/study-windows.jq
	stream-verify $< && jq -rs --arg split '$(SPLIT)' --argjson warmup $(WARMUP_SECONDS) --arg exclude '$(EXCLUDE)' \
		--argjson min_start $(MIN_START) -f pipelines/study-windows.jq $< > $@.tmp && mv $@.tmp $@

# --- one window: slice → runs → determinism gate → metrics → audit → ranking → receipt ---
# $1 = window directory, $2 = window id, $3 = partition (calibration | holdout).
# Arms' simulations are one command line each so that SIM_LAUNCHER can ship them away.
define study_arm
$1/$4/rep-%.result.ndjson.zst: $1/slice.trace.ndjson.zst $(call POLICY,$4) $(call CONTROLLER,$4) $(SW)/stamp/sim.args
	$$(SIM_PREFIX) sim-run --no-progress --policy $(call POLICY,$4) $$(PLACEMENT_ARG) $(call CONTROLLER_ARG,$4) -i $1/slice.trace.ndjson.zst -o $$@
	@$$(STUDY_PROGRESS)

$1/$4/result.fp: $(foreach r,$(REPS),$1/$4/rep-$r.result.ndjson.zst)
	@sh pipelines/study-gate.sh $2 $4 $1/slice.trace.ndjson.zst $$@ $$^

$1/$4/metrics.ndjson.zst: $1/$4/result.fp $(SW)/stamp/eval.args
	metrics -o $$@ < $1/$4/rep-1.result.ndjson.zst

endef

define study_window
$(call study_stamp,$(SW)/stamp/slice-$2.args,trace-window $(VERSION) $(WINDOW_$2) $(if $(filter no,$(WARMUP_SPOT)),--no-warmup-spot))

$1/slice.trace.ndjson.zst: $(SW)/trace.fp $(SW)/stamp/slice-$2.args | $(if $(filter calibration,$3),,$(SW)/lock-verified) $(ADAPTIVE_CONTROLLERS_FP)
	@mkdir -p $(foreach a,$(ARMS),$1/$a)
	trace-window $(WINDOW_$2) $(if $(filter no,$(WARMUP_SPOT)),--no-warmup-spot) -i $(TRACE) -o $$@

$(foreach a,$(ARMS),$(call study_arm,$1,$2,$3,$a))

$1/audit.ndjson.zst: $(foreach a,$(ARMS),$1/$a/metrics.ndjson.zst) $(SLO)
	cat $(foreach a,$(ARMS),$1/$a/metrics.ndjson.zst) | slo-audit --slo $(SLO) --baseline $1/$(BASELINE)/metrics.ndjson.zst -o $$@

$1/ranking.ndjson.zst: $1/audit.ndjson.zst
	cat $(foreach a,$(ARMS),$1/$a/metrics.ndjson.zst) $1/audit.ndjson.zst | rank --slo $(SLO) $(RANK_ARGS) -o $$@

$1/window.ndjson: $1/ranking.ndjson.zst $(SW)/trace.fp pipelines/study-receipt.sh
	@sh pipelines/study-receipt.sh $1 $2 $3 $(SW)/trace.fp '$(BASELINE)' $(ARMS)
endef

# The progress line after each simulation (pipelines/progress.sh; PROGRESS=auto|yes|no):
# simulations done of every window's arms and repetitions, with an ETA from this run's rate.
PROGRESS ?= auto
STUDY_SIM_TOTAL := $(shell echo $$(( $(words $(CAL_WINDOWS) $(HOLD_WINDOWS)) * $(words $(ARMS)) * $(words $(REPS)) )))
STUDY_PROGRESS = sh pipelines/progress.sh $(PROGRESS) study:$(STUDY_NAME) $(PROGRESS_START) $(STUDY_SIM_BEFORE) $(STUDY_SIM_TOTAL) $(SW) 'rep-*.result.ndjson.zst'
PROGRESS_START := $(shell date +%s)
STUDY_SIM_BEFORE := $(shell find $(SW) -name 'rep-*.result.ndjson.zst' -type f 2>/dev/null | wc -l)
CAL_DIRS := $(CAL_WINDOWS:%=$(SW)/calibration/%)
HOLD_DIRS := $(HOLD_WINDOWS:%=$(SW)/$(HOLD_PART)/%)
$(foreach w,$(CAL_WINDOWS),$(eval $(call study_window,$(SW)/calibration/$w,$w,calibration)))
$(foreach w,$(HOLD_WINDOWS),$(eval $(call study_window,$(SW)/$(HOLD_PART)/$w,$w,$(HOLD_PART))))

# --- calibration: summary and selection -----------------------------------------------------
# A window's metrics and audit streams (+ ranking), grouped by --window for study-select and aggregate.
study_window_streams = $(foreach a,$(ARMS),$1/$a/metrics.ndjson.zst) $1/audit.ndjson.zst
study_aggregate_args = $(foreach w,$2,--window $w $(call study_window_streams,$(SW)/$1/$w) $(SW)/$1/$w/ranking.ndjson.zst)

$(SW)/calibration/summary.ndjson: $(CAL_DIRS:%=%/window.ndjson)
	aggregate $(call study_aggregate_args,calibration,$(CAL_WINDOWS)) -o $@

# The holdout study carries the arm that passes every calibration window (band on the mean);
# the adaptive study the best static arm (most hard passes, exact means over them).
$(SW)/calibration/selection.ndjson: $(CAL_DIRS:%=%/window.ndjson)
	study-select $(if $(ADAPTIVE),--rule best-static,--band $(BAND)) $(foreach w,$(CAL_WINDOWS),--window $w $(call study_window_streams,$(SW)/calibration/$w)) -o $@

# --- the lock: frozen before any holdout output, verified before any holdout work ----------
STUDY_LOCK_INPUTS := $(foreach f,$(DESIGN_FILES),--design $f) --summary $(SW)/calibration/summary.ndjson \
	--selection $(SW)/calibration/selection.ndjson

$(SW)/selection-lock.ndjson: $(SW)/calibration/summary.ndjson $(SW)/calibration/selection.ndjson $(DESIGN_FILES)
	study-lock $(STUDY_LOCK_INPUTS) --holdout-dir $(SW)/$(HOLD_PART) -o $@

$(SW)/lock-verified: $(SW)/selection-lock.ndjson $(SW)/calibration/summary.ndjson $(SW)/calibration/selection.ndjson $(DESIGN_FILES)
	study-lock --verify $< $(STUDY_LOCK_INPUTS)
	@touch $@

# --- holdout (or evaluation): summary, evidence -----------------------------------------------
$(SW)/$(HOLD_PART)/summary.ndjson: $(HOLD_DIRS:%=%/window.ndjson)
	aggregate $(call study_aggregate_args,$(HOLD_PART),$(HOLD_WINDOWS)) -o $@

# The adaptive benchmark: every controller's candidates judged on the evaluation windows.
ADAPTIVE_EVAL := $(if $(ADAPTIVE),$(SW)/evaluation/adaptive.ndjson)
$(SW)/evaluation/adaptive.ndjson: $(SW)/lock-verified $(ADAPTIVE_CONTROLLERS) $(SW)/calibration/selection.ndjson $(HOLD_DIRS:%=%/window.ndjson)
	adaptive-eval --design $(ADAPTIVE_CONTROLLERS) --selection $(SW)/calibration/selection.ndjson --band $(BAND) \
		$(HOLD_DIRS:%=%/window.ndjson) -o $@

$(SW)/evidence.json: $(SW)/lock-verified $(SW)/$(HOLD_PART)/summary.ndjson $(HOLD_DIRS:%=%/window.ndjson) $(ADAPTIVE_EVAL) pipelines/study-evidence.sh $(wildcard $(SW)/stamp/saturation.args)
	@SAT_TRACE=$(TRACE) SAT_ARGS='$(SAT_ARGS)' QUEUE_FIGURES='$(QUEUE_FIGURES)' sh pipelines/study-evidence.sh $(SW) $(STUDY) '$(CAL_WINDOWS)' '$(HOLD_WINDOWS)' $(HOLD_PART)
	@cat $(SW)/summary.txt

# --- the adaptive design: frozen before any simulation ---------------------------------------
# design.ndjson is what an agent reads (workload signals, thresholds, the rule's sets);
# controllers.ndjson adds the agent's selections after checking them against it. Every slice
# waits for it (order-only: a new agent file re-checks, it does not re-simulate calibration;
# the lock fingerprints it, so it cannot change once evaluation output exists).
$(SW)/design.ndjson: $(SW)/windows.ndjson $(SW)/stamp/design.args $(foreach a,$(ARMS),$(call POLICY,$a))
	stream-verify $< && adaptive-design $(ADAPTIVE_DESIGN_ARGS) -i $< -o $@

$(SW)/controllers.ndjson: $(SW)/design.ndjson $(wildcard $(AGENT_SELECTIONS))
	@test -f '$(AGENT_SELECTIONS)' || { echo "study: no agent selections '$(AGENT_SELECTIONS)': make adaptive-design STUDY=$(STUDY), give $(SW)/design.ndjson to the agent, save its controller_selections stream there" >&2; exit 1; }
	adaptive-design $(ADAPTIVE_DESIGN_ARGS) --agent $(AGENT_SELECTIONS) -i $(SW)/windows.ndjson -o $@

$(SW)/controllers.fp: $(SW)/controllers.ndjson
	stream-verify --print-fingerprint $< > $@.tmp && mv $@.tmp $@

# --- the forecast quality of the predictive arms (arms with a controller) -------------------
CONTROLLER_ARMS := $(strip $(foreach a,$(ARMS),$(if $(CONTROLLER_$a),$a)))
$(SW)/forecast-quality-holdout.json: $(SW)/lock-verified $(foreach w,$(HOLD_DIRS),$(foreach a,$(CONTROLLER_ARMS),$w/$a/metrics.ndjson.zst)) pipelines/study-forecast-quality.sh
	sh pipelines/study-forecast-quality.sh $(SW) holdout '$(HOLD_WINDOWS)' $(CONTROLLER_ARMS)
$(SW)/forecast-quality-calibration.json: $(foreach w,$(CAL_DIRS),$(foreach a,$(CONTROLLER_ARMS),$w/$a/metrics.ndjson.zst)) pipelines/study-forecast-quality.sh
	sh pipelines/study-forecast-quality.sh $(SW) calibration '$(CAL_WINDOWS)' $(CONTROLLER_ARMS)

calibration-slices: $(CAL_DIRS:%=%/slice.trace.ndjson.zst)
holdout-slices: $(HOLD_DIRS:%=%/slice.trace.ndjson.zst)
evaluation-slices: holdout-slices
calibration: $(SW)/calibration/summary.ndjson $(SW)/calibration/selection.ndjson
selection-lock: $(SW)/selection-lock.ndjson
holdout: $(SW)/evidence.json $(if $(CONTROLLER_ARMS),$(SW)/forecast-quality-holdout.json)
study: holdout
study-summary:
	@cat $(SW)/summary.txt
ifdef ADAPTIVE
adaptive: holdout
adaptive-design: $(SW)/design.ndjson
else
adaptive adaptive-design:
	@echo "study: '$@' needs a config with an \"adaptive\" section ($(STUDY) has none)" >&2; exit 2
endif
study-verify: $(SW)/selection-lock.ndjson
	study-lock --verify $< $(STUDY_LOCK_INPUTS)
	sh pipelines/study-verify.sh $(SW) $(BAND)
endif
endif
