# RUN: %dlmc --emit=graph %s | FileCheck %s
# if/elif/else is an If nested in the else-branch: the inner If's Switches take their inputs
# from the outer Switches' false outputs, and the inner Merge feeds the outer Merge.

# CHECK-LABEL: graph @main {
# CHECK:       %[[X:.*]] = randn()
# CHECK:       %[[S:.*]] = sum(%[[X]])
# CHECK:       %[[P1:.*]] = gt(%[[S]], %{{.*}}) : bool[]
# CHECK:       %[[XS:.*]]:2 = Switch(%[[X]], %[[P1]]) : f32[3], f32[3]
# CHECK:       %[[A:.*]] = mul(%[[XS]]#1, %{{.*}}) : f32[3]
# CHECK:       %[[SS:.*]]:2 = Switch(%[[S]], %[[P1]]) : f32[], f32[]
# CHECK:       %[[P2:.*]] = lt(%[[SS]], %{{.*}}) : bool[]
# CHECK:       %[[XS2:.*]]:2 = Switch(%[[XS]], %[[P2]]) : f32[3], f32[3]
# CHECK:       %[[B:.*]] = mul(%[[XS2]]#1, %{{.*}}) : f32[3]
# CHECK:       %[[INNER:.*]] = Merge(%[[XS2]], %[[B]]) : f32[3]
# CHECK:       %[[OUTER:.*]] = Merge(%[[INNER]], %[[A]]) : f32[3]
# CHECK:       print(%[[OUTER]])
x = randn(3)
s = sum(x)
if s > 1.0:
    y = x * 2.0
elif s < -1.0:
    y = x * 3.0
else:
    y = x
print(y)
