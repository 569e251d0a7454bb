# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.out
# RUN: %python %S/twins/negative_step_slices.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# A slice with a negative step and no start begins at the last element (Python's rule). Sema used
# to write the omitted start as 0, so `y[::-1, 1:2]` of a 4x6 tensor had shape [1, 1] and held
# only y[0, 1]; the type rule read the omitted start the same way. The gradient of such a slice
# scatters back to the mirrored positions.
y = arange(24).reshape(4, 6).astype(f32)
print(y[::-1, 1:2])
print(y[::-2, :])
print(y[2::-1, 0])
print(y[:, ::-3])
print(y[::1, 4:])
def f(w):
    return sum(w[::-1, ::2] * arange(12).reshape(4, 3).astype(f32))
print(grad(f)(y))
