# examples.mk — inputs for the examples of the docs that need more than the embedded data.
#
#   make roll-inputs    work/roll/{day.trace,day.exec,day.history}.ndjson.zst
#
# roll (docs/rolling.md, README "roll") and the tenant controller need a day with 844 h of
# history before it: the shipped v2026 profile drawn by trace-synth, one GPU pool at half
# the load, days 0-36; day 36 is the evaluation day (HP from the origin plus the day's HP
# and Spot), its workload history starts 4 h before it. The same traces as tests/roll.bats.

ROLL_DIR     := work/roll
ROLL_PROFILE := configs/profiles/alibaba-spot-gpu-v2026.json
ROLL_DAY     := 36
ROLL_START   := $(shell echo $$(( $(ROLL_DAY) * 86400 )))
ROLL_END     := $(shell echo $$(( $(ROLL_START) + 86399 )))
ROLL_HISTORY := 14400

.PHONY: roll-inputs

## roll-inputs: write a day's execution and workload-history traces for roll and the tenant controller into work/roll/
roll-inputs: $(ROLL_DIR)/day.exec.ndjson.zst $(ROLL_DIR)/day.history.ndjson.zst
	@echo "roll-inputs: $(ROLL_DIR)/day.exec.ndjson.zst and $(ROLL_DIR)/day.history.ndjson.zst; try:"
	@echo "  $(OUT)/roll --config configs/rolling/rolling-v3.json --history $(ROLL_DIR)/day.history.ndjson.zst --decider rule -o $(ROLL_DIR)/rule.result.ndjson.zst $(ROLL_DIR)/day.exec.ndjson.zst"

$(ROLL_DIR)/day.trace.ndjson.zst: $(ROLL_PROFILE) pipelines/examples.mk $(OUT)/trace-synth
	@mkdir -p $(@D)
	$(OUT)/trace-synth --profile $(ROLL_PROFILE) --gpu-model GPU-series-2 --days 0-$(ROLL_DAY) --load-factor 0.5 -o $@

$(ROLL_DIR)/day.exec.ndjson.zst: $(ROLL_DIR)/day.trace.ndjson.zst $(OUT)/trace-window
	$(OUT)/trace-window --eval-start $(ROLL_START) --eval-end $(ROLL_END) --warmup-start 0 --no-warmup-spot -i $< -o $@

$(ROLL_DIR)/day.history.ndjson.zst: $(ROLL_DIR)/day.trace.ndjson.zst $(OUT)/trace-window
	$(OUT)/trace-window --eval-start $(ROLL_START) --eval-end $(ROLL_END) --warmup-start $$(( $(ROLL_START) - $(ROLL_HISTORY) )) -i $< -o $@
