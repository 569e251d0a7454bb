//===- compiler/opt/StackRematerialisation.cpp - Recompute stacked loop values ===//
//
// The loop half of `remat` (Rematerialisation.cpp runs it after the root frame's chains, while
// the plan is still over the budget). In a loop gradient the memory that grows with the trip
// count is autodiff's stacks: each forward iteration pushes every value the backward reads
// (docs/autodiff.md "Stacks"). Many of those values are cheap elementwise functions of other
// values that are pushed anyway — an LSTM's tanh(c') of the gates and the old cell state, all
// stacked — so their stack holds nothing the backward could not recompute: the backward
// iteration reads the inputs' entries (the same forward iteration's, as every stack here gets
// one push per forward iteration and one pop per backward iteration) and recomputes the value
// with the same ops, bitwise the same result.
//
//   loop L: push(S_v, f(a, b)); push(S_a, a); push(S_b, b)       (a, b pushed every iteration)
//   loop B: ... top(S_v) ...                                  ->  ... f(top(S_a), top(S_b)) ...
//           and S_v goes: stack_new, push, pop, its loop variables in L and B
//
// Algorithm:
//   1. Stacks that qualify: a web (StackWeb.h) that does not escape, with one push in loop L of
//      the stack's loop Switch output, going straight to the NextIteration, and readers and one
//      pop likewise on one loop B, B and L children of the same frame.
//   2. For each such stack S_v (largest entries first), the recompute tree of its pushed value
//      v: nodes of L that are elementwise, pure, cannot fail and have static types, up to eight
//      of them, whose leaves are values pushed on another qualifying stack of L and B, loop
//      invariants (constant Enters of the parent frame's values) or constants; at least one leaf
//      is a stacked value.
//   3. Copy the tree into B: stacked leaves read that stack's stack_top, invariant leaves a
//      constant Enter of the same value into B, constants hang from B's pivot. S_v's readers
//      read the copy; S_v's web and readers are removed.
//   4. Plan again; keep the rewrite only when the planned peak (stacks sized by MemoryPlanning's
//      trip counts) shrank. Repeat until the plan fits the budget or no stack is left to try.
// Only stacks whose inputs are already stacked are rematerialised; pushing a value's inputs
// instead of it, and √N/binomial checkpointing of whole iterations, are not done.
//
// Requires: a verified graph  Preserves: results, side effects, deadness  Invalidates: node ids
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/MemoryPlanning.h"
#include "compiler/opt/Pass.h"
#include "compiler/opt/Rematerialisation.h"
#include "compiler/opt/StackWeb.h"

#include "compiler/ir/OpRegistry.h"

#include <algorithm>
#include <map>

namespace dlm::opt {

using namespace graph;

namespace {

constexpr size_t kMaxRecomputed = 8;

/// A stack with one push per forward iteration and one pop per backward iteration.
struct LoopStack {
  NodeId stackNew;
  NodeId push;
  ValueRef pushed;
  FrameId forward, backward;
  NodeId reader; ///< one of its stack_tops in the backward loop
  StackWeb web;
};

/// Whether `n` (in `frame`) takes the stack from its loop Switch's body output and passes it
/// on only to a NextIteration: the stack's one push or pop of an iteration.
bool onceAnIteration(const Graph &g, const Node &n, const std::vector<std::vector<Use>> &uses) {
  const Node &sw = g.node(n.inputs[0].node);
  return sw.op == OpKind::Switch && n.inputs[0].port == 1 && uses[n.id].size() == 1 &&
         g.node(uses[n.id][0].user).op == OpKind::NextIteration;
}

std::optional<LoopStack> asLoopStack(const Graph &g, NodeId stackNew,
                                     const std::vector<std::vector<Use>> &uses,
                                     const std::vector<std::vector<NodeId>> &controlUses) {
  StackWeb web = collectStackWeb(g, stackNew, uses, controlUses);
  if (web.escapes || web.pushes.size() != 1 || web.readers.empty())
    return std::nullopt;
  const Node &push = g.node(web.pushes[0]);
  FrameId forward = push.frame, backward = g.node(web.readers[0]).frame;
  if (forward == kRootFrame || backward == kRootFrame || forward == backward ||
      g.frame(forward).parent != g.frame(backward).parent || !onceAnIteration(g, push, uses))
    return std::nullopt;
  size_t pops = 0;
  for (NodeId id : web.nodes) {
    const Node &n = g.node(id);
    if (n.op == OpKind::StackPop && (n.frame != backward || !onceAnIteration(g, n, uses)))
      return std::nullopt;
    pops += n.op == OpKind::StackPop;
  }
  for (NodeId r : web.readers) {
    const Node &top = g.node(r);
    if (top.frame != backward || !top.controlInputs.empty() ||
        g.node(top.inputs[0].node).op != OpKind::Switch || top.inputs[0].port != 1)
      return std::nullopt;
  }
  if (pops != 1)
    return std::nullopt;
  return LoopStack{stackNew, push.id,        push.inputs[1], forward,
                   backward, web.readers[0], std::move(web)};
}

/// Recomputable inside the forward loop: cheap, pure, certain to succeed, static.
bool isCheapElementwise(const Graph &g, const Node &n) {
  return n.info().elementwise && isPure(n) && !mayFail(g, n) && n.results.size() == 1 &&
         n.controlInputs.empty() && n.results[0].isTensor() && n.results[0].staticNumElements();
}

class StackRematerialiser {
public:
  StackRematerialiser(Graph &g, PassContext &ctx) : g(g), ctx(ctx) {}

  /// Rematerialises stacks while `plan` is over the budget; true when the graph changed.
  bool run(MemoryPlan &plan) {
    bool changed = false;
    for (bool progress = true; progress && plan.arenaBytes > ctx.rematBudget;) {
      progress = false;
      for (const LoopStack &s : findStacks()) {
        if (std::optional<MemoryPlan> better = tryStack(s, plan)) {
          plan = std::move(*better);
          progress = changed = true;
          break; // node ids changed: find the stacks again
        }
      }
    }
    return changed;
  }

private:
  Graph &g;
  PassContext &ctx;
  std::vector<LoopStack> stacks;
  std::map<ValueRef, size_t> stackOfPushed; ///< pushed value -> index in `stacks`

  /// Qualifying stacks, the largest entries first (ties by node order).
  const std::vector<LoopStack> &findStacks() {
    stacks.clear();
    stackOfPushed.clear();
    std::vector<std::vector<Use>> uses = g.dataUses();
    std::vector<std::vector<NodeId>> controlUses = g.controlUses();
    for (const Node &n : g.nodes())
      if (n.op == OpKind::StackNew)
        if (std::optional<LoopStack> s = asLoopStack(g, n.id, uses, controlUses))
          stacks.push_back(std::move(*s));
    std::stable_sort(stacks.begin(), stacks.end(), [&](const LoopStack &a, const LoopStack &b) {
      return entryElements(a) > entryElements(b);
    });
    for (size_t i = 0; i < stacks.size(); ++i)
      stackOfPushed.emplace(stacks[i].pushed, i);
    return stacks;
  }

  int64_t entryElements(const LoopStack &s) const {
    return g.typeOf(s.pushed).staticNumElements().value_or(0);
  }

  std::optional<MemoryPlan> tryStack(const LoopStack &s, const MemoryPlan &plan) {
    std::vector<NodeId> tree;
    if (!recomputeTree(s, s.pushed, tree) || tree.empty() || !hasStackedLeaf(s, tree))
      return std::nullopt;
    Graph backup = g.clone();
    recompute(s, tree);
    std::optional<MemoryPlan> replanned = planMemory(g);
    if (!replanned || replanned->arenaBytes >= plan.arenaBytes) {
      g = std::move(backup);
      return std::nullopt;
    }
    ctx.count("stacks");
    ctx.count("stack-recomputed", static_cast<int64_t>(tree.size()));
    return replanned;
  }

  /// The stack other than `s` that `v` is pushed on, in `s`'s loops.
  const LoopStack *stackedElsewhere(const LoopStack &s, ValueRef v) const {
    auto it = stackOfPushed.find(v);
    if (it == stackOfPushed.end())
      return nullptr;
    const LoopStack &other = stacks[it->second];
    bool sameLoops =
        other.stackNew != s.stackNew && other.forward == s.forward && other.backward == s.backward;
    return sameLoops ? &other : nullptr;
  }

  bool isLeaf(const LoopStack &s, ValueRef v) const {
    if (v != s.pushed && stackedElsewhere(s, v))
      return true;
    if (std::optional<ValueRef> outside = invariantSource(g, v))
      return g.node(outside->node).frame == g.frame(s.backward).parent;
    const Node &n = g.node(v.node);
    return n.op == OpKind::Const && n.frame == s.forward;
  }

  /// Appends the nodes computing `v` from leaves to `tree` in post-order (inputs first).
  bool recomputeTree(const LoopStack &s, ValueRef v, std::vector<NodeId> &tree) {
    if (isLeaf(s, v) || std::find(tree.begin(), tree.end(), v.node) != tree.end())
      return true;
    const Node &n = g.node(v.node);
    if (n.frame != s.forward || !isCheapElementwise(g, n) || tree.size() >= kMaxRecomputed)
      return false;
    for (const ValueRef &in : n.inputs)
      if (!recomputeTree(s, in, tree))
        return false;
    tree.push_back(n.id);
    return true;
  }

  bool hasStackedLeaf(const LoopStack &s, const std::vector<NodeId> &tree) const {
    for (NodeId id : tree)
      for (const ValueRef &in : g.node(id).inputs)
        if (stackedElsewhere(s, in))
          return true;
    return false;
  }

  /// The backward loop's copy of leaf `v`.
  ValueRef leafInBackward(const LoopStack &s, ValueRef v, NodeId pivot,
                          std::map<ValueRef, ValueRef> &copies) {
    if (auto it = copies.find(v); it != copies.end())
      return it->second;
    ValueRef copy;
    if (const LoopStack *other = stackedElsewhere(s, v)) {
      copy = Graph::value(other->reader);
    } else if (std::optional<ValueRef> outside = invariantSource(g, v)) {
      Type t = g.typeOf(*outside);
      Node &enter =
          g.addNode(OpKind::Enter, {*outside}, {std::move(t)}, s.backward, g.node(v.node).loc);
      enter.attrs["is_constant"] = true;
      copy = Graph::value(enter.id);
    } else {
      Node c = g.node(v.node);
      Node &k = g.addNode(OpKind::Const, {}, c.results, s.backward, c.loc);
      k.attrs = c.attrs;
      k.controlInputs = {pivot};
      copy = Graph::value(k.id);
    }
    return copies[v] = copy;
  }

  /// Copies `tree` into the backward loop, redirects s's readers to it and removes s.
  void recompute(const LoopStack &s, const std::vector<NodeId> &tree) {
    size_t firstCopy = g.numNodes();
    std::optional<NodeId> pivot = bodyPivot(g, s.backward, s.web.nodes);
    assert(pivot && "a backward loop has a Switch outside the stack's web");
    std::map<ValueRef, ValueRef> copies;
    for (NodeId id : tree) {
      std::vector<ValueRef> inputs = g.node(id).inputs;
      for (ValueRef &in : inputs)
        in = copies.count(in) ? copies[in] : leafInBackward(s, in, *pivot, copies);
      Node orig = g.node(id);
      Node &copy = g.addNode(orig.op, std::move(inputs), orig.results, s.backward, orig.loc);
      copy.attrs = orig.attrs;
      copies[Graph::value(id)] = Graph::value(copy.id);
    }
    ValueRef root = copies.at(s.pushed);
    std::vector<bool> keep(g.numNodes(), true);
    for (NodeId r : s.web.readers) {
      replaceAllUses(g, Graph::value(r), root);
      keep[r] = false;
    }
    for (NodeId n : s.web.nodes)
      keep[n] = false;
    size_t added = g.numNodes() - firstCopy;
    g.compact(keep);
    placeBeforeFirstUser(added);
  }

  /// Renumbers the last `copies` nodes to come right before the first node that reads one of
  /// them: where the backward iteration needs the value, so node order reads as the schedule.
  void placeBeforeFirstUser(size_t copies) {
    size_t first = g.numNodes() - copies;
    NodeId anchor = first;
    for (NodeId id = 0; id < first; ++id)
      for (const ValueRef &in : g.node(id).inputs)
        if (in.node >= first && id < anchor)
          anchor = id;
    std::vector<NodeId> order;
    for (NodeId id = 0; id < first; ++id) {
      if (id == anchor)
        for (NodeId c = first; c < g.numNodes(); ++c)
          order.push_back(c);
      order.push_back(id);
    }
    for (NodeId c = first; anchor == first && c < g.numNodes(); ++c)
      order.push_back(c);
    renumberNodes(g, order);
  }
};

} // namespace

bool rematerialiseStacks(Graph &g, PassContext &ctx, MemoryPlan &plan) {
  return StackRematerialiser(g, ctx).run(plan);
}

} // namespace dlm::opt
