# RUN: dlm-ad run %s > %t.out
# RUN: %python %S/twins/second_derivative.py > %t.ref
# RUN: %python %S/twins/check.py %t.out %t.ref
# RUN: %dlm run --engine=jit %s > %t.jit
# RUN: %python %S/twins/check.py %t.jit %t.ref
# grad(grad(f)): second derivatives of scalar functions, straight-line and through a loop
# (the first derivative's stacks are differentiated again).

def cube(x: float):
    return x * x * x + sin(x)

def looped(x: float):
    y = x
    for i in range(4):
        y = sin(y) * x + 0.1
    return y

print(grad(grad(cube))(0.7))
print(grad(grad(looped))(0.7))
print(grad(grad(grad(cube)))(0.7))
