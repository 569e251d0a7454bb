import nn
# The weight as nn.linear stores it ([in, out]): PyTorch's is [out, in].
w = load("torch.safetensors", like=nn.init_linear(4, 3), names=("fc1.weight", "fc1.bias"))
print(w[0])
