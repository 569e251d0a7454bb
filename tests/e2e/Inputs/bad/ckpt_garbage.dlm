# A checkpoint that is not a safetensors file at all.
like = (ones(3, 2), zeros(2))
p = load("garbage.safetensors", like=like)
print(p)
