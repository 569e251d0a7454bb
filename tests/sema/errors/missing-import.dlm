# RUN: %dlmc --emit=ssa --verify-diagnostics %s
# A library module used without its import: the error says which import is missing (a name
# that is no module keeps the usual suggestion).
import optim
p = nn.init_linear(2, 3)  # expected-error {{undefined name 'nn'; the library module 'nn' needs 'import nn' first}}
x = metrics.rounded(0.5)  # expected-error {{undefined name 'metrics'; the library module 'metrics' needs 'import metrics' first}}
y = optim.sgd(1.0, 1.0, 0.1)
z = optimm.sgd(1.0, 1.0, 0.1)  # expected-error {{undefined name 'optimm'; did you mean 'optim'?}}
