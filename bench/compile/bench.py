#!/usr/bin/env python3
"""Compile time against program size (issue #27): dlm against JAX jit's first call.

    bench.py BUILD_DIR [--sizes 1000,2000,4000,8000] [--families ...] [--jax PYTHON] [--rounds R]
             [--opt 2] [--cpu 0]

Generates the programs of gen.py, then for each family and size runs, interleaved, R rounds of:
`dlm run -O<opt> --time-passes --no-cache FILE` cold (a new process, the on-disk object cache
off) under `/usr/bin/time -v`, and the JAX twin (when --jax names a Python with jax), both pinned
to one core (`taskset -c CPU`). Prints one row per program: the graph's node count, dlm's wall
time from exec to exit, its stages (front end = everything before codegen's first stage; then
codegen's stages as --time-passes names them, CPU ms), its peak RSS, and JAX's first call (trace
+ XLA compile + run, measured inside its process after `import jax`) and peak RSS. Best of R
by wall time. Both programs must print the same number (to 1e-4 relative: the reductions and
libm differ), else the row says so.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402


def timed(cmd, env=None):
    """Runs `cmd` under /usr/bin/time -v; returns (wall s, peak RSS MB, stdout, stderr)."""
    start = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return wall, int(rss.group(1)) / 1024 if rss else float("nan"), p.stdout, p.stderr


def stages(stderr):
    """The `time: STAGE WALL ms (cpu CPU ms)` lines of --time-passes, as {stage: cpu ms} in
    order (a stage that repeats is summed)."""
    out = {}
    for m in re.finditer(r"^time: (\S+)\s+([\d.]+) ms \(cpu ([\d.]+) ms\)", stderr, re.M):
        out[m.group(1)] = out.get(m.group(1), 0.0) + float(m.group(3))
    return out


def nodes(bin_dir, path, opt):
    p = subprocess.run([os.path.join(bin_dir, "dlmc"), f"-O{opt}", "--emit=graph", path],
                       capture_output=True, text=True)
    return sum(1 for line in p.stdout.splitlines() if re.match(r"\s*%\d+(:\d+)? = ", line))


def close(a, b):
    """Whether dlm's `tensor(X)` and JAX's `X` print the same number to 1e-4 relative."""
    num = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)"
    ma, mb = re.search(num, a), re.search(num, b)
    if not ma or not mb:
        return False
    x, y = float(ma.group(0)), float(mb.group(0))
    return x == y or abs(x - y) <= 1e-4 * max(abs(x), abs(y))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("--sizes", default="1000,2000,4000,8000")
    ap.add_argument("--families", default=",".join(gen.FAMILIES))
    ap.add_argument("--jax", default="", help="a Python interpreter with jax (the peers venv)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--opt", default="2")
    ap.add_argument("--cpu", default="0", help="the core both run on (taskset -c)")
    ap.add_argument("--dir", default="", help="where to write the programs (default: a temp dir)")
    args = ap.parse_args()
    bin_dir = os.path.join(args.build, "bin")
    out_dir = args.dir or tempfile.mkdtemp(prefix="dlm-compile-bench-")
    subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), out_dir, "--sizes", args.sizes,
                    "--families", args.families], check=True)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", DLM_NUM_THREADS="1")
    pin = ["taskset", "-c", args.cpu]
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
          f"{os.getloadavg()[0]:.1f}, -O{args.opt}, one core each (taskset -c {args.cpu}), "
          f"best of {args.rounds} by wall time; stage columns are CPU ms")
    print("| program | nodes | dlm wall s | front end | codegen stages (cpu ms) | dlm peak MB "
          "| JAX first call s | JAX peak MB | same result |")
    print("|---|---|---|---|---|---|---|---|---|")
    for family in args.families.split(","):
        for n in (int(s) for s in args.sizes.split(",")):
            name = f"{family}_{n}"
            dlm_file = os.path.join(out_dir, name + ".dlm")
            best = None
            best_jax = None
            for _ in range(args.rounds):
                wall, rss, out, err = timed(
                    pin + [os.path.join(bin_dir, "dlm"), "run", f"-O{args.opt}", "--time-passes",
                           "--no-cache", dlm_file], env)
                if best is None or wall < best[0]:
                    best = (wall, rss, out.strip(), stages(err))
                if args.jax:
                    _, jrss, jout, jerr = timed(
                        pin + [args.jax, os.path.join(out_dir, name + "_jax.py")], env)
                    first = float(re.search(r"jax-first-call: ([\d.]+)", jerr).group(1))
                    if best_jax is None or first < best_jax[0]:
                        best_jax = (first, jrss, jout.strip())
            wall, rss, out, st = best
            codegen_stages = ["codegen", "cache-key", "optimise", "split", "jit", "jit-parallel",
                              "link", "run"]
            front = sum(v for k, v in st.items() if k not in codegen_stages)
            cg = ", ".join(f"{k} {st[k]:.0f}" for k in codegen_stages if k in st)
            row = [name, str(nodes(bin_dir, dlm_file, args.opt)), f"{wall:.2f}", f"{front:.0f}",
                   cg, f"{rss:.0f}"]
            if best_jax:
                row += [f"{best_jax[0]:.2f}", f"{best_jax[1]:.0f}",
                        "yes" if close(out, best_jax[2]) else f"NO: {out} vs {best_jax[2]}"]
            else:
                row += ["", "", ""]
            print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
