# Elementwise chains that fuse at -O2 (tests/gpu/emit-ptx.dlm, ptxas.test, FusedTest.cpp):
# a same-shape chain, a row-broadcast operand with a 0-d scalar, comparisons and where with a
# bool intermediate, and a chain whose log has no GPU form.
x = randn(64, 256)
y = randn(64, 256)
b = randn(256)
print(tanh(x * 2.0 + y) * sigmoid(x) - relu(y))
print(x * b + 1.0)
print(where(x > y, exp(x * 0.5), maximum(y, b) - 1.0))
print(log(abs(x) + 1.0) * y)
