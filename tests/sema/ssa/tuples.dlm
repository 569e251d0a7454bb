# RUN: %dlmc --emit=ssa %s | FileCheck %s
# Tuples: construction, nested unpacking, constant indexing, x.shape, a loop over a tuple
# (unrolled), and arithmetic on tuples applied leaf by leaf.
w = zeros(3, 4)
b = zeros(4)
params = (w, (b, 2))
u, (v, n) = params
first = params[-2]
rows, cols = w.shape
for t in (w, b):
    print(t)
half = (w, b) * 0.5
print(u, v, n, first, rows, cols, half)

# CHECK-LABEL: func @main(
# CHECK-SAME: ) -> none {
# CHECK-NEXT:   %[[V0:[0-9]+]] = zeros {dtype = f32, shape = [3, 4]} : f32[3, 4]
# CHECK-NEXT:   %[[V1:[0-9]+]] = zeros {dtype = f32, shape = [4]} : f32[4]
# CHECK-NEXT:   %[[V2:[0-9]+]] = const {value = 2} : int
# CHECK-NEXT:   %[[V3:[0-9]+]] = const {value = 3} : int
# CHECK-NEXT:   %[[V4:[0-9]+]] = const {value = 4} : int
# CHECK-NEXT:   print %[[V0]]
# CHECK-NEXT:   print %[[V1]]
# CHECK-NEXT:   %[[V5:[0-9]+]] = const {value = 0.5} : float
# CHECK-NEXT:   %[[V6:[0-9]+]] = mul %[[V0]], %[[V5]] : f32[3, 4]
# CHECK-NEXT:   %[[V7:[0-9]+]] = mul %[[V1]], %[[V5]] : f32[4]
# CHECK-NEXT:   print %[[V0]], %[[V1]], %[[V2]], %[[V0]], %[[V3]], %[[V4]], %[[V6]], %[[V7]]
# CHECK-NEXT:   return
# CHECK-NEXT: }
