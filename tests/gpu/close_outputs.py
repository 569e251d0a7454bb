#!/usr/bin/env python3
"""Compares a run's output with the one recorded on the development machine (tests/gpu/run.sh).

usage: close_outputs.py EXPECTED ACTUAL [REL_TOL]

Equal, or differing only in numbers within REL_TOL (default 1e-3: the GPU sums in another order
and uses its own exp/log in the non-generated kernels) — scripts/dlm-diff.py's rule with a wider
tolerance. Prints 'same' or 'close' and exits 0, else prints both and exits 1."""
import importlib.util
import os
import sys

spec = importlib.util.spec_from_file_location(
    "dlm_diff", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "dlm-diff.py"))
dlm_diff = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dlm_diff)

want, got = open(sys.argv[1]).read(), open(sys.argv[2]).read()
dlm_diff.REL_TOL = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-3
if want == got:
    print("same")
elif dlm_diff.numbers_close(want, got):
    print("close")
else:
    print(f"differs\n--- expected (cpu, development machine)\n{want}--- got\n{got}")
    sys.exit(1)
