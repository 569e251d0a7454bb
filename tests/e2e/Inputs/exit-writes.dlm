# Writes through every path a run has: many prints (more than one stdio buffer), a checkpoint
# in the working directory, then the last print.
w = arange(6).reshape(2, 3).astype(f32) * 0.5
b = tensor([1.0, -2.0, 3.0])
for i in range(400):
    print("line", i, sum(w) * i)
save("exit-checkpoint.safetensors", (w, b))
print("saved", w + b)
