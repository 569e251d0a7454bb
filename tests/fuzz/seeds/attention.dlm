# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# A seed of the whole-pipeline fuzzer (docs/testing.md "Fuzzing"): single-head attention with a
# causal mask over a batch (batched matmul broadcasting leading dims, transpose with a perm,
# softmax on the last axis, where, reshape), layer norm from the standard library and its
# gradient with respect to every weight, so that mutants reach the batched linear algebra and
# its shape rules on both engines.
# CHECK: scores
# CHECK: grad
# CHECK: done
import nn

def attend(wq, wk, wv, x, mask):
    q = x @ wq
    k = x @ wk
    s = q @ transpose(k, (0, 2, 1)) / sqrt(4.0)
    p = softmax(where(mask, s, full(s.shape, -1e9)), axis=-1)
    return p @ (x @ wv)

def loss(wq, wk, wv, ln, x, mask):
    y = nn.layer_norm(ln, attend(wq, wk, wv, x, mask))
    return mean(y * y)

seed(7)
x = randn(2, 5, 4)
wq = randn(4, 4) * 0.3
wk = randn(4, 4) * 0.3
wv = randn(4, 4) * 0.3
mask = arange(5).reshape((5, 1)) >= arange(5).reshape((1, 5))
out = attend(wq, wk, wv, x, mask)
print("scores", out.shape, reshape(out, (10, 4)).sum(axis=0).shape, mean(out))
g = grad(loss, argnums=(0, 1, 2))(wq, wk, wv, nn.init_layer_norm(4), x, mask)
print("grad", g[0].shape, norm(g[0]), norm(g[1]), norm(g[2]))
print("done")
