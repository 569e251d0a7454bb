//===- kernels/cpu/StackOps.h - stack_top and stack_pop as functions ------===//
//
// The stack push a loop's forward pass and the two stack reads its gradient run every
// iteration, for the kernels (Stack.cpp) and for the C ABI's direct entries that generated
// code calls without the generic kernel dispatch (dlm_stack_push, dlm_stack_top,
// dlm_stack_pop in runtime/CApi.h).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_KERNELS_CPU_STACKOPS_H
#define DLM_KERNELS_CPU_STACKOPS_H

#include "runtime/Tensor.h"

namespace dlm::rt::cpu {

/// CPU stack s with x appended (in place when s is the newest version; see Stack.cpp);
/// throws when x's rank or shape does not fit the stack. Also the C ABI's dlm_stack_push.
Tensor stackPush(const Tensor &s, const Tensor &x);
/// The last entry of CPU stack s (a view); throws "stack_top: the stack is empty".
Tensor stackTop(const Tensor &s);
/// s without its last entry (a view); throws "stack_pop: the stack is empty".
Tensor stackPop(const Tensor &s);

} // namespace dlm::rt::cpu

#endif // DLM_KERNELS_CPU_STACKOPS_H
