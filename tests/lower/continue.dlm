# RUN: %dlmc --emit=graph %s | FileCheck %s
# RUN: %dlmc --emit=graph %s > %t.dlmir && %bin/dlmir-run %t.dlmir | FileCheck %s --check-prefix=OUT
# continue arrives as an exit flag local to one iteration: an If sets it, an If on its negation
# guards the rest of the body, and the skipped path's value comes back through the Merge's
# false input. The flag is not carried: the loop still has two carried values (i and s).

# Run on the graph executor, the odd numbers below 10:
# OUT: {{^}}25{{$}}

# CHECK-LABEL: graph @main {
# CHECK:       frame @[[F:main.for[0-9]+]]
# CHECK:       %[[SI:.*]]:2 = Switch(%{{.*}}, %[[LC:.*]]) : i64[], i64[] in @[[F]]
# CHECK:       %[[SS:.*]]:2 = Switch(%{{.*}}, %[[LC]]) : i64[], i64[] in @[[F]]
# CHECK:       %[[EVEN:.*]] = eq(
# CHECK:       %[[FLAG:.*]] = Merge(%{{.*}}, %{{.*}}) : bool[] in @[[F]]
# CHECK:       %[[GO:.*]] = logical_not(%[[FLAG]])
# CHECK:       %[[S2:.*]]:2 = Switch(%[[SS]]#1, %[[GO]]) : i64[], i64[] in @[[F]]
# CHECK:       %[[I2:.*]]:2 = Switch(%[[SI]]#1, %[[GO]]) : i64[], i64[] in @[[F]]
# CHECK:       %[[ADD:.*]] = add(%[[S2]]#1, %[[I2]]#1)
# CHECK:       %[[NEXT:.*]] = Merge(%[[S2]], %[[ADD]]) : i64[] in @[[F]]
# CHECK:       NextIteration(%[[NEXT]])
# CHECK-NOT:   NextIteration
# CHECK:       print(
s = 0
for i in range(10):
    if i % 2 == 0:
        continue
    s = s + i
print(s)
