//===- compiler/opt/StackMerging.cpp - One autodiff stack for a loop's saved values ===//
//
// Autodiff gives every value a backward loop reads its own stack (docs/autodiff.md "Stacks"):
// one `stack_push` per forward iteration, one `stack_top` and one `stack_pop` per backward
// iteration, and the loop variables carrying the stack through both loops. An LSTM step saves 8
// values, so each time step pays 24 stack operations, each a run-time call that costs far more
// than moving 32 floats. Stacks pushed in the same forward loop and read in the same backward
// loop are pushed and popped in lockstep, so one stack of the values concatenated does the
// same work:
//
//   stack_push(s1, v1), ..., stack_push(sk, vk)  ->  stack_push(s1, concat(v1, ..., vk))
//   stack_top(s1), ..., stack_top(sk)           ->  split(stack_top(s1)) {sizes = [n1, ..., nk]}
//   stack_pop(s2..sk), and s2..sk's loop variables in both loops  ->  removed
//
// The concatenation is along the last axis of one-row entries (every dim but the last is 1),
// so the split's parts are contiguous views (kernels/cpu/Shape.cpp) and readers see the same
// layout as before. The values are copied, never computed, so results are bitwise the same.
//
// Algorithm:
//   1. For each `stack_new`, collect its web (StackWeb.h). Keep the simple ones: not escaping,
//      one push, one stack_top and one stack_pop, the push reading the forward loop's Switch
//      (unconditional, once per iteration) and the top and pop the backward loop's Switch, no
//      control edges on them, and a static one-row entry of the top's type.
//   2. Group them by (forward loop, backward loop, stack_new's frame, dtype, entry rank).
//   3. For each group of two or more, in stack_new order: the first stack (the leader) pushes
//      the concatenation and its top is split; the entry dims in its web's types are updated;
//      the others' tops' readers read their parts, and their webs are removed.
//
// Requires: a verified graph  Preserves: frames, deadness, side effects  Invalidates: node ids
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"
#include "compiler/opt/StackWeb.h"

#include <map>
#include <tuple>

namespace dlm::opt {

using namespace graph;

namespace {

/// One stack of a group: its web and the nodes the rewrite touches.
struct SimpleStack {
  StackWeb web;
  NodeId push = 0, top = 0, pop = 0;
  Type entry;
};

/// (forward loop, backward loop, stack_new's frame, dtype, entry rank).
using GroupKey = std::tuple<FrameId, FrameId, FrameId, DType, size_t>;

/// True when `v` is the body output (port 1) of a loop Switch of `frame`: read once per
/// iteration, unconditionally.
bool isLoopBody(const Graph &g, ValueRef v, FrameId frame) {
  const Node &sw = g.node(v.node);
  return sw.op == OpKind::Switch && v.port == 1 && sw.frame == frame &&
         g.node(sw.inputs[0].node).op == OpKind::Merge;
}

bool hasOneRow(const Type &t) {
  const Shape &s = t.shape();
  for (size_t d = 0; d + 1 < s.size(); ++d)
    if (!s[d].isStatic() || s[d].size() != 1)
      return false;
  return true;
}

class StackMerger : GraphRewrite {
public:
  using GraphRewrite::GraphRewrite;

  PassResult run() {
    std::map<GroupKey, std::vector<SimpleStack>> groups;
    for (NodeId id = 0; id < g.numNodes(); ++id)
      if (g.node(id).op == OpKind::StackNew)
        if (std::optional<SimpleStack> s = asSimple(id)) {
          const Node &push = g.node(s->push);
          GroupKey key{push.frame, g.node(s->top).frame, g.node(id).frame, s->entry.dtype(),
                       s->entry.rank()};
          groups[key].push_back(std::move(*s));
        }
    std::vector<bool> keep(g.numNodes(), true);
    bool changed = false;
    for (auto &[key, stacks] : groups)
      if (stacks.size() >= 2) {
        merge(stacks, keep);
        changed = true;
      }
    return finishRewrite(g, changed, std::move(keep));
  }

private:
  /// The stack made by `stackNew` when its web has the simple shape of step 1.
  std::optional<SimpleStack> asSimple(NodeId stackNew) {
    SimpleStack s;
    s.web = collectStackWeb(g, stackNew, uses, controlUses);
    std::vector<NodeId> pops;
    for (NodeId n : s.web.nodes)
      if (g.node(n).op == OpKind::StackPop)
        pops.push_back(n);
    if (s.web.escapes || s.web.pushes.size() != 1 || s.web.readers.size() != 1 || pops.size() != 1)
      return std::nullopt;
    s.push = s.web.pushes[0];
    s.top = s.web.readers[0];
    s.pop = pops[0];
    const Node &push = g.node(s.push), &top = g.node(s.top), &pop = g.node(s.pop);
    FrameId forward = push.frame, backward = top.frame;
    if (forward == kRootFrame || backward == kRootFrame || forward == backward ||
        g.frame(forward).parent != g.node(stackNew).frame ||
        g.frame(backward).parent != g.node(stackNew).frame || pop.frame != backward ||
        !isLoopBody(g, push.inputs[0], forward) || !isLoopBody(g, top.inputs[0], backward) ||
        pop.inputs[0] != top.inputs[0] || !push.controlInputs.empty() ||
        !top.controlInputs.empty() || !pop.controlInputs.empty() || !controlUses[s.top].empty())
      return std::nullopt;
    s.entry = top.results[0];
    if (!s.entry.isTensor() || s.entry.rank() == 0 || !s.entry.staticNumElements() ||
        !hasOneRow(s.entry) || g.typeOf(push.inputs[1]) != s.entry)
      return std::nullopt;
    return s;
  }

  /// `t` (a stack of the leader's web) with the entry dims `entry`, when its entry dims are
  /// known (fresh symbols, which match any entry, stay).
  static Type withEntry(const Type &t, const Shape &entry) {
    if (!t.isTensor() || t.rank() != entry.size() + 1)
      return t;
    bool known = false;
    for (size_t d = 1; d < t.rank(); ++d)
      known |= t.shape()[d].isStatic();
    if (!known)
      return t;
    Shape s{t.shape()[0]};
    s.insert(s.end(), entry.begin(), entry.end());
    return Type::tensor(t.dtype(), s);
  }

  void merge(const std::vector<SimpleStack> &stacks, std::vector<bool> &keep) {
    const SimpleStack &leader = stacks[0];
    size_t axis = leader.entry.rank() - 1;
    std::vector<ValueRef> values;
    std::vector<int64_t> sizes;
    std::vector<Type> parts;
    int64_t total = 0;
    for (const SimpleStack &s : stacks) {
      values.push_back(g.node(s.push).inputs[1]);
      sizes.push_back(s.entry.shape()[axis].size());
      parts.push_back(s.entry);
      total += sizes.back();
    }
    Shape entryShape = leader.entry.shape();
    entryShape[axis] = Dim::fixed(total);
    Type entry = Type::tensor(leader.entry.dtype(), entryShape);

    // Forward: the leader pushes the concatenation.
    const Node &push = g.node(leader.push);
    Node &cat = g.addNode(OpKind::Concat, values, {entry}, push.frame, push.loc);
    cat.attrs["axis"] = int64_t(axis);
    g.node(leader.push).inputs[1] = Graph::value(cat.id);
    for (NodeId n : leader.web.nodes)
      for (Type &t : g.node(n).results)
        t = withEntry(t, entryShape);

    // Backward: the leader's top is split; every top's readers read their part.
    const Node &top = g.node(leader.top);
    Node &split = g.addNode(OpKind::Split, {}, parts, top.frame, top.loc);
    split.attrs["axis"] = int64_t(axis);
    split.attrs["sizes"] = sizes;
    NodeId splitId = split.id;
    for (uint32_t k = 0; k < stacks.size(); ++k)
      replaceAllUses(g, Graph::value(stacks[k].top), Graph::value(splitId, k));
    g.node(splitId).inputs.push_back(Graph::value(leader.top));
    g.node(leader.top).results[0] = entry;

    for (size_t k = 1; k < stacks.size(); ++k) {
      for (NodeId n : stacks[k].web.nodes)
        keep[n] = false;
      keep[stacks[k].top] = false;
    }
    ctx.count("groups");
    ctx.count("stacks-merged", static_cast<int64_t>(stacks.size()));
  }
};

} // namespace

PassResult runStackMerging(Graph &g, PassContext &ctx) { return StackMerger(g, ctx).run(); }

} // namespace dlm::opt
