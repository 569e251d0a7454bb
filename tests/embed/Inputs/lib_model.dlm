# The model tests/embed/lib-api.test compiles into an AOT library (dlmc --emit=lib): Inputs/mlp.dlm's
# MLP with every parameter annotated (a library function needs each type; B becomes a size
# argument), scalars in and out, and a def that fails at run time.
def predict(w1: Tensor[4, 8], b1: Tensor[8], w2: Tensor[8, 3], b2: Tensor[3], x: Tensor[B, 4]):
    h = relu(x @ w1 + b1)
    return h @ w2 + b2

def loss(params: (Tensor[4, 8], Tensor[8], Tensor[8, 3], Tensor[3]), x: Tensor[B, 4], y: Tensor[i64, B]):
    w1, b1, w2, b2 = params
    return cross_entropy(predict(w1, b1, w2, b2, x), y)

def scale(x: Tensor[f64, N], k: int, s: float, flip: bool):
    y = x * s + k
    if flip:
        y = -y
    return y, sum(y), k > 2

def pick(x: Tensor[N], i: int):
    return x[i]
