"""check.py OUT REF: a dlm autodiff test's output against its PyTorch twin's.

The numbers of the whole output, in order, must match (dtype names such as f64 ignored; dlm
prints matrices over several lines like NumPy, the twin one line per print) within a relative
tolerance of 1e-6 and an absolute one of 1e-7 (dlm prints at most 8 decimals). Prints the first
mismatches and exits 1 on any.
"""
import re
import sys

NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")


def numbers(line):
    return [float(n) for n in NUM.findall(re.sub(r"dtype=\w+", "", line))]


def close(a, b):
    if a != a or b != b:  # NaN never matches
        return False
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b)) + 1e-7


def main():
    out = numbers(open(sys.argv[1]).read())
    ref = numbers(open(sys.argv[2]).read())
    errors = []
    if len(out) != len(ref):
        errors.append(f"{len(out)} numbers in the output, {len(ref)} in the reference")
    for i, (a, b) in enumerate(zip(out, ref)):
        if not close(a, b):
            errors.append(f"number {i}: dlm {a!r}, pytorch {b!r}")
    for e in errors[:10]:
        print(e)
    sys.exit(1 if errors else 0)


main()
