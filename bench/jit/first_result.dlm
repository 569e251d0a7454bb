# A small script for `dlm run` start-to-first-result time (parse -> sema -> lower -> codegen ->
# JIT -> run), with the per-stage split from --time-passes.
def cell(x, h, w, u):
    return tanh(x @ w + h @ u)

seed(1)
w = randn(8, 32) * 0.1
u = randn(32, 32) * 0.1
h = zeros(1, 32)
for t in range(10):
    x = randn(1, 8)
    h = cell(x, h, w, u)
print(sum(h))
