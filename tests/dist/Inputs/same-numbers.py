"""same-numbers.py TOL REF OUT...: each OUT has REF's text with every number within TOL
(relative, or absolute below 1) of REF's: the check of docs/dist.md "Same answer at any scale"."""
import re
import sys

NUMBER = re.compile(r"-?\d+\.?\d*(?:e[-+]?\d+)?")


def numbers(path):
    text = open(path).read()
    return NUMBER.sub("#", text), [float(n) for n in NUMBER.findall(text)]


def main():
    tol = float(sys.argv[1])
    ref_text, ref = numbers(sys.argv[2])
    if not ref:
        sys.exit(f"{sys.argv[2]}: no numbers")
    for path in sys.argv[3:]:
        text, got = numbers(path)
        if text != ref_text or len(got) != len(ref):
            sys.exit(f"{path}: differs from {sys.argv[2]} beyond the numbers:\n{text}\nvs\n{ref_text}")
        for a, b in zip(got, ref):
            if abs(a - b) > tol * max(1.0, abs(b)):
                sys.exit(f"{path}: {a} where {sys.argv[2]} has {b} (tolerance {tol})")
    print("same numbers in", len(sys.argv) - 3, "outputs")


main()
