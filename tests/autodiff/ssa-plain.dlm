# RUN: %dlmc --emit=grad-ssa %s | FileCheck %s
# RUN: %dlmc --emit=grad-ssa --print-locs %s | FileCheck %s --check-prefix=LOCS
# RUN: echo "print(1)" | %dlmc --emit=grad-ssa - | count 0
# RUN: %dlmc --help | FileCheck %s --check-prefix=HELP
# autodiff's output in SSA (docs/autodiff.md "Printed form"): the derivative of a plain
# function is one function with f's parameter: f's forward pass, then the seed and each op's
# rule in reverse (mul gives each factor the adjoint times the other; sin gives cos), the two
# contributions to x summed, and the gradient returned. --print-locs marks the ops each rule
# made with the forward op's name; a program without grad prints nothing.

def f(x):
    return sum(sin(x) * x)

print(grad(f)(tensor([1.0, 2.0, 3.0])))

# CHECK-LABEL: func @grad.f(%0: f32[3]) -> f32[3] {
# CHECK-NEXT:    %[[SIN:[0-9]+]] = sin %0 : f32[3]
# CHECK-NEXT:    %[[PROD:[0-9]+]] = mul %[[SIN]], %0 : f32[3]
# CHECK-NEXT:    sum %[[PROD]] {axes = [], keepdims = false} : f32[]
# CHECK-NEXT:    %[[ONE:[0-9]+]] = const {dtype = f32, shape = [], value = [1.0]} : f32[]
# CHECK-NEXT:    %[[E:[0-9]+]] = expand_dims %[[ONE]] {axis = 0} : f32[1]
# CHECK-NEXT:    %[[SEED:[0-9]+]] = broadcast_to %[[E]] {shape = [3]} : f32[3]
# CHECK-NEXT:    %[[GSIN:[0-9]+]] = mul %[[SEED]], %0 : f32[3]
# CHECK-NEXT:    %[[GX1:[0-9]+]] = mul %[[SEED]], %[[SIN]] : f32[3]
# CHECK-NEXT:    %[[COS:[0-9]+]] = cos %0 : f32[3]
# CHECK-NEXT:    %[[GX2:[0-9]+]] = mul %[[GSIN]], %[[COS]] : f32[3]
# CHECK-NEXT:    %[[GX:[0-9]+]] = add %[[GX1]], %[[GX2]] : f32[3]
# CHECK-NEXT:    return %[[GX]]
# CHECK-NEXT:  }

# LOCS: sin %0 : f32[3] loc("{{.*}}ssa-plain.dlm":12:16)
# LOCS: cos %0 : f32[3] loc("{{.*}}ssa-plain.dlm":12:16 grad_of "sin")

# HELP: grad-ssa  the derivative functions autodiff made (SSA)
