#!/bin/bash
# Runs dlm's benchmarks against a build directory: `bench/run.sh BUILD_DIR` (what `make bench`
# does). Each section runs one benchmark binary if it was built; record the figures in
# bench/RESULTS.md with the machine and the date. Add a section per new benchmark.
set -euo pipefail
BUILD=${1:-build}
BIN="$BUILD/bin"
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

echo "== machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(date -u +%Y-%m-%d)"

# --- frontend: parse throughput (lines/s) ---------------------------------------------------
if [ -x "$BIN/parse_bench" ]; then
  echo "== frontend: parse throughput, warm (in-process, Google Benchmark)"
  "$BIN/parse_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
  echo "== frontend: cold dlmc --emit=ast process on the same 50 000-line program"
  "$BIN/parse_bench" --write="$TMP/generated.dlm"
  lines=$(wc -l < "$TMP/generated.dlm")
  best=""
  for _ in 1 2 3; do
    start=$(date +%s.%N)
    "$BIN/dlmc" --emit=ast "$TMP/generated.dlm" > /dev/null
    end=$(date +%s.%N)
    t=$(echo "$end - $start" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
  done
  printf "%d lines in %.3f s (best of 3, parse + AST dump): %.0f lines/s\n" \
    "$lines" "$best" "$(echo "$lines / $best" | bc -l)"
fi

# --- later sections: one per benchmark binary ----------------------------------------------
for bench in sema_bench executor_bench dlm_kernel_bench; do
  if [ -x "$BIN/$bench" ]; then
    echo "== $bench"
    "$BIN/$bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
  fi
done

# --- dist: dlm's allreduce against a raw MPI_Allreduce at 2 ranks (bench/RESULTS.md "Allreduce") ---
if [ -x "$BIN/dist_allreduce_bench" ] && command -v mpirun > /dev/null; then
  echo "== dist: allreduce vs raw MPI_Allreduce, 2 ranks (header check on, then off)"
  root=(); [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
  mpirun "${root[@]}" --oversubscribe -np 2 "$BIN/dist_allreduce_bench"
  DLM_DIST_CHECK=0 mpirun "${root[@]}" --oversubscribe -x DLM_DIST_CHECK -np 2 "$BIN/dist_allreduce_bench"
fi

# --- jit: dlm run vs the PyTorch twins and the MLP step's GEMM floor, one thread -------------
if [ -x "$BIN/dlm" ] && [ -x "$BIN/mlp_gemm_ref" ]; then
  echo "== jit (bench/jit/bench.py)"
  /usr/bin/python3 "$HERE/jit/bench.py" "$BIN"
fi

# --- peers: this core's FMA peak, the GEMM libraries, and dlm against JAX, torch.compile, TF and
# PyTorch eager on every workload family, one core each (bench/peers/, bench/RESULTS.md "Peers") ---
if [ -x "$BIN/fma_peak" ]; then
  echo "== FMA peak and GEMM libraries (bench/peers/gemm_table.py)"
  /usr/bin/python3 "$HERE/peers/gemm_table.py" "$BIN"
fi
VENV=${PEERS_VENV:-$BUILD/peers-venv}
if [ -x "$VENV/bin/python" ]; then
  echo "== peers (bench/peers/peers.py ${PEERS_ARGS:-})"
  # shellcheck disable=SC2086 # PEERS_ARGS is a list of options
  "$VENV/bin/python" "$HERE/peers/peers.py" --bin "$BIN" --venv "$VENV" ${PEERS_ARGS:-}
else
  echo "== peers: skipped: no venv at $VENV (bench/peers/setup.sh $VENV builds it from PyPI: JAX, TensorFlow, PyTorch 2)"
fi
