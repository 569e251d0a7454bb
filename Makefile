# Thin front door over CMake. `make` sets up (Debian packages), configures and builds;
# `make run` also trains the main example (examples/fashion_mnist_mlp.dlm); `make test` also
# runs every test through ctest.
BUILD     ?= build
BUILDTYPE ?= Release
JOBS      ?= $(shell nproc)
CMAKEARGS ?=

.PHONY: all deps configure build run test test-asan test-tsan bench clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILDTYPE) $(CMAKEARGS) >/dev/null

configure: deps $(BUILD)/build.ninja

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	@$(BUILD)/bin/dlm run examples/fashion_mnist_mlp.dlm

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Address + undefined-behaviour sanitizers (and LeakSanitizer), in their own build tree; every
# report fails its test, with a stack trace (docs/testing.md).
test-asan:
	@UBSAN_OPTIONS=print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
	  $(MAKE) --no-print-directory test BUILD=build-asan BUILDTYPE=Debug CMAKEARGS=-DDLM_SANITIZE=ON

# ThreadSanitizer over the code that runs on more than one thread: the tests tests/tsan.list
# names (ctest label tsan), in build-tsan/ (docs/testing.md).
test-tsan:
	@$(MAKE) --no-print-directory build BUILD=build-tsan CMAKEARGS=-DDLM_SANITIZE=thread
	@cd build-tsan && ctest --output-on-failure -L tsan -j $(JOBS)

bench: build
	@bash bench/run.sh $(BUILD)

clean:
	@rm -rf $(BUILD) build-asan build-tsan
