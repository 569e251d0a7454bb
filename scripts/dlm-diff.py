#!/usr/bin/python3
"""Differential testing of dlm's two engines (docs/codegen.md "Differential testing").

    dlm-diff.py BIN_DIR FILE.dlm [program args...]

Runs FILE with `dlm run --engine=jit` and `dlm run --engine=graph`, each unoptimised (-O0) and
at -O3, checks that all four agree (the optimizer changes no output: docs/opt.md), and then
behaves exactly like the JIT's -O3 run: its stdout and stderr are passed through and its exit
status is returned, so a lit RUN line can use it wherever it used `dlm run` (`| FileCheck`,
`> %t.out`, `not ...`).

Agreement:
  - the exit statuses are equal;
  - on success (0) the standard outputs are equal, or differ only in numbers that agree within
    a relative tolerance of 1e-5 (absolute 1e-6 near zero) and in the spaces that NumPy-style
    tensor printing pads them with: the engines call the same kernels in the same order, so
    outputs are normally bitwise equal, and the tolerance only covers a reduction ordered
    differently;
  - on failure, the first line of stderr (the located error) is equal, and the graph
    executor's stdout is a prefix of the JIT's (the JIT runs side effects in program order up to
    the failing op; the executor may skip those not ordered with it).

On disagreement it prints both runs to stderr and aborts (SIGABRT), which `not` reports as a
failure too (a crash is never an expected failure).
"""
import os
import re
import signal
import subprocess
import sys

REL_TOL = 1e-5
ABS_TOL = 1e-6
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf|nan)")


LEVELS = ("-O3", "-O0")


def run(dlm, engine, level, args):
    p = subprocess.run([dlm, "run", "--engine=" + engine, level] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


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


def disagreement(jit, graph):
    jrc, jout, jerr = jit
    grc, gout, gerr = graph
    if jrc != grc:
        return "exit status %d (jit) != %d (graph)" % (jrc, grc)
    if jrc == 0:
        if jout != gout and not numbers_close(jout, gout):
            return "outputs differ beyond the tolerance"
        return None
    if jerr.splitlines()[:1] != gerr.splitlines()[:1]:
        return "errors differ"
    if not jout.startswith(gout):
        return "the graph executor's output is not a prefix of the JIT's"
    return None


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: dlm-diff.py BIN_DIR FILE.dlm [args...]\n")
        return 2
    dlm = os.path.join(sys.argv[1], "dlm")
    args = sys.argv[2:]
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
