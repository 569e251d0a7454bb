# RUN: %dlmc --emit=graph %s | FileCheck %s
# RUN: %dlmc --emit=graph %s > %t.dlmir && %bin/dlmir-run %t.dlmir | FileCheck %s --check-prefix=OUT
# break arrives as sema's exit flag: a bool carried by the loop (Enter of false, Merge,
# Switch, NextIteration like any value), tested by the loop condition (not broke and i < hi)
# and by an If around the rest of the body, whose Switches and Merge appear inside the frame.

# Run on the graph executor, the loop stops at i = 8: 0 + 1 + ... + 7:
# OUT: {{^}}28{{$}}

# CHECK-LABEL: graph @main {
# CHECK:       frame @[[F:main.while[0-9]+]]
# CHECK:       %[[FALSE:.*]] = const() {value = false} : bool[]
# CHECK:       %[[EB:.*]] = Enter(%[[FALSE]]) {is_constant = false} : bool[] in @[[F]]
# CHECK:       %[[MB:.*]] = Merge(%[[EB]], %[[NB:.*]]) : bool[] in @[[F]]
# CHECK:       %[[NOT:.*]] = logical_not(%[[MB]]) : bool[] in @[[F]]
# CHECK:       %[[C:.*]] = logical_and(%[[NOT]], %{{.*}}) : bool[] in @[[F]]
# CHECK:       LoopCond(%[[C]])
# CHECK:       gt(
# CHECK:       %[[BROKE:.*]] = Merge(%{{.*}}, %{{.*}}) : bool[] in @[[F]]
# CHECK:       %[[GO:.*]] = logical_not(%[[BROKE]])
# CHECK:       Switch(%{{.*}}, %[[GO]]) : i64[], i64[] in @[[F]]
# CHECK:       %[[FLAG:.*]] = Merge(%{{.*}}, %{{.*}}) : bool[] in @[[F]]
# CHECK:       %[[NB]] = NextIteration(%[[FLAG]]) : bool[] in @[[F]]
s = 0
for i in range(100):
    if i * i > 50:
        break
    s = s + i
print(s)
