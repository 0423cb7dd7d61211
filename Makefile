# clarity: front door. `make` builds, `make check` runs every test (normal and ASan+UBSan
# builds) and ends with one line "N passed, N failed".
PREFIX  ?= /usr/local
CC      ?= cc
CXX     ?= c++
VERSION := 0.1.0

WARN     := -Wall -Wextra -Werror
CFLAGS_BASE   := -std=c17 $(WARN) -D_GNU_SOURCE -Iinclude -Isrc -pthread
CXXFLAGS_BASE := -std=c++17 $(WARN) -Iinclude -Isrc -pthread
LIBS     := -lmicrohttpd -lsimdjson -lzstd -llz4 -lsnappy -llzf -lz -lxxhash -lsqlite3 -lm -lstdc++ -pthread

OPT      ?= -O2 -g
# The sanitizer build keeps line tables only (-g1): its reports name function, file and line,
# inlined frames included, as with -g; what -g adds, the description of every variable and
# type, is for a debugger, and cost about a quarter of this build's compile CPU (10 sources:
# 7.3 CPU s with -g, 5.6 with -g1). `make SAN_G=-g ...` for a build to debug.
SAN_G    ?= -g1
SAN_CHECKS := $(SAN_G) -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN      := -O1 $(SAN_CHECKS)
# The unit tests' own sources (tests/unit: Criterion's assertion macros, fixtures) are compiled
# for speed of compiling, not of running: the library they test keeps OPT and SAN. Criterion's
# macros expand to much code that -O2 works hard on: the 85 test sources took 85 CPU s at
# -O2 -g and about 150 in the sanitizer build at -O1 (2026-11-28; e.g. test_iqcar_blame.c 2.8
# CPU s at -O2, 1.3 at -Og, 5.5 sanitized at -O1, 1.3 sanitized at -O0). -Og keeps the
# warnings that need flow analysis (-Wmaybe-uninitialized); the sanitizers check every load
# and store at -O0 (none is optimised away), so the test code loses no check. Line tables
# only (-g1): a failed assertion names its file and line itself, and a crash's backtrace
# needs no more; -g's description of every variable and type cost about a sixth of these
# objects' compile CPU (2026-11-28: 6 test sources 1.86 CPU s at -Og -g, 1.55 at -Og -g1).
TEST_OPT ?= -Og -g1
TEST_SAN := -O0 $(SAN_CHECKS)
# How the ASan+UBSan programs are linked: `make check` starts about 2,000 of them, and most of a
# short one's CPU is start-up and exit, not the analysis. As a position-independent executable
# the sanitizer build carries about 200,000 relative relocations (ASan's descriptors of every
# global, UBSan's type descriptors) that the loader applies at every start; linked -no-pie it
# carries none, and with the sanitizer runtimes linked statically their own symbols need no
# lookup either. The instrumentation and the runtime's checks are the same: only where the code
# sits and how it is loaded change. Measured 2026-11-27 (10 runs of `summary --json` on a 4 KB
# fixture, 3 rounds interleaved): 0.306 CPU s a run as before, 0.274 -no-pie, 0.231 both.
SAN_LD   := -no-pie -static-libasan -static-libubsan

LIB_C    := $(shell find src -name '*.c' -not -path 'src/cli/*' | sort)
LIB_CXX  := $(shell find src -name '*.cpp' | sort)
CLI_C    := $(shell find src/cli -name '*.c' | sort)
TEST_C   := $(shell find tests/unit -name '*.c' -not -path 'tests/unit/runner/*' | sort)
# tests/unit/runner/suite_runner.c: the same tests, a process a suite instead of a test
# (unit_suites; see the file and docs/testing.md), make check's first pass over them
RUNNER_C := tests/unit/runner/suite_runner.c
TOOL_C   := $(shell find tests/tools -name '*.c' 2>/dev/null | sort)

# $(call objs,BUILD_DIR,SOURCES)
objs = $(patsubst %.c,$(1)/%.o,$(patsubst %.cpp,$(1)/%.o,$(2)))

B  := build
BA := build-asan

all: $(B)/clarity

.PHONY: all check demo bench install clean deps test-deps asan tools model fuzz fuzzers replayers

deps:
	@scripts/bootstrap.sh
test-deps:
	@scripts/bootstrap.sh --test

# ---- normal build ----
$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(OPT) -MMD -MP -c $< -o $@
$(B)/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_BASE) $(OPT) -MMD -MP -c $< -o $@
$(B)/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(TEST_OPT) -MMD -MP -c $< -o $@
$(B)/libclarity.a: $(call objs,$(B),$(LIB_C) $(LIB_CXX))
	@rm -f $@; ar rcs $@ $^
$(B)/clarity: $(call objs,$(B),$(CLI_C)) $(B)/libclarity.a
	$(CC) $(OPT) -o $@ $^ $(LIBS)
$(B)/unit_tests: $(call objs,$(B),$(TEST_C)) $(B)/libclarity.a
	$(CC) $(OPT) -o $@ $^ -lcriterion $(LIBS)
$(B)/unit_suites: $(call objs,$(B),$(TEST_C) $(RUNNER_C)) $(B)/libclarity.a
	$(CC) $(OPT) -o $@ $^ -lcriterion $(LIBS)
$(B)/tools/%: tests/tools/%.c $(B)/libclarity.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(OPT) -o $@ $^ $(LIBS)

# ---- sanitizer build ----
$(BA)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(SAN) -MMD -MP -c $< -o $@
$(BA)/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_BASE) $(SAN) -MMD -MP -c $< -o $@
$(BA)/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(TEST_SAN) -MMD -MP -c $< -o $@
$(BA)/libclarity.a: $(call objs,$(BA),$(LIB_C) $(LIB_CXX))
	@rm -f $@; ar rcs $@ $^
$(BA)/clarity: $(call objs,$(BA),$(CLI_C)) $(BA)/libclarity.a
	$(CC) $(SAN) $(SAN_LD) -o $@ $^ $(LIBS)
$(BA)/unit_tests: $(call objs,$(BA),$(TEST_C)) $(BA)/libclarity.a
	$(CC) $(SAN) $(SAN_LD) -o $@ $^ -lcriterion $(LIBS)
$(BA)/unit_suites: $(call objs,$(BA),$(TEST_C) $(RUNNER_C)) $(BA)/libclarity.a
	$(CC) $(SAN) $(SAN_LD) -o $@ $^ -lcriterion $(LIBS)

# ---- fuzzing build (clang + libFuzzer) ----
# The library again, instrumented for libFuzzer's coverage and checked by ASan+UBSan; each
# tests/fuzz/<name>.c is one harness linked against it as build/fuzz/bin/<name>.
BF        := build/fuzz
FUZZ_CC   ?= clang
FUZZ_CXX  ?= clang++
# (clang's warnings differ from gcc's, which the other builds hold to -Werror: one of them
# must not stop the fuzzing; clang also flags the unused static inlines heap.h defines)
FUZZ_SAN  := -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=all -Wno-error -Wno-unused-function
FUZZ_C    := $(sort $(wildcard tests/fuzz/*.c))
FUZZERS   := $(patsubst tests/fuzz/%.c,$(BF)/bin/%,$(FUZZ_C))
FUZZ_SECONDS ?= 600

$(BF)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS_BASE) $(FUZZ_SAN) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c $< -o $@
$(BF)/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(CXXFLAGS_BASE) $(FUZZ_SAN) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c $< -o $@
$(BF)/libclarity.a: $(call objs,$(BF),$(LIB_C) $(LIB_CXX))
	@rm -f $@; ar rcs $@ $^
$(BF)/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS_BASE) $(FUZZ_SAN) -fsanitize=fuzzer,address,undefined -DCLARITY_SOURCE_ROOT='"$(CURDIR)"' \
	  -MMD -MP -c $< -o $@
# linked by the C++ driver: the simdjson wrapper's UBSan checks need its C++ runtime
$(BF)/bin/%: $(BF)/tests/fuzz/%.o $(BF)/libclarity.a
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_SAN) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LIBS)

# the harness objects are kept: the .d files next to them name what each depends on
.SECONDARY: $(patsubst tests/fuzz/%.c,$(BF)/tests/fuzz/%.o,$(FUZZ_C))

fuzzers: $(FUZZERS)

# ---- the harnesses' replay build (gcc, ASan+UBSan, no libFuzzer) ----
# `make check` replays every saved regression and seed corpus through each harness linked
# with tests/fuzz/replay/replay.c against the ASan+UBSan build's library, which it builds
# anyway: libFuzzer's coverage-instrumented copy of the whole library (clang, about 150 CPU s)
# is only needed to mutate inputs (`make fuzz`, FUZZ_SECONDS=N tests/fuzz/run.sh).
# (-Wno-unused-function: tests/fuzz/fuzz.h defines static helpers not every harness uses;
# -Wno-format-truncation: tests/fuzz/source.c copies paths of up to 600 bytes into 512-byte
# slots, which gcc flags; a cut path only names a missing entry to the resolver under test,
# and the clang build does not stop on warnings either)
BR        := $(BA)/fuzz-replay
REPLAYERS := $(patsubst tests/fuzz/%.c,$(BR)/bin/%,$(FUZZ_C))
$(BR)/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(SAN) -Wno-unused-function -Wno-format-truncation -DCLARITY_SOURCE_ROOT='"$(CURDIR)"' -MMD -MP -c $< -o $@
$(BR)/bin/%: $(BR)/%.o $(BR)/replay/replay.o $(BA)/libclarity.a
	@mkdir -p $(dir $@)
	$(CC) $(SAN) $(SAN_LD) -o $@ $^ $(LIBS)
.SECONDARY: $(patsubst tests/fuzz/%.c,$(BR)/%.o,$(FUZZ_C)) $(BR)/replay/replay.o
replayers: $(REPLAYERS)

# Every harness for FUZZ_SECONDS (default 600) each, two at a time; corpora grow in
# build/fuzz/corpus/<name>, crashes land in build/fuzz/crashes/. `make check` runs the same
# script for 3 s each (FUZZ_SECONDS=10 make check: longer), after replaying every regression.
fuzz:
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh

TOOLS := $(patsubst tests/tools/%.c,$(B)/tools/%,$(TOOL_C))
tools: $(TOOLS)

asan: $(BA)/clarity $(BA)/unit_tests $(BA)/unit_suites

check: test-deps
	@$(MAKE) --no-print-directory -j$$(nproc) $(B)/clarity $(B)/unit_tests $(B)/unit_suites $(TOOLS) $(BA)/clarity $(BA)/unit_tests $(BA)/unit_suites $(REPLAYERS)
	@tests/run-all.sh

demo: deps
	@$(MAKE) --no-print-directory $(B)/clarity
	@scripts/demo.sh

# The default LADRA model (GRNN training samples) from synth runs with injected faults; the
# seeds and the synth commit are written into the file (scripts/train-ladra-model.sh).
model: test-deps
	@$(MAKE) --no-print-directory $(B)/clarity
	@scripts/train-ladra-model.sh models/ladra-default.model

bench: deps
	@$(MAKE) --no-print-directory $(B)/clarity $(TOOLS)
	@bench/parse.sh

install: $(B)/clarity $(B)/libclarity.a
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/clarity $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/clarity
	install -m 755 $(B)/clarity $(DESTDIR)$(PREFIX)/bin/clarity
	install -m 644 $(B)/libclarity.a $(DESTDIR)$(PREFIX)/lib/libclarity.a
	install -m 644 include/clarity/*.h $(DESTDIR)$(PREFIX)/include/clarity/
	install -m 644 man/clarity.1 $(DESTDIR)$(PREFIX)/share/man/man1/clarity.1
	install -m 644 models/ladra-default.model $(DESTDIR)$(PREFIX)/share/clarity/ladra-default.model
	install -m 755 scripts/fleet_dask.py $(DESTDIR)$(PREFIX)/share/clarity/fleet_dask.py
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' clarity.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/clarity.pc

clean:
	rm -rf $(B) $(BA)

-include $(shell find $(B) $(BA) $(BF) -name '*.d' 2>/dev/null)
