# RUN: %dlmc --emit=ssa %s | FileCheck %s
# Nested if/elif/else on run-time conditions: each branch is a region, the variables assigned in
# the branches are joined as results of the `if` (elif is an `if` nested in the else region),
# and a variable assigned with different static shapes joins to a fresh symbolic dim.
def pick(x):
    k = argmax(x)
    if k > 2:
        y = x * 2.0
    elif k > 1:
        y = x + 1.0
    else:
        if sum(x) > 0.0:
            y = x
        else:
            y = concat((x, x))
    return y

z = pick(zeros(3))

# CHECK-LABEL: func @main(
# CHECK-SAME: ) -> none {
# CHECK-NEXT:   %[[V0:[0-9]+]] = zeros {dtype = f32, shape = [3]} : f32[3]
# CHECK-NEXT:   %[[V1:[0-9]+]] = call @pick(%[[V0]]) : f32[?[[D3:[0-9]+]]]
# CHECK-NEXT:   return
# CHECK-NEXT: }
# CHECK-LABEL: func @pick(
# CHECK-SAME: %[[V0:[0-9]+]]: f32[3]) -> f32[?[[D3:[0-9]+]]] {
# CHECK-NEXT:   %[[V1:[0-9]+]] = argmax %[[V0]] {keepdims = false} : i64[]
# CHECK-NEXT:   %[[V2:[0-9]+]] = const {value = 2} : int
# CHECK-NEXT:   %[[V3:[0-9]+]] = gt %[[V1]], %[[V2]] : bool[]
# CHECK-NEXT:   %[[V4:[0-9]+]] = if %[[V3]] : f32[?[[D3]]] {
# CHECK-NEXT:     %[[V5:[0-9]+]] = const {value = 2.0} : float
# CHECK-NEXT:     %[[V6:[0-9]+]] = mul %[[V0]], %[[V5]] : f32[3]
# CHECK-NEXT:     yield %[[V6]]
# CHECK-NEXT:   } else {
# CHECK-NEXT:     %[[V7:[0-9]+]] = const {value = 1} : int
# CHECK-NEXT:     %[[V8:[0-9]+]] = gt %[[V1]], %[[V7]] : bool[]
# CHECK-NEXT:     %[[V9:[0-9]+]] = if %[[V8]] : f32[?[[D2:[0-9]+]]] {
# CHECK-NEXT:       %[[V10:[0-9]+]] = const {value = 1.0} : float
# CHECK-NEXT:       %[[V11:[0-9]+]] = add %[[V0]], %[[V10]] : f32[3]
# CHECK-NEXT:       yield %[[V11]]
# CHECK-NEXT:     } else {
# CHECK-NEXT:       %[[V12:[0-9]+]] = sum %[[V0]] {axes = [], keepdims = false} : f32[]
# CHECK-NEXT:       %[[V13:[0-9]+]] = const {value = 0.0} : float
# CHECK-NEXT:       %[[V14:[0-9]+]] = gt %[[V12]], %[[V13]] : bool[]
# CHECK-NEXT:       %[[V15:[0-9]+]] = if %[[V14]] : f32[?[[D1:[0-9]+]]] {
# CHECK-NEXT:         yield %[[V0]]
# CHECK-NEXT:       } else {
# CHECK-NEXT:         %[[V16:[0-9]+]] = concat %[[V0]], %[[V0]] {axis = 0} : f32[6]
# CHECK-NEXT:         yield %[[V16]]
# CHECK-NEXT:       }
# CHECK-NEXT:       yield %[[V15]]
# CHECK-NEXT:     }
# CHECK-NEXT:     yield %[[V9]]
# CHECK-NEXT:   }
# CHECK-NEXT:   return %[[V4]]
# CHECK-NEXT: }
