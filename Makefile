# pmusim top-level wrapper around CMake.
#
#   make            build build/pmusim, the tests and every guest (build/guest/<arch>/<name>.elf)
#   make demo       install what is missing, build, run the default scenario on the built-in boards
#   make test       install what is missing, build, run every test (ctest)
#   make bench      install what is missing (QEMU too), build, run the benchmarks
#   make fuzz       install what is missing, build the fuzzing tree, run every harness and the random guests
#   make clean
#
# Variables: BUILD (build dir, default build), JOBS (parallel jobs), ARCH (demo: x86_64|arm64|ppc32|all)

BUILD ?= build
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
ARCH  ?= all
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

all: build

deps:
	@sh scripts/install-deps.sh

deps-bench:
	@sh scripts/install-deps.sh --bench

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: deps
	@$(MAKE) --no-print-directory build
	@sh scripts/demo.sh $(BUILD) $(ARCH)

test: deps
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: deps-bench
	@$(MAKE) --no-print-directory build
	@sh bench/run.sh $(BUILD)

fuzz: deps
	@$(MAKE) --no-print-directory build
	@sh tests/fuzz/run.sh $(BUILD)
	@sh tests/randguest/run.sh $(BUILD)

clean:
	rm -rf $(BUILD)

.PHONY: all deps deps-bench build demo test bench fuzz clean
