# A checkpoint file that is not there.
like = (ones(3, 2), zeros(2))
p = load("no-such-model.safetensors", like=like)
print(p)
