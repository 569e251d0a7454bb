save("out.safetensors", (zeros(2), zeros(2)), names=("a", "a"))
