# RUN: %dlmc --emit=ssa %s | FileCheck %s
# Calls: a def called before its definition, keyword arguments and defaults, a generic def
# specialised at two argument types (one function per type, shared by calls with equal types),
# static int arguments that fix shapes, and a def that is never called but fully annotated,
# checked at its annotated (symbolic) types.
def step(x):
    return double(x), double(x, factor=3), double(2)

def double(v, factor=2):
    return v * factor

def make(n):
    return zeros(n, 2)

def layer(x: Tensor[B, 4]) -> Tensor[B, 4]:
    return double(x)

a, b, c = step(ones(5, 4))
m = make(7)
print(a, b, c, m)

# CHECK-LABEL: func @main(
# CHECK-SAME: ) -> none {
# CHECK-NEXT:   %[[V0:[0-9]+]] = ones {dtype = f32, shape = [5, 4]} : f32[5, 4]
# CHECK-NEXT:   %[[V1:[0-9]+]] = call @step(%[[V0]]) : (f32[5, 4], f32[5, 4], int)
# CHECK-NEXT:   %[[V2:[0-9]+]] = get %[[V1]] {index = 0} : f32[5, 4]
# CHECK-NEXT:   %[[V3:[0-9]+]] = get %[[V1]] {index = 1} : f32[5, 4]
# CHECK-NEXT:   %[[V4:[0-9]+]] = get %[[V1]] {index = 2} : int
# CHECK-NEXT:   %[[V5:[0-9]+]] = call @make() : f32[7, 2]
# CHECK-NEXT:   print %[[V2]], %[[V3]], %[[V4]], %[[V5]]
# CHECK-NEXT:   return
# CHECK-NEXT: }
# CHECK-LABEL: func @step(
# CHECK-SAME: %[[V0:[0-9]+]]: f32[5, 4]) -> (f32[5, 4], f32[5, 4], int) {
# CHECK-NEXT:   %[[V1:[0-9]+]] = call @double(%[[V0]]) : f32[5, 4]
# CHECK-NEXT:   %[[V2:[0-9]+]] = call @double.1(%[[V0]]) : f32[5, 4]
# CHECK-NEXT:   %[[V3:[0-9]+]] = call @double.2() : int
# CHECK-NEXT:   %[[V4:[0-9]+]] = tuple %[[V1]], %[[V2]], %[[V3]] : (f32[5, 4], f32[5, 4], int)
# CHECK-NEXT:   return %[[V4]]
# CHECK-NEXT: }
# CHECK-LABEL: func @double(
# CHECK-SAME: %[[V0:[0-9]+]]: f32[5, 4]) -> f32[5, 4] {
# CHECK-NEXT:   %[[V1:[0-9]+]] = const {value = 2} : int
# CHECK-NEXT:   %[[V2:[0-9]+]] = mul %[[V0]], %[[V1]] : f32[5, 4]
# CHECK-NEXT:   return %[[V2]]
# CHECK-NEXT: }
# CHECK-LABEL: func @double.1(
# CHECK-SAME: %[[V0:[0-9]+]]: f32[5, 4]) -> f32[5, 4] {
# CHECK-NEXT:   %[[V1:[0-9]+]] = const {value = 3} : int
# CHECK-NEXT:   %[[V2:[0-9]+]] = mul %[[V0]], %[[V1]] : f32[5, 4]
# CHECK-NEXT:   return %[[V2]]
# CHECK-NEXT: }
# CHECK-LABEL: func @double.2(
# CHECK-SAME: ) -> int {
# CHECK-NEXT:   %[[V0:[0-9]+]] = const {value = 4} : int
# CHECK-NEXT:   return %[[V0]]
# CHECK-NEXT: }
# CHECK-LABEL: func @make(
# CHECK-SAME: ) -> f32[7, 2] {
# CHECK-NEXT:   %[[V0:[0-9]+]] = zeros {dtype = f32, shape = [7, 2]} : f32[7, 2]
# CHECK-NEXT:   return %[[V0]]
# CHECK-NEXT: }
# CHECK-LABEL: func @layer(
# CHECK-SAME: %[[V0:[0-9]+]]: f32[B, 4]) -> f32[B, 4] {
# CHECK-NEXT:   %[[V1:[0-9]+]] = call @double.3(%[[V0]]) : f32[B, 4]
# CHECK-NEXT:   return %[[V1]]
# CHECK-NEXT: }
# CHECK-LABEL: func @double.3(
# CHECK-SAME: %[[V0:[0-9]+]]: f32[B, 4]) -> f32[B, 4] {
# CHECK-NEXT:   %[[V1:[0-9]+]] = const {value = 2} : int
# CHECK-NEXT:   %[[V2:[0-9]+]] = mul %[[V0]], %[[V1]] : f32[B, 4]
# CHECK-NEXT:   return %[[V2]]
# CHECK-NEXT: }
