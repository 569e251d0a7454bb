# RUN: dlm-ad --emit=grad %s | FileCheck %s
# Golden gradient graph of nested loops. The inner loop's trip count is a value of the outer
# body, so it is pushed on an outer stack; the inner loop's own stacks are appended entry by
# entry to outer stacks (stack_extend), with their lengths pushed too. In the backward, each outer
# iteration pops an inner trip count and splits the inner stacks off again (stack_tail,
# stack_drop) for the inner backward frame, which pops them entry by entry.

def f(x: float):
    s = x
    for i in range(3):
        for j in range(i):
            s = sin(s) * x
    return s

print(grad(f)(0.5))

# CHECK: frame @[[OUTER:grad.f.for[0-9]+]] {
# CHECK: frame @[[INNER:grad.f.for[0-9]+]] in @[[OUTER]]
# CHECK: frame @[[BOUTER:grad.f.for[0-9]+]] {
# CHECK: frame @[[BINNER:grad.f.for[0-9]+]] in @[[BOUTER]]
# CHECK: %[[INNERSTACK:[0-9]+]] = Exit(%{{[0-9]+}}) : f64[?{{[0-9]+}}] in @[[INNER]]
# CHECK: stack_push({{.*}}) : f64[{{.*}}] in @[[INNER]]
# CHECK: stack_push(%{{[0-9]+}}#1, %{{[0-9]+}}) : i64[{{.*}}] in @[[OUTER]]
# CHECK: stack_extend(%{{[0-9]+}}#1, %[[INNERSTACK]]) : f64[{{.*}}] in @[[OUTER]]
# CHECK: %[[BTRIPS:[0-9]+]] = stack_top(%{{[0-9]+}}#1) : i64[] in @[[BOUTER]]
# CHECK: %[[LEN:[0-9]+]] = stack_top(%{{[0-9]+}}#1) : i64[] in @[[BOUTER]]
# CHECK: %[[PART:[0-9]+]] = stack_tail(%{{[0-9]+}}#1, %[[LEN]]) : f64[{{.*}}] in @[[BOUTER]]
# CHECK: stack_drop(%{{[0-9]+}}#1, %[[LEN]]) : f64[{{.*}}] in @[[BOUTER]]
# CHECK: Enter(%[[BTRIPS]]) {is_constant = true} : i64[] in @[[BINNER]]
# CHECK: stack_top(%{{[0-9]+}}#1) : f64[] in @[[BINNER]]
