# RUN: %dlmc --emit=graph %s | FileCheck %s
# RUN: %dlmc --emit=graph %s > %t.dlmir && %bin/dlmir-run %t.dlmir | FileCheck %s --check-prefix=OUT
# return inside a loop of an inlined function: sema's exit flags (a 'returned' bool and the
# return value) are carried by the loop; the loop condition tests the flag, and the function's
# result is an If after the loop choosing between the carried value and the final return.

# Run on the graph executor, 2 * 4 > 7 first at i = 4:
# OUT: {{^}}4{{$}}

# CHECK-LABEL: graph @main {
# CHECK:       frame @[[F:first_over.while[0-9]+]]
# CHECK:       %[[MR:.*]] = Merge(%{{.*}}, %{{.*}}) : bool[] in @[[F]]
# CHECK:       logical_not(%[[MR]]) : bool[] in @[[F]]
# CHECK:       %[[LC:.*]] = LoopCond(
# CHECK:       %[[SR:.*]]:2 = Switch(%[[MR]], %[[LC]]) : bool[], bool[] in @[[F]]
# CHECK:       %[[RET:.*]] = Exit(%[[SR]]) : bool[] in @[[F]]
# CHECK:       %[[VAL:.*]] = Exit(%{{.*}}) : i64[] in @[[F]]
# CHECK:       %[[NOTRET:.*]] = logical_not(%[[RET]]) : bool[]{{$}}
# CHECK:       %[[SV:.*]]:2 = Switch(%[[VAL]], %[[NOTRET]]) : i64[], i64[]{{$}}
# CHECK:       %[[R:.*]] = Merge(%[[SV]], %{{.*}}) : i64[]{{$}}
# CHECK:       print(%[[R]])
def first_over(x, limit):
    i = 0
    while i < 10:
        if x * i > limit:
            return i
        i = i + 1
    return -1

print(first_over(2.0, 7.0))
