#!/usr/bin/python3
"""Step time of a training script with and without `fuse-horizontal` (bench/RESULTS.md).

    /usr/bin/python3 bench/opt/horizontal_bench.py BIN_DIR [SCRIPT] [--reps N]

SCRIPT (default bench/opt/lstm_gates_train.dlm) has a top-level `steps = N` line. Both variants
run on the JIT with one thread (DLM_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1): the -O2 pipeline,
and the same pipeline with fuse-horizontal left out (--passes=). Timed like bench/jit/bench.py:
the `run` stage of `dlm run --time-passes` (the compiled program alone; CPU time, and wall),
best of N runs, minus the same for a copy with `steps = 0`, divided by the steps. The machine
is shared, so CPU time is the number to read; wall time is printed with `uptime`'s load.
"""
import os
import re
import subprocess
import sys
import tempfile

O2_WITHOUT = ("dce,constfold,cse,dce,simplify,constfold,licm,ad-stacks,cse,simplify,fuse-library,"
              "dce,fuse-elementwise")
RUN = re.compile(r"time: run\s+([\d.]+) ms \(cpu ([\d.]+) ms\)")


def run_stage(dlm, script, flags, env):
    p = subprocess.run([dlm, "run", "--time-passes"] + flags + [script], env=env,
                       capture_output=True, text=True, check=True)
    m = RUN.search(p.stderr)
    return float(m.group(1)), float(m.group(2)), p.stdout


def best(dlm, script, flags, env, reps):
    runs = [run_stage(dlm, script, flags, env) for _ in range(reps)]
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[0][2]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--reps")]
    reps = next((int(a.split("=")[1]) for a in sys.argv[1:] if a.startswith("--reps=")), 5)
    dlm = os.path.join(args[0], "dlm")
    script = args[1] if len(args) > 1 else os.path.join(os.path.dirname(__file__), "lstm_gates_train.dlm")
    text = open(script).read()
    steps = int(re.search(r"^steps = (\d+)$", text, re.M).group(1))
    env = dict(os.environ, DLM_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    with tempfile.NamedTemporaryFile("w", suffix=".dlm", delete=False) as zero:
        zero.write(re.sub(r"^steps = \d+$", "steps = 0", text, flags=re.M))
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print("| variant | step wall (ms) | step CPU (ms) | output |")
    print("|---|---|---|---|")
    for name, flags in (("-O2 (fuse-horizontal)", ["-O2"]),
                        ("-O2 without fuse-horizontal", ["--passes=" + O2_WITHOUT])):
        wall, cpu, out = best(dlm, script, flags, env, reps)
        wall0, cpu0, _ = best(dlm, zero.name, flags, env, reps)
        print(f"| {name} | {(wall - wall0) / steps:.3f} | {(cpu - cpu0) / steps:.3f} | {out.strip()} |")
    os.unlink(zero.name)


if __name__ == "__main__":
    main()
