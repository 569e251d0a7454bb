# Writes the checkpoint the other ckpt_*.dlm programs read (a linear layer: [3, 2] and [2]).
save("model.safetensors", (ones(3, 2), zeros(2)))
