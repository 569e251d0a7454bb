# RUN: %dlmc --emit=ssa %s | FileCheck %s
# for-range loops: the induction variable is a header value of the `for` op; a loop whose
# carried tensor grows gets a fresh symbolic dim (its type is the unification of the entry and
# body types); loop bounds may be run-time ints.
acc = zeros(2, 3)
for i in range(10):
    acc = acc + i
rows = zeros(1, 3)
for j in range(1, 5, 2):
    rows = concat((rows, acc), axis=0)
n = len(rows)
total = 0
for k in range(n):
    total = total + k
print(acc, rows, total)

# CHECK-LABEL: func @main(
# CHECK-SAME: ) -> none {
# CHECK-NEXT:   %[[V0:[0-9]+]] = zeros {dtype = f32, shape = [2, 3]} : f32[2, 3]
# CHECK-NEXT:   %[[V1:[0-9]+]] = const {value = 10} : int
# CHECK-NEXT:   %[[V2:[0-9]+]] = const {value = 0} : int
# CHECK-NEXT:   %[[V3:[0-9]+]] = const {value = 1} : int
# CHECK-NEXT:   %[[V4:[0-9]+]] = for %[[V5:[0-9]+]] = %[[V2]] to %[[V1]] step %[[V3]] iter (%[[V6:[0-9]+]] = %[[V0]]) : f32[2, 3] {
# CHECK-NEXT:     %[[V7:[0-9]+]] = add %[[V6]], %[[V5]] : f32[2, 3]
# CHECK-NEXT:     yield %[[V7]]
# CHECK-NEXT:   }
# CHECK-NEXT:   %[[V8:[0-9]+]] = zeros {dtype = f32, shape = [1, 3]} : f32[1, 3]
# CHECK-NEXT:   %[[V9:[0-9]+]] = const {value = 1} : int
# CHECK-NEXT:   %[[V10:[0-9]+]] = const {value = 5} : int
# CHECK-NEXT:   %[[V11:[0-9]+]] = const {value = 2} : int
# CHECK-NEXT:   %[[V12:[0-9]+]] = for %[[V13:[0-9]+]] = %[[V9]] to %[[V10]] step %[[V11]] iter (%[[V14:[0-9]+]] = %[[V8]]) : f32[?[[D1:[0-9]+]], 3] {
# CHECK-NEXT:     %[[V15:[0-9]+]] = concat %[[V14]], %[[V4]] {axis = 0} : f32[?[[D2:[0-9]+]], 3]
# CHECK-NEXT:     yield %[[V15]]
# CHECK-NEXT:   }
# CHECK-NEXT:   %[[V16:[0-9]+]] = dim %[[V12]] {axis = 0} : int
# CHECK-NEXT:   %[[V17:[0-9]+]] = const {value = 0} : int
# CHECK-NEXT:   %[[V18:[0-9]+]] = const {value = 0} : int
# CHECK-NEXT:   %[[V19:[0-9]+]] = const {value = 1} : int
# CHECK-NEXT:   %[[V20:[0-9]+]] = for %[[V21:[0-9]+]] = %[[V18]] to %[[V16]] step %[[V19]] iter (%[[V22:[0-9]+]] = %[[V17]]) : int {
# CHECK-NEXT:     %[[V23:[0-9]+]] = add %[[V22]], %[[V21]] : int
# CHECK-NEXT:     yield %[[V23]]
# CHECK-NEXT:   }
# CHECK-NEXT:   print %[[V4]], %[[V12]], %[[V20]]
# CHECK-NEXT:   return
# CHECK-NEXT: }
