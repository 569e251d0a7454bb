# RUN: %dlm run %s 2>%t.jit.err | FileCheck %s --check-prefix=OUT
# RUN: FileCheck %s --check-prefix=ERR < %t.jit.err
# RUN: %dlm run --engine=graph %s 2>%t.graph.err | FileCheck %s --check-prefix=OUT
# RUN: FileCheck %s --check-prefix=ERR < %t.graph.err
# progress(done, total): when stderr is not a terminal, one finished line per run up to
# total (one per epoch) goes to stderr; print stays on stdout.
for epoch in range(2):
    for i in range(50):
        progress(i + 1, 50)
    print("epoch", epoch + 1)
# OUT: epoch 1
# OUT-NEXT: epoch 2
# ERR: {{^}}50/50 [00:00<00:00, {{[0-9.]+}}it/s]{{$}}
# ERR-NEXT: {{^}}50/50 [00:00<00:00, {{[0-9.]+}}it/s]{{$}}
# ERR-NOT: {{.}}
