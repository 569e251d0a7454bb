# RUN: %dlmc --emit=grad-ssa %s | FileCheck %s
# autodiff's output for an if (docs/autodiff.md "Control flow"): the forward if stays as it
# is, and the backward is an if on the *same* predicate whose then side sweeps the then side
# (sin: the adjoint times cos x) and whose else side sweeps the else side (x * 2.0: the adjoint
# times 2.0, the constant made again instead of exported from the forward else side). Each side
# yields its adjoint of x; the if's result is x's gradient.

def f(x):
    if sum(x) > 0.0:
        y = sin(x)
    else:
        y = x * 2.0
    return sum(y)

print(grad(f)(tensor([1.0, 2.0])))

# CHECK-LABEL: func @grad.f(%0: f32[2]) -> f32[2] {
# CHECK:         %[[PRED:[0-9]+]] = gt %{{[0-9]+}}, %{{[0-9]+}} : bool[]
# CHECK-NEXT:    %[[Y:[0-9]+]] = if %[[PRED]] : f32[2] {
# CHECK-NEXT:      %[[SIN:[0-9]+]] = sin %0 : f32[2]
# CHECK-NEXT:      yield %[[SIN]]
# CHECK-NEXT:    } else {
# CHECK:           yield
# CHECK-NEXT:    }
# CHECK-NEXT:    sum %[[Y]]
# CHECK:         %[[SEED:[0-9]+]] = broadcast_to %{{[0-9]+}} {shape = [2]} : f32[2]
# CHECK-NEXT:    %[[GX:[0-9]+]] = if %[[PRED]] : f32[2] {
# CHECK-NEXT:      %[[COS:[0-9]+]] = cos %0 : f32[2]
# CHECK-NEXT:      %[[THEN:[0-9]+]] = mul %[[SEED]], %[[COS]] : f32[2]
# CHECK-NEXT:      yield %[[THEN]]
# CHECK-NEXT:    } else {
# CHECK-NEXT:      %[[TWO:[0-9]+]] = const {value = 2.0} : float
# CHECK-NEXT:      %[[ELSE:[0-9]+]] = mul %[[SEED]], %[[TWO]] : f32[2]
# CHECK-NEXT:      yield %[[ELSE]]
# CHECK-NEXT:    }
# CHECK-NEXT:    return %[[GX]]
