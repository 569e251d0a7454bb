# dlm's side of tests/e2e/weights-by-name.test: a PyTorch state_dict (fc1 4->3, fc2 3->3 square,
# weights [out, in]) loaded by name into nn.torch_linear layers, run on the input PyTorch wrote;
# then twice the weights saved under the same names, for PyTorch to load.
import nn

names = ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")
like = (nn.init_torch_linear(4, 3), nn.init_torch_linear(3, 3))
params = load("torch.safetensors", like=like, names=names)
x = load("x.safetensors", like=zeros(2, 4), names="x")
fc1, fc2 = params
y = nn.torch_linear(fc2, relu(nn.torch_linear(fc1, x)))
for i in range(2):
    print("y", float(y[i][0]), float(y[i][1]), float(y[i][2]))
save("from_dlm.safetensors", params + params, names=names)
