# RUN: %dlm run --engine=jit %s | FileCheck %s --check-prefixes=CHECK,JIT
# RUN: %dlm run --engine=graph %s | FileCheck %s --check-prefixes=CHECK,GRAPH
# memory_stats(after...): live tensor bytes and the peak since the previous call. A 4 MiB
# tensor that exists between two calls raises that window's peak by at least 4 MiB; the next
# window, after it is gone, does not see it; the arguments are only waited for. The graph
# executor frees y after its last use; the JIT holds a top-level value until the program ends
# (docs/codegen.md "Ownership").
def big_sum(x):
    y = ones(1024, 1024) * x
    return sum(y)

# A run-time 2.0 (a loop count), so that nothing folds into a compile-time constant.
n = 0
while n < 2:
    n += 1
start, _ = memory_stats()
s = big_sum(n * 1.0)
live, peak = memory_stats(s)
print("4 MiB seen:", peak - start >= 4 * 1024 * 1024)
print("freed:", live - start < 1024 * 1024)
live2, peak2 = memory_stats(live)
print("next window:", peak2 - live < 1024 * 1024, s)
# CHECK: 4 MiB seen: True
# GRAPH: freed: True
# JIT: freed: {{True|False}}
# CHECK: next window: True tensor(2097152.)
