# RUN: %dlmc --emit=graph %s | FileCheck %s
# RUN: %python %src/scripts/dlm-diff.py %bin %s | FileCheck %s --check-prefix=OUT
# Program order (docs/ir.md): a node that may fail hangs from the side effect before it and the
# side effect after it hangs from the node. `x[i]` (i known at run time) may fail, `x[0]`
# cannot. An `if` without side effects whose branch may fail merges one token per branch; a
# loop without side effects carries a token of its own, whose Exit the next print follows, and
# its index hangs from a constant Enter of the token before the loop (so iterations overlap); in
# a loop with side effects the carried token follows the iteration's index.

# CHECK-LABEL: graph @main {
# CHECK:       %[[I:.*]] = Exit(%{{.*}}) : i64[] in @main.while0
# CHECK:       %[[A:.*]] = print(%{{.*}}) : ()
# CHECK-NEXT:  %[[Y:.*]] = index(%{{.*}}, %[[I]]) ctrl(%[[A]]) {axis = 0} : f32[]
# CHECK-NEXT:  const() {value = 0} : i64[]
# CHECK-NEXT:  index(%{{.*}}, %{{.*}}) {axis = 0} : f32[]
# CHECK:       %[[PIVOT:.*]] = Identity(%[[SW:.*]]#1) : bool[]
# CHECK:       %[[Z:.*]] = index(%{{.*}}#1, %{{.*}}) ctrl(%[[A]]) {axis = 0} : f32[]
# CHECK-NEXT:  %[[THEN:.*]] = Identity(%[[PIVOT]]) ctrl(%[[Z]]) : bool[]
# CHECK-NEXT:  %[[ELSE:.*]] = Identity(%[[SW]]) : bool[]
# CHECK-NEXT:  %[[IF:.*]] = Merge(%[[ELSE]], %[[THEN]]) : bool[]
# CHECK:       %[[B:.*]] = print(%{{.*}}) ctrl(%[[A]], %[[Y]], %[[IF]]) : ()

# CHECK:       %[[K:.*]] = index(%{{.*}}, %{{.*}}#1) ctrl(%[[ENTER:.*]]) {axis = 0} : f32[] in @main.for1
# CHECK-NEXT:  %[[BT:.*]] = const() ctrl(%[[B]]) {value = true} : bool[]{{$}}
# CHECK-NEXT:  %[[ENTER]] = Enter(%[[BT]]) {is_constant = true} : bool[] in @main.for1
# CHECK:       %[[INIT:.*]] = const() {value = true} : bool[]{{$}}
# CHECK-NEXT:  %[[E:.*]] = Enter(%[[INIT]]) {is_constant = false} : bool[] in @main.for1
# CHECK-NEXT:  %[[M:.*]] = Merge(%[[E]], %[[NEXT:.*]]) : bool[] in @main.for1
# CHECK-NEXT:  %[[S:.*]]:2 = Switch(%[[M]], %{{.*}}) : bool[], bool[] in @main.for1
# CHECK-NEXT:  %[[X:.*]] = Exit(%[[S]]) : bool[] in @main.for1
# CHECK-NEXT:  %[[J:.*]] = Identity(%[[S]]#1) ctrl(%[[K]]) : bool[] in @main.for1
# CHECK-NEXT:  %[[NEXT]] = NextIteration(%[[J]]) : bool[] in @main.for1
# CHECK:       %[[C:.*]] = print(%{{.*}}) ctrl(%[[BT]], %[[X]]) : ()

# CHECK:       %[[BODY:.*]] = Identity(%{{.*}}#1) : bool[] in @main.for2
# CHECK:       %[[P:.*]] = print(%{{.*}}) ctrl(%[[BODY]]) : () in @main.for2
# CHECK:       %[[T:.*]] = index(%{{.*}}, %{{.*}}) ctrl(%[[P]]) {axis = 0} : f32[] in @main.for2
# CHECK:       const() ctrl(%{{.*}}, %[[P]], %[[T]]) {value = true} : bool[] in @main.for2

# OUT:      a
# OUT-NEXT: b
# OUT-NEXT: c
# OUT-NEXT: tensor(1.)
# OUT-NEXT: tensor(1.)
# OUT-NEXT: tensor(2.)

x = ones(3)
i = 0
while i < 2:
    i += 1
print("a")
y = x[i]
y0 = x[0]
if i > 1:
    z = x[i - 1]
print("b")
s = sum(zeros(1))
for k in range(i):
    s = s + x[k]
print("c")
for k in range(i):
    print(x[k])
    t = x[k + 1]
print(s)
