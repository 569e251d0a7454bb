# RUN: %dlmc --emit=grad-ssa %s | FileCheck %s
# autodiff's output for a while loop (docs/autodiff.md "Loops" and "Stacks"). The forward loop
# gets two carried values: a trip counter (starting at 0, plus 1 per iteration) and a stack
# onto which each iteration pushes the h that the backward of 'h * x' reads. The backward is a
# for over the trip count carrying the adjoint of h, the stack (read with a top/pop pair) and
# the accumulated adjoint of x, a value from outside the loop (zeros before the first
# iteration). x's gradient is the accumulator plus the adjoint of h's initial value (h = x).

def f(x):
    h = x
    while sum(h) < 10.0:
        h = h * x
    return sum(h)

print(grad(f)(tensor([1.5, 2.0])))

# CHECK-LABEL: func @grad.f(%0: f32[2]) -> f32[2] {
# CHECK-NEXT:    %[[ZERO:[0-9]+]] = const {value = 0} : int
# CHECK-NEXT:    %[[EMPTY:[0-9]+]] = stack_new {dtype = f32, rank = 1} : f32[?{{[0-9]+}}, ?{{[0-9]+}}]
# CHECK-NEXT:    %[[H:[0-9]+]], %[[TRIPS:[0-9]+]], %[[STACK:[0-9]+]] = while iter (%[[HH:[0-9]+]] = %0, %[[N:[0-9]+]] = %[[ZERO]], %[[S:[0-9]+]] = %[[EMPTY]])
# CHECK:         } do {
# CHECK-NEXT:      %[[NEXT:[0-9]+]] = mul %[[HH]], %0 : f32[2]
# CHECK-NEXT:      %[[ONE:[0-9]+]] = const {value = 1} : int
# CHECK-NEXT:      %[[N1:[0-9]+]] = add %[[N]], %[[ONE]] : int
# CHECK-NEXT:      %[[PUSHED:[0-9]+]] = stack_push %[[S]], %[[HH]]
# CHECK-NEXT:      yield %[[NEXT]], %[[N1]], %[[PUSHED]]
# CHECK-NEXT:    }
# CHECK-NEXT:    sum %[[H]]
# CHECK:         %[[SEED:[0-9]+]] = broadcast_to %{{[0-9]+}} {shape = [2]} : f32[2]
# CHECK-NEXT:    %[[LO:[0-9]+]] = const {value = 0} : int
# CHECK-NEXT:    %[[STEP:[0-9]+]] = const {value = 1} : int
# CHECK-NEXT:    %[[ACC0:[0-9]+]] = zeros {dtype = f32, shape = [2]} : f32[2]
# CHECK-NEXT:    %[[GH:[0-9]+]], %{{[0-9]+}}, %[[GXIN:[0-9]+]] = for %{{[0-9]+}} = %[[LO]] to %[[TRIPS]] step %[[STEP]] iter (%[[A:[0-9]+]] = %[[SEED]], %[[BS:[0-9]+]] = %[[STACK]], %[[ACC:[0-9]+]] = %[[ACC0]])
# CHECK-NEXT:      %[[TOP:[0-9]+]] = stack_top %[[BS]] : f32[2]
# CHECK-NEXT:      %[[POP:[0-9]+]] = stack_pop %[[BS]]
# CHECK-NEXT:      %[[AH:[0-9]+]] = mul %[[A]], %0 : f32[2]
# CHECK-NEXT:      %[[AX:[0-9]+]] = mul %[[A]], %[[TOP]] : f32[2]
# CHECK-NEXT:      %[[ACC1:[0-9]+]] = add %[[ACC]], %[[AX]] : f32[2]
# CHECK-NEXT:      yield %[[AH]], %[[POP]], %[[ACC1]]
# CHECK-NEXT:    }
# CHECK-NEXT:    %[[GX:[0-9]+]] = add %[[GH]], %[[GXIN]] : f32[2]
# CHECK-NEXT:    return %[[GX]]
