//===- compiler/opt/DeadCodeElimination.cpp - Remove what no effect needs --===//
//
// Dead-node elimination (pruning): a node is kept only when a side effect depends on it. The
// program's observable behaviour is its side effects — print, save, load, assert, seed, the
// random draws (their order is the RNG stream) — and its run-time errors (an index out of
// range: graph::mayFail), so those are the roots; everything they read,
// through data or control edges, transitively, is live; the rest is removed. A loop nobody
// reads disappears whole (its NextIteration -> Merge cycle is reached from no root), and a loop
// variable no live node reads loses its Enter, Merge, Switch, Exit and NextIteration.
//
// Algorithm:
//   1. Roots: nodes whose registry entry has side effects, random draws (dropout), and nodes
//      that may fail at run time (mayFail: run-time shapes, an index by a run-time int, integer
//      division by a variable).
//   2. Mark backwards from the roots over data and control inputs (a worklist; Merge inputs
//      include the loop back edges, so a live Merge keeps its NextIteration and body).
//   3. Compact the graph to the marked nodes (ids renumbered in order).
//
// Requires: a verified graph  Preserves: frames, side-effect order  Invalidates: node ids
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"

namespace dlm::opt {

using namespace graph;

/// Nodes whose running is itself observable (a run-time error is too).
static bool isRoot(const Graph &g, const Node &n) { return hasEffect(n) || mayFail(g, n); }

PassResult runDeadCodeElimination(Graph &g, PassContext &ctx) {
  std::vector<NodeId> roots;
  for (const Node &n : g.nodes())
    if (isRoot(g, n))
      roots.push_back(n.id);
  return sweepDead(g, ctx, markLiveFrom(g, roots), "dead-nodes");
}

} // namespace dlm::opt
