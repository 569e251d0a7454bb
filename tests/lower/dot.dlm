# RUN: %dlmc --emit=dot %s | FileCheck %s
# dlmc --emit=dot: the loop's frame is a cluster labelled with its name, nodes show op and
# type, control edges (the pivot's) are dashed, the back edge does not constrain the layout.

# CHECK-LABEL: digraph "main" {
# CHECK:       subgraph cluster_1 {
# CHECK-NEXT:  label="frame @main.for0 (parallel_iterations=10)";
# CHECK:       [label="%{{[0-9]+}} Merge\ni64[]", shape=diamond];
# CHECK:       [label="%{{[0-9]+}} NextIteration\ni64[]", shape=diamond];
# CHECK:       -> n{{[0-9]+}} [constraint=false];
# CHECK:       -> n{{[0-9]+}} [style=dashed];
s = 0
for i in range(4):
    s = s + i * 2
print(s)
