#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what clang-format makes of it (.clang-format: LLVM's
# style at 100 columns). `make test` runs it; `scripts/check-format.sh --fix` rewrites the files.
# Test inputs (tests/**/Inputs/) are data, not project code, and are left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=${CLANG_FORMAT:-clang-format}
if ! command -v "$fmt" >/dev/null; then
  echo "check-format: error: '$fmt' not found (scripts/install-deps.sh installs clang-format)" >&2
  exit 1
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh' | grep -v '/Inputs/')
else # a source tree without git (an unpacked archive): every C++ file outside build trees
  mapfile -t files < <(find . -path './build*' -prune -o \( -name '*.cpp' -o -name '*.h' -o \
    -name '*.cu' -o -name '*.cuh' \) -print | sed 's|^\./||' | grep -v '/Inputs/' | sort)
fi
if [[ ${1:-} == --fix ]]; then
  "$fmt" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  [[ -f $f ]] || continue
  "$fmt" "$f" | cmp -s - "$f" || bad+=("$f")
done
if [[ ${#bad[@]} -gt 0 ]]; then
  echo "check-format: ${#bad[@]} file(s) differ from clang-format's output:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "check-format: run scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
