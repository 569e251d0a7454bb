# RUN: %dlmc --emit=ssa %s | FileCheck %s
# grad, value_and_grad and checkpoint are typed: the gradient has the type of the argument it
# is taken for (a tuple argument gets a tuple gradient of the same structure), argnums may be a
# tuple, and grad composes.
def loss(params, x):
    w, b = params
    return mean((x @ w + b) ** 2)

def cube(x):
    return x * x * x

params = (zeros(3, 2), zeros(2))
x = ones(5, 3)
g = grad(loss)(params, x)
v, gs = value_and_grad(loss, argnums=(0, 1))(params, x)
d2 = grad(grad(cube))(2.0)
c = checkpoint(loss)(params, x)
s = stop_gradient(x)

# CHECK-LABEL: func @main(
# CHECK-SAME: ) -> none {
# CHECK-NEXT:   %[[V0:[0-9]+]] = zeros {dtype = f32, shape = [3, 2]} : f32[3, 2]
# CHECK-NEXT:   %[[V1:[0-9]+]] = zeros {dtype = f32, shape = [2]} : f32[2]
# CHECK-NEXT:   %[[V2:[0-9]+]] = tuple %[[V0]], %[[V1]] : (f32[3, 2], f32[2])
# CHECK-NEXT:   %[[V3:[0-9]+]] = ones {dtype = f32, shape = [5, 3]} : f32[5, 3]
# CHECK-NEXT:   %[[V4:[0-9]+]] = grad @loss(%[[V2]], %[[V3]]) {argnums = [0], with_value = false} : (f32[3, 2], f32[2])
# CHECK-NEXT:   %[[V5:[0-9]+]] = grad @loss(%[[V2]], %[[V3]]) {argnums = [0, 1], with_value = true} : (f32[], ((f32[3, 2], f32[2]), f32[5, 3]))
# CHECK-NEXT:   %[[V6:[0-9]+]] = const {value = 2.0} : float
# CHECK-NEXT:   %[[V7:[0-9]+]] = grad @grad(fn cube, argnums=0)(%[[V6]]) {argnums = [0], with_value = false} : float
# CHECK-NEXT:   %[[V8:[0-9]+]] = call @checkpoint(fn loss)(%[[V2]], %[[V3]]) : f32[]
# CHECK-NEXT:   %[[V9:[0-9]+]] = stop_gradient %[[V3]] : f32[5, 3]
# CHECK-NEXT:   return
# CHECK-NEXT: }
# CHECK-LABEL: func @loss(
# CHECK-SAME: %[[V0:[0-9]+]]: (f32[3, 2], f32[2]), %[[V1:[0-9]+]]: f32[5, 3]) -> f32[] {
# CHECK-NEXT:   %[[V2:[0-9]+]] = get %[[V0]] {index = 0} : f32[3, 2]
# CHECK-NEXT:   %[[V3:[0-9]+]] = get %[[V0]] {index = 1} : f32[2]
# CHECK-NEXT:   %[[V4:[0-9]+]] = matmul %[[V1]], %[[V2]] : f32[5, 2]
# CHECK-NEXT:   %[[V5:[0-9]+]] = add %[[V4]], %[[V3]] : f32[5, 2]
# CHECK-NEXT:   %[[V6:[0-9]+]] = const {value = 2} : int
# CHECK-NEXT:   %[[V7:[0-9]+]] = pow %[[V5]], %[[V6]] : f32[5, 2]
# CHECK-NEXT:   %[[V8:[0-9]+]] = mean %[[V7]] {axes = [], keepdims = false} : f32[]
# CHECK-NEXT:   return %[[V8]]
# CHECK-NEXT: }
# CHECK-LABEL: func @grad(
# CHECK-SAME: fn cube, argnums=0)(%[[V0:[0-9]+]]: float) -> float {
# CHECK-NEXT:   %[[V1:[0-9]+]] = grad @cube(%[[V0]]) {argnums = [0], with_value = false} : float
# CHECK-NEXT:   return %[[V1]]
# CHECK-NEXT: }
# CHECK-LABEL: func @cube(
# CHECK-SAME: %[[V0:[0-9]+]]: float) -> float {
# CHECK-NEXT:   %[[V1:[0-9]+]] = mul %[[V0]], %[[V0]] : float
# CHECK-NEXT:   %[[V2:[0-9]+]] = mul %[[V1]], %[[V0]] : float
# CHECK-NEXT:   return %[[V2]]
# CHECK-NEXT: }
# CHECK-LABEL: func @checkpoint(
# CHECK-SAME: fn loss)(%[[V0:[0-9]+]]: (f32[3, 2], f32[2]), %[[V1:[0-9]+]]: f32[5, 3]) -> f32[] attributes {checkpoint} {
# CHECK-NEXT:   %[[V2:[0-9]+]] = call @loss(%[[V0]], %[[V1]]) : f32[]
# CHECK-NEXT:   return %[[V2]]
# CHECK-NEXT: }
