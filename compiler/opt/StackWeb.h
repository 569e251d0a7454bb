//===- compiler/opt/StackWeb.h - Autodiff stacks as webs of nodes ---------===//
//
// Autodiff keeps the values a backward loop reads on stacks (docs/autodiff.md "Stacks"): a
// `stack_new` whose value the forward loop carries through `stack_push`, that leaves through an
// Exit, enters the backward loop and is read there by `stack_top` and carried on by
// `stack_pop`. The passes that remove stacks (`ad-stacks`), recompute their entries (`remat`)
// or size them (`plan-memory`) all start from that web of nodes.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_OPT_STACKWEB_H
#define DLM_COMPILER_OPT_STACKWEB_H

#include "compiler/ir/Graph.h"

#include <optional>
#include <set>
#include <vector>

namespace dlm::opt {

/// One stack: the nodes its value flows through and the nodes that read or grow it.
struct StackWeb {
  std::set<graph::NodeId> nodes;      ///< stack_new and every node whose result is this stack
  std::vector<graph::NodeId> readers; ///< stack_top nodes reading it
  std::vector<graph::NodeId> pushes;  ///< stack_push nodes in `nodes`
  /// Read by anything else (a nested loop's stack_extend/stack_tail/stack_drop, shape_of, a
  /// print) or with a control edge hanging from one of its nodes.
  bool escapes = false;
};

/// The web of the stack `stackNew` (a `stack_new` node) makes: followed through the control-flow
/// primitives, Identity and operand 0 of stack_push/stack_pop. `uses` and `controlUses` are the
/// graph's (Graph::dataUses, Graph::controlUses). Stops early once it escapes.
StackWeb collectStackWeb(const graph::Graph &g, graph::NodeId stackNew,
                         const std::vector<std::vector<graph::Use>> &uses,
                         const std::vector<std::vector<graph::NodeId>> &controlUses);

/// The body pivot of loop frame `f`: an `Identity` of a loop Switch's true output, the node
/// lowering hangs a body's invariant computations from; made from the first Switch outside
/// `avoid` when there is none.
std::optional<graph::NodeId> bodyPivot(graph::Graph &g, graph::FrameId f,
                                       const std::set<graph::NodeId> &avoid);

} // namespace dlm::opt

#endif // DLM_COMPILER_OPT_STACKWEB_H
