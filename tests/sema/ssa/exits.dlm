# RUN: %dlmc --emit=ssa %s | FileCheck %s
# break, continue and return inside nested loops become exit flags carried by the loops (the
# exit transform): the loop condition tests them and the rest of a body after a statement that
# may exit is guarded by `if not flags`.
def first_big(x):
    for i in range(10):
        j = 0
        while j < 5:
            j = j + 1
            if j == 3:
                continue
            if sum(x) * j > 100.0:
                return i * j
            if j > i:
                break
    return -1

r = first_big(ones(4))

# CHECK-LABEL: func @main(
# CHECK-SAME: ) -> none {
# CHECK-NEXT:   %[[V0:[0-9]+]] = ones {dtype = f32, shape = [4]} : f32[4]
# CHECK-NEXT:   %[[V1:[0-9]+]] = call @first_big(%[[V0]]) : int
# CHECK-NEXT:   return
# CHECK-NEXT: }
# CHECK-LABEL: func @first_big(
# CHECK-SAME: %[[V0:[0-9]+]]: f32[4]) -> int {
# CHECK-NEXT:   %[[V1:[0-9]+]] = const {value = 10} : int
# CHECK-NEXT:   %[[V2:[0-9]+]] = const {value = 0} : int
# CHECK-NEXT:   %[[V3:[0-9]+]] = const {value = 1} : int
# CHECK-NEXT:   %[[V4:[0-9]+]] = const {value = false} : bool
# CHECK-NEXT:   %[[V5:[0-9]+]] = undef : int
# CHECK-NEXT:   %[[V6:[0-9]+]], %[[V7:[0-9]+]], %[[V8:[0-9]+]] = while iter (%[[V9:[0-9]+]] = %[[V2]], %[[V10:[0-9]+]] = %[[V4]], %[[V11:[0-9]+]] = %[[V5]]) : int, bool, int {
# CHECK-NEXT:     %[[V12:[0-9]+]] = lt %[[V9]], %[[V1]] : bool
# CHECK-NEXT:     %[[V13:[0-9]+]] = logical_not %[[V10]] : bool
# CHECK-NEXT:     %[[V14:[0-9]+]] = logical_and %[[V13]], %[[V12]] : bool
# CHECK-NEXT:     condition %[[V14]]
# CHECK-NEXT:   } do {
# CHECK-NEXT:     %[[V15:[0-9]+]] = const {value = 0} : int
# CHECK-NEXT:     %[[V16:[0-9]+]] = const {value = false} : bool
# CHECK-NEXT:     %[[V17:[0-9]+]] = const {value = false} : bool
# CHECK-NEXT:     %[[V18:[0-9]+]], %[[V19:[0-9]+]], %[[V20:[0-9]+]], %[[V21:[0-9]+]] = while iter (%[[V22:[0-9]+]] = %[[V15]], %[[V23:[0-9]+]] = %[[V16]], %[[V24:[0-9]+]] = %[[V17]], %[[V25:[0-9]+]] = %[[V11]]) : int, bool, bool, int {
# CHECK-NEXT:       %[[V26:[0-9]+]] = const {value = 5} : int
# CHECK-NEXT:       %[[V27:[0-9]+]] = lt %[[V22]], %[[V26]] : bool
# CHECK-NEXT:       %[[V28:[0-9]+]] = logical_or %[[V24]], %[[V23]] : bool
# CHECK-NEXT:       %[[V29:[0-9]+]] = logical_not %[[V28]] : bool
# CHECK-NEXT:       %[[V30:[0-9]+]] = logical_and %[[V29]], %[[V27]] : bool
# CHECK-NEXT:       condition %[[V30]]
# CHECK-NEXT:     } do {
# CHECK-NEXT:       %[[V31:[0-9]+]] = const {value = 1} : int
# CHECK-NEXT:       %[[V32:[0-9]+]] = add %[[V22]], %[[V31]] : int
# CHECK-NEXT:       %[[V33:[0-9]+]] = const {value = 3} : int
# CHECK-NEXT:       %[[V34:[0-9]+]] = eq %[[V32]], %[[V33]] : bool
# CHECK-NEXT:       %[[V35:[0-9]+]] = if %[[V34]] : bool {
# CHECK-NEXT:         %[[V36:[0-9]+]] = const {value = true} : bool
# CHECK-NEXT:         yield %[[V36]]
# CHECK-NEXT:       } else {
# CHECK-NEXT:         %[[V37:[0-9]+]] = const {value = false} : bool
# CHECK-NEXT:         yield %[[V37]]
# CHECK-NEXT:       }
# CHECK-NEXT:       %[[V38:[0-9]+]] = logical_not %[[V35]] : bool
# CHECK-NEXT:       %[[V39:[0-9]+]], %[[V40:[0-9]+]], %[[V41:[0-9]+]], %[[V42:[0-9]+]] = if %[[V38]] : bool, bool, bool, int {
# CHECK-NEXT:         %[[V43:[0-9]+]] = sum %[[V0]] {axes = [], keepdims = false} : f32[]
# CHECK-NEXT:         %[[V44:[0-9]+]] = mul %[[V43]], %[[V32]] : f32[]
# CHECK-NEXT:         %[[V45:[0-9]+]] = const {value = 100.0} : float
# CHECK-NEXT:         %[[V46:[0-9]+]] = gt %[[V44]], %[[V45]] : bool[]
# CHECK-NEXT:         %[[V47:[0-9]+]], %[[V48:[0-9]+]] = if %[[V46]] : bool, int {
# CHECK-NEXT:           %[[V49:[0-9]+]] = mul %[[V9]], %[[V32]] : int
# CHECK-NEXT:           %[[V50:[0-9]+]] = const {value = true} : bool
# CHECK-NEXT:           yield %[[V50]], %[[V49]]
# CHECK-NEXT:         } else {
# CHECK-NEXT:           %[[V51:[0-9]+]] = const {value = false} : bool
# CHECK-NEXT:           yield %[[V51]], %[[V25]]
# CHECK-NEXT:         }
# CHECK-NEXT:         %[[V52:[0-9]+]] = logical_not %[[V47]] : bool
# CHECK-NEXT:         %[[V53:[0-9]+]], %[[V54:[0-9]+]] = if %[[V52]] : bool, bool {
# CHECK-NEXT:           %[[V55:[0-9]+]] = gt %[[V32]], %[[V9]] : bool
# CHECK-NEXT:           %[[V56:[0-9]+]] = if %[[V55]] : bool {
# CHECK-NEXT:             %[[V57:[0-9]+]] = const {value = true} : bool
# CHECK-NEXT:             yield %[[V57]]
# CHECK-NEXT:           } else {
# CHECK-NEXT:             %[[V58:[0-9]+]] = const {value = false} : bool
# CHECK-NEXT:             yield %[[V58]]
# CHECK-NEXT:           }
# CHECK-NEXT:           %[[V59:[0-9]+]] = const {value = false} : bool
# CHECK-NEXT:           yield %[[V56]], %[[V59]]
# CHECK-NEXT:         } else {
# CHECK-NEXT:           %[[V60:[0-9]+]] = const {value = false} : bool
# CHECK-NEXT:           %[[V61:[0-9]+]] = const {value = true} : bool
# CHECK-NEXT:           yield %[[V60]], %[[V61]]
# CHECK-NEXT:         }
# CHECK-NEXT:         %[[V62:[0-9]+]] = const {value = false} : bool
# CHECK-NEXT:         yield %[[V53]], %[[V62]], %[[V54]], %[[V48]]
# CHECK-NEXT:       } else {
# CHECK-NEXT:         %[[V63:[0-9]+]] = const {value = false} : bool
# CHECK-NEXT:         %[[V64:[0-9]+]] = const {value = true} : bool
# CHECK-NEXT:         %[[V65:[0-9]+]] = const {value = false} : bool
# CHECK-NEXT:         yield %[[V63]], %[[V64]], %[[V65]], %[[V25]]
# CHECK-NEXT:       }
# CHECK-NEXT:       yield %[[V32]], %[[V39]], %[[V41]], %[[V42]]
# CHECK-NEXT:     }
# CHECK-NEXT:     %[[V66:[0-9]+]] = add %[[V9]], %[[V3]] : int
# CHECK-NEXT:     yield %[[V66]], %[[V20]], %[[V21]]
# CHECK-NEXT:   }
# CHECK-NEXT:   %[[V67:[0-9]+]] = logical_not %[[V7]] : bool
# CHECK-NEXT:   %[[V68:[0-9]+]] = if %[[V67]] : int {
# CHECK-NEXT:     %[[V69:[0-9]+]] = const {value = -1} : int
# CHECK-NEXT:     yield %[[V69]]
# CHECK-NEXT:   } else {
# CHECK-NEXT:     yield %[[V8]]
# CHECK-NEXT:   }
# CHECK-NEXT:   return %[[V68]]
# CHECK-NEXT: }
