# RUN: %dlmc --emit=ssa --verify-diagnostics %s
# Annotations are checked where they are given: parameter types, dtypes, ranks, static dims,
# symbolic dims equal within one signature, and return types.
def layer(x: Tensor[B, 784], w: Tensor[784, N]) -> Tensor[B, N]:
    return x @ w
# expected-note@-2 {{'x' is annotated here}}
# expected-note@-3 {{'w' is annotated here}}

def count(n: int) -> Tensor:
    return n  # expected-error {{'count' returns int, which does not match its annotation Tensor: expected a Tensor, found int}}
# expected-note@-2 {{return type annotated here}}

def pair(a: Tensor[N], b: Tensor[N]):
    return a + b
# expected-note@-2 {{'b' is annotated here}}

def wide(a: Tensor[f64, 3]):
    return a
# expected-note@-2 {{'a' is annotated here}}

y1 = layer(zeros(8, 784), zeros(784, 10))
y2 = layer(zeros(8), zeros(784, 10))  # expected-error {{argument 'x' of 'layer' does not match its annotation Tensor[B, 784]: expected rank 2, found f32[8]}}
y3 = layer(zeros(8, 784), zeros(783, 10))  # expected-error {{argument 'w' of 'layer' does not match its annotation Tensor[784, N]: dim 0 is 783, expected 784 (found f32[783, 10])}}
y4 = count(3)  # expected-note {{'count' called here}}
y5 = pair(zeros(3), zeros(4))  # expected-error {{argument 'b' of 'pair' does not match its annotation Tensor[N]: N is 3 elsewhere in the signature but 4 in f32[4]}}
y6 = wide(zeros(3))  # expected-error {{argument 'a' of 'wide' does not match its annotation Tensor[f64, 3]: expected dtype f64, found f32[3]}}
