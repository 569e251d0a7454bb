# RUN: rm -rf %t.dir && mkdir %t.dir && cd %t.dir && not %python %src/scripts/dlm-diff.py --everywhere %bin %s > %t.out 2> %t.err
# RUN: FileCheck %s < %t.err
# RUN: FileCheck %s --check-prefix=OUT --match-full-lines < %t.out
# RUN: ls %t.dir | FileCheck %s --check-prefix=FILES --match-full-lines
# Program order (docs/ir.md): an error inside a loop. Iterations 0-2 print and the save before
# the loop writes its file; in iteration 3 the index fails, so the print after it in the same
# iteration, the save after the loop and the last print never happen, though none of them reads
# the index. The graph executor printed nothing and wrote no file: its loop ran iteration 3's
# index ahead of the earlier iterations' prints (parallel_iterations) and of the save.

w = ones(3)
save("before.safetensors", w)
s = zeros(1)
for i in range(5):
    print("step", i)
    t = w[i] * 2.0
    print("done", i)
    s = s + t
save("after.safetensors", s)
print("end", s)

# CHECK: program-order-error-in-loop.dlm:16:9: error: index 3 is out of range for axis 0 with size 3
# OUT:      step 0
# OUT-NEXT: done 0
# OUT-NEXT: step 1
# OUT-NEXT: done 1
# OUT-NEXT: step 2
# OUT-NEXT: done 2
# OUT-NEXT: step 3
# OUT-NOT: {{.}}
# FILES:     before.safetensors
# FILES-NOT: {{.}}
