# RUN: %dlmc --emit=graph %s | FileCheck %s
# RUN: not %python %src/scripts/dlm-diff.py %bin %s 2>&1 | FileCheck %s --check-prefix=OUT
# Program order (docs/ir.md) costs nothing where an index cannot fail: lowering knows the range
# of a loop counter (`for k in range(a, b, c)` with constants; `t = a; while t < b: ...;
# t += c` with constants, c > 0) and `k % c` for a constant c, and an index by one inside the
# dim is ordered with nothing (no control edge, no token carried by the loop). A range that
# leaves the dim (range(4) and `t <= 3` over 3 elements) is ordered as before: the index hangs
# from the token before the loop and the loop carries a token whose Exit the print follows.

# CHECK-LABEL: graph @main {
# CHECK:       index(%{{.*}}, %{{.*}}#1) {axis = 0} : f32[] in @main.for0
# CHECK:       index(%{{.*}}, %{{.*}}#1) ctrl(%{{.*}}) {axis = 0} : f32[] in @main.for1
# CHECK:       %[[FOR1:.*]] = Exit(%{{.*}}) : bool[] in @main.for1
# CHECK:       index(%{{.*}}, %{{.*}}#1) {axis = 0} : f32[] in @main.while2
# CHECK:       index(%{{.*}}, %{{.*}}#1) ctrl(%{{.*}}) {axis = 0} : f32[] in @main.while3
# CHECK:       %[[WHILE3:.*]] = Exit(%{{.*}}) : bool[] in @main.while3
# CHECK:       %[[MOD:.*]] = mod(
# CHECK:       index(%{{.*}}, %[[MOD]]) {axis = 0} : f32[] in @main.for4
# CHECK-NOT:   Exit(%{{.*}}) : bool[]
# CHECK:       print(%{{.*}}) ctrl(%{{.*}}, %[[FOR1]], %[[WHILE3]]) : ()

# OUT:      a
# OUT-NEXT: {{.*}}program-order-counters.dlm:[[@LINE+8]]:13: error: index 3 is out of range for axis 0 with size 3

x = ones(3)
print("a")
s = zeros(1)
for k in range(3):
    s = s + x[k]
for k in range(4):
    s = s + x[k]
t = 0
while t < 3:
    s = s + x[t]
    t += 1
t = 0
while t <= 3:
    s = s + x[t]
    t += 1
for k in range(10):
    s = s + x[k % 3]
print(s)
