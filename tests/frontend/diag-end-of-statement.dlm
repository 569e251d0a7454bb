# RUN: %dlmc --verify-diagnostics --emit=ast %s
# Tokens after a complete statement: one statement per line, no chained assignment; Python's
# `import m as x` and `from m import f` say what to write instead.
x = 1 2  # expected-error {{expected end of line after statement, found number '2'}}
a = b = 1  # expected-error {{expected end of line after statement, found '='}}
print(x) y  # expected-error {{expected end of line after statement, found name 'y'}}
import optim as o  # expected-error {{'import ... as' is not supported: the module is bound to the last part of its path ('import nn' gives 'nn')}}
from nn import linear  # expected-error {{'from ... import' is not supported: 'import nn', then call its functions as 'nn.name(...)'}}
if x:
    from optim import adam  # expected-error {{'from ... import' is not supported: 'import optim', then call its functions as 'optim.name(...)'}}
z = from_x y  # expected-error {{expected end of line after statement, found name 'y'}}
