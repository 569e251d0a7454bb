# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s
# RUN: %dlmc --emit=graph %s | FileCheck %s --check-prefix=GRAPH
# exp, sqrt, ... of a 0-d integer tensor give f32 (as PyTorch: torch.sqrt(torch.tensor(6)) is
# tensor(2.4495)). The graph's kernels read a 0-d i64 or bool as a Python number and computed
# in f64, so the graph executor at -O0 printed '2.449489742783178' where the JIT and -O3
# (constant folded) printed 'tensor(2.4494898)'. Lowering casts the operand to f32 first; an
# i32 0-d tensor reads as a tensor and needs no cast. (Found by tests/fuzz.)

n = sum(tensor([1, 2, 3]))
print(sqrt(n), exp(tensor(2)), sigmoid(tensor(True)), tanh(tensor(3, dtype=i32)))
print(sqrt(6), exp(2))

# CHECK: tensor(2.4494898) tensor(7.389056) tensor(0.7310586) tensor(0.9950548)
# CHECK-NEXT: 2.449489742783178 7.38905609893065
# GRAPH: %[[N:[0-9]+]] = sum(
# GRAPH-NEXT: %[[C:[0-9]+]] = cast(%[[N]]) {dtype = f32} : f32[]
# GRAPH-NEXT: sqrt(%[[C]]) : f32[]
