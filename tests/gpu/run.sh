#!/usr/bin/env bash
# Builds the runtime, the CUDA kernels and tests/gpu standalone (no LLVM, no ANTLR: CMake's
# -DDLM_RUNTIME_ONLY=ON) and runs the GPU tests. Meant for a GPU machine that has the CUDA
# toolkit and CMake; the runtime also needs OpenBLAS + zlib headers, and GoogleTest either
# installed or as a source tree in $DLM_GTEST_SOURCE (e.g. a copy of /usr/src/googletest).
#
#   tests/gpu/run.sh                      # build into build-gpu/, run every GPU test
#   BUILD_DIR=/tmp/b tests/gpu/run.sh --gtest_filter='CudaKernels.*'
#
# Exit status: 0 when every test passed (skips included: the summary says how many skipped and
# why), 1 on a failure. Prints the GPU that discovery found.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-gpu}"
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"

args=(-S "$root" -B "$build" -DDLM_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release)
if [[ -n "${DLM_GTEST_SOURCE:-}" ]]; then
  args+=("-DDLM_GTEST_SOURCE=$DLM_GTEST_SOURCE")
elif [[ -d /usr/src/googletest ]]; then
  args+=("-DDLM_GTEST_SOURCE=/usr/src/googletest")
fi
if command -v ninja >/dev/null 2>&1; then args+=(-G Ninja); fi
if [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH="/usr/local/cuda/bin:$PATH"; fi

start=$(date +%s)
cmake "${args[@]}" >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" --target dlm_gpu_tests -j "$jobs"
echo "run.sh: built in $(( $(date +%s) - start )) s"

command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
"$build/bin/dlm_gpu_tests" "$@"
