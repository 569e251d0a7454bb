# A small program the JIT gives the full -O2 pipeline (it has a loop nest: docs/codegen.md "Large
# programs"): a recurrent cell over a few steps, printing a tensor, a float and a string, so that a
# cached object must carry the program's constants and strings.
def cell(x, h, w, u):
    return tanh(x @ w + h @ u)

seed(3)
w = randn(4, 8) * 0.5
u = randn(8, 8) * 0.5
h = zeros(1, 8)
for e in range(2):
    for t in range(3):
        h = cell(randn(1, 4), h, w, u)
print(h)
print("mean", float(sum(h)) / 8.0)
