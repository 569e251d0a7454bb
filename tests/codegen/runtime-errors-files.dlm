# RUN: %python %S/Inputs/exit-status.py 1 %dlm run %s | FileCheck %s
# A checkpoint that does not match what the program expects stops the program with the
# runtime's message at the load.

x = tensor([1.0, 2.0])
save("/tmp/dlm-codegen-test.safetensors", (x, x))
a, b = load("/tmp/dlm-codegen-test.safetensors", like=(x, x))
print(a + b)
c = load("/tmp/dlm-codegen-test.safetensors", like=(x, x, x))
print(c)

# CHECK: tensor([2., 4.])
# CHECK: runtime-errors-files.dlm:9:5: error: cannot load checkpoint '/tmp/dlm-codegen-test.safetensors': checkpoint holds 2 tensors but the program expects 3
