# RUN: %dlmc --emit=ssa --verify-diagnostics %s
# A def that is never called is still checked: unannotated parameters are unknown (what depends
# on them is not checked, and reports nothing), everything else is.
def never(x, n):
    y = x @ x
    z = undefined_thing + 1  # expected-error {{undefined name 'undefined_thing'}}
    w = zeros(3, 4) @ zeros(5, 6)  # expected-error {{matmul: 4 columns on the left vs 5 rows on the right (f32[3, 4] @ f32[5, 6])}}
    return y

def annotated(x: Tensor[B, 3]):
    return sum(x, axis=2)  # expected-error {{axis 2 is out of range for f32[B, 3] (rank 2)}}
