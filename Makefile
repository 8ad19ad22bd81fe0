# SchedNav — one non-recursive GNU Makefile.
# Tools are tools/NAME.c, libraries lib/*/*.c and lib/*/*/*.c (a module may keep one level of subfolders, e.g. one per controller family); both lists are discovered, sorted.

VERSION  := 0.2.0
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
# The tools go where only the schednav front command looks (as git's plumbing does), so
# that names like compare, rank, metrics and report never collide with other software.
LIBEXECDIR ?= $(PREFIX)/libexec/schednav
MANDIR   ?= $(PREFIX)/share/man
# configs/ (policies, SLOs, controllers, agent roles, action spaces) for the installed
# schednav-mcp, which looks there when it has no --configs (LIBEXECDIR/../../share/schednav)
DATADIR  ?= $(PREFIX)/share/schednav
MAN1DIR  ?= $(MANDIR)/man1
MAN7DIR  ?= $(MANDIR)/man7
BUILD    ?= build
CC       ?= cc
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
ifeq ($(DEV),1)
WARN     += -Werror
endif
# Bit parity with the original engine needs plain IEEE arithmetic: no contraction, no fast-math.
NUMERIC  := -std=c11 -ffp-contract=off -fno-fast-math -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
# The libraries come through pkg-config; the flags rule below names any that is missing.
PKG_CONFIG ?= pkg-config
PKGS     := yajl libxxhash libzstd libcrypto
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS = $(NUMERIC) $(WARN) $(CFLAGS) $(SANITIZE) -Ilib $(PKG_CFLAGS) -DSCHEDNAV_VERSION='"$(VERSION)"'
LDLIBS   := $(PKG_LIBS) -lm

TOOLS    := $(sort $(basename $(notdir $(wildcard tools/*.c))))
LIB_SRC  := $(sort $(wildcard lib/*/*.c lib/*/*/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
# Data compiled into the library: the workday calendar tables of configs/calendars/ and the
# schemas of the bridge's operations (schemas/mcp/NAME.json, read by lib/agents/opschema).
MCP_SCHEMAS := $(sort $(wildcard schemas/mcp/*.json))
GEN_OBJ  := $(BUILD)/gen/calendar_china.o $(BUILD)/gen/mcp_schemas.o
# The test builds of schednav-mcp and report with the toy operation and section of
# tests/fixtures/ (see below).
TEST_OPS_SCHEMAS := $(sort $(wildcard tests/fixtures/mcp/*.json))
TEST_SECTION_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard tests/fixtures/report/*.c)))
TEST_BINS := $(BUILD)/test-ops/schednav-mcp $(BUILD)/test-ops/report
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
FUZZ_SECONDS ?=
FUZZ_DIR     := build-fuzz
PLUMBING := $(filter-out schednav,$(TOOLS))
MAN1     := $(sort $(wildcard docs/*.1))
MAN7     := $(sort $(wildcard docs/*.7))

.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
# Keep the tools' and harnesses' objects (make would delete them as intermediates and recompile each time).
.SECONDARY: $(TOOLS:%=$(BUILD)/tools/%.o) $(BUILD)/gen/mcp_schemas_test.c $(TEST_SECTION_OBJ) $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%.o) \
	$(FUZZ_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/fuzz/fuzz.o $(BUILD)/tests/fuzz/replay.o
.PHONY: all check check-run lint identity unit asan ubsan bench install uninstall help clean deps mcp-inspector FORCE fuzz fuzz-build fuzz-replay

## all: build every tool into bin/
all: $(BINS) $(UNIT_BIN) $(TEST_BINS)

# Rebuild everything when the flags change. Every object depends on this file, so a
# missing library stops the build here, before the first compiler error.
$(BUILD)/flags: FORCE
	@missing=$$(for p in $(PKGS); do $(PKG_CONFIG) --exists $$p 2>/dev/null || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "schednav: the build needs these libraries, found through $(PKG_CONFIG):" $$missing >&2; \
		echo "schednav: install them ('make deps' as root does), e.g.: apt-get install pkgconf libyajl-dev libxxhash-dev libzstd-dev libssl-dev" >&2; \
		exit 1; fi
	@mkdir -p $(BUILD)
	@echo '$(CC) $(ALL_CFLAGS) $(LDFLAGS) $(LDLIBS)' | cmp -s - $@ || echo '$(CC) $(ALL_CFLAGS) $(LDFLAGS) $(LDLIBS)' > $@

$(BUILD)/%.o: %.c $(BUILD)/flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The table's bytes as a C array, so the tools need no data directory at run time.
$(BUILD)/gen/calendar_china.c: configs/calendars/china.json
	@mkdir -p $(dir $@)
	{ printf '/* generated from %s by the Makefile: do not edit */\n#include "predict/calendar.h"\nconst unsigned char calendar_china_json[] = {\n' '$<'; \
	  od -An -v -tx1 $< | sed 's/[0-9a-f][0-9a-f]/0x&,/g'; \
	  printf '};\nconst size_t calendar_china_json_len = sizeof calendar_china_json;\n'; } > $@.tmp && mv $@.tmp $@

# Every operation schema as a NUL-terminated C array and one table of them, sorted by name
# (the directory is a prerequisite, so adding or removing a file regenerates the table).
# $(call opschema_table,FILES,FROM): the recipe writing the table of FILES to $@.
define opschema_table
	@mkdir -p $(dir $@)
	{ printf '/* generated from %s by the Makefile: do not edit */\n#include "agents/opschema.h"\n' '$(2)'; \
	  i=0; for f in $(1); do \
		printf '/* %s */\nstatic const unsigned char schema_%d[] = {\n' "$$f" $$i; \
		od -An -v -tx1 "$$f" | sed 's/[0-9a-f][0-9a-f]/0x&,/g'; printf '0x00\n};\n'; i=$$((i + 1)); done; \
	  printf 'const struct opschema opschemas[] = {\n'; \
	  i=0; for f in $(1); do \
		printf '\t{ "%s", (const char *)schema_%d, sizeof schema_%d - 1 },\n' "$$(basename "$$f" .json)" $$i $$i; i=$$((i + 1)); done; \
	  printf '};\nconst size_t opschemas_count = sizeof opschemas / sizeof *opschemas;\n'; } > $@.tmp && mv $@.tmp $@
endef
$(BUILD)/gen/mcp_schemas.c: $(MCP_SCHEMAS) schemas/mcp
	$(call opschema_table,$(MCP_SCHEMAS),schemas/mcp/)

# The test builds (build/test-ops/, made by all, never installed; docs/design.md "Where to add
# things"): schednav-mcp with the real operations plus the toy ones of tests/fixtures/mcp/
# (NAME.json its schema, NAME.c its function, registered under -DSCHEDNAV_TEST_OPS), its schema
# table linked before the library's so it replaces it (tests/schednav-mcp-toy.bats); report with
# the toy section of tests/fixtures/report/ (registered under -DSCHEDNAV_TEST_SECTIONS in
# page.c, whose test object replaces the library's the same way; tests/report-toy.bats).
$(BUILD)/gen/mcp_schemas_test.c: $(MCP_SCHEMAS) $(TEST_OPS_SCHEMAS) schemas/mcp tests/fixtures/mcp
	$(call opschema_table,$(MCP_SCHEMAS) $(TEST_OPS_SCHEMAS),schemas/mcp/ and tests/fixtures/mcp/)

$(BUILD)/test-ops/schednav-mcp.o: tools/schednav-mcp.c $(wildcard tests/fixtures/mcp/*.c) $(BUILD)/flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DSCHEDNAV_TEST_OPS -MMD -MP -c -o $@ $<

$(BUILD)/test-ops/page.o: lib/report/page.c $(BUILD)/flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DSCHEDNAV_TEST_SECTIONS -MMD -MP -c -o $@ $<

$(BUILD)/test-ops/report: $(BUILD)/tools/report.o $(BUILD)/test-ops/page.o $(TEST_SECTION_OBJ) $(BUILD)/libschednav.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(BUILD)/tools/report.o $(BUILD)/test-ops/page.o $(TEST_SECTION_OBJ) $(BUILD)/libschednav.a $(LDLIBS)

$(BUILD)/test-ops/schednav-mcp: $(BUILD)/test-ops/schednav-mcp.o $(BUILD)/gen/mcp_schemas_test.o $(BUILD)/libschednav.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(BUILD)/test-ops/schednav-mcp.o $(BUILD)/gen/mcp_schemas_test.o $(BUILD)/libschednav.a $(LDLIBS)

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c $(BUILD)/flags
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/libschednav.a: $(LIB_OBJ) $(GEN_OBJ)
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

## check: install the Debian packages the tests need (as root; else name them) and the MCP Inspector, build, lint, run every test
check:
	@pipelines/need-packages.sh check $(CHECK_PACKAGES)
	@$(MAKE) --no-print-directory mcp-inspector
	@$(MAKE) --no-print-directory check-run

## check-run: build, lint the Bats suites, run the C unit tests, replay the fuzz regressions and seeds, run every Bats suite (no package check)
check-run: all lint fuzz-replay
	@set -e; for t in $(UNIT_BIN); do echo "unit: $$t"; $$t; done
	SCHEDNAV_BIN=$(abspath $(OUT)) SCHEDNAV_BUILD=$(abspath $(BUILD)) SCHEDNAV_TEST_BUILD=$(abspath $(BUILD)/test-ops) tests/run-bats.sh

## lint: reject Bats lines that can never fail a test (tests/lint-bats.py), lib/ code that crosses the library boundary (tests/lint-boundary.sh), lib/ names without their folder's prefix (tests/lint-names.sh: grep over lib/predict, nm over every lib object against tests/lint-names.prefixes) and file-level circles in a lib folder (tests/lint-cycles.py, from the objects' nm symbols)
# No lib folder has a known circle left (issue 38); a folder named here would be listed, not failed.
LINT_KNOWN_CIRCLES :=
lint: $(LIB_OBJ)
	tests/lint-bats.py tests/*.bats
	tests/lint-boundary.sh
	tests/lint-names.sh . $(BUILD)
	tests/lint-cycles.py $(addprefix --known ,$(LINT_KNOWN_CIRCLES)) $(BUILD)

## identity: every output of a fixed set of pipelines compared with the committed baseline, for a pure refactor (tests/output-identity.sh; a few minutes, not part of check)
IDENTITY_BASELINE ?= tests/identity/baseline-fcf4254.txt
identity: all
	SCHEDNAV_BIN=$(abspath $(OUT)) tests/output-identity.sh --compare $(IDENTITY_BASELINE)

## fuzz-replay: run every fuzz harness (normal build, no clang) over its regressions and seeds
fuzz-replay: $(REPLAY_BIN) $(BINS)
	@tests/fuzz/seeds.sh $(abspath $(OUT)) $(BUILD)/fuzz-seeds
	@set -e; for n in $(FUZZ_NAMES); do $(BUILD)/fuzz-replay/$$n tests/fuzz/regressions/$$n $(BUILD)/fuzz-seeds/$$n; done
	@python3 tests/fuzz/study_config.py --replay tests/fuzz/regressions/study_config

## fuzz: FUZZ_SECONDS=S and/or FUZZ_RUNS=N: build the libFuzzer harnesses (clang) into build-fuzz/, run each for S s (default 60) or N executions (with both: whichever comes first), one at a time
fuzz: all
	$(MAKE) BUILD=$(FUZZ_DIR) OUT=$(FUZZ_DIR)/bin CC=$(FUZZ_CC) CFLAGS='-O1 -g' \
		SANITIZE='-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all' fuzz-build
	tests/fuzz/seeds.sh $(abspath $(OUT)) $(FUZZ_DIR)/seeds
	ASAN_OPTIONS=detect_leaks=1 FUZZ_RUNS=$(FUZZ_RUNS) tests/fuzz/run.sh $(FUZZ_DIR) '$(FUZZ_SECONDS)' $(FUZZ_NAMES)
	python3 tests/fuzz/study_config.py $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS)) $(if $(FUZZ_SECONDS),--seconds $(FUZZ_SECONDS),$(if $(FUZZ_RUNS),,--seconds 60))

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

## install: schednav into BINDIR, the tools into LIBEXECDIR, man pages into MAN1DIR/MAN7DIR, configs/ and pipelines/ into DATADIR (PREFIX, DESTDIR)
# configs/: every JSON config and the studies' recorded agent plans (*.agent.ndjson);
# pipelines/: the study recipes and their scripts, beside configs/ as in a clone.
CONFIG_FILES := $(sort $(shell find configs -type f \( -name '*.json' -o -name '*.agent.ndjson' \)))
PIPELINE_FILES := $(sort $(wildcard pipelines/*.mk pipelines/*.sh pipelines/*.jq))
INSTALL_DIRS := $(BINDIR) $(LIBEXECDIR) $(MAN1DIR) $(MAN7DIR) $(DATADIR) $(DATADIR)/pipelines $(patsubst %/,$(DATADIR)/%,$(sort $(dir $(CONFIG_FILES))))
# The directories install had to create (each with its missing parents), one a line, without
# DESTDIR: uninstall removes those, and only those, once they are empty.
INSTALL_DIRS_RECORD := $(DATADIR)/installed-directories
install: all
	@set -e; made=; for d in $(INSTALL_DIRS); do p=$$d; \
		while [ ! -d "$(DESTDIR)$$p" ]; do made="$$made $$p"; p=$$(dirname "$$p"); done; done; \
	install -d $(addprefix $(DESTDIR),$(INSTALL_DIRS)); \
	{ [ ! -f $(DESTDIR)$(INSTALL_DIRS_RECORD) ] || cat $(DESTDIR)$(INSTALL_DIRS_RECORD); \
	  for p in $$made; do echo "$$p"; done; } | sort -u > $(DESTDIR)$(INSTALL_DIRS_RECORD).tmp; \
	mv $(DESTDIR)$(INSTALL_DIRS_RECORD).tmp $(DESTDIR)$(INSTALL_DIRS_RECORD); \
	echo "install: made $$(wc -l < $(DESTDIR)$(INSTALL_DIRS_RECORD)) directories (listed in $(DESTDIR)$(INSTALL_DIRS_RECORD))"
	for f in $(CONFIG_FILES); do install -m 644 $$f $(DESTDIR)$(DATADIR)/$$f; done
	for f in $(PIPELINE_FILES); do if [ -x $$f ]; then m=755; else m=644; fi; install -m $$m $$f $(DESTDIR)$(DATADIR)/$$f; done
	install -m 755 $(OUT)/schednav $(DESTDIR)$(BINDIR)/schednav
	install -m 755 $(PLUMBING:%=$(OUT)/%) $(DESTDIR)$(LIBEXECDIR)
	install -m 644 $(MAN1) $(DESTDIR)$(MAN1DIR)
	install -m 644 $(MAN7) $(DESTDIR)$(MAN7DIR)

## uninstall: remove exactly what install put there (same PREFIX, DESTDIR)
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/schednav $(PLUMBING:%=$(DESTDIR)$(LIBEXECDIR)/%)
	rm -f $(MAN1:docs/%=$(DESTDIR)$(MAN1DIR)/%) $(MAN7:docs/%=$(DESTDIR)$(MAN7DIR)/%)
	for f in $(CONFIG_FILES) $(PIPELINE_FILES); do rm -f $(DESTDIR)$(DATADIR)/$$f; done
	@# the directories install made, deepest first, each only when empty; the rest stay
	@if [ -f $(DESTDIR)$(INSTALL_DIRS_RECORD) ]; then \
		dirs=$$(sort -r $(DESTDIR)$(INSTALL_DIRS_RECORD)); rm -f $(DESTDIR)$(INSTALL_DIRS_RECORD); \
		for d in $$dirs; do if [ -d "$(DESTDIR)$$d" ]; then rmdir "$(DESTDIR)$$d" 2>/dev/null || echo "uninstall: kept '$(DESTDIR)$$d' (not empty)"; fi; done; \
	fi

# The Debian packages each entry point needs; pipelines/need-packages.sh installs the
# missing ones when run as root (DEPS_INSTALL=auto; yes = always try, no = only report)
# and otherwise stops with the one apt-get line to run. PACKAGE:COMMAND is satisfied by
# COMMAND on PATH from any source (nodejs and npm come from NodeSource on some machines).
BUILD_PACKAGES := build-essential pkgconf libyajl-dev libxxhash-dev libzstd-dev libssl-dev
DEMO_PACKAGES  := $(BUILD_PACKAGES) gnuplot-nox
CHECK_PACKAGES := $(BUILD_PACKAGES) zstd bats bats-assert bats-support jq python3 python3-jsonschema \
	gnuplot-nox parallel chromium man-db nodejs:node npm:npm
DEBIAN_PACKAGES := $(sort $(DEMO_PACKAGES) $(CHECK_PACKAGES))

## deps: install every Debian package the build, the demo and the tests need (as root; only what is missing)
deps:
	@DEPS_INSTALL=$${DEPS_INSTALL:-yes} pipelines/need-packages.sh deps $(DEBIAN_PACKAGES)
	@$(MAKE) --no-print-directory mcp-inspector

## mcp-inspector: install the pinned MCP Inspector CLI the schednav-mcp tests drive (npm ci in tests/mcp; once per lock file; without npm or its registry the tests skip)
# Never a test's job (a test must not need the network): make check and make deps run it
# first. Installed already for this lock file: nothing to do (npm writes
# node_modules/.package-lock.json). No npm, or no registry: say so; those tests then skip.
mcp-inspector:
	@if [ -x tests/mcp/node_modules/.bin/mcp-inspector ] && [ tests/mcp/node_modules/.package-lock.json -nt tests/mcp/package-lock.json ]; then :; \
	elif ! command -v npm >/dev/null 2>&1; then echo "mcp-inspector: npm not found: the MCP Inspector tests of schednav-mcp will skip"; \
	elif (cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error); then :; \
	else echo "mcp-inspector: npm ci failed (no npm registry?): the MCP Inspector tests of schednav-mcp will skip"; fi

## help: list the targets
help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## clean: remove build outputs
clean:
	rm -rf $(BUILD) build-asan build-ubsan build-fuzz bin

-include $(LIB_OBJ:.o=.d) $(GEN_OBJ:.o=.d) $(TOOLS:%=$(BUILD)/tools/%.d) $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%.d)
-include $(FUZZ_SRC:%.c=$(BUILD)/%.d) $(BUILD)/tests/fuzz/fuzz.d $(BUILD)/tests/fuzz/replay.d
-include $(BUILD)/test-ops/schednav-mcp.d $(BUILD)/test-ops/page.d $(BUILD)/gen/mcp_schemas_test.d $(TEST_SECTION_OBJ:.o=.d)
-include pipelines/*.mk
