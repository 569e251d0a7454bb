# RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d
# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# A seed of the whole-pipeline fuzzer (docs/testing.md "Fuzzing"): side effects (print, progress,
# save) between computations that can fail at run time (an index by a run-time int, a product of
# run-time rows, cross_entropy's labels, a reshape to a run-time size, an integer division), in
# loops and in a differentiated function, so that a mutant whose number or index makes one of them
# fail checks program order (docs/ir.md "Program order"): every engine and level prints the same
# lines before the same first error.
# CHECK: epoch 0
# CHECK: epoch 2
# CHECK: picked
# CHECK: done
import metrics

def step(w, x, labels, k: int):
    h = tanh(x @ w)
    print("rows", h.shape[0], k)
    return metrics.cross_entropy_loss(h, labels) + sum(h[k]) * 0.1

seed(2)
x = randn(5, 3)
w = randn(3, 4) * 0.5
labels = tensor([1, 0, 3, 2, 1])
n = int(sum(labels)) // 2
for epoch in range(3):
    progress(epoch + 1, 3)
    v, g = value_and_grad(step)(w, x, labels, n)
    w = w - 0.1 * g
    print("epoch", epoch, v > 0.0)
i = int(argmax(sum(x, axis=1), axis=0))
print("picked", i, x[i].shape, x[i % 5][1] == x[i][1])
save("w.safetensors", w)
r = reshape(x[0:n], (n * 3,))
print(r.shape, 17 // (n - 1), load("w.safetensors", like=w).shape)
print("done")
