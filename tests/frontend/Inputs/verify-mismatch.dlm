# Input of verify-diagnostics.test: one wrong expectation, one missing, one right.
# expected-error@+1 {{no such message}}
x = 1 +
y = 2  # expected-error {{expected ':'}}
z = (  # expected-error {{was never closed}}
