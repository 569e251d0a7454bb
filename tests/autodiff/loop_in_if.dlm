# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/loop_in_if.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# A loop inside one side of an if: its stacks leave the branch as results of the forward if.

def f(x, n: int):
    if sum(x) > 0.0:
        for i in range(n):
            x = sin(x) * 1.5
    else:
        x = x * x
    return sum(x)

print(grad(f)(tensor([0.3, 0.4]).astype(f64), 5))
print(grad(f)(tensor([-0.3, -0.4]).astype(f64), 5))
