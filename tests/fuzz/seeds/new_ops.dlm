# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# A seed of the whole-pipeline fuzzer (docs/testing.md "Fuzzing"): the ops added with the op table
# (log1p, erf, gelu, isnan, isfinite) on every float dtype, on integers (cast to float first) and
# on infinities and NaN, inside a gradient, a loop and softmax/log_softmax, so that mutants swapping
# names, dtypes and operators reach their kernels, their JIT code and their gradient rules.
# CHECK: values
# CHECK: special
# CHECK: grad
# CHECK: done

def act(x, w):
    h = gelu(x * w) + erf(x - w) * 0.5 + log1p(abs(x) * w)
    return sum(log_softmax(h, axis=-1) * softmax(h * 0.5, axis=0))

def smooth(v):
    return sum(erf(v) * log1p(v * v))

seed(3)
x = randn(3, 4)
w = full((3, 4), 0.75)
print("values", gelu(x), erf(x.astype(f64)), log1p(abs(x)))
k = arange(5)
print(log1p(k), erf(k), gelu(k - 2), isnan(k), isfinite(k.astype(f32)))
z = tensor([0.0, 1.0, -1.0, 2.0]) / tensor([0.0, 0.0, 0.0, 4.0])
print("special", isnan(z), isfinite(z), where(isfinite(z), z, 0.0), sum(isnan(z)), log1p(z * 0.0 - 1.0))
gx, gw = grad(act, argnums=(0, 1))(x, w)
print("grad", gx.shape, sum(gx), sum(gw))
acc = zeros(4)
for i in range(3):
    acc = acc + gelu(x[i]) * erf(w[i])
    if bool(isfinite(sum(acc))):
        acc = acc * 0.5
print(acc, grad(smooth)(x[0]))
print("done")
