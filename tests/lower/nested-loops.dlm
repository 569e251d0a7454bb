# RUN: %dlmc --emit=graph %s | FileCheck %s
# RUN: %dlmc --emit=graph %s > %t.dlmir && %bin/dlmir-run %t.dlmir | FileCheck %s --check-prefix=OUT
# Nested loops nest frames: the inner frame's parent is the outer one; the outer induction
# variable reaches the inner loop as a constant Enter of the inner frame, and the inner
# result leaves through an inner Exit into the outer body and around the outer loop.

# Run on the graph executor, only i = 2 contributes: 2*0 + 2*1:
# OUT: {{^}}2{{$}}

# CHECK-LABEL: graph @main {
# CHECK:       frame @[[OUTER:main.for[0-9]+]] {parallel_iterations = 10}
# CHECK-NEXT:  frame @[[IN:main.for[0-9]+]] in @[[OUTER]] {parallel_iterations = 10}
# CHECK:       %[[OI:.*]]:2 = Switch({{.*}}) : i64[], i64[] in @[[OUTER]]
# CHECK:       %[[OT:.*]]:2 = Switch({{.*}}) : i64[], i64[] in @[[OUTER]]
# CHECK:       Enter(%[[OT]]#1) {is_constant = false} : i64[] in @[[IN]]
# CHECK:       %[[BOUND:.*]] = Enter(%[[OI]]#1) {is_constant = true} : i64[] in @[[IN]]
# CHECK:       lt(%{{.*}}, %[[BOUND]]) : bool[] in @[[IN]]
# CHECK:       %[[II:.*]]:2 = Switch({{.*}}) : i64[], i64[] in @[[IN]]
# CHECK:       %[[IT:.*]]:2 = Switch({{.*}}) : i64[], i64[] in @[[IN]]
# CHECK:       %[[T:.*]] = Exit(%[[IT]]) : i64[] in @[[IN]]
# CHECK:       mul(%[[BOUND]], %[[II]]#1) : i64[] in @[[IN]]
# CHECK:       NextIteration(%[[T]]) : i64[] in @[[OUTER]]
t = 0
for i in range(3):
    for j in range(i):
        t = t + i * j
print(t)
