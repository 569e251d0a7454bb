# Fashion-MNIST from a folder without the IDX files (DLM_DATA points elsewhere).
import data
x, y = data.fashion_mnist("train")
print(len(x))
