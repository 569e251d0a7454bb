#!/bin/sh
# examples/graph/make_pictures.sh [BUILD_DIR] [OUT_DIR]: draws the dataflow graphs of
# lstm_forward.dlm and lstm_grad.dlm with `dlmc --emit=dot | dot -Tsvg` (docs/graph_picture.md).
# BUILD_DIR defaults to build/, OUT_DIR (created if missing) to the current directory; needs
# Graphviz's `dot`.
set -eu
here=$(dirname "$0")
build=${1:-$here/../../build}
out=${2:-.}
command -v dot >/dev/null || { echo "make_pictures.sh: Graphviz 'dot' is not installed" >&2; exit 1; }
[ -x "$build/bin/dlmc" ] || { echo "make_pictures.sh: no $build/bin/dlmc (run make, or name the build directory)" >&2; exit 1; }
mkdir -p "$out"
for name in lstm_forward lstm_grad; do
  "$build/bin/dlmc" --emit=dot "$here/$name.dlm" > "$out/$name.dot"
  dot -Tsvg "$out/$name.dot" > "$out/$name.svg"
  echo "$out/$name.svg: $(grep -c '^  *n[0-9]* \[' "$out/$name.dot" || true) nodes, $(wc -c < "$out/$name.svg") bytes"
done
