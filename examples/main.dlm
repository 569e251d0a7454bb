# examples/main.dlm — a small tour of the language: every construct the frontend knows.
# `dlm run examples/main.dlm` runs it (tests/e2e checks that both engines print the same);
# `dlmc --emit=ast examples/main.dlm` shows how it parses.
import nn

# A function with annotated parameters (a symbolic batch dimension B), a default value and
# a return annotation.
def affine(x: Tensor[B, 4], w: Tensor[4, 3], b: Tensor[3], scale: float = 1.0) -> Tensor[B, 3]:
    return (x @ w + b) * scale

# Tuples travel in and out of functions; `if / elif / else` picks a branch.
def describe(v: float) -> (str, float):
    if v < 0.0:
        label = "negative"
    elif v == 0.0:
        label = "zero"
    else:
        label = "positive"
    return label, abs(v)

seed(0)
x = tensor([[1.0, 2.0, 3.0, 4.0],
            [0.5, -1.0, 0.0, 2.0]])     # a tensor literal, continued inside brackets
w = ones(4, 3) * 0.1
b = zeros(3)
y = affine(x, w, b, scale=2.0)          # a keyword argument
print("y =", y, "shape", y.shape)

# Slicing, indexing, transposition and method sugar.
first_row = x[0]
last_col = x[:, -1]
every_other = x[:, ::2]
print(first_row, last_col, every_other.T, x.sum(axis=1, keepdims=True))

# Loops: for over range and over a tuple, while with a data-dependent condition, break,
# continue, augmented assignment, and a conditional expression.
total = 0.0
for i in range(0, 10, 2):
    if i == 4:
        continue
    total += i
for t in (1.0, 2.5):
    total -= t
steps = 0
z = x
while norm(z) > 1.0 and steps < 100:
    z = z * 0.5
    steps += 1
    if steps > 50:
        break
label, magnitude = describe(total)
sign = 1 if total >= 0.0 else -1
print(label, magnitude, sign, steps)

assert steps < 100, "the loop should converge"
a, (c, d) = 1, (2.0, True)
print(a + 1, c ** 2, not d, 7 // 2, 7 % 3)
pass
