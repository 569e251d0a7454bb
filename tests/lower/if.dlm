# RUN: %dlmc --emit=graph %s | FileCheck %s
# An if/else on a run-time value: x, used by both branches, goes through one Switch on the
# predicate (output 1 in the then-branch, output 0 in the else-branch); y, defined by both,
# meets in Merge(else, then). The then-branch's constant hangs from a pivot so it is dead when
# the branch is not taken.

# CHECK-LABEL: graph @main {
# CHECK:       %[[X:.*]] = randn() {{.*}} : f32[4]
# CHECK:       %[[P:.*]] = gt(
# CHECK:       %[[PS:.*]]:2 = Switch(%[[P]], %[[P]]) : bool[], bool[]
# CHECK:       %[[PIVOT:.*]] = Identity(%[[PS]]#1) : bool[]
# CHECK:       %[[TWO:.*]] = const() ctrl(%[[PIVOT]]) {value = 2.0} : f64[]
# CHECK:       %[[XS:.*]]:2 = Switch(%[[X]], %[[P]]) : f32[4], f32[4]
# CHECK:       %[[THEN:.*]] = mul(%[[XS]]#1, %[[TWO]]) : f32[4]
# CHECK:       %[[ELSE:.*]] = neg(%[[XS]]) : f32[4]
# CHECK:       %[[Y:.*]] = Merge(%[[ELSE]], %[[THEN]]) : f32[4]
# CHECK:       print(%[[Y]])
# CHECK-NOT:   Switch
x = randn(4)
if sum(x) > 0.0:
    y = x * 2.0
else:
    y = -x
print(y)
