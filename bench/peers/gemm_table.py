#!/usr/bin/python3
"""This core's f32 FMA peak and the GEMM libraries on the workloads' shapes, as one table.

    bench/peers/gemm_table.py [BIN_DIR] [--cpu N]

Runs BIN_DIR/fma_peak, then each of gemm_openblas, gemm_onednn, gemm_blis, gemm_libxsmm that
was built (bench/peers/CMakeLists.txt), every one under `taskset -c N` (default 0) with one thread, and
prints per shape the best CPU time and GFLOP/s of each library and its share of the AVX-512 peak.
"""
import os
import subprocess
import sys

LIBS = ("openblas", "onednn", "blis", "libxsmm")


CPU = "0"


def run(cmd):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", BLIS_NUM_THREADS="1")
    return subprocess.run(["taskset", "-c", CPU] + cmd, capture_output=True, text=True, check=True, env=env).stdout


def main():
    global CPU
    args = sys.argv[1:]
    if "--cpu" in args:
        i = args.index("--cpu")
        CPU = args[i + 1]
        del args[i:i + 2]
    bin_dir = args[0] if args else "build/bin"
    peak = {}
    for line in run([os.path.join(bin_dir, "fma_peak")]).splitlines():
        key, value = line.split()[:2]
        peak[key] = float(value)
    zmm = peak.get("fma_peak_gflops_zmm") or peak.get("fma_peak_gflops_ymm")
    print("f32 FMA peak of one core (CPU time, best of 7): AVX-512 (zmm) %s, AVX2 (ymm) %.1f GFLOP/s; "
          "/proc/cpuinfo's (nominal) clock %.0f MHz. Shares of peak below are of %.1f GFLOP/s."
          % ("%.1f GFLOP/s" % peak["fma_peak_gflops_zmm"] if peak.get("fma_peak_gflops_zmm") else "not on this CPU",
             peak.get("fma_peak_gflops_ymm", 0), peak.get("cpu_mhz", 0), zmm))
    rows, libs = {}, []
    for lib in LIBS:
        exe = os.path.join(bin_dir, "gemm_" + lib)
        if not os.path.exists(exe):
            continue
        libs.append(lib)
        for line in run([exe]).splitlines():
            # gemm LIB SHAPE M N K OP best_ns median_ns gflops (SHAPE has no spaces)
            _, _, shape, m, n, k, trans, best, _, gflops = line.split()
            rows.setdefault((shape, m, n, k, trans), {})[lib] = (best, gflops)
    print()
    print("| shape | M x N x K | op | " + " | ".join("%s: ns, GFLOP/s (%% of peak)" % lib for lib in libs) + " |")
    print("|---|---|---|" + "---|" * len(libs))
    for (shape, m, n, k, trans), by_lib in rows.items():
        cells = []
        for lib in libs:
            best, gflops = by_lib.get(lib, ("na", "na"))
            cells.append("—" if best == "na" else "%s, %s (%.0f%%)" % (best, gflops, 100 * float(gflops) / zmm))
        print("| %s | %s x %s x %s | %s | %s |" % (shape, m, n, k, trans, " | ".join(cells)))


if __name__ == "__main__":
    main()
