# A loop of 1000 adds on a 1-element tensor, run 1000 times (10^6 adds): per-op overhead of
# the JIT (bench/jit/bench.py takes the run time per iteration of the outer loop, less the
# run with 0 iterations, per add). Twin: adds_torch.py.
x = zeros(1)
for r in range(1000):
    for i in range(1000):
        x = x + 1.0
print(x)
