# RUN: %dlm run --engine=graph %s > %t.out
# RUN: %python %S/twins/prints.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# print's formats through the graph executor: strings, ints, floats, bools, tensors of each
# dtype and rank, several values on one line, and prints in loop and branch bodies, which must
# come out in program order.

print("hello", 42, 2.5, True, False)
print(0.1, 1e-05, 3.0, -7, 1.0 / 3.0)
print(tensor([1.0, 2.5, -3.0]))
print(tensor([[1, 2], [3, 4]]))
print(arange(6).reshape(2, 3).astype(f64))
print(tensor([1.0, 2.0]) > 1.5)
print(zeros(2, 2, 2))
for i in range(3):
    print("iteration", i)
    if i == 1:
        print("  middle")
print("end")
