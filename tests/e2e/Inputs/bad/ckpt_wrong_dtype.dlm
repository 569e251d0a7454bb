# The checkpoint holds f32 tensors; this program expects f64.
like = (ones(3, 2, dtype=f64), zeros(2, dtype=f64))
p = load("model.safetensors", like=like)
print(p)
