//===- compiler/opt/StackElimination.cpp - Remove autodiff stacks that need not exist ===//
//
// Autodiff stores a value the backward loop reads on a stack (docs/autodiff.md "Stacks"): the
// forward loop carries `stack_push(s, x)` around each iteration, the stack leaves through an
// Exit, enters the backward loop as one more loop variable, and each backward iteration reads
// `stack_top(s)` and carries `stack_pop(s)` on. After the other passes two things happen to such
// stacks: the value pushed becomes loop-invariant (licm hoisted what computed it, so every
// iteration pushes the same tensor), or nothing reads the stack any more (the backward value it
// fed was simplified away: a `stack_top` nobody uses). In both cases the stack, its pushes and
// pops, and the loop variables carrying it in both loops are pure overhead — memory
// proportional to the trip count.
//
// Rules:
//   stack_top(s) with no users                        -> removed (a read of a balanced stack)
//   stack_top(s), every push into s pushes Enter(v)   -> Enter(v) {is_constant} into the reader's
//     {is_constant} (or Identity of one)                loop (v is the same in every iteration)
//   a stack nothing reads (no stack_top left)        -> the whole web removed: stack_new, pushes,
//                                                        pops, its Enter/Merge/Switch/Exit/
//                                                        NextIteration in both loops
//
// Algorithm:
//   1. For each `stack_new`, collect its web: the nodes its value flows through as a stack
//      (control-flow primitives, Identity, stack_push/stack_pop operand 0), its readers
//      (stack_top) and its pushes. A web that escapes — read by anything else (stack_extend,
//      stack_tail and stack_drop of nested loops, shape_of, a print), or with a control edge
//      hanging from one of its nodes — is left alone.
//   2. Drop readers nobody uses. If every push pushes one loop-invariant value v and each
//      reader's loop is a child of v's frame, forward each reader to a constant Enter of v into
//      its loop, hanging from that loop's pivot when the reader was the only thing keeping the
//      value dead on the loop's final test (GraphUtil forwardValue).
//   3. A web left without readers is removed whole.
// Pushes and pops that autodiff made balanced cannot fail, so removing them hides no error.
//
// Requires: a verified graph  Preserves: side effects, deadness  Invalidates: node ids
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"
#include "compiler/opt/StackWeb.h"

#include <algorithm>
#include <map>
#include <set>

namespace dlm::opt {

using namespace graph;

namespace {

class StackEliminator {
public:
  StackEliminator(Graph &g, PassContext &ctx) : g(g), ctx(ctx) {}

  PassResult run() {
    bool changed = false;
    std::vector<bool> keep(g.numNodes(), true);
    size_t original = g.numNodes();
    for (NodeId id = 0; id < original; ++id) {
      if (g.node(id).op != OpKind::StackNew)
        continue;
      StackWeb web = collectStackWeb(g, id, g.dataUses(), g.controlUses());
      if (web.escapes)
        continue;
      changed |= dropUnusedReaders(web, keep);
      changed |= forwardInvariantReaders(web, keep);
      if (web.readers.empty()) {
        for (NodeId n : web.nodes)
          keep[n] = false;
        ctx.count("stacks-removed");
        changed = true;
      }
    }
    return finishRewrite(g, changed, std::move(keep));
  }

private:
  Graph &g;
  PassContext &ctx;

  bool dropUnusedReaders(StackWeb &web, std::vector<bool> &keep) {
    std::vector<std::vector<Use>> uses = g.dataUses();
    std::vector<std::vector<NodeId>> controlUses = g.controlUses();
    size_t before = web.readers.size();
    std::erase_if(web.readers, [&](NodeId r) {
      if (!uses[r].empty() || !controlUses[r].empty())
        return false;
      keep[r] = false;
      ctx.count("reads-removed");
      return true;
    });
    return web.readers.size() != before;
  }

  /// stack_top(s) -> Enter(v) {is_constant} when every push into s pushes the invariant v.
  bool forwardInvariantReaders(StackWeb &web, std::vector<bool> &keep) {
    if (web.pushes.empty() || web.readers.empty())
      return false;
    std::optional<ValueRef> v = invariantSource(g, g.node(web.pushes[0]).inputs[1]);
    for (NodeId p : web.pushes)
      if (!v || invariantSource(g, g.node(p).inputs[1]) != v)
        return false;
    FrameId home = g.node(v->node).frame;
    for (NodeId r : web.readers)
      if (g.node(r).frame == kRootFrame || g.frame(g.node(r).frame).parent != home ||
          g.typeOf(*v) != g.node(r).results[0])
        return false;
    std::map<FrameId, NodeId> enters; // one constant Enter of v per reader loop
    for (NodeId r : web.readers) {
      FrameId f = g.node(r).frame;
      std::optional<NodeId> pivot = bodyPivot(g, f, web.nodes);
      if (!pivot)
        return false;
      if (!enters.count(f)) {
        Type t = g.typeOf(*v);
        Node &enter = g.addNode(OpKind::Enter, {*v}, {std::move(t)}, f, g.node(r).loc);
        enter.attrs["is_constant"] = true;
        enters[f] = enter.id;
      }
      std::vector<NodeId> deps = g.node(r).controlInputs;
      deps.push_back(*pivot);
      forwardValue(g, r, Graph::value(enters[f]), std::move(deps));
      if (g.node(r).op == OpKind::StackTop) // its users read the Enter directly now
        keep[r] = false;
      ctx.count("reads-forwarded");
    }
    web.readers.clear();
    return true;
  }
};

} // namespace

PassResult runStackElimination(Graph &g, PassContext &ctx) { return StackEliminator(g, ctx).run(); }

} // namespace dlm::opt
