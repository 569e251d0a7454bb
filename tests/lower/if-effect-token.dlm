# RUN: %dlmc --emit=graph -O0 %s | FileCheck %s
# Side effects keep program order across an `if` with an effect on one side only: the token of
# the side without effects must still follow the effect before the `if`. It did not, so the
# token Merge could fire from that side at once and the later print could overtake the earlier
# one on the graph executor (seen with nn.dropout_layer(training=False) between two prints).

def f(x, training):
    if training:
        return dropout(x, 0.5)
    return x

print("first")
print("second", f(ones(3), False))

# CHECK-LABEL: graph @main {
# CHECK:       %[[FIRST:[0-9]+]] = print(
# CHECK:       dropout({{.*}}) ctrl(%[[FIRST]])
# CHECK:       %[[ELSE:[0-9]+]] = Identity(%{{[0-9]+}}) ctrl(%[[FIRST]]) : bool[]
# CHECK:       %[[TOK:[0-9]+]] = Merge(%[[ELSE]], %{{[0-9]+}}) : bool[]
# CHECK:       print({{.*}}) ctrl(%[[TOK]])
