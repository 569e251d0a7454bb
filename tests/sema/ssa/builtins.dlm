# RUN: %dlmc --emit=ssa %s | FileCheck %s
# Built-ins map onto registry ops with constant arguments as attributes: keyword arguments and
# method sugar, x.T, tensor literals, dtypes, reshape's -1, split into a tuple, and run-time
# sizes (a dataset's row count) that stay one symbolic dim through len(), zeros(n, ...) and
# reshape.
import data

images, labels = data.fashion_mnist("train")
n = len(images)
scores = zeros(n, 10)
pixels = reshape(images, -1, 28, 28)
first = images[0:64]
col = first.sum(axis=0, keepdims=True)
t = tensor([[1.0, 2.0], [3.0, 4.0]]).T
ints = tensor([1, 2, 3])
wide = ints.astype(f64) * 0.5
parts = split(t, 2, axis=1)
save("ckpt.safetensors", (t, wide))
back = load("ckpt.safetensors", like=(t, wide))
print("shapes:", scores, pixels, col, parts[0], back[1], labels)

# CHECK-LABEL: func @main(
# CHECK-SAME: ) -> none {
# CHECK-NEXT:   %[[V0:[0-9]+]] = call @data.fashion_mnist() : (f32[?[[D1:[0-9]+]], 784], i64[?[[D1]]])
# CHECK-NEXT:   %[[V1:[0-9]+]] = get %[[V0]] {index = 0} : f32[?[[D1]], 784]
# CHECK-NEXT:   %[[V2:[0-9]+]] = get %[[V0]] {index = 1} : i64[?[[D1]]]
# CHECK-NEXT:   %[[V3:[0-9]+]] = dim %[[V1]] {axis = 0} : int
# CHECK-NEXT:   %[[V4:[0-9]+]] = zeros %[[V3]] {dtype = f32, shape = [?[[D1]], 10]} : f32[?[[D1]], 10]
# CHECK-NEXT:   %[[V5:[0-9]+]] = reshape %[[V1]] {shape = [-1, 28, 28]} : f32[?[[D1]], 28, 28]
# CHECK-NEXT:   %[[V6:[0-9]+]] = slice %[[V1]] {begin = [0, 0], end = [64, 9223372036854775807], step = [1, 1]} : f32[?[[D2:[0-9]+]], 784]
# CHECK-NEXT:   %[[V7:[0-9]+]] = sum %[[V6]] {axes = [0], keepdims = true} : f32[1, 784]
# CHECK-NEXT:   %[[V8:[0-9]+]] = const {dtype = f32, shape = [2, 2], value = [1.0, 2.0, 3.0, 4.0]} : f32[2, 2]
# CHECK-NEXT:   %[[V9:[0-9]+]] = transpose %[[V8]] : f32[2, 2]
# CHECK-NEXT:   %[[V10:[0-9]+]] = const {dtype = i64, shape = [3], value = [1.0, 2.0, 3.0]} : i64[3]
# CHECK-NEXT:   %[[V11:[0-9]+]] = cast %[[V10]] {dtype = f64} : f64[3]
# CHECK-NEXT:   %[[V12:[0-9]+]] = const {value = 0.5} : float
# CHECK-NEXT:   %[[V13:[0-9]+]] = mul %[[V11]], %[[V12]] : f64[3]
# CHECK-NEXT:   %[[V14:[0-9]+]] = split %[[V9]] {axis = 1, sizes = [1, 1]} : (f32[2, 1], f32[2, 1])
# CHECK-NEXT:   %[[V15:[0-9]+]] = const {value = "ckpt.safetensors"} : str
# CHECK-NEXT:   save %[[V15]], %[[V9]], %[[V13]]
# CHECK-NEXT:   %[[V16:[0-9]+]] = const {value = "ckpt.safetensors"} : str
# CHECK-NEXT:   %[[V17:[0-9]+]] = load %[[V16]] {dtypes = [f32, f64], shapes = {{\[\[}}2, 2], [3{{\]\]}}} : (f32[2, 2], f64[3])
# CHECK-NEXT:   %[[V18:[0-9]+]] = get %[[V17]] {index = 1} : f64[3]
# CHECK-NEXT:   %[[V19:[0-9]+]] = const {value = "shapes:"} : str
# CHECK-NEXT:   %[[V20:[0-9]+]] = get %[[V14]] {index = 0} : f32[2, 1]
# CHECK-NEXT:   print %[[V19]], %[[V4]], %[[V5]], %[[V7]], %[[V20]], %[[V18]], %[[V2]]
# CHECK-NEXT:   return
# CHECK-NEXT: }
# CHECK-LABEL: func @data.fashion_mnist(
# CHECK-SAME: ) -> (f32[?[[D1:[0-9]+]], 784], i64[?[[D1]]]) {
# CHECK-NEXT:   %[[V0:[0-9]+]] = const {value = "train"} : str
# CHECK-NEXT:   %[[V1:[0-9]+]] = fashion_mnist %[[V0]] : (f32[?[[D1]], 784], i64[?[[D1]]])
# CHECK-NEXT:   return %[[V1]]
# CHECK-NEXT: }
