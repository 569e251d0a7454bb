#!/usr/bin/python3
"""Checks of dlmfuzz.py's mutator on programs made to reach its corner cases (mutator.test).

    mutator_check.py DLMFUZZ.py

wrap_call with the stop_gradient wrapper on a line whose call closes on a later line (a call
over several lines, or a '(' an earlier mutation left open): the mutator has no ')' on that line
to close the wrapper after, so it gives up on that spot instead of indexing past the line's
tokens (the IndexError that ended campaigns). Every mutant it does make has balanced brackets
on the line it changed."""
import importlib.util
import random
import sys

spec = importlib.util.spec_from_file_location("dlmfuzz", sys.argv[1])
dlmfuzz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dlmfuzz)
dlmfuzz.WRAPPERS = ["stop_gradient"]

program = ["y = f(a,", "      b)", "z = g(y)", "w = h((1,", "2))"]
made = given_up = 0
for seed in range(200):
    m = dlmfuzz.Mutator(random.Random(seed), [("p.dlm", program)])
    out = m.wrap_call(program)
    if out is None:
        given_up += 1
        continue
    made += 1
    changed = [l for l, o in zip(out, program) if l != o]
    assert changed == ["z = stop_gradient(g(y))"], changed
print("wrapped %s, gave up %s" % (made > 0, given_up > 0))
