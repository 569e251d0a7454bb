# RUN: %dlmc --emit=ssa %s | FileCheck %s
# A while loop whose condition depends on tensor values computed at run time: the carried
# variables are the ones assigned in the body that exist before the loop; `scale` is local to
# the body and not carried.
x = ones(4) * 10.0
steps = 0
while norm(x) > 1.0:
    scale = 0.5
    x = x * scale
    steps += 1
print(x, steps)

# CHECK-LABEL: func @main(
# CHECK-SAME: ) -> none {
# CHECK-NEXT:   %[[V0:[0-9]+]] = ones {dtype = f32, shape = [4]} : f32[4]
# CHECK-NEXT:   %[[V1:[0-9]+]] = const {value = 10.0} : float
# CHECK-NEXT:   %[[V2:[0-9]+]] = mul %[[V0]], %[[V1]] : f32[4]
# CHECK-NEXT:   %[[V3:[0-9]+]] = const {value = 0} : int
# CHECK-NEXT:   %[[V4:[0-9]+]], %[[V5:[0-9]+]] = while iter (%[[V6:[0-9]+]] = %[[V3]], %[[V7:[0-9]+]] = %[[V2]]) : int, f32[4] {
# CHECK-NEXT:     %[[V8:[0-9]+]] = norm %[[V7]] {axes = [], keepdims = false} : f32[]
# CHECK-NEXT:     %[[V9:[0-9]+]] = const {value = 1.0} : float
# CHECK-NEXT:     %[[V10:[0-9]+]] = gt %[[V8]], %[[V9]] : bool[]
# CHECK-NEXT:     condition %[[V10]]
# CHECK-NEXT:   } do {
# CHECK-NEXT:     %[[V11:[0-9]+]] = const {value = 0.5} : float
# CHECK-NEXT:     %[[V12:[0-9]+]] = mul %[[V7]], %[[V11]] : f32[4]
# CHECK-NEXT:     %[[V13:[0-9]+]] = const {value = 1} : int
# CHECK-NEXT:     %[[V14:[0-9]+]] = add %[[V6]], %[[V13]] : int
# CHECK-NEXT:     yield %[[V14]], %[[V12]]
# CHECK-NEXT:   }
# CHECK-NEXT:   print %[[V5]], %[[V4]]
# CHECK-NEXT:   return
# CHECK-NEXT: }
