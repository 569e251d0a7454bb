# RUN: %dlmc --device=fake --emit=opt --placement-cost=off %s | FileCheck %s
# RUN: %dlm run --device=fake --placement-cost=off %s > %t.fake && %dlm run --device=cpu %s > %t.cpu && diff %t.cpu %t.fake
# RUN: %dlm run --engine=graph --device=fake --placement-cost=off %s > %t.gfake && diff %t.cpu %t.gfake
# randperm has no CUDA kernel (a host-side Fisher-Yates over the Philox stream): placement keeps
# it on the CPU; gather has one, so shuffling rows of a device tensor sends the permutation
# over (docs/cuda.md). Outputs match the CPU run exactly.
seed(2)
x = randn(6, 3)
p = randperm(6)
print(gather(tanh(x), p))
print(gather(x, p, axis=0) * 2.0)

# CHECK: randperm({{.*}} : i64[6] on cpu
# CHECK: gather({{.*}} : f32[6, 3] on fake
# CHECK: Send(%{{[0-9]+}}) {to = "fake"} : i64[6] on cpu
