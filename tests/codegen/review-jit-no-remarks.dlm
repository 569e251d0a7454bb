# RUN: %dlm run -O2 %s 2> %t.err > %t.out
# RUN: FileCheck %s --check-prefix=STDERR --allow-empty < %t.err
# RUN: %python %src/scripts/dlm-diff.py %bin %s | diff %t.out -
# RUN: %dlmc --emit=llvm -O2 %s | FileCheck %s
# A program large enough for the JIT's large-program pipeline (docs/codegen.md), whose f64
# loops call libm's tanh and exp. Its elementwise loops get a vector width hint; one that calls
# a library function cannot be vectorised, and LLVM reports a hinted loop left scalar: every run
# printed "remark: <unknown>:0:0: loop not vectorized: call instruction cannot be vectorized" on
# stderr. Loops with such calls get no hint now; both engines still agree at -O0 and -O3.
# STDERR-NOT: remark
# STDERR-NOT: warning
# CHECK: call double @tanh(
# CHECK: call double @exp(

def cell(w, xs):
    h = zeros(1, 3, dtype=f64)
    c = zeros(1, 3, dtype=f64)
    for t in range(4):
        z = xs[t] @ w + h @ w[0:3, :] * 0.5
        h = tanh(z[:, 0:3]) * h + sigmoid(z[:, 3:6])
        c = c + h * z[:, 0:3]
    return sum(c * c)
def nested(w, xs):
    h = zeros(1, 3, dtype=f64)
    for t in range(3):
        for u in range(2):
            z = (xs[t] + h[:, 0:2] * 0.5) @ w
            h = tanh(z[:, 0:3]) * sigmoid(z[:, 3:6]) + h * exp(z[:, 0:3] * -1.0)
    return sum(h)
xs = tensor([[[0.5, -1.0, 0.25]], [[1.5, 0.75, -0.5]], [[-0.25, 0.5, 1.0]], [[0.8, -0.3, 0.1]]]).astype(f64)
w = tensor([[0.1, -0.2, 0.3, 0.4, -0.5, 0.6], [-0.7, 0.8, 0.9, -0.1, 0.2, -0.3],
            [0.35, 0.15, -0.45, 0.25, 0.05, -0.6]]).astype(f64)
print(grad(cell)(w, xs))
print(grad(nested)(w[0:2, :], xs[:, :, 0:2]))
