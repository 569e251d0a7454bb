//===- compiler/opt/Rematerialisation.h - The two halves of `remat` -------===//
//
// `remat` (Rematerialisation.cpp) recomputes values instead of keeping them until the planned
// peak meets `--remat-budget`: long chains in the root frame keep √N checkpoints, and then
// autodiff stacks inside loops whose entries can be recomputed from other stacks' entries go
// (StackRematerialisation.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_OPT_REMATERIALISATION_H
#define DLM_COMPILER_OPT_REMATERIALISATION_H

#include "compiler/opt/MemoryPlanning.h"
#include "compiler/opt/Pass.h"

namespace dlm::opt {

/// While `plan` (g's) is over ctx.rematBudget, replaces loop stacks whose pushed value is a
/// cheap elementwise function of other stacked values by that recomputation in the backward
/// loop, keeping each rewrite only when the planned peak shrinks; `plan` is updated. Counts
/// `stacks` and `stack-recomputed`. True when the graph changed.
bool rematerialiseStacks(graph::Graph &g, PassContext &ctx, MemoryPlan &plan);

} // namespace dlm::opt

#endif // DLM_COMPILER_OPT_REMATERIALISATION_H
