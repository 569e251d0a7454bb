#!/usr/bin/env bash
# Installs the Debian 12 packages dlm builds and tests with (see docs/architecture.md,
# "Dependencies"). Idempotent: prints nothing and changes nothing when everything is present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build git
  llvm-19-dev llvm-19-tools libedit-dev
  antlr4 libantlr4-runtime-dev default-jre-headless
  libopenblas-dev zlib1g-dev lld
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-numpy python3-torch
  libdlpack-dev pybind11-dev python3-pybind11 python3-dev
  dataset-fashion-mnist
  libopenmpi-dev openmpi-bin
  graphviz tmux clang-format
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then
    sudo=(sudo)
  else
    echo "install-deps: error: not root and no sudo; install these packages first: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
