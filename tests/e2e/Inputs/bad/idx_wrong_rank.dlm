# The Fashion-MNIST image file holds [N, 28, 28]: reading it with rank=2 is an error, not a
# tensor of the wrong rank.
import data
x = data.load_idx("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz", rank=2)
print(x.shape[0])
