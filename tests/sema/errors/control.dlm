# RUN: %dlmc --emit=ssa --verify-diagnostics %s
# Control-flow errors: type mismatches at joins (if/else and loop back edges) with notes at both
# assignments, non-bool conditions, misplaced break/continue/return, bad for-loop iterables.
x = zeros(3)
if sum(x) > 0.0:
    y = x
else:
    y = 1
# expected-error@-4 {{'y' is f32[3] in the then-branch and int in the else-branch}}
# expected-note@-4 {{assigned f32[3] here}}
# expected-note@-3 {{assigned int here}}

if x:  # expected-error {{condition must be bool, found f32[3] (a condition must be a single bool; reduce it first, e.g. with max or sum)}}
    pass
if sum(x):  # expected-error {{condition must be bool, found f32[] (compare it, e.g. 'x > 0')}}
    pass
while 1:  # expected-error {{loop condition must be bool, found int}}
    pass

n = 0
for i in range(3):
    n = x
# expected-error@-2 {{'n' is int before the loop and f32[3] after an iteration}}
# expected-note@-4 {{assigned int here}}
# expected-note@-3 {{assigned f32[3] here}}

break  # expected-error {{'break' outside a loop}}
continue  # expected-error {{'continue' outside a loop}}
return x  # expected-error {{'return' outside a function}}
for e in x:  # expected-error {{a for loop iterates over range(...) or a tuple, found f32[3]}}
    pass
for j in range(1.5):  # expected-error {{range() arguments must be int, found float}}
    pass
r = range(3)  # expected-error {{range() can only be the iterable of a for loop}}
z = x if 1 > 0 else 2
# expected-error@-1 {{the two values of a conditional expression differ: f32[3] and int}}
b = not x  # expected-error {{'not' needs a bool operand, found f32[3]}}
c = (1 > 0) and x  # expected-error {{'and' needs bool operands, found f32[3]}}
assert x, "x"  # expected-error {{assert condition must be bool, found f32[3] (a condition must be a single bool; reduce it first, e.g. with max or sum)}}

def maybe(a):  # expected-error {{'maybe' does not return a value on every path}}
    if sum(a) > 0.0:
        return a
# expected-note@-1 {{it returns f32[3] here}}

m = maybe(x)  # expected-note {{'maybe' called here}}

def nested():
    def inner():  # expected-error {{unsupported construct: a def inside a function (define it at the top level)}}
        return 1
    return 2

k = nested()  # expected-note {{'nested' called here}}

for q in range(2):
    pass
print(q)  # expected-error {{'q' is not defined here: it is the variable of a for loop and not visible after it}}
act = relu
for q in range(2):
    act = tanh  # expected-error {{unsupported construct: 'act' is a function, module or dtype and cannot change inside a loop}}
