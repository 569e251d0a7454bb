# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# A seed of the whole-pipeline fuzzer (docs/testing.md "Fuzzing"): every dtype (bool, i32, i64,
# f32, f64) in arithmetic, comparisons, casts, reductions and int()/float()/bool() of 0-d
# tensors, Python scalars mixed with tensors, and an f64 gradient, so that mutants swapping
# dtypes and operators reach the promotion rules on both engines.
# CHECK: ints
# CHECK: bools
# CHECK: grad
# CHECK: done

def f(x: Tensor[f64, N], k: int) -> Tensor:
    y = x * k + x ** 2 / (1.0 + abs(x))
    return sum(sigmoid(y))

i = arange(7, dtype=i32)
j = tensor([3, -2, 5, 0, 1, 4, -6])
print("ints", i + j, j // 2, j % 3, i * 2, (i - 3) ** 2, sum(j), max(j), argmax(j, axis=0))
m = j > 0
print("bools", m, m.astype(i64).sum(), sum(m), m * (i > 2), m + (i < 1), not bool(m[3]))
x = (j.astype(f64) + 0.5) / 3.0
print(x, mean(x), int(sum(i)), float(x[1]), bool(x[0] > 0.0))
h = x.astype(f32) * 2 + i
print(h, h.astype(i64), (h * 0.5).astype(bool))
print("grad", grad(f)(x, 3))
print(where(m, j, 0 * j), minimum(i, j), maximum(j, 2 * i))
k = 1 if float(sum(x)) > 0.0 else -1
print(k, 7 // 2, -7 % 3, 2 ** 10, 1.5 * k)
print("done")
