//===- compiler/opt/CommonSubexpressionElimination.cpp - Merge equal nodes ===//
//
// Common subexpression elimination: two pure nodes that apply the same op with the same
// attributes to the same inputs, hang from the same control inputs and run in the same frame
// compute the same value at the same times (equal inputs and control inputs mean equal
// deadness), so the later one is dropped and its users read the earlier one. This is what merges
// the forward values autodiff recomputes in the backward graph, and the constants lowering and
// autodiff create over and over. Side effects, random draws, stacks and the control-flow
// primitives are never merged (GraphUtil isPure); commutative ops match with either operand
// order.
//
// Algorithm:
//   1. Walk the nodes in topological order (a node's inputs are already canonical).
//   2. Key each pure node by (op, frame, inputs — sorted for commutative ops); the candidates
//      with that key are compared on attributes, control inputs and result types.
//   3. On a match, record the earlier node as the survivor of this one (later nodes read the
//      survivor when they are visited); otherwise record the node under its key.
//   4. Compact away the merged nodes (they have no users left).
//
// Requires: a verified graph  Preserves: frames, side-effect order  Invalidates: node ids
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace dlm::opt {

using namespace graph;

namespace {

using Key = std::tuple<OpKind, FrameId, std::vector<ValueRef>>;

Key keyOf(const Node &n) {
  std::vector<ValueRef> inputs = n.inputs;
  if (opHas(n.op, opflag::Commutative))
    std::sort(inputs.begin(), inputs.end());
  return {n.op, n.frame, std::move(inputs)};
}

std::vector<NodeId> sortedControls(const Node &n) {
  std::vector<NodeId> c = n.controlInputs;
  std::sort(c.begin(), c.end());
  return c;
}

bool sameComputation(const Node &a, const Node &b) {
  return a.attrs == b.attrs && a.results == b.results && sortedControls(a) == sortedControls(b);
}

/// Points `n`'s data and control inputs at the surviving nodes (`survivor[id]` is id itself
/// unless id was merged away).
void canonicalizeInputs(Node &n, const std::vector<NodeId> &survivor) {
  for (ValueRef &in : n.inputs)
    in.node = survivor[in.node];
  std::vector<NodeId> controls;
  for (NodeId c : n.controlInputs)
    if (std::find(controls.begin(), controls.end(), survivor[c]) == controls.end())
      controls.push_back(survivor[c]);
  n.controlInputs = std::move(controls);
}

} // namespace

PassResult runCommonSubexpressionElimination(Graph &g, PassContext &ctx) {
  std::optional<std::vector<NodeId>> order = g.topologicalOrder();
  if (!order)
    return PassResult::Unchanged;
  std::map<Key, std::vector<NodeId>> seen;
  std::vector<NodeId> survivor(g.numNodes());
  for (NodeId id = 0; id < g.numNodes(); ++id)
    survivor[id] = id;
  size_t merged = 0;
  for (NodeId id : *order) {
    Node &n = g.node(id);
    canonicalizeInputs(n, survivor);
    if (!isPure(n))
      continue;
    std::vector<NodeId> &candidates = seen[keyOf(n)];
    auto match = std::find_if(candidates.begin(), candidates.end(),
                              [&](NodeId c) { return sameComputation(g.node(c), n); });
    if (match == candidates.end()) {
      candidates.push_back(id);
      continue;
    }
    survivor[id] = *match;
    ++merged;
  }
  // Loop back edges (NextIteration -> Merge) were visited before their producer.
  for (Node &n : g.nodes())
    canonicalizeInputs(n, survivor);
  std::vector<bool> keep(g.numNodes());
  for (NodeId id = 0; id < g.numNodes(); ++id)
    keep[id] = survivor[id] == id;
  if (merged == 0)
    return PassResult::Unchanged;
  g.compact(keep);
  ctx.count("merged", static_cast<int64_t>(merged));
  return PassResult::Changed;
}

} // namespace dlm::opt
