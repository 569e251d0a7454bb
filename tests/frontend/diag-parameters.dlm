# RUN: %dlmc --verify-diagnostics --emit=ast %s
# Parameter names are unique, and parameters with defaults come last.
def f(x, x):  # expected-error {{duplicate parameter 'x'}}
    pass
def g(a=1, b):  # expected-error {{parameter 'b' without a default follows a parameter with a default}}
    pass
