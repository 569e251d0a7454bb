"""compare.py OUT REF: dlm's output against its twin's reference output.

Numbers are compared in order with a relative tolerance (1e-5, for f32 results whose last digits
differ between summation orders: OpenBLAS, NumPy, and dlm's small-product loops,
docs/runtime.md) and everything else must be equal up to whitespace and line breaks: NumPy pads
columns to the widest number and wraps rows by width, and the digits it prints are the shortest
that round-trip each value, so one differing last bit can change the padding, the precision of a
whole tensor and where its rows wrap. Mismatches are reported by output line. Prints the first
mismatches and exits 1 on any.
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


def tokens(lines):
    """The output as a stream: (line number, text between numbers without whitespace, or a number)."""
    out = []
    for i, line in enumerate(lines, 1):
        text, nums = split(line)
        for t, n in zip(text, nums + [None]):
            if t:
                out.append((i, "text", t))
            if n is not None:
                out.append((i, "num", n))
    return out


def main():
    out = open(sys.argv[1]).read().splitlines()
    ref = open(sys.argv[2]).read().splitlines()
    otoks, rtoks = tokens(out), tokens(ref)
    errors = []
    if len(otoks) != len(rtoks):
        errors.append(f"{len(otoks)} tokens of output, {len(rtoks)} in the reference")
    for (oi, okind, o), (ri, rkind, r) in zip(otoks, rtoks):
        if okind != rkind or (okind == "text" and o != r) or (okind == "num" and not same_number(o, r)):
            errors.append(f"line {oi} (reference line {ri}): dlm {o!r}, reference {r!r}\n"
                          f"  dlm:       {out[oi - 1]}\n  reference: {ref[ri - 1]}")
            if len(errors) >= 10:
                break
    for e in errors[:10]:
        print(e)
    sys.exit(1 if errors else 0)


main()
