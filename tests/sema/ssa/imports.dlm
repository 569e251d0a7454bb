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
# CHECK-LABEL: func @nn.init_linear(
# CHECK-SAME: ) -> (f32[784, 32], f32[32]) {
# CHECK-LABEL: func @nn.init_linear.1(
# CHECK-SAME: ) -> (f32[32, 10], f32[10]) {
# CHECK-LABEL: func @nn.mlp(
# CHECK-SAME: %[[V0:[0-9]+]]: ((f32[784, 32], f32[32]), (f32[32, 10], f32[10])), %[[V1:[0-9]+]]: f32[16, 784]) -> f32[16, 10] {
# CHECK-LABEL: func @nn.linear(
# CHECK-SAME: %[[V0:[0-9]+]]: (f32[784, 32], f32[32]), %[[V1:[0-9]+]]: f32[16, 784]) -> f32[16, 32] {
# CHECK-LABEL: func @nn.linear.1(
# CHECK-SAME: %[[V0:[0-9]+]]: (f32[32, 10], f32[10]), %[[V1:[0-9]+]]: f32[16, 32]) -> f32[16, 10] {
# CHECK-LABEL: func @helpers.loss_of(
# CHECK-SAME: %[[V0:[0-9]+]]: ((f32[784, 32], f32[32]), (f32[32, 10], f32[10])), %[[V1:[0-9]+]]: f32[16, 784], %[[V2:[0-9]+]]: i64[16]) -> f32[] {
# CHECK-LABEL: func @nn.loss(
# CHECK-SAME: %[[V0:[0-9]+]]: f32[16, 10], %[[V1:[0-9]+]]: i64[16]) -> f32[] {
# CHECK-LABEL: func @optim.sgd(
# CHECK-SAME: %[[V0:[0-9]+]]: ((f32[784, 32], f32[32]), (f32[32, 10], f32[10])), %[[V1:[0-9]+]]: ((f32[784, 32], f32[32]), (f32[32, 10], f32[10])), %[[V2:[0-9]+]]: float) -> ((f32[784, 32], f32[32]), (f32[32, 10], f32[10])) {
# CHECK-LABEL: func @helpers.twice(
# CHECK-SAME: %[[V0:[0-9]+]]: f32[16, 10]) -> f32[16, 10] {
