# RUN: %dlmc --device=fake --emit=opt %s | FileCheck %s
# RUN: %dlmc --device=fake --emit=opt --placement-cost=off %s | FileCheck %s --check-prefix=OFF
# RUN: %dlm run --device=fake %s > %t.fake && %dlm run --device=cpu %s > %t.cpu && diff %t.cpu %t.fake
# The copy-cost rule of placement (docs/cuda.md "Copy cost"), with the fake device's op table:
# an op the device runs goes back to the CPU when all its tensor neighbours are on the CPU and
# its copies (10 us per transfer + bytes at 12 GB/s) cost more than its CPU time (flops at 16
# per ns). --placement-cost=off places every op the device runs there.
seed(1)
# A 4x8 chain between randn and print: 2 transfers (~20 us) against 64 flops: CPU.
x = randn(4, 8)
print(x * 2.0 + 1.0)
# A 256^3 matmul: 33.5 MFLOP (~2.1 ms on the CPU) against 2 transfers of 256 KiB (~64 us): on
# the device. The chain after it is small but has a neighbour on the device: it stays there.
a = randn(256, 256)
b = a @ a
print(sum(relu(b) * 0.5))
# A 16^3 matmul: 8192 flops (~0.5 us) against 2 transfers (~20 us): CPU.
c = randn(16, 16)
print(sum(c @ c))

# CHECK:      fused({{.*}}) {body = "%3 = mul(%0, %1) : f32; %4 = add(%3, %2) : f32"} : f32[4, 8] on cpu
# CHECK:      [[MM:%[0-9]+]] = matmul([[A:%[0-9]+]], [[A]]) : f32[256, 256] on fake
# CHECK:      fused([[MM]], {{.*}}relu{{.*}} : f32[256, 256] on fake
# CHECK:      sum({{.*}} : f32[] on cpu
# CHECK:      matmul({{.*}} : f32[16, 16] on cpu
# CHECK:      Send({{.*}}) {to = "fake"} : f32[256, 256] on cpu
# CHECK-NEXT: [[A]] = Recv({{.*}}) {from = "cpu"} : f32[256, 256] on fake
# CHECK-NEXT: Send(
# CHECK-NEXT: Recv(
# CHECK-NEXT: {{^}}}

# OFF:        fused({{.*}}) {body = "%3 = mul(%0, %1) : f32; %4 = add(%3, %2) : f32"} : f32[4, 8] on fake
# OFF:        matmul({{.*}} : f32[256, 256] on fake
# OFF:        matmul({{.*}} : f32[16, 16] on fake
