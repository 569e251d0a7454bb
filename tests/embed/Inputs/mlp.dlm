# The model the embedding tests call from C, C++ and Python (tests/embed): a two-layer MLP, its
# loss, a training step, and small defs for scalars, strs and run-time errors.
def predict(w1, b1, w2, b2, x: Tensor[B, 4]):
    h = relu(x @ w1 + b1)
    return h @ w2 + b2

def loss(params, x: Tensor[B, 4], y: Tensor[i64, B]):
    w1, b1, w2, b2 = params
    return cross_entropy(predict(w1, b1, w2, b2, x), y)

def step(params, x: Tensor[B, 4], y: Tensor[i64, B], lr: float):
    l, g = value_and_grad(loss)(params, x, y)
    return params - lr * g, l

def stats(x: Tensor[N], k: int, scale: float, flip: bool):
    s = sum(x) * scale
    if flip:
        s = -s
    return s, k + 1, x.shape[0] > k

def pick(x: Tensor[N], i: int):
    return x[i]

def transposed(x):
    return x.T

def nothing(x):
    print("nothing returned")

print("the script's own statements never run when a host calls its defs")
