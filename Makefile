# SchedNav — one non-recursive GNU Makefile.
# Tools are tools/NAME.c, libraries lib/*/*.c; both lists are discovered, sorted.

VERSION  := 0.2.0
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man/man1
BUILD    ?= build
CC       ?= cc
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
ifeq ($(DEV),1)
WARN     += -Werror
endif
# Bit parity with the original engine needs plain IEEE arithmetic: no contraction, no fast-math.
NUMERIC  := -std=c11 -ffp-contract=off -fno-fast-math -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
ALL_CFLAGS = $(NUMERIC) $(WARN) $(CFLAGS) $(SANITIZE) -Ilib -DSCHEDNAV_VERSION='"$(VERSION)"'
LDLIBS   := -lzstd -lxxhash -lyajl -lmd -lm

TOOLS    := $(sort $(basename $(notdir $(wildcard tools/*.c))))
LIB_SRC  := $(sort $(wildcard lib/*/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/unit/%)
OUT      ?= bin
BINS     := $(TOOLS:%=$(OUT)/%)
# Fuzz harnesses (tests/fuzz/fuzz_NAME.c): libFuzzer builds for make fuzz, replay builds
# (normal compiler) that make check runs over tests/fuzz/regressions/ and the seeds.
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
REPLAY_BIN := $(FUZZ_NAMES:%=$(BUILD)/fuzz-replay/%)
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     := build-fuzz

.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.PHONY: all check unit asan ubsan bench install help clean deps mcp-inspector FORCE fuzz fuzz-build fuzz-replay

## all: build every tool into bin/
all: $(BINS) $(UNIT_BIN)

# Rebuild everything when the flags change.
$(BUILD)/flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(ALL_CFLAGS) $(LDFLAGS) $(LDLIBS)' | cmp -s - $@ || echo '$(CC) $(ALL_CFLAGS) $(LDFLAGS) $(LDLIBS)' > $@

$(BUILD)/%.o: %.c $(BUILD)/flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/libschednav.a: $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(OUT)/%: $(BUILD)/tools/%.o $(BUILD)/libschednav.a
	@mkdir -p $(OUT)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libschednav.a $(LDLIBS)

$(BUILD)/unit/%: $(BUILD)/tests/unit/%.o $(BUILD)/libschednav.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libschednav.a $(LDLIBS)

$(BUILD)/fuzz-replay/%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/fuzz.o $(BUILD)/tests/fuzz/replay.o $(BUILD)/libschednav.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/tests/fuzz/fuzz.o $(BUILD)/tests/fuzz/replay.o $(BUILD)/libschednav.a $(LDLIBS)

$(BUILD)/fuzz/%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/fuzz.o $(BUILD)/libschednav.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ $< $(BUILD)/tests/fuzz/fuzz.o $(BUILD)/libschednav.a $(LDLIBS)

## check: build, run the C unit tests, replay the fuzz regressions and seeds, run every Bats suite
check: all fuzz-replay
	@set -e; for t in $(UNIT_BIN); do echo "unit: $$t"; $$t; done
	SCHEDNAV_BIN=$(abspath $(OUT)) tests/run-bats.sh

## fuzz-replay: run every fuzz harness (normal build, no clang) over its regressions and seeds
fuzz-replay: $(REPLAY_BIN) $(BINS)
	@tests/fuzz/seeds.sh $(abspath $(OUT)) $(BUILD)/fuzz-seeds
	@set -e; for n in $(FUZZ_NAMES); do $(BUILD)/fuzz-replay/$$n tests/fuzz/regressions/$$n $(BUILD)/fuzz-seeds/$$n; done
	@python3 tests/fuzz/study_config.py --replay tests/fuzz/regressions/study_config

## fuzz: FUZZ_SECONDS=N (or FUZZ_RUNS=N): build the libFuzzer harnesses (clang) into build-fuzz/, run each for N s (default 60) or N executions, one at a time
fuzz: all
	$(MAKE) BUILD=$(FUZZ_DIR) OUT=$(FUZZ_DIR)/bin CC=$(FUZZ_CC) CFLAGS='-O1 -g' \
		SANITIZE='-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all' fuzz-build
	tests/fuzz/seeds.sh $(abspath $(OUT)) $(FUZZ_DIR)/seeds
	ASAN_OPTIONS=detect_leaks=1 FUZZ_RUNS=$(FUZZ_RUNS) tests/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_NAMES)
	python3 tests/fuzz/study_config.py $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS),--seconds $(FUZZ_SECONDS))

fuzz-build: $(FUZZ_NAMES:%=$(BUILD)/fuzz/%)

## unit: run only the C unit tests
unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "unit: $$t"; $$t; done

## asan: rebuild with AddressSanitizer + UBSan into build-asan/ and rerun the whole suite
asan:
	ASAN_OPTIONS=detect_leaks=1 $(MAKE) BUILD=build-asan OUT=build-asan/bin SANITIZE='-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all' CFLAGS='-O1 -g' check

## ubsan: rebuild with UndefinedBehaviorSanitizer only and rerun the suite
ubsan:
	$(MAKE) BUILD=build-ubsan OUT=build-ubsan/bin SANITIZE='-fsanitize=undefined -fno-sanitize-recover=all' CFLAGS='-O1 -g' check

## bench: run the benchmarks and rewrite the numbers in docs/performance.md
bench: all
	tests/bench/run.sh

## install: install tools and man pages under $(DESTDIR)$(PREFIX)
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	install -m 755 $(BINS) $(DESTDIR)$(BINDIR)
	install -m 644 $(wildcard docs/*.1) $(DESTDIR)$(MANDIR)

DEBIAN_PACKAGES := build-essential libyajl-dev libxxhash-dev libzstd-dev zstd libmd-dev \
	bats bats-assert bats-support jq python3 python3-jsonschema gnuplot-nox parallel chromium nodejs

## deps: install the Debian packages the build and tests need (as root; only what is missing)
deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "all Debian packages present"; fi
	@$(MAKE) --no-print-directory mcp-inspector

## mcp-inspector: install the pinned MCP Inspector CLI the schednav-mcp tests drive (npm ci in tests/mcp)
mcp-inspector:
	@if command -v npm >/dev/null 2>&1; then cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: the MCP Inspector tests of schednav-mcp will skip"; fi

## help: list the targets
help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## clean: remove build outputs
clean:
	rm -rf $(BUILD) build-asan build-ubsan build-fuzz bin

-include $(LIB_OBJ:.o=.d) $(TOOLS:%=$(BUILD)/tools/%.d) $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%.d)
-include $(FUZZ_SRC:%.c=$(BUILD)/%.d) $(BUILD)/tests/fuzz/fuzz.d $(BUILD)/tests/fuzz/replay.d
-include pipelines/*.mk
