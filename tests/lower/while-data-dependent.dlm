# RUN: %dlmc --emit=graph %s | FileCheck %s
# A while loop whose condition depends on tensor values computed at run time: one frame; each
# carried value is Enter -> Merge(enter, next); the condition, computed from the Merges, goes
# through LoopCond; each Merge goes through Switch(merge, loopcond): output 0 leaves through
# Exit, output 1 feeds the body, whose result returns through NextIteration.

# CHECK-LABEL: graph @main {
# CHECK:       frame @[[F:main.while[0-9]+]] {parallel_iterations = 10}
# CHECK:       %[[X0:.*]] = mul(
# CHECK:       %[[EX:.*]] = Enter(%[[X0]]) {is_constant = false} : f32[8] in @[[F]]
# CHECK:       %[[MX:.*]] = Merge(%[[EX]], %[[NX:.*]]) : f32[8] in @[[F]]
# CHECK:       %[[NORM:.*]] = norm(%[[MX]]) {{.*}} in @[[F]]
# CHECK:       %[[C:.*]] = gt(%[[NORM]], %{{.*}}) : bool[] in @[[F]]
# CHECK:       %[[LC:.*]] = LoopCond(%[[C]]) : bool[] in @[[F]]
# CHECK:       %[[SX:.*]]:2 = Switch(%[[MX]], %[[LC]]) : f32[8], f32[8] in @[[F]]
# CHECK:       Exit(%[[SX]]) : f32[8] in @[[F]]
# CHECK:       %[[BODY:.*]] = mul(%[[SX]]#1, %{{.*}}) : f32[8] in @[[F]]
# CHECK:       %[[NX]] = NextIteration(%[[BODY]]) : f32[8] in @[[F]]
x = randn(8) * 10.0
n = 0
while norm(x) > 1.0:
    x = x * 0.5
    n = n + 1
print(n)
