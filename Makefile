# pmusim top-level wrapper around CMake.
#
#   make            build build/pmusim, the tests and every guest (build/guest/<arch>/<name>.elf)
#   make demo       install what is missing, build, run the default scenario on the built-in boards
#   make test       install what is missing, build, build the fuzzing tree (build-fuzz/, clang), run
#                   every test (ctest): unit, end-to-end, replay of the fuzzing corpora and crash
#                   inputs, and a fixed-seed smoke run of each fuzzing harness
#   make sanitize   the same tests on a tree built with AddressSanitizer and UndefinedBehaviorSanitizer
#                   (build-san/, clang); any sanitizer report fails it (docs/testing.md)
#   make bench      install what is missing (QEMU too), build, run the benchmarks
#   make fuzz       install what is missing, build the fuzzing tree, run every harness (FUZZ_* below)
#                   and the random guests
#   make install    build, then install build/pmusim to $(PREFIX)/bin, its manual page to
#                   $(PREFIX)/share/man/man1/pmusim.1 and its bash completion to
#                   $(PREFIX)/share/bash-completion/completions/pmusim (under $(DESTDIR) if set)
#   make clean      remove the trees, but keep $(BUILD)/linux-cache (the Debian kernels the Linux
#                   tests boot, ~125 MB per architecture, downloaded once: docs/testing.md)
#   make clean-cache  remove $(BUILD)/linux-cache too (the next `make test` fetches the newest kernel)
#
# Variables: BUILD (build dir, default build), JOBS (parallel jobs), ARCH (demo: x86_64|arm64|ppc32|all)
#   FUZZ_BUILD, SAN_BUILD  the fuzzing and sanitizer trees (default $(BUILD)-fuzz, $(BUILD)-san)
#   make fuzz:  FUZZ_RUNS=N inputs per harness, or FUZZ_SECONDS=S seconds per harness (default 60 s);
#               FUZZ_SEED=N (default 1, fixed; 0: from the clock); FUZZ_JOBS=N harnesses at a time
#               (default JOBS); FUZZ_HARNESSES="elf dtb ..." a subset.  Findings are copied into
#               tests/fuzz/crashes/<name>/.  The 1,000,000-input bar: make fuzz FUZZ_RUNS=1000000

BUILD ?= build
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
ARCH  ?= all
PREFIX ?= /usr/local
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
FUZZ_BUILD ?= $(BUILD)-fuzz
SAN_BUILD ?= $(BUILD)-san
FUZZ_RUNS ?=
FUZZ_SECONDS ?=
FUZZ_SEED ?= 1
FUZZ_JOBS ?= $(JOBS)
FUZZ_HARNESSES ?=

all: build

# CMake's install rules (CMakeLists.txt); DESTDIR is CMake's too (it reads it from the environment)
install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

deps:
	@sh scripts/install-deps.sh

deps-bench:
	@sh scripts/install-deps.sh --bench

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The libFuzzer tree: clang, instrumented, only the harnesses; it reuses $(BUILD)'s guests.
$(FUZZ_BUILD)/CMakeCache.txt:
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Release -DPMUSIM_FUZZ=ON \
	    -DPMUSIM_GUEST_DIR=$(abspath $(BUILD))/guest

fuzz-tree: $(FUZZ_BUILD)/CMakeCache.txt
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_harnesses

demo: deps
	@$(MAKE) --no-print-directory build
	@sh scripts/demo.sh $(BUILD) $(ARCH)

# build first (the fuzz tree's seeds copy its guests), then the fuzz tree, then build again: that
# reconfigures $(BUILD) once the fuzz tree exists, which registers the fuzz/smoke_* tests
test: deps
	@$(MAKE) --no-print-directory build
	@$(MAKE) --no-print-directory fuzz-tree
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

sanitize: deps
	@$(MAKE) --no-print-directory build
	@sh tests/fuzz/sanitize.sh $(BUILD) $(SAN_BUILD) $(JOBS)

bench: deps-bench
	@$(MAKE) --no-print-directory build
	@sh bench/run.sh $(BUILD)

fuzz: deps
	@$(MAKE) --no-print-directory build
	@$(MAKE) --no-print-directory fuzz-tree
	@rc=0; FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_SEED=$(FUZZ_SEED) \
	    FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_HARNESSES="$(FUZZ_HARNESSES)" sh tests/fuzz/run.sh $(BUILD) || rc=1; \
	    sh tests/randguest/run.sh $(BUILD) || rc=1; exit $$rc

clean:
	rm -rf $(FUZZ_BUILD) $(SAN_BUILD)
	@[ ! -d $(BUILD) ] || find $(BUILD) -mindepth 1 -maxdepth 1 ! -name linux-cache -exec rm -rf {} +

clean-cache:
	rm -rf $(BUILD)/linux-cache

.PHONY: all deps deps-bench build fuzz-tree demo test sanitize bench fuzz clean clean-cache install
