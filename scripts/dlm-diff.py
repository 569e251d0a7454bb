#!/usr/bin/python3
"""Differential testing of dlm's two engines (docs/codegen.md "Differential testing").

    dlm-diff.py [--everywhere] BIN_DIR FILE.dlm [program args...]

Runs FILE with `dlm run --engine=jit` and `dlm run --engine=graph`, each unoptimised (-O0) and
at -O3, checks that all four agree (the optimizer changes no output: docs/opt.md), and then
behaves exactly like the JIT's -O3 run: its stdout and stderr are passed through and its exit
status is returned, so a lit RUN line can use it wherever it used `dlm run` (`| FileCheck`,
`> %t.out`, `not ...`).

--everywhere runs FILE in every configuration instead: the JIT at -O0, -O1, -O2 and -O3, the
graph executor at each level on 1 and on 4 threads (DLM_NUM_THREADS), and an AOT executable
(`dlmc -ON -o`) of each level; all must agree with the JIT's -O3 run.

Agreement:
  - the exit statuses are equal;
  - on success (0) the standard outputs are equal, or differ only in numbers that agree within
    a relative tolerance of 1e-5 (absolute 1e-6 near zero) and in the spaces that NumPy-style
    tensor printing pads them with: the engines call the same kernels in the same order, so
    outputs are normally bitwise equal, and the tolerance only covers a reduction ordered
    differently;
  - on failure, the first line of stderr (the located error) is equal, and so are the standard
    outputs, as on success: every effect before the failing op in program order happened, and
    none after it (docs/ir.md "Program order"). The lines `progress(...)` writes on stderr
    before the error are not its first line (they hold a rate that differs from run to run).

On disagreement it prints both runs to stderr and aborts (SIGABRT), which `not` reports as a
failure too (a crash is never an expected failure).
"""
import os
import re
import signal
import subprocess
import sys
import tempfile

REL_TOL = 1e-5
ABS_TOL = 1e-6
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf|nan)")
# A line of the built-in progress(done, total): "40/40 [00:01<00:00, 31.25it/s]" (docs/language.md).
PROGRESS = re.compile(r"^\d+/\d+ \[[^\]]*it/s\]$")


LEVELS = ("-O3", "-O0")
ALL_LEVELS = ("-O3", "-O0", "-O1", "-O2")
THREADS = ("1", "4")


def run(dlm, engine, level, args, env=None):
    p = subprocess.run([dlm, "run", "--engine=" + engine, level] + args, capture_output=True, text=True,
                       env=env)
    return p.returncode, p.stdout, p.stderr


def run_aot(bin_dir, level, args, tmp):
    """Builds FILE (args[0]) with `dlmc LEVEL -o` and runs the executable on the other args."""
    exe = os.path.join(tmp, "prog" + level)
    p = subprocess.run([os.path.join(bin_dir, "dlmc"), level, args[0], "-o", exe], capture_output=True,
                       text=True)
    if p.returncode != 0:
        return p.returncode, p.stdout, p.stderr
    p = subprocess.run([exe] + args[1:], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def runs_everywhere(bin_dir, args):
    dlm = os.path.join(bin_dir, "dlm")
    runs = [("jit " + level, run(dlm, "jit", level, args)) for level in ALL_LEVELS]
    for threads in THREADS:
        env = dict(os.environ, DLM_NUM_THREADS=threads)
        runs += [("graph %s (%s threads)" % (level, threads), run(dlm, "graph", level, args, env))
                 for level in ALL_LEVELS]
    with tempfile.TemporaryDirectory(prefix="dlm-diff-") as tmp:
        runs += [("aot " + level, run_aot(bin_dir, level, args, tmp)) for level in ALL_LEVELS]
    return runs


def numbers_close(a, b):
    # A tensor's columns are padded to its widest number: one more digit moves the spaces.
    ta, tb = ([" ".join(t.split()) for t in NUMBER.split(s)] for s in (a, b))
    if ta != tb:
        return False
    na, nb = NUMBER.findall(a), NUMBER.findall(b)
    if len(na) != len(nb):
        return False
    for x, y in zip(na, nb):
        fx, fy = float(x), float(y)
        if fx == fy or (fx != fx and fy != fy):
            continue
        if abs(fx - fy) > max(ABS_TOL, REL_TOL * max(abs(fx), abs(fy))):
            return False
    return True


def error_lines(err):
    """stderr without the program's progress lines: its located error first."""
    return [line for line in err.splitlines() if not PROGRESS.match(line)]


def disagreement(jit, graph):
    jrc, jout, jerr = jit
    grc, gout, gerr = graph
    if jrc != grc:
        return "exit status %d (jit) != %d (graph)" % (jrc, grc)
    if jrc == 0:
        if jout != gout and not numbers_close(jout, gout):
            return "outputs differ beyond the tolerance"
        return None
    if error_lines(jerr)[:1] != error_lines(gerr)[:1]:
        return "errors differ"
    if jout != gout and not numbers_close(jout, gout):
        return "outputs before the error differ"
    return None


def main():
    argv = sys.argv[1:]
    everywhere = argv[:1] == ["--everywhere"]
    if everywhere:
        argv = argv[1:]
    if len(argv) < 2:
        sys.stderr.write("usage: dlm-diff.py [--everywhere] BIN_DIR FILE.dlm [args...]\n")
        return 2
    dlm = os.path.join(argv[0], "dlm")
    args = argv[1:]
    if everywhere:
        runs = runs_everywhere(argv[0], args)
    else:
        runs = [("jit " + level, run(dlm, "jit", level, args)) for level in LEVELS]
        runs += [("graph " + level, run(dlm, "graph", level, args)) for level in LEVELS]
    jit = runs[0][1]
    for name, other in runs[1:]:
        why = disagreement(jit, other)
        if not why:
            continue
        sys.stdout.flush()
        sys.stderr.write("dlm-diff: %s and %s disagree on %s: %s\n" % (runs[0][0], name, args[0], why))
        for label, (rc, out, err) in (runs[0], (name, other)):
            sys.stderr.write("--- %s (exit %d) stdout:\n%s--- %s stderr:\n%s" % (label, rc, out, label, err))
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGABRT)
    sys.stdout.write(jit[1])
    sys.stdout.flush()  # the program's output comes before its error, as with `dlm run 2>&1`
    sys.stderr.write(jit[2])
    return jit[0]


if __name__ == "__main__":
    sys.exit(main())
