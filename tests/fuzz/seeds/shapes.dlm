# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# A seed of the whole-pipeline fuzzer (docs/testing.md "Fuzzing"): the shape built-ins the other
# seeds leave out (split, chunk, stack, broadcast_to, squeeze, expand_dims, full, eye, gather
# with negative indices, strided and reversed slices), reductions with axis= and keepdims=, and
# a gradient through all of them, so that mutants reach each shape rule and its gradient.
# CHECK: parts
# CHECK: grad
# CHECK: done

def mix(x, w):
    a, b = split(x, 2, axis=1)
    c, d, e = chunk(x * w, 3, axis=0)
    s = stack((a, b), axis=0)
    t = concat((c, d, e), axis=0)
    u = broadcast_to(expand_dims(sum(t, axis=1), 1), (6, 4))
    v = squeeze(expand_dims(x[::-1, 1::2], 0), 0)
    r = gather(x, tensor([0, -1, 2]), axis=0)
    return sum(s) + mean(u * x) + logsumexp(v, axis=-1).sum() + norm(r) + max(t, axis=0).sum()

seed(5)
x = randn(6, 4)
w = full((6, 4), 0.5) + concat((eye(4), zeros(2, 4)), axis=0)
p, q = split(x, (1, 3), axis=1)
print("parts", p.shape, q.shape, min(q, axis=1, keepdims=True).shape)
print(mix(x, w))
gx, gw = grad(mix, argnums=(0, 1))(x, w)
print("grad", gx.shape, sum(gx), sum(gw))
print(clip(x, -0.5, 0.5)[2:5:2], where(x > 0.0, x, -x).sum(axis=0))
print("done")
