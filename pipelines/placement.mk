# placement.mk — the FGD paper's grid (docs/placement.md): every (workload, policy) of the
# openb pod lists, seeds 42-51, through placement-fill, then the artifact's merged CSV and
# the comparison with its expected results. Each (workload, policy) is one process running
# its seeds in turn, so -j N runs N of them at once; SIM_LAUNCHER=slurm sends each to Slurm
# (pipelines/launcher.mk).
#
#   make -f pipelines/placement.mk -j2                          # 6 policies x 17 workloads x 10 seeds
#   make -f pipelines/placement.mk -j2 WORKLOADS=default POLICIES='best-fit fgd' SEEDS=42-43
#   make -f pipelines/placement.mk -j2 compare                  # and the table against the paper's
#
# Outputs under PLACEMENT_OUT (default placement-out/): W/P.METRIC.csv per pair (the artifact's rows),
# analysis_allo_discrete.csv (and _frag_, _frag_ratio_ with METRICS) merged in the
# artifact's order, compare.md. Every file is written to a temporary name and renamed.
include pipelines/launcher.mk

OPENB     ?= ../shared/data/alibaba-gpu-v2023
BIN       ?= bin
PLACEMENT_OUT ?= placement-out
# The artifact's 17 pod lists (those of its expected results; gpushare20, cpu0..cpu037 and
# cpu300 of the shared data are not in its grid).
WORKLOADS ?= default cpu050 cpu100 cpu200 cpu250 gpushare40 gpushare60 gpushare80 gpushare100 \
	gpuspec10 gpuspec20 gpuspec25 gpuspec33 multigpu20 multigpu30 multigpu40 multigpu50
POLICIES  ?= random dot-product gpu-clustering gpu-packing best-fit fgd
SEEDS     ?= 42-51
TUNE      ?= 1.3
METRICS   ?= alloc
EXPECTED  ?= $(wildcard tests/data/fgd/expected-alloc-*.csv)

NODES := $(OPENB)/openb_node_list_gpu_node.csv
PAIRS := $(foreach w,$(WORKLOADS),$(foreach p,$(POLICIES),$(PLACEMENT_OUT)/$(w)/$(p)))
RUNS  := $(foreach m,$(METRICS),$(PAIRS:%=%.$(m).csv))
MERGED := $(foreach m,$(METRICS),$(PLACEMENT_OUT)/analysis_$(subst alloc,allo,$(subst -,_,$(m)))_discrete.csv)

.DELETE_ON_ERROR:
# Each pair's rows are kept (make would delete them as intermediates of the merged file).
.SECONDARY: $(RUNS)
# The top Makefile includes every pipelines/*.mk, so these goals carry the placement- prefix
# and `make all` there never runs the grid; `all` and `compare` are their names only when
# this file is make's own (make -f pipelines/placement.mk).
.PHONY: placement-grid placement-compare
placement-grid: $(MERGED)
ifeq ($(firstword $(MAKEFILE_LIST)),pipelines/placement.mk)
.DEFAULT_GOAL := placement-grid
.PHONY: all compare
all: placement-grid
compare: placement-compare
endif

# $(PLACEMENT_OUT)/W/P.M.csv: one (workload, policy) over SEEDS, metric M.
define run_rule
$(PLACEMENT_OUT)/$(1)/%.$(2).csv: $(OPENB)/openb_pod_list_$(1).csv $(NODES) $(BIN)/placement-fill
	@mkdir -p $$(@D)
	$$(SIM_PREFIX) $(BIN)/placement-fill --nodes $(NODES) --pods $$< --policy $$* --seed $(SEEDS) --tune $(TUNE) \
		--format fgd-csv --metric $(2) --workload openb_pod_list_$(1) -o $$@
endef
$(foreach w,$(WORKLOADS),$(foreach m,$(METRICS),$(eval $(call run_rule,$(w),$(m)))))

# The merged file: one header, the rows of every pair in the artifact's order (workload,
# then its policy numbering, then seed).
$(PLACEMENT_OUT)/analysis_%_discrete.csv: $(RUNS)
	@m=$$(echo '$*' | sed 's/^allo$$/alloc/; s/_/-/g'); \
	files=$$(for w in $(WORKLOADS); do for p in $(POLICIES); do echo $(PLACEMENT_OUT)/$$w/$$p.$$m.csv; done; done); \
	{ head -n 1 $$(echo $$files | cut -d' ' -f1); for f in $$files; do tail -n +2 $$f; done | \
	  LC_ALL=C sort -t, -k1,1 -k2,2 -k4,4n; } > $@.tmp && mv $@.tmp $@

placement-compare: $(PLACEMENT_OUT)/analysis_allo_discrete.csv
	python3 pipelines/placement-compare.py $(EXPECTED:%=--expected %) --table $< > $(PLACEMENT_OUT)/compare.md.tmp
	mv $(PLACEMENT_OUT)/compare.md.tmp $(PLACEMENT_OUT)/compare.md
	cat $(PLACEMENT_OUT)/compare.md
