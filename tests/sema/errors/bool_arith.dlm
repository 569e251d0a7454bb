# RUN: %dlmc --emit=ssa --verify-diagnostics %s
# Bool tensors reject the arithmetic PyTorch rejects, at compile time, pointing at the operator.
x = arange(4) > 1
a = x - x  # expected-error {{'-' is not supported on bool tensors (bool[4] and bool[4]), as in PyTorch; convert with .astype(i64) first}}
b = x // x  # expected-error {{'//' is not supported on bool tensors}}
c = x ** x  # expected-error {{'**' is not supported on bool tensors}}
d = -x  # expected-error {{unary '-' is not supported on bool tensors (bool[4]), as in PyTorch}}
ok = (x + x) * x
