# `fused` bodies that codegen does not emit as inline loops, so generated code calls the
# runtime's `fused` kernel for them (tests/codegen/aot-fused-fallback.test): operands that
# broadcast along a symbolic dimension, whose loop strides cannot come from the static types.
n = 2
m = 0
for i in range(3):
    n = n + 1
    m = m + i % 2
# a is f32[n] and b is f32[m], sizes known only at run time (5 and 1).
a = ones(n) * 2.0
b = ones(m) * 3.0
print((a + b) * 0.5 - 1.0)
# c is f32[m] (1 at run time) against a static f32[4].
c = ones(m) * 4.0
print((c + arange(4).astype(f32)) * 2.0 - 0.5)
