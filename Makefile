# Thin wrapper over CMake so that the README's two commands (`make run`, `make test`) do everything
# on a fresh Debian machine: install missing packages, configure, build, then run or test.
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
BUILD     ?= build
ASAN      ?= build-asan
CLANG     ?= build-clang
AARCH64   ?= build-aarch64
CONFIG    ?= cartpole-ga
CMAKE_FLAGS ?=

.PHONY: all build deps run test test-fast test-asan test-clang test-aarch64 bench bench-train bench-box2d clean ale ale-lib box2d-lib results mlflow

all: build

deps:
	@scripts/install-deps

$(BUILD)/CMakeCache.txt:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

# LunarLander and BipedalWalker run on the Box2D 2.3 of Gymnasium's pybox2d wheel, which
# scripts/build-box2d builds from pybox2d's sdist into .deps/box2d-<version> (~20 s on 2 cores the
# first time, a no-op after; shared by the release and ASan builds)
box2d-lib:
	@scripts/build-box2d

build: deps box2d-lib $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS)

# The default experiment: prints the run directory, the curve and the eval command at the end,
# then writes the run's HTML report (neuroevo report) and prints its path.
run: build
	@$(BUILD)/neuroevo run $(CONFIG)
	@$(BUILD)/neuroevo report "$$(ls -td runs/*/ | head -n 1)"  # HTML report of the newest run in runs/

# MLflow for the tracking test (tests/py_mlflow.py runs a real `mlflow server`): its own virtual
# environment in .deps/mlflow-<version> (scripts/install-mlflow; ~3 minutes the first time, a no-op
# after)
mlflow:
	@scripts/install-mlflow

# The Atari family (ALE/*) needs ALE's C++ library, which scripts/build-ale builds from ale-py's
# sdist into .deps/ale-<version> (~2.5 min on 2 cores the first time, a no-op after; shared by the
# release and ASan builds). `make test` builds it and turns NE_ALE on in both; `make run` does not
# build it (the default experiment is CartPole: a fresh clone's first run shouldn't wait for an
# emulator), but a build dir that `make test` configured keeps ALE on, so `neuroevo envs` then
# lists ALE/*.
ale-lib:
	@scripts/build-ale
# configure $(1) with ALE on unless its cache already has it (configuring again costs seconds)
ale_on = grep -qx 'NE_ALE:BOOL=ON' $(1)/CMakeCache.txt 2>/dev/null || \
	cmake -S . -B $(1) -DNE_ALE=ON $(2) $(CMAKE_FLAGS) >/dev/null

# Every test: the layering (includes point down, scripts/check-layers), the layout
# (scripts/check-format: clang-format, ~1 s) and the commit messages since the convention
# (scripts/check-commits), the release build, Atari included, and the
# benchmarks (warnings are errors: a benchmark that no longer compiles fails here; they run in
# `make bench`), then the unit and end-to-end suites under ASan + UBSan (also with ALE linked: the
# C tests of tests/ale are "unit"), then the whole tree again with clang (test-clang).
test: deps ale-lib box2d-lib mlflow
	@scripts/check-layers
	@scripts/check-format
	@scripts/check-commits
	@$(call ale_on,$(BUILD),-DCMAKE_BUILD_TYPE=Release)
	@$(MAKE) --no-print-directory build
	@cmake --build $(BUILD) -j $(JOBS) --target benchmarks >/dev/null
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory test-clang

test-fast: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: deps ale-lib box2d-lib
	@cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DNE_SANITIZE=ON -DNE_ALE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN) -j $(JOBS)
	@cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS) -L 'unit|e2e'

# The whole tree (library, CLI, Python extension, tests, fuzz replayers, benchmarks) compiled with
# clang in its own build directory, warnings as errors as with gcc (a change that only gcc accepts
# fails here), then the tests of the vector kernels from it (their bits under the other compiler's
# code generation) and scripts/same-bits' runs with both builds: the same metrics and parameters.
test-clang: deps ale-lib box2d-lib build
	@grep -q '^CMAKE_C_COMPILER:.*clang' $(CLANG)/CMakeCache.txt 2>/dev/null || \
		cmake -S . -B $(CLANG) -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Release \
		-DNE_ALE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(CLANG) -j $(JOBS) >/dev/null
	@cmake --build $(CLANG) -j $(JOBS) --target benchmarks >/dev/null
	@cd $(CLANG) && ctest --output-on-failure -j $(JOBS) -R '^test_(simd|noise|policy|conv|div_const|env_classic|minatar|ale)$$'
	@scripts/same-bits $(CLANG)/same-bits gcc="$(BUILD)/neuroevo" clang="$(CLANG)/neuroevo" >$(CLANG)/same-bits.log || \
		{ cat $(CLANG)/same-bits.log; exit 1; }

# aarch64, bit for bit (docs/portability.md): the library, CLI and C tests cross-built for aarch64
# in $(AARCH64) (Debian's gcc-aarch64-linux-gnu; AARCH64_CC=clang builds with clang
# --target=aarch64-linux-gnu instead) with every family but MuJoCo and Atari, the unit tests run
# under qemu-aarch64 (all but test_mujoco and test_render, which need MuJoCo and FFmpeg's
# libraries: not in the cross build), then scripts/same-bits: GA, ES and CMA-ES runs on
# CartPole, Acrobot, Pendulum and MinAtar Breakout, and one each on HardMaze, Rosenbrock, MountainCar
# and LunarLander, on x86-64 at each SIMD level and on aarch64, all with the same metrics and best
# parameters. Not part of `make test`: ~8 CPU-minutes from scratch (the cross build ~1, the unit tests
# under qemu ~6, test_es_learn the longest), more than CI's budget has left.
AARCH64_CC ?= gcc
test-aarch64: deps box2d-lib build
	@scripts/install-deps --cross aarch64
	@test -f $(AARCH64)/CMakeCache.txt || cmake -S . -B $(AARCH64) --toolchain cmake/aarch64-linux-gnu.cmake \
		-DCMAKE_BUILD_TYPE=Release -DNE_PYTHON=OFF -DNE_CROSS_COMPILER=$(AARCH64_CC) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(AARCH64) -j $(JOBS) >/dev/null
	@cd $(AARCH64) && ctest --output-on-failure -j $(JOBS) -L unit -E '^test_(mujoco|render)$$'
	@scripts/same-bits $(AARCH64)/same-bits base="env NEUROEVO_SIMD=base $(BUILD)/neuroevo" \
		avx2="env NEUROEVO_SIMD=avx2 $(BUILD)/neuroevo" avx512="env NEUROEVO_SIMD=avx512 $(BUILD)/neuroevo" \
		aarch64="qemu-aarch64 $(AARCH64)/neuroevo"

bench: build
	@cmake --build $(BUILD) -j $(JOBS) --target benchmarks
	@bench/run-all $(BUILD)/bench
	@if [ "$(BENCH_LONG)" = 1 ]; then st=0; bench/experiments/train-physics.sh $(BUILD)/neuroevo || st=1; \
		python3 bench/peers/box2d_stats.py $(BUILD) || st=1; exit $$st; fi

# Training benchmarks of the physics tasks (~40 min on 2 cores: lander-es to 200 with 3 seeds, then
# 10 minutes of halfcheetah-es); also run by `make bench BENCH_LONG=1`. See bench/experiments/train-physics.sh.
bench-train: build
	@bench/experiments/train-physics.sh $(BUILD)/neuroevo

# Box2D random-policy statistics against Gymnasium (~6 min of one core: 5000 lander episodes a side,
# 3000 and 1000 walker ones; KS tests of returns and of the walkers' hull angle at a fall, and every
# Gymnasium episode replayed step for step); also run by `make bench BENCH_LONG=1`. See
# bench/peers/box2d_stats.py.
bench-box2d: build
	@python3 bench/peers/box2d_stats.py $(BUILD)

# docs/results.md's experiments: `make results EXP=frostbite` runs or resumes one (frostbite,
# icehockey, humanoid, lander; EXP=list says where each stands) and redraws its figures; ARGS passes
# bench/experiments/results.sh's options (e.g. ARGS=--no-train). Atari needs ALE in the build.
EXP ?= list
results: deps ale-lib
	@$(call ale_on,$(BUILD),-DCMAKE_BUILD_TYPE=Release)
	@$(MAKE) --no-print-directory build
	@bench/experiments/results.sh $(ARGS) $(EXP)

clean:
	rm -rf $(BUILD) $(ASAN) $(CLANG) $(AARCH64)

# The Atari family alone: ALE's library (cached, see ale-lib), the release build with it, its tests
# (ctest label "ale").
ale: deps ale-lib
	@$(call ale_on,$(BUILD),-DCMAKE_BUILD_TYPE=Release)
	@$(MAKE) --no-print-directory build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L ale

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
