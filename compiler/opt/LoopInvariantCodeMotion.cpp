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
// Nested loops: hoisting out of an inner loop puts the node in the outer loop's frame, where a
// node that reads only invariants must hang from a pivot to run once per outer iteration
// (docs/ir.md). Its pivot is `Identity(x)`, x the outer value that starts one of the inner
// loop's variables (the input of a non-constant Enter): live exactly when the inner loop starts.
// Frames are visited innermost first, so a node invariant in both loops moves on out of the
// outer loop when that frame's turn comes (the pivot is an Identity, like any other), up to
// the root frame.
//
// Algorithm:
//   1. Visit the loops' frames innermost first (frames nest in frames declared before them).
//   2. In each frame, walk its nodes in topological order, mapping each invariant value to the
//      parent-frame value equal to it: a constant Enter to its input, a constant to a copy in
//      the parent frame (made when first needed), a hoisted node to its copy, and the
//      `Identity(enter) ctrl(pivot)` an earlier run left of a hoisted node to what it reads.
//   3. A hoistable node (pure, allowed op, static types, control inputs only from pivots, every
//      input invariant) is copied into the parent frame on the mapped inputs (hanging from the
//      parent's pivot when the parent is a loop), a constant Enter of the copy is added, and the
//      node is forwarded to it, keeping as control inputs the pivots its deadness came from (its
//      own and, transitively, its invariant inputs').
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
  Hoister(Graph &g, PassContext &ctx, FrameId frame)
      : g(g), ctx(ctx), frame(frame), parent(g.frame(frame).parent) {}

  bool run(const std::vector<NodeId> &order) {
    bool changed = false;
    for (NodeId id : order) {
      if (g.node(id).frame != frame)
        continue;
      if (g.node(id).op == OpKind::Enter && isConstantEnter(g.node(id)))
        outside[Graph::value(id)] = g.node(id).inputs[0];
      else if (isPivotedInvariant(g.node(id)))
        noteInvariantIdentity(g.node(id));
      else if (isHoistable(id))
        changed |= hoist(id);
    }
    return changed;
  }

private:
  Graph &g;
  PassContext &ctx;
  FrameId frame;
  FrameId parent;
  /// The pivot copies hang from in a parent loop frame (made when first needed).
  std::optional<NodeId> parentPivot;
  std::map<ValueRef, ValueRef> outside; ///< invariant value in `frame` -> equal parent value
  /// For an invariant value in `frame`: the pivots its deadness comes from (a constant's control
  /// inputs, a hoisted node's own and its inputs'); a constant Enter has none.
  std::map<ValueRef, std::vector<NodeId>> pivotsOf;

  std::vector<NodeId> pivots(ValueRef v) {
    if (auto it = pivotsOf.find(v); it != pivotsOf.end())
      return it->second;
    const Node &n = g.node(v.node);
    return n.op == OpKind::Const ? n.controlInputs : std::vector<NodeId>{};
  }

  /// `Identity(v) ctrl(pivots)` of an invariant v: what an earlier run left of a hoisted node.
  bool isPivotedInvariant(const Node &n) {
    return n.op == OpKind::Identity && n.inputs.size() == 1 && outside.count(n.inputs[0]) &&
           std::all_of(n.controlInputs.begin(), n.controlInputs.end(),
                       [&](NodeId c) { return g.node(c).op == OpKind::Identity; });
  }

  void noteInvariantIdentity(const Node &n) {
    std::vector<NodeId> deps = pivots(n.inputs[0]);
    deps.insert(deps.end(), n.controlInputs.begin(), n.controlInputs.end());
    outside[Graph::value(n.id)] = outside[n.inputs[0]];
    pivotsOf[Graph::value(n.id)] = std::move(deps);
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
    if (c.op != OpKind::Const)
      return std::nullopt;
    Attrs attrs = c.attrs;
    std::vector<Type> results = c.results;
    Location loc = c.loc;
    Node &copy = g.addNode(OpKind::Const, {}, std::move(results), parent, loc);
    copy.attrs = std::move(attrs);
    NodeId id = copy.id;
    hangFromParentPivot(id);
    return outside[v] = Graph::value(id);
  }

  /// In a parent loop frame, `Identity(x) in parent`, x the input of this loop's first
  /// non-constant Enter: live once per parent iteration in which this loop starts.
  std::optional<NodeId> findParentPivot() {
    if (parent == kRootFrame)
      return std::nullopt;
    if (parentPivot)
      return parentPivot;
    for (const Node &n : g.nodes()) {
      if (n.frame != frame || n.op != OpKind::Enter || isConstantEnter(n))
        continue;
      ValueRef start = n.inputs[0];
      Type t = g.typeOf(start);
      Location loc = n.loc;
      parentPivot = g.addNode(OpKind::Identity, {start}, {std::move(t)}, parent, loc).id;
      return parentPivot;
    }
    return std::nullopt;
  }

  void hangFromParentPivot(NodeId id) {
    if (std::optional<NodeId> pivot = findParentPivot())
      g.addControlInput(id, *pivot);
  }

  bool isHoistable(NodeId id) {
    const Node &n = g.node(id);
    if (n.inputs.empty() || !isPure(n) || n.op == OpKind::Identity || mayFail(g, n) ||
        n.results.size() != 1)
      return false;
    for (NodeId c : n.controlInputs)
      if (g.node(c).op != OpKind::Identity)
        return false;
    return std::all_of(n.inputs.begin(), n.inputs.end(), [&](const ValueRef &in) {
      return outside.count(in) || g.node(in.node).op == OpKind::Const;
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
    Node &copy =
        g.addNode(g.node(id).op, std::move(inputs), g.node(id).results, parent, g.node(id).loc);
    copy.attrs = g.node(id).attrs;
    NodeId hoisted = copy.id;
    hangFromParentPivot(hoisted);
    Node &enter = g.addNode(OpKind::Enter, {Graph::value(hoisted)}, g.node(id).results, frame,
                            g.node(id).loc);
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
  // Children are declared after their parents: the reverse order visits inner loops first.
  for (FrameId f = static_cast<FrameId>(g.numFrames()); f-- > 1;) {
    std::optional<std::vector<NodeId>> order = g.topologicalOrder();
    if (!order)
      return PassResult::Unchanged;
    changed |= Hoister(g, ctx, f).run(*order);
  }
  return changed ? PassResult::Changed : PassResult::Unchanged;
}

} // namespace dlm::opt
