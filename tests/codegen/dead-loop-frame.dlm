# RUN: %dlm run -O2 %s | FileCheck %s
# RUN: %dlm run -O0 %s | FileCheck %s
# RUN: %dlmc --emit=opt -O2 %s | FileCheck %s --check-prefix=OPT
# A top-level loop whose result is never used: dead-code elimination removes every node of the
# loop, and must remove its frame too. An empty frame used to reach codegen, which expects one
# LoopCond per frame, and `dlm run` stopped with an internal error (exit 70).

t = 0
for i in range(5):
    t += i
print("done")

# CHECK: done
# OPT-NOT: frame @
# OPT: print
