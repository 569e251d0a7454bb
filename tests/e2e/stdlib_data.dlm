# RUN: cd %S && %dlm run --engine=graph %s > %t.out
# RUN: cd %S && %python %S/twins/stdlib_data.py > %t.ref
# RUN: %python %S/twins/compare.py %t.out %t.ref
# RUN: cd %S && %python %src/scripts/dlm-diff.py %bin %s > %t.jit
# RUN: %python %S/twins/compare.py %t.jit %t.ref
# stdlib data against a reference reader (twins/stdlib_data.py parses the IDX files with
# gzip + NumPy as the format describes, the CSV with numpy.loadtxt, and shuffles with dlm's
# randperm stream; one-hot rows come from torch.nn.functional.one_hot): Fashion-MNIST's both
# splits (scaling to [0, 1], label dtype), load_idx of an image file, load_csv with a header,
# batching, shuffling that keeps images with their labels, one_hot.
import data

x, y = data.fashion_mnist("test")
print(len(x), x.shape[1], len(y), y[0:12])
print(x[0, 380:392], x[9999, 150:156], sum(x[17]), max(x[17]))
xt, yt = data.fashion_mnist("train")
print(len(xt), yt[59988:60000], xt[59999, 500:506], sum(yt))

imgs = data.load_idx("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz", rank=3)
print(imgs.shape[0], imgs.shape[1], imgs.shape[2], imgs[3, 14, 10:20])

t = data.load_csv("Inputs/stdlib.csv")
print(t.shape[0], t.shape[1], t)
t64 = data.load_csv("Inputs/stdlib.csv", dtype=f64)
print(t64[2])

print(data.num_batches(x, 128), data.num_batches(x, 3), data.batch(y, 3, 5), data.batch(x, 7, 2)[1, 300:304])

seed(11)
xs, ys = data.shuffle(x, y)
print(ys[0:10], xs[4, 380:386])
print(data.shuffle_rows(t))
print(data.one_hot(y[0:4], 10))
