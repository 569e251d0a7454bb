"""compare.py OUT REF: dlm's output against its twin's reference output.

Lines must match one for one. Within a line, numbers are compared with a relative tolerance
(1e-5, for f32 results whose last printed digit can differ between OpenBLAS and NumPy summation
orders) and everything else must be equal up to spaces (NumPy pads columns to the widest
number, so one differing digit can move the padding). Prints the first mismatches and exits 1
on any.
"""
import re
import sys

NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")


def split(line):
    return ["".join(t.split()) for t in NUM.split(line)], NUM.findall(line)


def same_number(a, b):
    if a == b:
        return True
    x, y = float(a), float(b)
    return abs(x - y) <= 1e-5 * max(abs(x), abs(y)) + 1e-7


def main():
    out = open(sys.argv[1]).read().splitlines()
    ref = open(sys.argv[2]).read().splitlines()
    errors = []
    if len(out) != len(ref):
        errors.append(f"{len(out)} lines of output, {len(ref)} in the reference")
    for i, (o, r) in enumerate(zip(out, ref), 1):
        (otext, onums), (rtext, rnums) = split(o), split(r)
        if otext != rtext or len(onums) != len(rnums) or not all(map(same_number, onums, rnums)):
            errors.append(f"line {i}:\n  dlm:       {o}\n  reference: {r}")
    for e in errors[:10]:
        print(e)
    sys.exit(1 if errors else 0)


main()
