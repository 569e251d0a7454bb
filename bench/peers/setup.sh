#!/bin/bash
# Builds the peers' Python environment for bench/peers/peers.py (bench/RESULTS.md "Peers"):
#
#     bench/peers/setup.sh [VENV]        # default: build/peers-venv
#
# JAX (jax[cpu]), TensorFlow (tensorflow-cpu) and PyTorch 2 from PyPI, at the versions pinned in
# bench/peers/requirements.txt, in a venv made by the first Python >= 3.10 with a working venv
# module (the `python3` on PATH here; Debian's /usr/bin/python3 has no venv module). Nothing in
# `make test` needs it.
#
# PyTorch: PyPI's Linux wheel of torch 2.15 depends on the CUDA 13 wheels (cuda-toolkit's
# cublas, cufft, cusolver, cusparse, ..., nvidia-cudnn, nccl, nvshmem, cusparselt, triton: ~3 GB
# more), and PyTorch's own CPU-only index is not reachable from this project's machines. Installed
# with --no-deps, `import torch` fails (libtorch_cuda.so needs libcufile.so.0, libcusparseLt.so.0,
# libnvshmem_host.so.3); with those three wheels added it fails on the system CUDA 13.0's older
# NCCL (undefined ncclCommResume). So torch comes with its dependencies, and `import torch` plus a
# torch.compile'd function on the CPU (inductor, which needs the C++ compiler that is here) are
# checked at the end. Also installs Debian's libblis-dev when it is missing (the GEMM library
# comparison, bench/peers/GemmLibs.cpp; needs root).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VENV=${1:-build/peers-venv}

pick_python() {
  for py in "${PEERS_PYTHON:-}" python3.11 python3.12 python3 /usr/bin/python3; do
    [ -n "$py" ] || continue
    command -v "$py" >/dev/null 2>&1 || continue
    if "$py" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
      echo "$py"
      return
    fi
  done
  echo "setup.sh: no Python >= 3.10 with the venv and ensurepip modules (set PEERS_PYTHON)" >&2
  exit 1
}

if [ ! -x "$VENV/bin/python" ]; then
  PY=$(pick_python)
  echo "== making $VENV with $PY ($("$PY" --version))"
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -r "$HERE/requirements.txt"

echo "== checking the peers"
"$VENV/bin/python" "$HERE/worker.py" --check

if ! ls /usr/include/x86_64-linux-gnu/blis*/blis.h >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    echo "== installing libblis-dev (the GEMM library comparison)"
    apt-get install -y -qq libblis-dev >/dev/null || echo "setup.sh: libblis-dev not installed; the GEMM comparison skips BLIS"
  else
    echo "setup.sh: libblis-dev is missing (apt-get install libblis-dev as root); the GEMM comparison skips BLIS"
  fi
fi
echo "== $VENV ready: $("$VENV/bin/python" -c 'import jax, tensorflow as tf, torch; print("jax", jax.__version__, "| tensorflow", tf.__version__, "| torch", torch.__version__)' 2>/dev/null)"
