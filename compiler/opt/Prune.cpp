//===- compiler/opt/Prune.cpp - Keep only what the requested outputs need --===//
//
// Pruning to the requested outputs (TensorFlow's pruning to the fetched tensors): when a caller
// asks for some values of the graph (`dlm-opt --outputs=%7,%9#1`), only the nodes those values
// depend on are computed — and every side effect with what it depends on, since printing,
// saving, asserting and the random stream are the program's behaviour whatever was asked for.
// Unlike `dce`, a computation that may fail at run time (an index out of range) but that no
// requested value and no side effect reads is pruned: the caller did not ask for it.
//
// Algorithm:
//   1. Roots: the producers of the requested values, the nodes whose registry entry has side
//      effects, and random draws (dropout).
//   2. Mark backwards over data and control inputs (GraphUtil markLiveFrom).
//   3. Compact the graph to the marked nodes.
// Without requested outputs the pass reports an error: pruning to nothing but the side effects
// would silently drop the program's run-time errors (that is `dce`'s job, which keeps them).
//
// Requires: a verified graph  Preserves: frames, side-effect order  Invalidates: node ids
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"

#include "compiler/support/Diagnostics.h"

namespace dlm::opt {

using namespace graph;

PassResult runPrune(Graph &g, PassContext &ctx) {
  if (ctx.outputs.empty()) {
    ctx.diag.error("pass 'prune' needs the requested outputs (--outputs=%N,...)");
    return PassResult::Failed;
  }
  std::vector<NodeId> roots;
  for (const ValueRef &v : ctx.outputs)
    roots.push_back(v.node);
  for (const Node &n : g.nodes())
    if (hasEffect(n))
      roots.push_back(n.id);
  std::vector<bool> live = markLiveFrom(g, roots);
  // Compaction renumbers the nodes: keep the requested values pointing at theirs.
  std::vector<NodeId> newId(g.numNodes(), 0);
  NodeId next = 0;
  for (NodeId id = 0; id < g.numNodes(); ++id)
    if (live[id])
      newId[id] = next++;
  PassResult result = sweepDead(g, ctx, live, "pruned");
  for (ValueRef &v : ctx.outputs)
    v.node = newId[v.node];
  return result;
}

} // namespace dlm::opt
