//===- compiler/opt/GraphUtil.h - Small graph queries and edits for passes ===//
//
// The facts and edits several passes share: which nodes may be moved, merged or evaluated at
// compile time (pure nodes), redirecting the users of one value to another without changing
// when anything runs, and reading and writing `const` nodes.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_OPT_GRAPHUTIL_H
#define DLM_COMPILER_OPT_GRAPHUTIL_H

#include "compiler/ir/Graph.h"
#include "compiler/ir/MayFail.h"
#include "compiler/opt/Pass.h"

#include <optional>
#include <vector>

namespace dlm::opt {

/// True when running `n` is itself observable: its op has side effects (ops/Ops.def
/// `SideEffects`: print, save, load, assert, seed, and the ops that draw random numbers, randn,
/// rand, randperm, dropout).
bool hasEffect(const graph::Node &n);

/// True when `n` computes its outputs from its inputs and attributes alone: no side effect
/// (print, save, load, assert, seed), no random numbers (randn, rand, dropout), not a
/// control-flow primitive, not a stack (autodiff's stacks are threaded state), and not the
/// pivot Identity. Only pure nodes are folded, merged or rewritten.
bool isPure(const graph::Node &n);

/// The nodes `roots` depend on, themselves included: marked backwards over data and control
/// inputs (a live Merge keeps its loop back edges, so its NextIteration and body).
std::vector<bool> markLiveFrom(const graph::Graph &g, const std::vector<graph::NodeId> &roots);

/// Keeps only the nodes marked in `live` (renumbering them) and counts the rest under
/// `counter` in ctx's stats; Changed when any node went.
PassResult sweepDead(graph::Graph &g, PassContext &ctx, const std::vector<bool> &live,
                     const char *counter);

/// What a pass that rewrites the graph in place starts from: the graph, its context, and every
/// node's data and control users as they were when the pass began (the pass keeps them true for
/// what it reads). Passes written as a class derive from it.
class GraphRewrite {
public:
  GraphRewrite(graph::Graph &g, PassContext &ctx)
      : g(g), ctx(ctx), uses(g.dataUses()), controlUses(g.controlUses()) {}

protected:
  graph::Graph &g;
  PassContext &ctx;
  std::vector<std::vector<graph::Use>> uses;
  std::vector<std::vector<graph::NodeId>> controlUses;
};

/// The end of a rewrite that marked in `keep` the nodes it replaced (one entry per node when
/// `keep` was made; nodes added since are kept): Unchanged when `changed` is false, otherwise
/// the unmarked nodes go, the rest are renumbered in order, and the answer is Changed.
PassResult finishRewrite(graph::Graph &g, bool changed, std::vector<bool> keep);

/// Renumbers the nodes so that node `order[k]` gets id k (`order` is a permutation of the
/// ids), updating every edge. Deterministic schedules break ties by id (Graph::topologicalOrder),
/// so this is how a pass says where new nodes belong.
void renumberNodes(graph::Graph &g, const std::vector<graph::NodeId> &order);

/// Makes every data user of `from` read `to` instead.
void replaceAllUses(graph::Graph &g, graph::ValueRef from, graph::ValueRef to);

/// Makes the control users of `from` (`controlUsers[from]`, kept up to date) wait for `to`
/// instead: for a node `to` that absorbs `from` and so finishes no earlier. A user that reads
/// `to` needs no edge. The caller checks that no such user reaches `to` (which would make a
/// cycle), e.g. that each comes after `to` in a topological order.
void moveControlUsers(graph::Graph &g, graph::NodeId from, graph::NodeId to,
                      std::vector<std::vector<graph::NodeId>> &controlUsers);

/// Replaces node `n`'s single result by the existing value `v`, keeping when things run: a node
/// runs only when its data and control inputs are live, so a rewrite that drops some of `n`'s
/// inputs could make `n`'s users live where they were dead (a branch not taken, a loop's last
/// test). `lostDeps` are the nodes whose liveness `n` depended on and `v` may not (n's control
/// inputs, the control inputs of dropped constants, ...). When there are none, users read `v`
/// directly; otherwise `n` becomes `Identity(v)` with `lostDeps` as control inputs.
void forwardValue(graph::Graph &g, graph::NodeId n, graph::ValueRef v,
                  std::vector<graph::NodeId> lostDeps);

/// For a value `x` inside a loop that is the same in every iteration, the parent-frame value
/// it equals: the input of a constant Enter, seen directly or through the
/// `Identity(enter) ctrl(pivot)` that licm leaves behind. nullopt otherwise.
std::optional<graph::ValueRef> invariantSource(const graph::Graph &g, graph::ValueRef x);

/// The value of a scalar `const` node as a double (int, float, bool or a one-element list), or
/// nullopt when `n` is not such a node.
std::optional<double> scalarConstant(const graph::Node &n);

/// True when `n` is a `const` whose every element equals `value` (any shape).
bool isSplatConstant(const graph::Node &n, double value);

} // namespace dlm::opt

#endif // DLM_COMPILER_OPT_GRAPHUTIL_H
