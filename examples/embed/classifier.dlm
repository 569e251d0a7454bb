# The model of examples/embed: a small classifier of 2-d points into 3 classes, in PyTorch's
# layout (nn.torch_linear: weights [out, in]), so that its checkpoint opens in PyTorch as a
# state_dict (fc1.weight, fc1.bias, fc2.weight, fc2.bias). A host calls its defs: train.py
# trains it from Python on numpy batches and saves it; serve.cpp loads it and answers requests.
import nn

def init(seed_value: int):
    seed(seed_value)
    return nn.init_torch_linear(2, 16), nn.init_torch_linear(16, 3)

def logits(params, x: Tensor[B, 2]):
    fc1, fc2 = params
    return nn.torch_linear(fc2, tanh(nn.torch_linear(fc1, x)))

# Class probabilities [B, 3].
def predict(params, x: Tensor[B, 2]):
    return softmax(logits(params, x))

def loss(params, x: Tensor[B, 2], y: Tensor[i64, B]):
    return cross_entropy(logits(params, x), y)

# One step of gradient descent: the new parameters and the batch's loss.
def train_step(params, x: Tensor[B, 2], y: Tensor[i64, B], lr: float):
    l, g = value_and_grad(loss)(params, x, y)
    return params - lr * g, l

def save_params(path: str, params):
    save(path, params, names=("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"))

def load_params(path: str):
    return load(path, like=init(0), names=("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"))
