# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/third_order_loop.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# grad(grad(grad(f))) through loops, a plain one and a nested one: the second derivative's
# adjoint stacks are built by pushes whose gradient reads the adjoint back as a top/pop pair,
# so the third transformation pairs them again (GradRules.cpp, docs/autodiff.md "Stacks").

def f(x: float):
    s = x
    for i in range(5):
        s = sin(s * x) + s * 0.5
    return s

def nested(x: float):
    s = x
    for i in range(3):
        for j in range(2):
            s = tanh(s * x) + 0.2
    return s

print(grad(grad(grad(f)))(0.7))
print(grad(grad(grad(nested)))(0.6))
