"""Generates pathological inputs for the bad-input tests: `gen.py KIND OUT` writes the bytes
of input KIND to the file OUT."""
import sys

INPUTS = {
    # 20 000 nested parentheses around one literal.
    "nested-parens": b"x = " + b"(" * 20000 + b"1" + b")" * 20000 + b"\n",
    # One 300 000-term sum on one line.
    "long-sum": b"x = " + b" + ".join([b"1"] * 300000) + b"\n",
    # The same sum, printed: it compiles and runs.
    "long-sum-print": b"x = " + b" + ".join([b"1"] * 300000) + b"\nprint(x)\n",
    # A 300 000-term chain of tensor operators that sema cannot fold: 300 000 SSA ops.
    "long-tensor-sum": b"t = ones(3)\nx = t" + b" + t - t" * 150000 + b"\nprint(x)\n",
    # 300 000 right-nested operators: the parser recurses once per level.
    "long-power": b"x = " + b" ** ".join([b"2"] * 300000) + b"\n",
    "long-neg": b"x = " + b"-" * 300000 + b"1\n",
    # A line of a little over 1 MB: a valid string literal.
    "long-line": b'x = "' + b"a" * (1 << 20) + b'"\nprint(x)\n',
    # A 1 MB line with a syntax error near its end.
    "long-line-error": b"x = [" + b"1, " * 350000 + b"1 2]\n",
    # NUL bytes in code and in a comment.
    "nul": b"x = 1\x00\ny = 2 # comment \x00 here\n",
    # Bytes that are not UTF-8 inside a string literal (line 2).
    "bad-utf8": b'x = 1\ny = "\xff\xfe caf\xc3"\n',
    # A byte-order mark and non-ASCII text in a string and a comment, then an error on line 2.
    "utf8": '\ufeffx = "caf\u00e9 \u2192 \U0001F600" # \u00fcber\ny = "\u00e9" +\n'.encode("utf-8"),
    # Nothing at all.
    "empty": b"",
    # 150 nested blocks.
    "deep-blocks": b"".join(b"    " * i + b"if x:\n" for i in range(150)) + b"    " * 150 + b"pass\n",
    # 4000 'not' then 4000 unary minus: an 8000-deep tree from loops in the grammar.
    "prefix-chain": b"x = " + b"not " * 4000 + b"-" * 4000 + b"y\n",
}

with open(sys.argv[2], "wb") as f:
    f.write(INPUTS[sys.argv[1]])
