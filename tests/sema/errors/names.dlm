# RUN: %dlmc --emit=ssa --verify-diagnostics %s
# Name resolution errors: undefined names with and without a suggestion, a name defined on only
# one path, top-level variables used inside a def, assignments to built-ins and modules, and a
# def defined twice. Every error of the file is reported in one run.
import nn

count = 3
total = cont + 1  # expected-error {{undefined name 'cont'; did you mean 'count'?}}
print(zzzq)  # expected-error {{undefined name 'zzzq'}}

x = zeros(3)
if sum(x) > 0.0:
    y = x
print(y)  # expected-error {{'y' is not defined here: it is only assigned in the then-branch}}

def uses_global(a):
    return a + count  # expected-error {{undefined name 'count'}}
    # expected-note@-1 {{top-level variables are not visible inside a def; pass 'count' as an argument}}

z = uses_global(x)  # expected-note {{'uses_global' called here}}
sum = 4  # expected-error {{cannot assign to built-in 'sum'}}
nn = 5  # expected-error {{cannot assign to module 'nn'}}
f64 = 6  # expected-error {{cannot assign to dtype 'f64'}}

def twice(a):
    return a

def twice(a):  # expected-error {{redefinition of 'twice'}}
    return a
# expected-note@-5 {{'twice' was first defined here}}
