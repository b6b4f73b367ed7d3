# lievi: the two set-up commands.  `make demo` and `make test` install what is missing, build and run.
PRESET ?= release
BUILD  := build/$(PRESET)
DEMO_OUT ?= runs/demo-scenario-b
DEMO_BEAM_OUT ?= runs/demo-stochastic-spaghetti

.PHONY: all deps configure build test test-clang check-cross check-sanitize demo bench clean format

all: build

deps:
	bash scripts/install-deps.sh

configure: deps
	cmake --preset $(PRESET)

build: configure
	cmake --build --preset $(PRESET)

test: build
	ctest --preset $(PRESET)

# AArch64: the library and its core tests cross-compiled (build/aarch64) and run under qemu-user; installs the
# cross toolchain when it is missing (scripts/cross-aarch64.sh).
check-cross:
	bash scripts/cross-aarch64.sh --install

# The whole suite built with Clang (build/clang), as CI runs it after `make test`.
test-clang:
	$(MAKE) test PRESET=clang

# ASan + UBSan build of what the `sanitize` test label needs (build/sanitize), then that label: the bad-input
# corpus, the fuzz driver (60 s) and the short model tests (docs/testing.md). CI samples the corpus:
# `make check-sanitize SANITIZE_SHARDS=4 SANITIZE_SHARD=k FUZZ_SECONDS=30` runs one case in 4 (shard k).
SANITIZE_SHARDS ?= 1
SANITIZE_SHARD ?= 0
FUZZ_SECONDS ?= 60
check-sanitize: deps
	cmake --preset sanitize -DLIEVI_SANITIZE_SHARDS=$(SANITIZE_SHARDS) -DLIEVI_SANITIZE_SHARD=$(SANITIZE_SHARD) \
	  -DLIEVI_SANITIZE_FUZZ_SECONDS=$(FUZZ_SECONDS)
	cmake --build --preset sanitize
	ctest --preset sanitize

demo: build
	$(BUILD)/apps/lievi/lievi run examples/rigid_body/scenario_b.toml --out $(DEMO_OUT) --force
	$(BUILD)/apps/lievi/lievi run examples/beam/stochastic_spaghetti.toml --out $(DEMO_BEAM_OUT) --force
	@echo "demo: results and plots are in $(DEMO_OUT)/ (rigid body) and $(DEMO_BEAM_OUT)/ (stochastic flying spaghetti: snapshots.png, energy.png, ends.png, motion.gif; beam.pvd for ParaView)"

bench: build
	cmake --build --preset $(PRESET) --target lievi_bench
	$(BUILD)/bench/lievi_bench

format:
	clang-format -i $$(git ls-files '*.hpp' '*.cpp')

clean:
	rm -rf build
