# Thin wrapper over CMake so that the README's two commands (`make run`, `make test`) do everything
# on a fresh Debian machine: install missing packages, configure, build, then run or test.
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
BUILD     ?= build
ASAN      ?= build-asan
CONFIG    ?= cartpole-ga
CMAKE_FLAGS ?=

.PHONY: all build deps run test test-fast test-asan bench bench-train clean ale

all: build

deps:
	@scripts/install-deps

$(BUILD)/CMakeCache.txt:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

build: deps $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS)

# The default experiment: prints the run directory, the curve and the eval command at the end,
# then writes the run's HTML report (neuroevo report) and prints its path.
run: build
	@$(BUILD)/neuroevo run $(CONFIG)
	@$(BUILD)/neuroevo report "$$(ls -td runs/*/ | head -n 1)"  # HTML report of the newest run in runs/

# Every test: the release build (warnings are errors), then the same suite under ASan + UBSan.
test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory test-asan

test-fast: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	@cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DNE_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN) -j $(JOBS)
	@cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS) -L 'unit|e2e'

bench: build
	@cmake --build $(BUILD) -j $(JOBS) --target benchmarks
	@bench/run-all $(BUILD)/bench
	@if [ "$(BENCH_LONG)" = 1 ]; then bench/train-physics.sh $(BUILD)/neuroevo; fi

# Training benchmarks of the physics tasks (~40 min on 2 cores: lander-es to 200 with 3 seeds, then
# 10 minutes of halfcheetah-es); also run by `make bench BENCH_LONG=1`. See bench/train-physics.sh.
bench-train: build
	@bench/train-physics.sh $(BUILD)/neuroevo

clean:
	rm -rf $(BUILD) $(ASAN)

# The Atari family (ALE/*), opt-in: builds ALE's C++ library from ale-py's sdist (scripts/build-ale,
# ~2.5 min once), then a build with -DNE_ALE=ON, and runs its tests (ctest label "ale").
ALE_BUILD ?= build-ale
ale: deps
	@scripts/build-ale $(ALE_BUILD)/_ale
	@cmake -S . -B $(ALE_BUILD) -DCMAKE_BUILD_TYPE=Release -DNE_ALE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ALE_BUILD) -j $(JOBS)
	@cd $(ALE_BUILD) && ctest --output-on-failure -L ale

# Hardening (fuzz/, scripts/fuzz, scripts/soak). `make fuzz SECONDS=N` builds the libFuzzer targets in
# their own clang build (build-fuzz, -DNE_FUZZ=ON; gcc builds untouched) and runs each for N seconds,
# one at a time; `make test` only replays their corpora (ctest fuzz_replay_*). `make soak MINUTES=N`
# runs a Redis worker for N minutes and prints its RSS at start, after warm-up and at the end.
.PHONY: fuzz fuzz-coverage soak
SECONDS ?= 60
MINUTES ?= 1
fuzz: deps
	@BUILD=build-fuzz JOBS=$(JOBS) scripts/fuzz $(SECONDS)
# line/region coverage that the corpora (checked-in seeds + what `make fuzz` found) reach in each
# target's parser: a clang source-coverage build of the replayers (build-cov)
fuzz-coverage:
	@scripts/fuzz-coverage
soak: build
	@BIN=$(CURDIR)/$(BUILD)/neuroevo OUT=$(CURDIR)/$(BUILD)/soak scripts/soak $(MINUTES)
