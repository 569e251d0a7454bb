import nn
w = load("torch.safetensors", like=nn.init_torch_linear(4, 3), names=("fc1.weight", "fc.bias"))
print(w[0])
