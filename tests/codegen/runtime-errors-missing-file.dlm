# RUN: %python %S/Inputs/exit-status.py 1 %dlm run %s | FileCheck %s
# A missing file is a run-time error located at the library call that opened it.

import data
x = data.load_csv("/nonexistent/dlm/file.csv")
print(x)

# CHECK: data.dlm:{{[0-9]+}}:{{[0-9]+}}: error: cannot open CSV file '/nonexistent/dlm/file.csv': No such file or directory
