#!/usr/bin/env bash
# Builds the runtime, the CUDA kernels, the CUDA backend module and tests/gpu standalone (no
# LLVM, no ANTLR: CMake's -DDLM_RUNTIME_ONLY=ON) and runs the GPU tests; then, when a directory
# packed on a development machine by tests/gpu/pack.sh is there, runs the compiled binaries it
# carries. Meant for a GPU machine that has the CUDA toolkit and CMake; the runtime also needs
# OpenBLAS + zlib headers, and GoogleTest either installed or as a source tree in
# $DLM_GTEST_SOURCE (e.g. a copy of /usr/src/googletest).
#
#   tests/gpu/run.sh                      # build into build-gpu/, run every GPU test
#   BUILD_DIR=/tmp/b tests/gpu/run.sh --gtest_filter='CudaKernels.*'
#   DLM_CARRY=/path/to/carry tests/gpu/run.sh   # default: build-gpu-carry/ when it exists,
#                                               # else unpacked from build-gpu-pack/carry.tar.xz
#
# With a carry directory it also runs, against the module built here:
#   - dlm_nvptx_tests (generated PTX kernels of fused bodies vs the CPU; LLVM is linked in, or
#     with DLM_STATIC_LLVM off the carried libLLVM; needs CUDA libraries of the same major
#     version as the packing machine's);
#   - every carried program with `dlm run --device=cuda` on both engines, compared with the CPU
#     output recorded when packing (tests/gpu/close_outputs.py: numbers within 1e-3);
#   - the carried ahead-of-time executables (CPU code), compared the same way.
#
# Exit status: 0 when everything passed (skips included: the summary says how many skipped and
# why), 1 on a failure. Prints the GPU that discovery found.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-gpu}"
carry="${DLM_CARRY:-$root/build-gpu-carry}"
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
status=0 built=1
mkdir -p "$build"
if ! cmake "${args[@]}" >"$build/configure.log" 2>&1; then
  cat "$build/configure.log"; built=0
elif ! cmake --build "$build" --target dlm_gpu_tests dlm_cuda_backend -j "$jobs"; then
  built=0
fi
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
if [[ $built == 1 ]]; then
  echo "run.sh: built in $(( $(date +%s) - start )) s"
  "$build/bin/dlm_gpu_tests" "$@" || status=1
else
  # The carried binaries can still run, with the module packed alongside them (it needs CUDA
  # libraries of the packing machine's major version).
  echo "run.sh: the standalone build failed (above); carried binaries only"
  status=1
fi

tarball="$root/build-gpu-pack/carry.tar.xz"
if [[ ! -d "$carry" && -f "$tarball" ]]; then
  tar -C "$root" -xJf "$tarball" && carry="$root/build-gpu-carry"
fi
if [[ ! -d "$carry" ]]; then
  echo "run.sh: no carried binaries ($carry; make them with tests/gpu/pack.sh on a development machine)"
  exit $status
fi
export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [[ $built == 1 ]]; then
  export DLM_CUDA_BACKEND="$build/lib/libdlm_cuda_backend.so"
else
  export DLM_CUDA_BACKEND="$carry/lib/libdlm_cuda_backend.so"
fi
export DLM_STDLIB="$carry/stdlib"
if [[ -x "$carry/bin/dlm_nvptx_tests" ]]; then
  "$carry/bin/dlm_nvptx_tests" "$@" || status=1
fi
py="$(command -v python3)"
# Without a GPU only the executables (CPU code) can be compared; say so once.
device_runs=1
probe="$build/probe.dlm"
echo 'print(1)' >"$probe"
if ! why=$("$carry/bin/dlm" run --device=cuda "$probe" 2>&1 >/dev/null); then
  device_runs=0
  echo "run.sh: skipped: --device=cuda runs of the carried programs (${why%%$'\n'*})"
fi
passed=0 failed=0
for src in "$carry"/programs/*.dlm; do
  name="$(basename "$src" .dlm)"
  runs=()
  if [[ $device_runs == 1 ]]; then
    runs+=("jit:$carry/bin/dlm run --device=cuda" "graph:$carry/bin/dlm run --engine=graph --device=cuda")
  fi
  [[ -x "$carry/programs/$name.exe" ]] && runs+=("aot:$carry/programs/$name.exe")
  for r in "${runs[@]}"; do
    label="${r%%:*}" cmd="${r#*:}"
    t0=$(date +%s.%N)
    if [[ "$label" == aot ]]; then
      (cd "$carry/programs" && $cmd >"$build/$name.$label.out" 2>&1) || true
    else
      (cd "$carry/programs" && $cmd "$src" >"$build/$name.$label.out" 2>&1) || true
    fi
    secs=$(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $t0 }")
    if verdict=$("$py" "$root/tests/gpu/close_outputs.py" "$carry/expected/$name.out" "$build/$name.$label.out"); then
      passed=$((passed + 1)); echo "run.sh: $name ($label): ${verdict%%$'\n'*} (${secs} s)"
    else
      failed=$((failed + 1)); status=1; echo "run.sh: $name ($label): $verdict"
    fi
  done
done
echo "run.sh: carried programs: $passed agree with the CPU, $failed differ"
exit $status
