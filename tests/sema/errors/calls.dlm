# RUN: %dlmc --emit=ssa --verify-diagnostics %s
# Call errors: arity, unknown and repeated keyword arguments (user defs and built-ins), calling
# something that is not a function, calling a module, and recursion (rejected: every call is
# specialised at compile time).
import nn

def add(a, b):
    return a + b

x = zeros(3)
# expected-note@-4 {{'add' is defined here}}
# expected-note@-5 {{'add' is defined here}}
r1 = add(x, x, x)  # expected-error {{'add' takes 2 arguments, 3 given}}
r2 = add(x)  # expected-error {{missing argument 'b' in call to 'add'}}
r3 = add(x, b=x, c=x)  # expected-error {{'add' has no parameter named 'c'}}
r4 = add(x, b=x, a=x)  # expected-error {{argument 'a' of 'add' is given twice}}
e = exp(x, x)  # expected-error {{'exp' takes 1 argument, 2 given}}
s = sum(x, axes=0)  # expected-error {{'sum' has no parameter named 'axes'; did you mean 'axis'?}}
m = sum(x, 0, True, 1)  # expected-error {{'sum' takes at most 3 arguments, 4 given}}
v = x(3)  # expected-error {{'x' is not a function; it is f32[3]}}
# expected-note@-11 {{'x' is f32[3], defined here}}
w = nn(3)  # expected-error {{module 'nn' is not callable}}
u = nn.lnear(x)  # expected-error {{module 'nn' has no function 'lnear'; did you mean 'linear'?}}
t = f64(x)  # expected-error {{'f64' is a dtype, not a function; use x.astype(f64)}}
q = x.foo(1)  # expected-error {{f32[3] has no method 'foo'}}
p = x.sum  # expected-error {{'sum' is a method; call it: x.sum(...)}}
o = x.shap  # expected-error {{f32[3] has no attribute 'shap'; did you mean 'shape'?}}

def fact(n):
    if n > 1:
        return n * fact(n - 1)  # expected-error {{recursive call to 'fact' is not supported (dlm specialises every call at compile time)}}
    return 1
# expected-note@-4 {{'fact' is defined here}}

k = fact(5)  # expected-note {{'fact' called here}}
