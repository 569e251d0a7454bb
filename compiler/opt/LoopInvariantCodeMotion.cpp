//===- compiler/opt/LoopInvariantCodeMotion.cpp - Hoist invariants out of loops ===//
//
// Loop-invariant code motion: a pure node inside a loop frame whose inputs are all loop
// invariants — constant Enters (`is_constant = true`), constants, or nodes already hoisted —
// computes the same value in every iteration, so it is computed once in the parent frame and
// enters the loop as one more constant Enter. Lowering hangs such nodes from the loop's pivot
// (a control edge) so they are dead on the loop's final test; the node left in the loop becomes
// `Identity(enter) ctrl(pivot)` (GraphUtil forwardValue), which keeps that deadness — without it
// a NextIteration fed by the invariant would start one iteration too many.
//
// A hoisted node runs even when the loop runs zero times, so only ops that cannot fail once
// their operand shapes are static and checked are hoisted (elementwise ops other than integer
// division, matmul, transposes, reductions, reshapes); nothing with run-time dims.
//
// Algorithm:
//   1. Visit the top-level loops' frames (hoisting into a loop frame would need that frame's
//      pivot for the hoisted node: not done yet).
//   2. In each frame, walk its nodes in topological order, mapping each invariant value to the
//      parent-frame value equal to it: a constant Enter to its input, a constant to a copy in
//      the parent frame (made when first needed), a hoisted node to its copy.
//   3. A hoistable node (pure, allowed op, static types, control inputs only from pivots, every
//      input invariant) is copied into the parent frame on the mapped inputs, a constant Enter
//      of the copy is added, and the node is forwarded to it, keeping as control inputs the
//      pivots its deadness came from (its own and, transitively, its invariant inputs').
//   4. Leave the bypassed nodes to `dce`.
//
// Requires: a verified graph  Preserves: side effects, deadness  Invalidates: node order
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"

#include "compiler/ir/OpRegistry.h"

#include <algorithm>
#include <map>

namespace dlm::opt {

using namespace graph;

namespace {

class Hoister {
public:
  Hoister(Graph &g, PassContext &ctx, FrameId frame) : g(g), ctx(ctx), frame(frame) {}

  bool run(const std::vector<NodeId> &order) {
    bool changed = false;
    for (NodeId id : order) {
      if (g.node(id).frame != frame)
        continue;
      if (g.node(id).op == "Enter" && isConstantEnter(g.node(id)))
        outside[Graph::value(id)] = g.node(id).inputs[0];
      else if (isHoistable(id))
        changed |= hoist(id);
    }
    return changed;
  }

private:
  Graph &g;
  PassContext &ctx;
  FrameId frame;
  std::map<ValueRef, ValueRef> outside; ///< invariant value in `frame` -> equal parent value
  /// For an invariant value in `frame`: the pivots its deadness comes from (a constant's control
  /// inputs, a hoisted node's own and its inputs'); a constant Enter has none.
  std::map<ValueRef, std::vector<NodeId>> pivotsOf;

  std::vector<NodeId> pivots(ValueRef v) {
    if (auto it = pivotsOf.find(v); it != pivotsOf.end())
      return it->second;
    const Node &n = g.node(v.node);
    return n.op == "const" ? n.controlInputs : std::vector<NodeId>{};
  }

  static bool isConstantEnter(const Node &n) {
    const bool *c = n.attrAs<bool>("is_constant");
    return c && *c;
  }

  /// The parent-frame value equal to `v`, or nullopt when v varies between iterations.
  std::optional<ValueRef> invariant(ValueRef v) {
    if (auto it = outside.find(v); it != outside.end())
      return it->second;
    const Node &c = g.node(v.node);
    if (c.op != "const")
      return std::nullopt;
    Attrs attrs = c.attrs;
    std::vector<Type> results = c.results;
    Location loc = c.loc;
    Node &copy = g.addNode("const", {}, std::move(results), g.frame(frame).parent, loc);
    copy.attrs = std::move(attrs);
    return outside[v] = Graph::value(copy.id);
  }

  bool isHoistable(NodeId id) {
    const Node &n = g.node(id);
    if (n.inputs.empty() || !isPure(n) || n.op == "Identity" || mayFail(g, n) || n.results.size() != 1)
      return false;
    for (NodeId c : n.controlInputs)
      if (g.node(c).op != "Identity")
        return false;
    return std::all_of(n.inputs.begin(), n.inputs.end(), [&](const ValueRef &in) {
      return outside.count(in) || g.node(in.node).op == "const";
    });
  }

  bool hoist(NodeId id) {
    std::vector<ValueRef> inputs;
    std::vector<NodeId> deps = g.node(id).controlInputs;
    for (ValueRef in : std::vector<ValueRef>(g.node(id).inputs)) {
      inputs.push_back(*invariant(in));
      for (NodeId p : pivots(in))
        deps.push_back(p);
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    FrameId parent = g.frame(frame).parent;
    Node &copy = g.addNode(g.node(id).op, std::move(inputs), g.node(id).results, parent, g.node(id).loc);
    copy.attrs = g.node(id).attrs;
    NodeId hoisted = copy.id;
    Node &enter = g.addNode("Enter", {Graph::value(hoisted)}, g.node(id).results, frame, g.node(id).loc);
    enter.attrs["is_constant"] = true;
    NodeId enterId = enter.id;
    outside[Graph::value(id)] = Graph::value(hoisted);
    outside[Graph::value(enterId)] = Graph::value(hoisted);
    pivotsOf[Graph::value(id)] = deps;
    pivotsOf[Graph::value(enterId)] = deps;
    // The node stays as Identity(enter) ctrl(pivots) when its value was dead on some tests.
    forwardValue(g, id, Graph::value(enterId), std::move(deps));
    ctx.count("hoisted");
    return true;
  }
};

} // namespace

PassResult runLoopInvariantCodeMotion(Graph &g, PassContext &ctx) {
  bool changed = false;
  for (FrameId f = static_cast<FrameId>(g.numFrames()); f-- > 1;) {
    // Inside a loop, a node that reads only invariants must hang from its frame's pivot (the
    // executor's rule, docs/ir.md); hoisting into a loop would have to find one. Top-level
    // loops only, for now.
    if (g.frame(f).parent != kRootFrame)
      continue;
    std::optional<std::vector<NodeId>> order = g.topologicalOrder();
    if (!order)
      return PassResult::Unchanged;
    changed |= Hoister(g, ctx, f).run(*order);
  }
  return changed ? PassResult::Changed : PassResult::Unchanged;
}

} // namespace dlm::opt
