"""Runs dlm's kernel benchmarks and their numpy twin side by side and prints a markdown table.

Usage: /usr/bin/python3 bench/kernels/compare.py BUILD/bin/dlm_kernel_bench [ROUNDS]
Both sides run single-threaded (DLM_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1) and are timed in
CPU time, so other processes on a shared machine do not distort the comparison (wall-clock
multi-threaded GEMM under oversubscription measures the machine's load, not the kernels). The two
run alternately ROUNDS times (default 3) and each side keeps its best time per benchmark.
Ratio = twin time / dlm time (>= 1 means dlm is at least as fast). Elementwise rows also show GB/s and the fraction of dlm's memcpy bandwidth
at the same size.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    bench = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    env = dict(os.environ, DLM_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    rows, twin = {}, {}
    for _ in range(rounds):
        dlm = json.loads(subprocess.run([bench, "--benchmark_format=json", "--benchmark_min_time=0.3"],
                                        capture_output=True, text=True, check=True, env=env).stdout)
        for b in dlm["benchmarks"]:
            if b["name"] not in rows or b["cpu_time"] < rows[b["name"]]["cpu_time"]:
                rows[b["name"]] = b
        t = json.loads(subprocess.run([sys.executable, os.path.join(HERE, "numpy_twin.py")],
                                      capture_output=True, text=True, check=True, env=env).stdout)
        for k, v in t.items():
            twin[k] = min(v, twin.get(k, v))
    print("| benchmark | dlm | numpy/torch | ratio (twin/dlm) | GB/s | % of memcpy |")
    print("|---|---|---|---|---|---|")
    for name, b in rows.items():
        t = b["cpu_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3}[b["time_unit"]]
        ref = twin.get(name)
        # Google Benchmark's bytes_per_second uses real time; recompute it from CPU time.
        gbs = b["bytes_per_second"] * b["real_time"] / b["cpu_time"] if "bytes_per_second" in b else None
        size = name.split("/")[1]
        mc = rows.get("BM_Memcpy/%s/real_time" % size)
        memcpy = mc["bytes_per_second"] * mc["real_time"] / mc["cpu_time"] if mc else None
        cells = [name.replace("/real_time", ""), "%.1f us" % (t * 1e6),
                 "%.1f us" % (ref * 1e6) if ref else "-", "%.2f" % (ref / t) if ref else "-",
                 "%.1f" % (gbs / 1e9) if gbs else "-",
                 "%.0f%%" % (100 * gbs / memcpy) if gbs and memcpy and "Memcpy" not in name else "-"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
