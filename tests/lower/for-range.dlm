# RUN: %dlmc --emit=graph %s | FileCheck %s
# RUN: %dlmc --emit=graph %s > %t.dlmir && %bin/dlmir-run %t.dlmir | FileCheck %s --check-prefix=OUT
# for i in range(10): the induction variable is the loop's first carried value; the bound and
# the step enter as constant Enters (loop invariants); the condition is i < hi for a positive
# constant step; the next i is i + step.

# Run on the graph executor, the loop sums 0..9:
# OUT: {{^}}45{{$}}

# CHECK-LABEL: graph @main {
# CHECK:       frame @[[F:main.for[0-9]+]] {parallel_iterations = 10}
# CHECK:       %[[HI:.*]] = const() {value = 10} : i64[]
# CHECK:       %[[EI:.*]] = Enter(%{{.*}}) {is_constant = false} : i64[] in @[[F]]
# CHECK:       %[[MI:.*]] = Merge(%[[EI]], %[[NI:.*]]) : i64[] in @[[F]]
# CHECK:       %[[MS:.*]] = Merge(%{{.*}}, %[[NS:.*]]) : i64[] in @[[F]]
# CHECK:       %[[EHI:.*]] = Enter(%[[HI]]) {is_constant = true} : i64[] in @[[F]]
# CHECK:       %[[ESTEP:.*]] = Enter(%{{.*}}) {is_constant = true} : i64[] in @[[F]]
# CHECK:       %[[C:.*]] = lt(%[[MI]], %[[EHI]]) : bool[] in @[[F]]
# CHECK:       %[[LC:.*]] = LoopCond(%[[C]])
# CHECK:       %[[SI:.*]]:2 = Switch(%[[MI]], %[[LC]])
# CHECK:       %[[SS:.*]]:2 = Switch(%[[MS]], %[[LC]])
# CHECK:       %[[SUM:.*]] = Exit(%[[SS]]) : i64[] in @[[F]]
# CHECK:       %[[ADD:.*]] = add(%[[SS]]#1, %[[SI]]#1) : i64[] in @[[F]]
# CHECK:       %[[STEP:.*]] = add(%[[SI]]#1, %[[ESTEP]]) : i64[] in @[[F]]
# CHECK:       %[[NI]] = NextIteration(%[[STEP]])
# CHECK:       %[[NS]] = NextIteration(%[[ADD]])
# CHECK:       print(%[[SUM]]) : (){{$}}
s = 0
for i in range(10):
    s = s + i
print(s)
