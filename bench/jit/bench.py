#!/usr/bin/python3
"""JIT benchmarks side by side with their PyTorch twins and the GEMM floor (bench/RESULTS.md "JIT").

    bench/jit/bench.py BIN_DIR [--threads N]

Threads: every process runs with DLM_NUM_THREADS, OPENBLAS_NUM_THREADS and OMP_NUM_THREADS set
to N (default 1; PyTorch's intra-op pool follows OMP_NUM_THREADS), so both sides compute on the
same number of threads.

What is timed, all in CPU time (this machine is shared, and wall time there measures the other
jobs too; the header prints `uptime` so the load is on record):
- dlm: the CPU time of the `run` stage of `dlm run --time-passes` (the JIT'd program alone,
  every thread counted), best of 5 runs, minus the same for a copy of the script whose timed
  loop (its first top-level `for ... in range(N)`) runs 0 times, divided by N. The subtraction
  takes out what the run stage spends outside the loop — making the data and weights, the
  final print, compiling helper functions on first call — which the twins do not time
  either (it was ~0.1 ms of the MLP step's 1.2 ms when the harness divided the whole run).
- PyTorch twins: `time.process_time()` around their loops, best of 5 (the LSTM twin: 3).
- The GEMM floor of the MLP training step: `mlp_gemm_ref` (bench/jit/MlpGemmRef.cpp, built
  into BIN_DIR): exactly the five OpenBLAS sgemm calls one step of mlp_train.dlm makes — same
  shapes, same transpose flags and leading dimensions as dlm's matmul kernel passes, same
  library and threads — with its output buffers allocated once, CPU time, best of 5 x 50 steps.
  "x the GEMM time" is dlm's step over that floor.
- Start to first result: the whole `dlm run` process, wall and CPU time (user + system, from
  the kernel's accounting of the child), with the per-stage wall/CPU split of --time-passes;
  the best of 3 by wall time. Twice: "cold", each run with an empty object-cache directory
  (docs/codegen.md "On-disk object cache": the JIT compiles the program and stores its object),
  and "warm", each run finding the object a previous run stored (no optimise or jit stage).
  Then the aim's own measure, without --time-passes (whose timers and report are not part of a
  user's run): the time to the first byte of the program's output and to the process's exit,
  best and median of FIRST_RESULT_REPS runs, cold and warm interleaved.
Every run uses a cache directory of its own under a temporary directory (DLM_CACHE_DIR), never
the user's: the per-iteration timings run warm after their first run, which changes only the
stages before `run`.
Timings are reported, never asserted.
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"
FIRST_RESULT_REPS = 15


def run_timed(cmd, env):
    """Runs cmd; returns (wall ms, CPU ms of the child, stdout, stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    wall = (time.perf_counter() - start) * 1e3
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e3
    return wall, cpu, p.stdout, p.stderr


def dlm_run(bin_dir, script, env):
    wall, cpu, out, err = run_timed([os.path.join(bin_dir, "dlm"), "run", "--time-passes", script], env)
    stages = {m.group(1): (float(m.group(2)), float(m.group(3)))
              for m in re.finditer(r"time: (\S+)\s+([\d.]+) ms \(cpu ([\d.]+) ms\)", err)}
    return {"wall": wall, "cpu": cpu, "stages": stages, "stdout": out}


def first_result(bin_dir, script, env):
    """Runs `dlm run script` without --time-passes; returns (ms to the first byte of its stdout,
    ms to its exit)."""
    start = time.perf_counter()
    p = subprocess.Popen([os.path.join(bin_dir, "dlm"), "run", script], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env)
    p.stdout.read(1)
    first = (time.perf_counter() - start) * 1e3
    p.stdout.read()
    if p.wait() != 0:
        raise SystemExit("dlm run %s failed" % script)
    return first, (time.perf_counter() - start) * 1e3


def best_run_cpu(bin_dir, path, env, reps):
    """The run stage's CPU ms of the best of `reps` runs."""
    return min(dlm_run(bin_dir, path, env)["stages"]["run"][1] for _ in range(reps))


TIMED_LOOP = re.compile(r"^for (\w+) in range\((\d+)\):", re.M)


def per_iteration_cpu(bin_dir, script, env, reps=5):
    """CPU ms per iteration of the script's timed loop (see the file comment)."""
    path = os.path.join(HERE, script)
    text = open(path).read()
    loop = TIMED_LOOP.search(text)
    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, script)
        with open(empty, "w") as f:
            f.write(text[:loop.start()] + "for %s in range(0):" % loop.group(1) + text[loop.end():])
        fixed = best_run_cpu(bin_dir, empty, env, reps)
    return (best_run_cpu(bin_dir, path, env, reps) - fixed) / int(loop.group(2))


def twin(script, env):
    out = subprocess.run([PY, os.path.join(HERE, script)], capture_output=True, text=True, check=True,
                         env=env).stdout
    return {k: float(v) for k, v in (line.split() for line in out.splitlines())}


def gemm_floor(bin_dir, env):
    out = subprocess.run([os.path.join(bin_dir, "mlp_gemm_ref"), "50", "5"], capture_output=True, text=True,
                         check=True, env=env).stdout
    return {k: float(v) for k, v in (line.split() for line in out.splitlines())}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir", nargs="?", default="build/bin")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    bin_dir = args.bin_dir
    env = dict(os.environ)
    for var in ("DLM_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        env[var] = str(args.threads)
    cache = tempfile.TemporaryDirectory()
    env["DLM_CACHE_DIR"] = cache.name

    model = re.search(r"Model name:\s*(.*)", subprocess.run(["lscpu"], capture_output=True, text=True).stdout)
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print("machine: %d cores, %s; %s UTC; %d thread(s) on both sides; uptime: %s" % (
        os.cpu_count(), model.group(1) if model else "?", time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        args.threads, uptime))

    ns = per_iteration_cpu(bin_dir, "adds.dlm", env) * 1e6 / 1000  # 1000 adds per iteration
    torch = twin("adds_torch.py", env)
    eager, script = torch["torch_eager_ns_per_add"], torch["torchscript_ns_per_add"]
    print("adds (1-element tensor): dlm %.1f ns/add | torch eager %.0f ns | torchscript %.0f ns | %.0fx faster than the better"
          % (ns, eager, script, min(eager, script) / ns))

    ms = per_iteration_cpu(bin_dir, "mlp_forward.dlm", env)
    torch = twin("mlp_forward_torch.py", env)
    better = min(torch["torch_eager_ms"], torch["torchscript_ms"])
    print("mlp forward 784-256-10 batch 128: dlm %.3f ms | torch eager %.3f ms | torchscript %.3f ms | "
          "torch GEMMs alone %.3f ms | %.2fx vs the better" % (
              ms, torch["torch_eager_ms"], torch["torchscript_ms"], torch["torch_gemm_only_ms"], better / ms))

    ms = per_iteration_cpu(bin_dir, "lstm_train.dlm", env, reps=3)
    torch = twin("lstm_train_torch.py", env)
    better = min(torch["torch_eager_ms"], torch["torchscript_ms"])
    print("lstm train (hidden 32, 100 steps, fwd+bwd+SGD): dlm %.3f ms/iter | torch eager %.3f ms | "
          "torchscript %.3f ms | %.2fx vs the better" % (ms, torch["torch_eager_ms"], torch["torchscript_ms"], better / ms))

    floor = gemm_floor(bin_dir, env)["gemm_cpu_ms_per_step"]
    ms = per_iteration_cpu(bin_dir, "mlp_train.dlm", env)
    torch = twin("mlp_train_torch.py", env)
    better = min(torch["torch_eager_ms"], torch["torchscript_ms"])
    print("mlp train step 784-256-10 batch 128: dlm %.3f ms | torch eager %.3f ms | torchscript %.3f ms | "
          "OpenBLAS GEMM floor (mlp_gemm_ref) %.3f ms | torch GEMMs alone %.3f ms | %.2fx vs the better, "
          "%.2fx the GEMM floor" % (ms, torch["torch_eager_ms"], torch["torchscript_ms"], floor,
                                    torch["torch_gemm_only_ms"], better / ms, ms / floor))

    for script in ("first_result.dlm", "lstm_train.dlm"):
        path = os.path.join(HERE, script)
        cold = []
        for _ in range(3):
            with tempfile.TemporaryDirectory() as empty:
                cold.append(dlm_run(bin_dir, path, dict(env, DLM_CACHE_DIR=empty)))
        dlm_run(bin_dir, path, env)  # stores the object the warm runs find
        warm = [dlm_run(bin_dir, path, env) for _ in range(3)]
        for label, runs in (("cold: empty object cache, compiled", cold), ("warm: object cache hit", warm)):
            r = min(runs, key=lambda r: r["wall"])
            split = ", ".join("%s %.1f/%.1f" % (k, w, c) for k, (w, c) in r["stages"].items())
            before = sum(c for k, (_, c) in r["stages"].items() if k != "run")
            print("dlm run start to first result (%s, %s): process %.1f ms wall, %.1f ms CPU; %.1f ms CPU in "
                  "the stages before the program runs; stages wall/cpu (ms): %s"
                  % (script, label, r["wall"], r["cpu"], before, split))
        # The aim's own measure: the first byte of output, without --time-passes, cold and warm
        # runs interleaved, best and median of FIRST_RESULT_REPS.
        firsts = {"cold": [], "warm": []}
        for _ in range(FIRST_RESULT_REPS):
            with tempfile.TemporaryDirectory() as empty:
                firsts["cold"].append(first_result(bin_dir, path, dict(env, DLM_CACHE_DIR=empty)))
            firsts["warm"].append(first_result(bin_dir, path, env))
        for label in ("cold", "warm"):
            byte = sorted(f for f, _ in firsts[label])
            end = sorted(e for _, e in firsts[label])
            print("dlm run first byte of output (%s, %s, %d runs, no --time-passes): best %.1f ms, median %.1f "
                  "ms; process exit best %.1f, median %.1f ms"
                  % (script, label, FIRST_RESULT_REPS, byte[0], statistics.median(byte), end[0],
                     statistics.median(end)))


if __name__ == "__main__":
    main()
