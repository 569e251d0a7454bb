# RUN: %python %S/Inputs/exit-status.py 1 %dlm run %s | FileCheck %s
# A missing file is a run-time error located at the user's call of the library function that
# opened it, with a note at the line inside the library that did.

import data
x = data.load_csv("/nonexistent/dlm/file.csv")
print(x)

# CHECK: runtime-errors-missing-file.dlm:6:5: error: cannot open CSV file '/nonexistent/dlm/file.csv': No such file or directory
# CHECK-NEXT: x = data.load_csv("/nonexistent/dlm/file.csv")
# CHECK-NEXT: {{^    \^}}
# CHECK-NEXT: data.dlm:{{[0-9]+}}:{{[0-9]+}}: note: inside 'data.load_csv'
