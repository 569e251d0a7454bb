# RUN: %dlmc --emit=grad-ssa %s | FileCheck %s
# RUN: %dlmc --emit=grad-ssa --print-locs %s | FileCheck %s --check-prefix=LOCS
# autodiff's output for a second derivative (docs/autodiff.md, "Flatten"): grad(df) sees the
# inner grad(f) replaced by the body of f's derivative, so its forward pass is f's forward and
# backward pass as plain code (the inner rules' ops: cos, and the adjoints' products), and its
# own backward sweeps those too, including cos's rule (-sin). The inner derivative, made while
# the outer one was being flattened, is printed as well.

def f(x):
    return sum(sin(x) * x)

def df(x):
    return sum(grad(f)(x))

print(grad(df)(tensor([1.0, 2.0])))

# CHECK-LABEL: func @grad.df(%0: f32[2]) -> f32[2] {
# CHECK-NEXT:    %[[SIN:[0-9]+]] = sin %0 : f32[2]
# CHECK:         %[[COS:[0-9]+]] = cos %0 : f32[2]
# CHECK-NEXT:    %[[T:[0-9]+]] = mul %[[GSIN:[0-9]+]], %[[COS]] : f32[2]
# CHECK-NEXT:    %[[INNER:[0-9]+]] = add %{{[0-9]+}}, %[[T]] : f32[2]
# CHECK-NEXT:    sum %[[INNER]] {axes = [], keepdims = false} : f32[]
# CHECK:         %[[SIN2:[0-9]+]] = sin %0 : f32[2]
# CHECK-NEXT:    %{{[0-9]+}} = mul %{{[0-9]+}}, %[[SIN2]] : f32[2]
# CHECK-NEXT:    %{{[0-9]+}} = neg
# CHECK:         return
# CHECK-NEXT:  }
# CHECK-LABEL: func @grad.f(%0: f32[2]) -> f32[2] {
# CHECK:         cos %0
# CHECK:         return

# The ops of the inner derivative carry its rules' names and the call they were inlined
# through; the outer derivative's rule for the inner cos makes a sin marked with "cos".
# LOCS-LABEL: func @grad.df
# LOCS: cos %0 : f32[2] loc("{{.*}}ssa-grad-of-grad.dlm":10:16 grad_of "sin" in "grad(f)" at "{{.*}}ssa-grad-of-grad.dlm":13:16)
# LOCS: sin %0 : f32[2] loc("{{.*}}ssa-grad-of-grad.dlm":10:16 grad_of "cos" in "grad(f)" at "{{.*}}ssa-grad-of-grad.dlm":13:16)
