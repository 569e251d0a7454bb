#!/usr/bin/python3
"""JIT benchmarks side by side with their PyTorch twins (bench/RESULTS.md "JIT").

    bench/jit/bench.py BIN_DIR

Each dlm figure is the best of 5 runs of `dlm run --time-passes`, taking the CPU time of the
"run" stage (the JIT'd program alone) or, for start-to-first-result, the wall time of the whole
process and the per-stage split (wall and CPU) of that run. Best-of-N and CPU time because this
machine is shared: wall time there measures other jobs too. The PyTorch twins report their best
of 5 wall-clock repetitions (single-threaded). Timings are reported, never asserted.
"""
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"


def dlm_run(bin_dir, script):
    start = time.perf_counter()
    p = subprocess.run([os.path.join(bin_dir, "dlm"), "run", "--time-passes", script],
                       capture_output=True, text=True, check=True)
    wall = (time.perf_counter() - start) * 1e3
    stages = {m.group(1): (float(m.group(2)), float(m.group(3)))
              for m in re.finditer(r"time: (\S+)\s+([\d.]+) ms \(cpu ([\d.]+) ms\)", p.stderr)}
    return wall, stages, p.stdout


def best(bin_dir, script, key, reps=5):
    runs = [dlm_run(bin_dir, os.path.join(HERE, script)) for _ in range(reps)]
    return min(runs, key=key)


def twin(script):
    out = subprocess.run([PY, os.path.join(HERE, script)], capture_output=True, text=True, check=True).stdout
    return {k: float(v) for k, v in (line.split() for line in out.splitlines())}


def main():
    bin_dir = sys.argv[1] if len(sys.argv) > 1 else "build/bin"
    model = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = re.search(r"Model name:\s*(.*)", model).group(1)
    print("machine: %d cores, %s, load average %s, %s" % (
        os.cpu_count(), model, open("/proc/loadavg").read().split()[0], time.strftime("%Y-%m-%d", time.gmtime())))

    _, stages, _ = best(bin_dir, "adds.dlm", lambda r: r[1]["run"][1])
    torch = twin("adds_torch.py")
    ns = stages["run"][1] * 1e6 / 1e6
    eager, script = torch["torch_eager_ns_per_add"], torch["torchscript_ns_per_add"]
    print("adds (1-element tensor): dlm %.1f ns/add | torch eager %.0f ns | torchscript %.0f ns | %.0fx faster than the better"
          % (ns, eager, script, min(eager, script) / ns))

    _, stages, _ = best(bin_dir, "mlp_forward.dlm", lambda r: r[1]["run"][1])
    torch = twin("mlp_forward_torch.py")
    ms = stages["run"][1] / 100
    better = min(torch["torch_eager_ms"], torch["torchscript_ms"])
    print("mlp forward 784-256-10 batch 128: dlm %.3f ms | torch eager %.3f ms | torchscript %.3f ms | "
          "torch GEMMs alone %.3f ms | %.2fx vs the better" % (
              ms, torch["torch_eager_ms"], torch["torchscript_ms"], torch["torch_gemm_only_ms"], better / ms))

    _, stages, _ = best(bin_dir, "lstm_train.dlm", lambda r: r[1]["run"][1], reps=3)
    torch = twin("lstm_train_torch.py")
    ms = stages["run"][1] / 20
    better = min(torch["torch_eager_ms"], torch["torchscript_ms"])
    print("lstm train (hidden 32, 100 steps, fwd+bwd+SGD): dlm %.3f ms/iter | torch eager %.3f ms | "
          "torchscript %.3f ms | %.2fx vs the better" % (ms, torch["torch_eager_ms"], torch["torchscript_ms"], better / ms))

    _, stages, _ = best(bin_dir, "mlp_train.dlm", lambda r: r[1]["run"][1], reps=3)
    torch = twin("mlp_train_torch.py")
    ms = stages["run"][1] / 50
    better = min(torch["torch_eager_ms"], torch["torchscript_ms"])
    print("mlp train step 784-256-10 batch 128: dlm %.3f ms | torch eager %.3f ms | torchscript %.3f ms | "
          "GEMMs alone %.3f ms | %.2fx vs the better, %.2fx the GEMM time" % (
              ms, torch["torch_eager_ms"], torch["torchscript_ms"], torch["torch_gemm_only_ms"], better / ms,
              ms / torch["torch_gemm_only_ms"]))

    for script in ("first_result.dlm", "lstm_train.dlm"):
        wall, stages, _ = best(bin_dir, script, lambda r: r[0], reps=3)
        split = ", ".join("%s %.1f/%.1f" % (k, w, c) for k, (w, c) in stages.items())
        cpu = sum(c for k, (_, c) in stages.items() if k != "run")
        print("dlm run start to first result (%s): %.1f ms wall, %.1f ms CPU before the program runs; "
              "stages wall/cpu (ms): %s" % (script, wall, cpu, split))


if __name__ == "__main__":
    main()
