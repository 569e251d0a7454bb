# RUN: %dlmc --emit=ssa --print-locs %s | FileCheck %s
# --print-locs puts the source location (file:line:col) of every op after it.
x = zeros(2, 3)
y = x * 2.0
# CHECK: zeros {dtype = f32, shape = [2, 3]} : f32[2, 3] loc("{{.*}}locations.dlm":3:5)
# CHECK: mul %{{[0-9]+}}, %{{[0-9]+}} : f32[2, 3] loc("{{.*}}locations.dlm":4:5)
