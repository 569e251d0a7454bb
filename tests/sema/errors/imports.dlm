# RUN: %dlmc --emit=ssa --verify-diagnostics %s
# Imports: a stdlib module that does not exist (with a suggestion), a relative file that does not
# exist, and a cycle reported with its chain.
import nnn  # expected-error {{cannot find module 'nnn'}}
import Inputs/missing  # expected-error {{cannot find module 'Inputs/missing'}}
import Inputs/cycle_a
x = cycle_a.f(1)
