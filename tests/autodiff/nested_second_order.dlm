# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/nested_second_order.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# grad(grad(f)) through nested loops: the stacks of the first derivative (and the inner
# loop's stack saved on the outer one) are differentiated again.

def f(x: float):
    s = x
    for i in range(3):
        for j in range(2):
            s = sin(s * x) + 0.3
    return s

print(grad(grad(f))(0.6))
