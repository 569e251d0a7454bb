"""Runs dlm's kernel benchmarks and their numpy twin side by side and prints a markdown table.

Usage: /usr/bin/python3 bench/kernels/compare.py BUILD/bin/dlm_kernel_bench
Ratio = twin time / dlm time (>= 1 means dlm is at least as fast). Elementwise rows also show
GB/s and the fraction of dlm's memcpy bandwidth at the same size.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    bench = sys.argv[1]
    dlm = json.loads(subprocess.run([bench, "--benchmark_format=json", "--benchmark_min_time=0.3"],
                                    capture_output=True, text=True, check=True).stdout)
    twin = json.loads(subprocess.run([sys.executable, os.path.join(HERE, "numpy_twin.py")],
                                     capture_output=True, text=True, check=True).stdout)
    rows = {b["name"]: b for b in dlm["benchmarks"]}
    print("| benchmark | dlm | numpy/torch | ratio (twin/dlm) | GB/s | % of memcpy |")
    print("|---|---|---|---|---|---|")
    for name, b in rows.items():
        t = b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3}[b["time_unit"]]
        ref = twin.get(name)
        gbs = b.get("bytes_per_second")
        size = name.split("/")[1]
        memcpy = rows.get("BM_Memcpy/%s/real_time" % size, {}).get("bytes_per_second")
        cells = [name.replace("/real_time", ""), "%.1f us" % (t * 1e6),
                 "%.1f us" % (ref * 1e6) if ref else "-", "%.2f" % (ref / t) if ref else "-",
                 "%.1f" % (gbs / 1e9) if gbs else "-",
                 "%.0f%%" % (100 * gbs / memcpy) if gbs and memcpy and "Memcpy" not in name else "-"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
