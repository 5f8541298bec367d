# etdump-bpf - build, test and benchmark.
#   make            build/etdump-bpf, the example runtime and the unit tests
#   make deps       install the Debian packages the build and tests need
#   make example    record the example runtime and print the table
#   make test       the whole suite (unit + end-to-end); SAN=1 for ASan+UBSan
#   make test-asan  the suite again with AddressSanitizer + UBSan
#   make test-valgrind  unit tests and recordings under valgrind's leak check
#   make fuzz       every libFuzzer target FUZZ_SECONDS (60) each; fuzz-short 10
#   make bench      what tracing costs: a table of ratios (docs/benchmark.md)
#   make bench-short  its headline rows, cut down (about 3 minutes)
#   make vmlinux    regenerate vmlinux/$(ARCH)/vmlinux.h from the running kernel
#   V=1             show commands

ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

# --- arm64 and static builds (docs/arm64-android.md) ---
#   make ARCH=arm64        cross-build for aarch64 into build/arm64 with
#                          Debian's aarch64-linux-gnu toolchain and the arm64
#                          multiarch -dev packages (make deps ARCH=arm64)
#   make STATIC=1          one statically linked etdump-bpf (build/static,
#                          build/arm64-static with ARCH=arm64)
#   make test ARCH=arm64   the arm64 build under qemu-aarch64 (tests/qemu.py)
HOST_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
STATIC ?= 0
TRIPLET_x86 := x86_64-linux-gnu
TRIPLET_arm64 := aarch64-linux-gnu
TRIPLET := $(TRIPLET_$(ARCH))
ifeq ($(TRIPLET),)
$(error ARCH=$(ARCH) is not supported: x86 or arm64)
endif
ifneq ($(ARCH),$(HOST_ARCH))
CROSS_COMPILE ?= $(TRIPLET)-
# libraries of the target's multiarch folder, headers of the arch-neutral one
CROSS_NEEDS := $(CROSS_COMPILE)gcc /usr/lib/$(TRIPLET)/libbpf.so \
	/usr/lib/$(TRIPLET)/libelf.so /usr/lib/$(TRIPLET)/libz.so
# the ExecuTorch install beside the clone is the host's
EXECUTORCH_PREFIX :=
endif
ifneq ($(CROSS_COMPILE),)
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
ifeq ($(origin CXX),default)
CXX := $(CROSS_COMPILE)g++
endif
ifeq ($(origin AR),default)
AR := $(CROSS_COMPILE)ar
endif
endif
ifneq ($(ARCH),$(HOST_ARCH))
OUT_SUFFIX := /$(ARCH)$(if $(filter 1,$(STATIC)),-static)
else ifeq ($(STATIC),1)
OUT_SUFFIX := /static
endif
ifneq ($(OUT_SUFFIX),)
OUT ?= build$(OUT_SUFFIX)
endif
# static: glibc, libbpf, libelf, zlib and libstdc++ all inside the binary
ifeq ($(STATIC),1)
LDFLAGS += -static
endif
ifneq ($(CROSS_COMPILE),)
# clang -target bpf: the target's multiarch include folder, not the host's
CLANG_BPF_SYS_INCLUDES ?= -idirafter /usr/include/$(TRIPLET) -idirafter /usr/include
endif
ifneq ($(ARCH),$(HOST_ARCH))
# the cross packages and qemu-user too; the host build is what the arm64
# build's outputs are compared with
DEPS_ARCH := $(ARCH)
TEST_RUN = $(MAKE) --no-print-directory ARCH=$(HOST_ARCH) CC=cc CXX=g++ \
	AR=ar OUT=build STATIC=0 all && \
	$(MAKE) --no-print-directory STATIC=1 OUT=$(OUT)-static \
	$(OUT)-static/etdump-bpf && \
	$(PYTHON) tests/qemu.py --build $(OUT) --host-build build \
	--static $(OUT)-static/etdump-bpf
endif
# the man page is made by running the binary: the host build's, not a
# cross build's (the page is the same)
ifeq ($(ARCH),$(HOST_ARCH))
MAN_PAGE = $(OUT)/etdump-bpf.1
endif
# --- end of arm64 and static builds ---

SAN ?= 0
FUZZ ?= 0
ifeq ($(FUZZ),1)
# libFuzzer needs clang; the library gets its coverage instrumentation
OUT ?= build-fuzz
CC = $(CLANG)
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else ifeq ($(SAN),1)
OUT ?= build-asan
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
OUT ?= build
SANFLAGS :=
endif

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
PYTHON ?= python3

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror
# every include names its folder: "lib/log.h" (user/), "schema/etdump_record.h"
# (the repository's root); the BPF skeletons are generated into $(OUT)
INCLUDES := -Iuser -I. -I$(OUT)
# -ffp-contract=off: report's numbers are the Inspector's (numpy's), one IEEE
# operation at a time; aarch64 gcc would fuse a*b+c into one fmadd
ALL_CFLAGS := $(CFLAGS) $(WARN) $(SANFLAGS) -std=gnu11 -D_GNU_SOURCE -ffp-contract=off $(INCLUDES)
# -lstdc++: symbol mode demangles C++ names with abi::__cxa_demangle
LDLIBS := -lbpf -lelf -lz -lstdc++ -lm
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS)

# clang -target bpf does not search the host's multiarch include folder,
# where <asm/errno.h> (pulled in by usdt.bpf.h) lives.
CLANG_BPF_SYS_INCLUDES ?= $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
# BPF_USDT() hands every program a ctx it may not use.
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) $(WARN) -Wno-unused-parameter \
	-Ivmlinux/$(ARCH) -I. $(CLANG_BPF_SYS_INCLUDES)

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUT)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(OUT)/%.skel.h,$(BPF_SRCS))

# user/ in layers, each using only those below it (scripts/check_layers.py
# declares the order and checks it): lib/ (what every layer uses), model/
# (the data model of a run), read/ (decoding files), target/ (which process,
# which files, which probes), capture/ (BPF programs attached, the ring
# read), collect/ (records into runs), symbol/ (symbol mode's uprobes and
# their translation), write/ (ETDumps, raw captures, timelines), convert/
# (recorded files replayed), report/, and cli/ (the commands).
# user/cli/main.c is the CLI entry; everything else is the library the CLI,
# the unit tests and the fuzzers link against.
USER_HDRS := $(wildcard user/*/*.h)
LIB_SRCS := $(filter-out user/cli/main.c,$(wildcard user/*/*.c))
LIB_OBJS := $(patsubst user/%.c,$(OUT)/obj/%.o,$(LIB_SRCS))
LIB := $(OUT)/libetdump.a

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))

EXAMPLE_SRCS := $(filter-out tests/example/forker.c tests/example/dlopen_host.c,$(wildcard tests/example/*.c))
EXAMPLE_HDRS := $(wildcard tests/example/*.h) schema/etdump_usdt.h
EXAMPLE := $(OUT)/example-runtime
# the same runtime with every probe compiled out
EXAMPLE_NOPROBES := $(OUT)/example-runtime-noprobes
# and built as a library (the probes are in libexample-runtime.so, none in
# the executable), as runtimes often ship
EXAMPLE_LIB := $(OUT)/libexample-runtime.so
EXAMPLE_SHARED := $(OUT)/example-runtime-shared
# a runtime that forks while traced (tests/example/forker.c)
EXAMPLE_FORKER := $(OUT)/example-forker
# the runtime with its main() in a library that a host loads only when it
# needs it (tests/example/dlopen_host.c), as a Python service loads ExecuTorch
EXAMPLE_MAIN_LIB := $(OUT)/libexample-main.so
EXAMPLE_DLOPEN_HOST := $(OUT)/example-dlopen-host

CLI := $(OUT)/etdump-bpf

# Our ExecuTorch runner (tests/executorch/runner.cpp), with the EventTracer of
# schema/etdump_event_tracer.h, built against an ExecuTorch install: headers
# and static libraries built with ET_EVENT_TRACER_ENABLED, the portable
# kernels and the XNNPACK delegate. Built only when the install is there.
EXECUTORCH_PREFIX ?= $(wildcard $(abspath ../shared/executorch/sdk))
ET_RUNNER := $(OUT)/executorch-runner
ifneq ($(EXECUTORCH_PREFIX),)
ET_LIB := $(EXECUTORCH_PREFIX)/lib
ET_HEADER := $(EXECUTORCH_PREFIX)/include/executorch/runtime/core/event_tracer.h
ifeq ($(wildcard $(ET_HEADER)),)
$(error EXECUTORCH_PREFIX=$(EXECUTORCH_PREFIX) is not an ExecuTorch install: $(ET_HEADER) is missing)
endif
ET_CXXFLAGS := -std=gnu++17 -O2 -g $(WARN) -DET_EVENT_TRACER_ENABLED \
	-DC10_USING_CUSTOM_GENERATED_MACROS -DFLATBUFFERS_MAX_ALIGNMENT=1024 \
	-I$(EXECUTORCH_PREFIX)/include \
	-I$(EXECUTORCH_PREFIX)/include/executorch/runtime/core/portable_type/c10 \
	-Ischema
# kernels and backends register themselves from static initializers
ET_WHOLE := $(ET_LIB)/libportable_ops_lib.a $(ET_LIB)/libxnnpack_backend.a
ET_GROUP := $(addprefix $(ET_LIB)/,libportable_kernels.a \
	libkernels_util_all_deps.a libextension_runner_util.a \
	libextension_data_loader.a libexecutorch.a libexecutorch_core.a \
	libXNNPACK.a libxnnpack-microkernels-prod.a libcpuinfo.a \
	libpthreadpool.a libextension_threadpool.a)
# the same runner with ExecuTorch's ETDumpGen, for make bench (row 8)
ET_RUNNER_ETDUMPGEN := $(OUT)/executorch-runner-etdumpgen
# a stock runtime as a shared library a host loads when it needs it
# (tests/executorch/runner.cpp as a library: no tracer, no probes, the
# portable kernels)
ET_STOCK_LIB := $(OUT)/libexecutorch-stock.so
ET_STOCK_GROUP := $(addprefix $(ET_LIB)/,libportable_kernels.a \
	libkernels_util_all_deps.a libextension_runner_util.a \
	libextension_data_loader.a libexecutorch.a libexecutorch_core.a)
# the same with the XNNPACK delegate (a library loaded later whose
# XNNPACK operators symbol mode reads: test_executorch_late_symbols.py)
ET_STOCK_XNN_LIB := $(OUT)/libexecutorch-stock-xnn.so
ET_TARGETS := $(ET_RUNNER) $(ET_RUNNER_ETDUMPGEN) $(ET_STOCK_LIB) \
	$(ET_STOCK_XNN_LIB)
endif

# A plain `make` (or `make all`) on a machine without the build's packages
# names what is missing in one line; the README's commands install it.
BUILD_NEEDS := $(CLANG) $(BPFTOOL) /usr/include/bpf/bpf_helpers.h \
	/usr/include/gelf.h /usr/include/zlib.h $(CROSS_NEEDS)
ifeq ($(filter-out all,$(MAKECMDGOALS)),)
MISSING := $(strip $(foreach n,$(BUILD_NEEDS),$(if $(or $(wildcard $(n)),$(shell command -v $(n) 2>/dev/null)),,$(n))))
ifneq ($(MISSING),)
$(error missing to build: $(MISSING); run 'make deps' to install the Debian packages (or 'make example' / 'make test', which install them))
endif
endif

.PHONY: install man
.PHONY: all deps example test test-asan test-valgrind fuzz fuzz-short fuzz-build fuzz-run unit e2e bench bench-short vmlinux clean
.DELETE_ON_ERROR:
.SECONDARY: $(BPF_OBJS)

all: $(CLI) $(MAN_PAGE) $(EXAMPLE) $(EXAMPLE_NOPROBES) $(EXAMPLE_SHARED) $(EXAMPLE_FORKER) $(UNIT_BINS) $(OUT)/bench-loop \
	$(EXAMPLE_MAIN_LIB) $(EXAMPLE_DLOPEN_HOST) \
	$(OUT)/exit-probes $(OUT)/nested-kernels $(OUT)/loss-own-runs \
	$(ET_TARGETS)

# The man page is made from the binary's own --help texts: they cannot drift.
man: $(OUT)/etdump-bpf.1
$(OUT)/etdump-bpf.1: $(CLI) scripts/help2man.py
	$(call msg,MAN,$@)
	$(Q)scripts/help2man.py $(CLI) > $@

PREFIX ?= /usr/local
install: $(CLI) $(OUT)/etdump-bpf.1
	install -D -m 0755 $(CLI) $(DESTDIR)$(PREFIX)/bin/etdump-bpf
	install -D -m 0644 $(OUT)/etdump-bpf.1 $(DESTDIR)$(PREFIX)/share/man/man1/etdump-bpf.1
	install -D -m 0644 scripts/etdump-bpf.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/etdump-bpf

deps:
	$(Q)scripts/install-deps.sh $(DEPS_ARCH)

$(OUT) $(OUT)/obj $(OUT)/tests:
	$(Q)mkdir -p $@

$(OUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(wildcard schema/*.h) vmlinux/$(ARCH)/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# schema/*.rules: built into user/symbol/symbol_rules.c with .incbin
$(OUT)/obj/%.o: user/%.c $(USER_HDRS) $(wildcard schema/*.h) $(wildcard schema/*.rules) $(SKELS) | $(OUT)/obj
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(CLI): user/cli/main.c $(LIB) $(SKELS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIB) $(ALL_LDFLAGS) $(LDLIBS) -o $@

$(OUT)/tests/%: tests/unit/%.c tests/unit/testlib.h $(LIB) | $(OUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit $< $(LIB) $(ALL_LDFLAGS) $(LDLIBS) -lm -o $@

# The example runtime is built with the user's flags but without sanitizers:
# it is the traced process, not code under test.
$(EXAMPLE): $(EXAMPLE_SRCS) $(EXAMPLE_HDRS) | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g $(WARN) -std=gnu11 -Ischema $(EXAMPLE_SRCS) -lm -lpthread -o $@

$(EXAMPLE_NOPROBES): $(EXAMPLE_SRCS) $(EXAMPLE_HDRS) | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g $(WARN) -std=gnu11 -Ischema -DETDUMP_USDT_DISABLE $(EXAMPLE_SRCS) -lm -lpthread -o $@

$(EXAMPLE_LIB): $(filter-out tests/example/main.c,$(EXAMPLE_SRCS)) $(EXAMPLE_HDRS) | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g $(WARN) -std=gnu11 -Ischema -fPIC -shared $(filter %.c,$^) -lm -lpthread -o $@

$(EXAMPLE_MAIN_LIB): $(EXAMPLE_SRCS) $(EXAMPLE_HDRS) | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g $(WARN) -std=gnu11 -Ischema -fPIC -shared -Dmain=example_main $(EXAMPLE_SRCS) -lm -lpthread -o $@

$(EXAMPLE_DLOPEN_HOST): tests/example/dlopen_host.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g $(WARN) -std=gnu11 $< -ldl -o $@

$(EXAMPLE_FORKER): tests/example/forker.c schema/etdump_usdt.h | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g $(WARN) -std=gnu11 -Ischema $< -lpthread -o $@

$(EXAMPLE_SHARED): tests/example/main.c $(EXAMPLE_HDRS) $(EXAMPLE_LIB) | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g $(WARN) -std=gnu11 -Ischema $< -L$(OUT) -lexample-runtime -Wl,-rpath,'$$ORIGIN' -lm -lpthread -o $@

$(ET_RUNNER): tests/executorch/runner.cpp schema/etdump_event_tracer.h \
		schema/etdump_usdt.h | $(OUT)
	$(call msg,CXX,$@)
	$(Q)for f in $(ET_WHOLE) $(ET_GROUP); do [ -f "$$f" ] || { \
		echo "EXECUTORCH_PREFIX=$(EXECUTORCH_PREFIX) is not an ExecuTorch install with the portable kernels and XNNPACK: $$f is missing" >&2; \
		exit 1; }; done
	$(Q)$(CXX) $(ET_CXXFLAGS) $< -Wl,--whole-archive $(ET_WHOLE) \
		-Wl,--no-whole-archive -Wl,--start-group $(ET_GROUP) \
		-Wl,--end-group -lpthread -ldl -lm -o $@

$(ET_RUNNER_ETDUMPGEN): tests/executorch/runner.cpp | $(ET_RUNNER)
	$(call msg,CXX,$@)
	$(Q)$(CXX) $(ET_CXXFLAGS) -DRUNNER_ETDUMPGEN $< -Wl,--whole-archive \
		$(ET_WHOLE) -Wl,--no-whole-archive -Wl,--start-group $(ET_GROUP) \
		$(ET_LIB)/libetdump.a $(ET_LIB)/libflatccrt.a -Wl,--end-group \
		-lpthread -ldl -lm -o $@

$(ET_STOCK_LIB): tests/executorch/runner.cpp | $(ET_RUNNER)
	$(call msg,CXX,$@)
	$(Q)$(CXX) $(ET_CXXFLAGS) -DRUNNER_STOCK_LIB -Dmain=example_main \
		-fPIC -shared $< -Wl,--whole-archive \
		$(ET_LIB)/libportable_ops_lib.a -Wl,--no-whole-archive \
		-Wl,--start-group $(ET_STOCK_GROUP) -Wl,--end-group \
		-lpthread -ldl -lm -o $@

$(ET_STOCK_XNN_LIB): tests/executorch/runner.cpp | $(ET_RUNNER)
	$(call msg,CXX,$@)
	$(Q)$(CXX) $(ET_CXXFLAGS) -DRUNNER_STOCK_LIB -Dmain=example_main \
		-fPIC -shared $< -Wl,--whole-archive $(ET_WHOLE) \
		-Wl,--no-whole-archive -Wl,--start-group $(ET_GROUP) \
		-Wl,--end-group -lpthread -ldl -lm -o $@

# The README's two commands: each installs what is missing, builds, runs.
example: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/run-example.sh $(OUT)

unit: $(UNIT_BINS)

# E2E_PART=alone|rest: a part of the suite (tests/run.py --part)
TEST_RUN ?= $(PYTHON) tests/run.py --build $(OUT) \
	$(if $(E2E_PART),--part $(E2E_PART))
test: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(TEST_RUN)

# make bench (scripts/bench.py): the loop target three ways (5-byte nop
# sites, 1-byte nop sites, no sites), the floor tracer, the writer bench.
BENCH_LOOPS := $(OUT)/bench-loop $(OUT)/bench-loop-nop1 $(OUT)/bench-loop-noprobes
BENCH_TOOLS := $(OUT)/bench-floor $(OUT)/bench-writer

$(OUT)/bench-loop-nop1: LOOP_FLAGS := -DBENCH_NOP1
$(OUT)/bench-loop-noprobes: LOOP_FLAGS := -DETDUMP_USDT_DISABLE
$(BENCH_LOOPS): tests/bench/loop.c schema/etdump_usdt.h | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g $(WARN) -std=gnu11 -I. $(LOOP_FLAGS) $< -lpthread -o $@

# threads of runs of their own, logged (tests/e2e/test_loss_property.py)
$(OUT)/loss-own-runs: tests/loss/own_runs.c schema/etdump_usdt.h | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g $(WARN) -std=gnu11 -I. $< -lpthread -o $@

# a function probed on its two rets, as symbol mode probes an aarch64 one
# (tests/e2e/test_exit_probes.py)
$(OUT)/exit-probes: tests/probes/exit_probes.c $(LIB) $(SKELS) | $(OUT)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIB) $(ALL_LDFLAGS) $(LDLIBS) -o $@

# a kernel calling another, and kernels outside any run, for symbol mode's
# one trap a kernel (tests/e2e/test_one_trap.py); no probes, like a stock build
$(OUT)/nested-kernels: tests/nested/nested_kernels.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -fno-omit-frame-pointer $(WARN) -std=gnu11 $< -lpthread -o $@

# the EventTracer's own work, in the runtime's thread (the tracer row)
$(OUT)/bench-tracer: tests/bench/tracer.c schema/etdump_usdt.h | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g $(WARN) -std=gnu11 -I. $< -lpthread -o $@

$(BENCH_TOOLS): $(OUT)/bench-%: tests/bench/%.c $(LIB) $(SKELS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIB) $(ALL_LDFLAGS) $(LDLIBS) -o $@

bench: deps
	$(Q)$(MAKE) --no-print-directory all $(BENCH_LOOPS) $(BENCH_TOOLS) \
		$(OUT)/bench-tracer
	$(Q)$(PYTHON) scripts/bench.py --build $(OUT) --out $(OUT)/bench.txt

# the rows the README and docs quote, each in its quick form: a change's
# quick check (scripts/bench.py --short)
bench-short: deps
	$(Q)$(MAKE) --no-print-directory all $(BENCH_LOOPS) $(BENCH_TOOLS)
	$(Q)$(PYTHON) scripts/bench.py --short --build $(OUT) \
		--out $(OUT)/bench-short.txt

test-asan:
	$(Q)$(MAKE) --no-print-directory SAN=1 test

# The kernel matrix (tests/kernels/, docs/development.md): the cases on
# this machine's kernel and in qemu guests of Debian's 5.10, 6.1 and 6.12,
# x86-64 and arm64 (fetched once into the cache); KERNELS picks some, e.g.
# make test-kernels KERNELS="6.1-amd64 5.10-arm64". The arm64 guests run
# the arm64 build.
KERNELS ?=
.PHONY: test-kernels
test-kernels:
	$(Q)scripts/install-deps.sh kernels
	$(Q)$(MAKE) --no-print-directory ARCH=$(HOST_ARCH) all
	$(Q)$(if $(or $(if $(KERNELS),,all),$(filter %-arm64,$(KERNELS))),$(MAKE) --no-print-directory ARCH=arm64 all)
	$(Q)$(PYTHON) tests/kernels/matrix.py $(KERNELS)

# The unit tests, and recordings of the example converted back, under
# valgrind's leak check (tests/valgrind.sh; about a minute).
test-valgrind: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/valgrind.sh $(OUT)

# make fuzz: every libFuzzer target (tests/fuzz/fuzz_*.c) for FUZZ_SECONDS
# each, with ASan + UBSan, on corpora seeded at build time in
# build-fuzz/corpus (tests/fuzz/run.py); fuzz-short is the CI's pass.
FUZZ_SECONDS ?= 60
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(OUT)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))

$(OUT)/fuzz:
	$(Q)mkdir -p $@

$(OUT)/fuzz/%: tests/fuzz/%.c $(wildcard tests/fuzz/*.h) $(LIB) | $(OUT)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer $< $(LIB) $(ALL_LDFLAGS) $(LDLIBS) -o $@

fuzz fuzz-short: deps
	$(Q)$(MAKE) --no-print-directory FUZZ=1 \
		$(if $(filter fuzz-short,$@),FUZZ_SECONDS=10) fuzz-run

# what fuzz-run needs, apart: CI builds it with -j first (.ci/run)
fuzz-build: $(FUZZ_BINS) $(CLI) $(EXAMPLE)

fuzz-run: fuzz-build
	$(if $(filter 1,$(FUZZ)),,$(error fuzz-run needs FUZZ=1: run make fuzz))
	$(Q)$(PYTHON) tests/fuzz/run.py --build $(OUT) --seconds $(FUZZ_SECONDS)

vmlinux:
	$(if $(CROSS_COMPILE),$(error make vmlinux dumps the running kernel's BTF, not an $(ARCH) kernel's: vmlinux/README says how vmlinux/$(ARCH)/vmlinux.h is made))
	$(call msg,GEN,vmlinux/$(ARCH)/vmlinux.h)
	$(Q)mkdir -p vmlinux/$(ARCH)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/$(ARCH)/vmlinux.h

clean:
	$(Q)rm -rf build build-asan build-fuzz
