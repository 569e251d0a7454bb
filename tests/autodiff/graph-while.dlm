# RUN: dlm-ad --emit=grad %s | FileCheck %s
# Golden gradient graph of a data-dependent while loop. The forward frame carries a trip
# counter and a stack onto which it pushes x, the one value sin's gradient reads; both leave
# the frame through Exits. The backward frame runs the trip count times (a for loop), carries the
# adjoint of x (entering with the result's adjoint: Exit <-> Enter) and the stack, pops x at
# the start of each iteration and multiplies by cos of it.

def f(x):
    while sum(x * x) < 10.0:
        x = sin(x) * 2.0
    return sum(x)

print(grad(f)(tensor([0.5, 1.0])))

# CHECK: frame @[[FWD:grad.f.while[0-9]+]]
# CHECK: frame @[[BWD:grad.f.for[0-9]+]]
# CHECK: stack_new() {dtype = f32, rank = 1}
# CHECK: %[[X:[0-9]+]] = Merge({{.*}}) : f32[2] in @[[FWD]]
# CHECK: %[[XS:[0-9]+]]:2 = Switch(%[[X]], %[[COND:[0-9]+]])
# CHECK: %[[TRIPS:[0-9]+]] = Exit(%{{[0-9]+}}) : i64[] in @[[FWD]]
# CHECK: %[[STACK:[0-9]+]] = Exit(%{{[0-9]+}}) : f32[?{{[0-9]+}}, ?{{[0-9]+}}] in @[[FWD]]
# CHECK: add(%{{[0-9]+}}#1, %{{[0-9]+}}) : i64[] in @[[FWD]]
# CHECK: stack_push(%{{[0-9]+}}#1, %[[XS]]#1) : {{.*}} in @[[FWD]]
# CHECK: NextIteration
# CHECK: Enter(%[[STACK]]) {is_constant = false} : {{.*}} in @[[BWD]]
# CHECK: Enter(%[[TRIPS]]) {is_constant = true} : i64[] in @[[BWD]]
# CHECK: %[[TOP:[0-9]+]] = stack_top(%{{[0-9]+}}#1) : f32[2] in @[[BWD]]
# CHECK: stack_pop(%{{[0-9]+}}#1) : {{.*}} in @[[BWD]]
# CHECK: cos(%[[TOP]]) : f32[2] in @[[BWD]]
