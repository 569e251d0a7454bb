# RUN: %dlmc --emit=graph %s | FileCheck %s
# A tensor defined before the loop and only read in it enters the frame once, as a constant
# Enter: it is visible in every iteration and is not carried (no Merge or NextIteration).

# CHECK-LABEL: graph @main {
# CHECK:       frame @[[F:main.for[0-9]+]]
# CHECK:       %[[W:.*]] = randn() {{.*}} : f32[3, 3]
# CHECK:       %[[WIN:.*]] = Enter(%[[W]]) {is_constant = true} : f32[3, 3] in @[[F]]
# CHECK:       %[[MM:.*]] = matmul(%[[WIN]], %{{.*}}) : f32[3] in @[[F]]
# CHECK:       %[[T:.*]] = tanh(%[[MM]]) : f32[3] in @[[F]]
# CHECK:       NextIteration(%[[T]])
# CHECK-NOT:   Merge(%[[WIN]]
w = randn(3, 3)
x = randn(3)
for i in range(5):
    x = tanh(w @ x)
print(x)
