# A checkpoint of another model: its first tensor is [3, 2], this program expects [2, 3].
like = (ones(2, 3), zeros(2))
p = load("model.safetensors", like=like)
print(p)
