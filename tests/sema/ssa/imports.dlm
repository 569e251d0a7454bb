# RUN: %dlmc --emit=ssa %s | FileCheck %s
# Imports: stdlib modules (nn, optim, data) and a file relative to this one; module functions
# are specialised under qualified names.
import nn
import optim
import ./Inputs/helpers

params = nn.init_mlp(784, 32, 10)
x = zeros(16, 784)
labels = zeros(16, dtype=i64)
logits = nn.mlp(params, x)
g = grad(helpers.loss_of)(params, x, labels)
params = optim.sgd(params, g, 0.1)
print(helpers.twice(logits))

# CHECK-LABEL: func @main(
# CHECK-SAME: ) -> none {
# CHECK-NEXT:   %[[V0:[0-9]+]] = call @nn.init_mlp() : ((f32[784, 32], f32[32]), (f32[32, 10], f32[10]))
# CHECK-NEXT:   %[[V1:[0-9]+]] = zeros {dtype = f32, shape = [16, 784]} : f32[16, 784]
# CHECK-NEXT:   %[[V2:[0-9]+]] = zeros {dtype = i64, shape = [16]} : i64[16]
# CHECK-NEXT:   %[[V3:[0-9]+]] = call @nn.mlp(%[[V0]], %[[V1]]) : f32[16, 10]
# CHECK-NEXT:   %[[V4:[0-9]+]] = grad @helpers.loss_of(%[[V0]], %[[V1]], %[[V2]]) {argnums = [0], with_value = false} : ((f32[784, 32], f32[32]), (f32[32, 10], f32[10]))
# CHECK-NEXT:   %[[V5:[0-9]+]] = const {value = 0.1} : float
# CHECK-NEXT:   %[[V6:[0-9]+]] = call @optim.sgd(%[[V0]], %[[V4]], %[[V5]]) : ((f32[784, 32], f32[32]), (f32[32, 10], f32[10]))
# CHECK-NEXT:   %[[V7:[0-9]+]] = call @helpers.twice(%[[V3]]) : f32[16, 10]
# CHECK-NEXT:   print %[[V7]]
# CHECK-NEXT:   return
# CHECK-NEXT: }
# CHECK-LABEL: func @nn.init_mlp(
# CHECK-SAME: ) -> ((f32[784, 32], f32[32]), (f32[32, 10], f32[10])) {
# CHECK-NEXT:   %[[V0:[0-9]+]] = call @nn.init_linear() : (f32[784, 32], f32[32])
# CHECK-NEXT:   %[[V1:[0-9]+]] = call @nn.init_linear.1() : (f32[32, 10], f32[10])
# CHECK-NEXT:   %[[V2:[0-9]+]] = tuple %[[V0]], %[[V1]] : ((f32[784, 32], f32[32]), (f32[32, 10], f32[10]))
# CHECK-NEXT:   return %[[V2]]
# CHECK-NEXT: }
# CHECK-LABEL: func @nn.init_linear(
# CHECK-SAME: ) -> (f32[784, 32], f32[32]) {
# CHECK-NEXT:   %[[V0:[0-9]+]] = randn {dtype = f32, shape = [784, 32]} : f32[784, 32]
# CHECK-NEXT:   %[[V1:[0-9]+]] = const {value = 0.002551020408163265} : float
# CHECK-NEXT:   %[[V2:[0-9]+]] = sqrt %[[V1]] : float
# CHECK-NEXT:   %[[V3:[0-9]+]] = mul %[[V0]], %[[V2]] : f32[784, 32]
# CHECK-NEXT:   %[[V4:[0-9]+]] = zeros {dtype = f32, shape = [32]} : f32[32]
# CHECK-NEXT:   %[[V5:[0-9]+]] = tuple %[[V3]], %[[V4]] : (f32[784, 32], f32[32])
# CHECK-NEXT:   return %[[V5]]
# CHECK-NEXT: }
# CHECK-LABEL: func @nn.init_linear.1(
# CHECK-SAME: ) -> (f32[32, 10], f32[10]) {
# CHECK-NEXT:   %[[V0:[0-9]+]] = randn {dtype = f32, shape = [32, 10]} : f32[32, 10]
# CHECK-NEXT:   %[[V1:[0-9]+]] = const {value = 0.0625} : float
# CHECK-NEXT:   %[[V2:[0-9]+]] = sqrt %[[V1]] : float
# CHECK-NEXT:   %[[V3:[0-9]+]] = mul %[[V0]], %[[V2]] : f32[32, 10]
# CHECK-NEXT:   %[[V4:[0-9]+]] = zeros {dtype = f32, shape = [10]} : f32[10]
# CHECK-NEXT:   %[[V5:[0-9]+]] = tuple %[[V3]], %[[V4]] : (f32[32, 10], f32[10])
# CHECK-NEXT:   return %[[V5]]
# CHECK-NEXT: }
# CHECK-LABEL: func @nn.mlp(
# CHECK-SAME: %[[V0:[0-9]+]]: ((f32[784, 32], f32[32]), (f32[32, 10], f32[10])), %[[V1:[0-9]+]]: f32[16, 784]) -> f32[16, 10] {
# CHECK-NEXT:   %[[V2:[0-9]+]] = get %[[V0]] {index = 0} : (f32[784, 32], f32[32])
# CHECK-NEXT:   %[[V3:[0-9]+]] = get %[[V0]] {index = 1} : (f32[32, 10], f32[10])
# CHECK-NEXT:   %[[V4:[0-9]+]] = call @nn.linear(%[[V2]], %[[V1]]) : f32[16, 32]
# CHECK-NEXT:   %[[V5:[0-9]+]] = relu %[[V4]] : f32[16, 32]
# CHECK-NEXT:   %[[V6:[0-9]+]] = call @nn.linear.1(%[[V3]], %[[V5]]) : f32[16, 10]
# CHECK-NEXT:   return %[[V6]]
# CHECK-NEXT: }
# CHECK-LABEL: func @nn.linear(
# CHECK-SAME: %[[V0:[0-9]+]]: (f32[784, 32], f32[32]), %[[V1:[0-9]+]]: f32[16, 784]) -> f32[16, 32] {
# CHECK-NEXT:   %[[V2:[0-9]+]] = get %[[V0]] {index = 0} : f32[784, 32]
# CHECK-NEXT:   %[[V3:[0-9]+]] = get %[[V0]] {index = 1} : f32[32]
# CHECK-NEXT:   %[[V4:[0-9]+]] = matmul %[[V1]], %[[V2]] : f32[16, 32]
# CHECK-NEXT:   %[[V5:[0-9]+]] = add %[[V4]], %[[V3]] : f32[16, 32]
# CHECK-NEXT:   return %[[V5]]
# CHECK-NEXT: }
# CHECK-LABEL: func @nn.linear.1(
# CHECK-SAME: %[[V0:[0-9]+]]: (f32[32, 10], f32[10]), %[[V1:[0-9]+]]: f32[16, 32]) -> f32[16, 10] {
# CHECK-NEXT:   %[[V2:[0-9]+]] = get %[[V0]] {index = 0} : f32[32, 10]
# CHECK-NEXT:   %[[V3:[0-9]+]] = get %[[V0]] {index = 1} : f32[10]
# CHECK-NEXT:   %[[V4:[0-9]+]] = matmul %[[V1]], %[[V2]] : f32[16, 10]
# CHECK-NEXT:   %[[V5:[0-9]+]] = add %[[V4]], %[[V3]] : f32[16, 10]
# CHECK-NEXT:   return %[[V5]]
# CHECK-NEXT: }
# CHECK-LABEL: func @helpers.loss_of(
# CHECK-SAME: %[[V0:[0-9]+]]: ((f32[784, 32], f32[32]), (f32[32, 10], f32[10])), %[[V1:[0-9]+]]: f32[16, 784], %[[V2:[0-9]+]]: i64[16]) -> f32[] {
# CHECK-NEXT:   %[[V3:[0-9]+]] = call @nn.mlp(%[[V0]], %[[V1]]) : f32[16, 10]
# CHECK-NEXT:   %[[V4:[0-9]+]] = call @nn.loss(%[[V3]], %[[V2]]) : f32[]
# CHECK-NEXT:   return %[[V4]]
# CHECK-NEXT: }
# CHECK-LABEL: func @nn.loss(
# CHECK-SAME: %[[V0:[0-9]+]]: f32[16, 10], %[[V1:[0-9]+]]: i64[16]) -> f32[] {
# CHECK-NEXT:   %[[V2:[0-9]+]] = cross_entropy %[[V0]], %[[V1]] : f32[]
# CHECK-NEXT:   return %[[V2]]
# CHECK-NEXT: }
# CHECK-LABEL: func @optim.sgd(
# CHECK-SAME: %[[V0:[0-9]+]]: ((f32[784, 32], f32[32]), (f32[32, 10], f32[10])), %[[V1:[0-9]+]]: ((f32[784, 32], f32[32]), (f32[32, 10], f32[10])), %[[V2:[0-9]+]]: float) -> ((f32[784, 32], f32[32]), (f32[32, 10], f32[10])) {
# CHECK-NEXT:   %[[V3:[0-9]+]] = get %[[V1]] {index = 0} : (f32[784, 32], f32[32])
# CHECK-NEXT:   %[[V4:[0-9]+]] = get %[[V3]] {index = 0} : f32[784, 32]
# CHECK-NEXT:   %[[V5:[0-9]+]] = mul %[[V2]], %[[V4]] : f32[784, 32]
# CHECK-NEXT:   %[[V6:[0-9]+]] = get %[[V3]] {index = 1} : f32[32]
# CHECK-NEXT:   %[[V7:[0-9]+]] = mul %[[V2]], %[[V6]] : f32[32]
# CHECK-NEXT:   %[[V8:[0-9]+]] = get %[[V1]] {index = 1} : (f32[32, 10], f32[10])
# CHECK-NEXT:   %[[V9:[0-9]+]] = get %[[V8]] {index = 0} : f32[32, 10]
# CHECK-NEXT:   %[[V10:[0-9]+]] = mul %[[V2]], %[[V9]] : f32[32, 10]
# CHECK-NEXT:   %[[V11:[0-9]+]] = get %[[V8]] {index = 1} : f32[10]
# CHECK-NEXT:   %[[V12:[0-9]+]] = mul %[[V2]], %[[V11]] : f32[10]
# CHECK-NEXT:   %[[V13:[0-9]+]] = get %[[V0]] {index = 0} : (f32[784, 32], f32[32])
# CHECK-NEXT:   %[[V14:[0-9]+]] = get %[[V13]] {index = 0} : f32[784, 32]
# CHECK-NEXT:   %[[V15:[0-9]+]] = sub %[[V14]], %[[V5]] : f32[784, 32]
# CHECK-NEXT:   %[[V16:[0-9]+]] = get %[[V13]] {index = 1} : f32[32]
# CHECK-NEXT:   %[[V17:[0-9]+]] = sub %[[V16]], %[[V7]] : f32[32]
# CHECK-NEXT:   %[[V18:[0-9]+]] = tuple %[[V15]], %[[V17]] : (f32[784, 32], f32[32])
# CHECK-NEXT:   %[[V19:[0-9]+]] = get %[[V0]] {index = 1} : (f32[32, 10], f32[10])
# CHECK-NEXT:   %[[V20:[0-9]+]] = get %[[V19]] {index = 0} : f32[32, 10]
# CHECK-NEXT:   %[[V21:[0-9]+]] = sub %[[V20]], %[[V10]] : f32[32, 10]
# CHECK-NEXT:   %[[V22:[0-9]+]] = get %[[V19]] {index = 1} : f32[10]
# CHECK-NEXT:   %[[V23:[0-9]+]] = sub %[[V22]], %[[V12]] : f32[10]
# CHECK-NEXT:   %[[V24:[0-9]+]] = tuple %[[V21]], %[[V23]] : (f32[32, 10], f32[10])
# CHECK-NEXT:   %[[V25:[0-9]+]] = tuple %[[V18]], %[[V24]] : ((f32[784, 32], f32[32]), (f32[32, 10], f32[10]))
# CHECK-NEXT:   return %[[V25]]
# CHECK-NEXT: }
# CHECK-LABEL: func @helpers.twice(
# CHECK-SAME: %[[V0:[0-9]+]]: f32[16, 10]) -> f32[16, 10] {
# CHECK-NEXT:   %[[V1:[0-9]+]] = add %[[V0]], %[[V0]] : f32[16, 10]
# CHECK-NEXT:   return %[[V1]]
# CHECK-NEXT: }
