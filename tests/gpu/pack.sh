#!/usr/bin/env bash
# Packs what a GPU machine without LLVM/ANTLR needs to run this build's compiled binaries there
# (tests/gpu/run.sh runs it): dlm, dlmc and dlm_nvptx_tests from a development build, every
# shared library they load except glibc's and the CUDA driver's (with DLM_STATIC_LLVM, the
# default, LLVM, ANTLR and OpenBLAS are linked into the binaries and only small system libraries
# are left to carry: zlib, zstd, libedit, libstdc++; with it off, libLLVM and its dependencies),
# the standard library, the programs of the device comparison with their CPU outputs recorded
# here, and those programs compiled ahead of time (CPU executables) with their outputs.
#
#   tests/gpu/pack.sh [OUT_DIR]    # default build-gpu-carry/; BUILD_DIR picks the build (build/)
#   PACK_TAR=1 tests/gpu/pack.sh   # also build-gpu-pack/carry.tar.xz (git ignores build*/;
#                                  # run.sh unpacks it when OUT_DIR is absent)
#
# run.sh builds the CUDA backend module on the GPU machine against that machine's CUDA libraries
# and points the carried dlm at it ($DLM_CUDA_BACKEND); the packed module is its fallback.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(cd "${BUILD_DIR:-$root/build}" && pwd)"
out="$(mkdir -p "${1:-$root/build-gpu-carry}" && cd "${1:-$root/build-gpu-carry}" && pwd)"
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/programs" "$out/expected"

for tool in dlm dlmc dlm_nvptx_tests; do
  if [[ -x "$build/bin/$tool" ]]; then cp "$build/bin/$tool" "$out/bin/"; fi
done
# Shared libraries, resolved on this machine; the C library, the loader and the CUDA libraries
# (driver, runtime, cuBLAS: the GPU machine's toolkit) stay the GPU machine's own.
for b in "$out"/bin/*; do
  ldd "$b" | awk '/=> \// { print $3 }'
done | sort -u | grep -v -E '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libcu[a-zA-Z]*|libnv[a-zA-Z]*)\.so' |
  while read -r lib; do cp -L "$lib" "$out/lib/"; done
# The backend module as a fallback: run.sh uses the one it builds on the GPU machine, and this
# one only when that build fails.
cp "$build/lib/libdlm_cuda_backend.so" "$out/lib/" 2>/dev/null || true
cp -r "$root/stdlib" "$out/stdlib"

# The programs: the e2e suite the fake-device comparison uses, plus two examples.
programs=(break_continue calls_tuples for_range if_elif long_loops mlp_forward nested_loops prints
          return_in_loop while_data_dependent shuffle_gather)
for p in "${programs[@]}"; do cp "$root/tests/e2e/$p.dlm" "$out/programs/"; done
cp "$root/tests/placement/Inputs/rnn_grad.dlm" "$root/examples/lstm_sequence.dlm" \
   "$root/tests/gpu/Inputs/fused.dlm" "$out/programs/"
export DLM_STDLIB="$root/stdlib"
for src in "$out"/programs/*.dlm; do
  name="$(basename "$src" .dlm)"
  (cd "$out/programs" && "$build/bin/dlm" run --device=cpu "$src" >"$out/expected/$name.out" 2>&1) || true
  "$build/bin/dlmc" "$src" -o "$out/programs/$name.exe" >/dev/null 2>&1 || rm -f "$out/programs/$name.exe"
done
if [[ -n "${PACK_TAR:-}" ]]; then
  tarball="$root/build-gpu-pack/carry.tar.xz"
  mkdir -p "$(dirname "$tarball")"
  tar -C "$(dirname "$out")" -cJf "$tarball" "$(basename "$out")"
  echo "pack.sh: $(du -sh "$tarball" | cut -f1) in $tarball"
fi
echo "pack.sh: $(ls "$out/programs"/*.dlm | wc -l) programs, $(ls "$out/programs"/*.exe 2>/dev/null | wc -l) executables," \
     "$(du -sh "$out" | cut -f1) in $out"
