# Two independent errors found by the AST builder (diagnostics-output.test).
x = 99999999999999999999
f(1) = 2
