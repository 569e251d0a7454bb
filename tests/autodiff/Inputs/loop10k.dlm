# 10 000 iterations; the backward of sin reads s, so each iteration stores one f64 (8 bytes).
def f(x: float):
    s = x
    for i in range(10000):
        s = sin(s) * 0.999 + x * 0.001
    return s

print(grad(f)(0.5))
