"""unary_ops_vs_torch.py SRC BIN WORK: every unary elementwise builtin of the op table against PyTorch.

Reads ops/Ops.def, takes the rows marked Elementwise and Builtin with one operand (exp, relu,
...), writes one program that prints each op of an f32 and an f64 tensor (a grid over [-4, 4],
+-inf, NaN), runs it with scripts/dlm-diff.py (both engines at -O0 and -O3, which must agree)
and compares every printed element with torch.NAME (or torch.nn.functional.NAME) of the grid in
f64, the function's value to f32's precision and beyond: within 4e-6 relative in f32 (the f32 exp/tanh/sigmoid are polynomials a few ulp from
libm) and 1e-7 in f64, or 1e-8 absolute (print shows at most 8 digits after the point); NaN,
infinities and bools exactly. So an op added to the table is
checked against PyTorch with no test of its own. Exits 1 on a mismatch.
"""
import math
import os
import re
import subprocess
import sys

import torch

src, bin_dir, work = sys.argv[1:4]
ROW = re.compile(r'DLM_(?:SCALAR_)?OP\(\w+,\s*"(\w+)",\s*\(([^)]*)\),.*,\s*([^,]*)\)\s*$')

ops = []
for line in open(os.path.join(src, "ops", "Ops.def")):
    m = ROW.match(line.strip())
    if not m:
        continue
    name, operands, flags = m.group(1), m.group(2), m.group(3)
    flags = {f.strip() for f in flags.split("|")}
    if {"Elementwise", "Builtin"} <= flags and operands.strip() == '"x"':
        ops.append(name)
if len(ops) < 9:
    sys.exit("found only %d unary builtins in ops/Ops.def: %s" % (len(ops), ops))

grid = [i / 4 for i in range(-16, 17)]
lines = ["inf = exp(tensor(1000.0))",
         "x32 = concat((tensor([%s]), stack((inf, -inf, inf - inf))))" % ", ".join(repr(v) for v in grid),
         "x64 = x32.astype(f64)"]
for op in ops:
    lines += ["print(%s(x32))" % op, "print(%s(x64))" % op]
program = os.path.join(work + ".dlm")
with open(program, "w") as f:
    f.write("\n".join(lines) + "\n")

run = subprocess.run([sys.executable, os.path.join(src, "scripts", "dlm-diff.py"), bin_dir, program],
                     capture_output=True, text=True)
if run.returncode != 0:
    sys.exit("dlm failed (%d):\n%s%s" % (run.returncode, run.stdout, run.stderr))
printed = re.findall(r"tensor\(\[(.*?)\]", run.stdout, re.S)
if len(printed) != 2 * len(ops):
    sys.exit("expected %d tensors, found %d:\n%s" % (2 * len(ops), len(printed), run.stdout))

x = torch.tensor(grid + [math.inf, -math.inf, math.nan], dtype=torch.float32)


def reference(op, t):
    fn = getattr(torch, op, None) or getattr(torch.nn.functional, op)
    return fn(t).tolist()


def close(got, want, tol):
    if isinstance(want, bool):
        return got == ("True" if want else "False")
    g = float(got)
    if math.isnan(want) or math.isnan(g):
        return math.isnan(want) and math.isnan(g)
    if math.isinf(want) or math.isinf(g):
        return g == want
    return abs(g - want) <= tol * max(abs(g), abs(want)) + 1e-8


bad = 0
for i, op in enumerate(ops):
    for k, (t, tol) in enumerate(((x, 4e-6), (x.double(), 1e-7))):
        got = [v.strip() for v in printed[2 * i + k].split(",")]
        want = reference(op, x.double())
        for v, g, w in zip(t.tolist(), got, want):
            if not close(g, w, tol):
                bad += 1
                print("%s(%r) %s: dlm %s, torch %r" % (op, v, t.dtype, g, w))
        if len(got) != len(want):
            bad += 1
            print("%s %s: %d elements printed, %d expected" % (op, t.dtype, len(got), len(want)))
print("checked %d ops against torch: %s" % (len(ops), " ".join(ops)))
sys.exit(1 if bad else 0)
