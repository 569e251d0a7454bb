# RUN: %dlmc --emit=ssa --verify-diagnostics %s
# A loop variable whose types conflict ('s': float, then f32[]) while another one ('x') is still
# generalising its shape: the pass that found the conflict was re-run for 'x' and its diagnostics
# dropped, so the conflict was never reported. At the top level lowering then failed on the
# error-typed value ("invalid graph", exit 70); inside a function the call's result was an error
# and every statement using it (here the print) vanished: the program ran and exited 0.

w = ones(2)
s = 0.0
x = ones(2)
n = 0
while n < 3:
    n += 1
    s = s + sum(w)
    x = concat((x, ones(1)))
# expected-error@-4 {{'s' is float before the loop and f32[] after an iteration}}
# expected-note@-8 {{assigned float here}}
# expected-note@-4 {{assigned f32[] here}}

def g(v):
    t = 0.0
    y = ones(1, 2)
    k = 0
    while k < 3:
        k += 1
        t = t + sum(tanh(y @ v))
        y = concat((y, ones(1, 1)), 1)
    # expected-error@-4 {{'t' is float before the loop and f32[] after an iteration}}
    # expected-note@-8 {{assigned float here}}
    # expected-note@-4 {{assigned f32[] here}}
    return t

print(g(ones(2, 2)))  # expected-note {{'g' called here}}
