//===- compiler/opt/ElementwiseFusion.cpp - Fuse elementwise chains -------===//
//
// Vertical elementwise fusion: a chain (a tree) of elementwise ops becomes one `fused` node
// whose body lists the ops (FusedOp.h; docs/ir.md "fused"), so code generation can emit one loop
// that reads the inputs once and writes only the final result — no intermediate tensors.
//
// Control edges: every member reaches the root through data edges, so the root is dead exactly
// when some member's input or control input is: the fused node takes the union of the members'
// control inputs and is dead exactly when the root was. A member that may fail can have a
// control user, the side effect after it in program order (docs/ir.md "Program order"); that
// user then follows the fused node, which is safe when the root comes before the user in the
// schedule (then no path leads from the user back into the group).
//
// Algorithm:
//   1. Fusible nodes: pure, registry-elementwise, no attributes, one tensor result; not
//      floordiv, mod or integer pow (see staysKernel).
//   2. Visit nodes in reverse topological order; an unvisited fusible node roots a new group.
//      Grow the group through its operands: a producer joins when it is fusible, not yet in a
//      group, in the same frame as the root, has the root's result shape (only the fused node's
//      inputs broadcast), every data user of it is already in the group (its value is needed
//      nowhere else), and its control users come after the root in the schedule. Members are
//      added in reverse topological order, so a producer is considered only after all its
//      users in the group. A group stops growing at kMaxFusedStatements members; the producers
//      left out root groups of their own.
//   3. A group of two or more nodes rewrites its root in place into
//      `fused(external inputs in first-use order) {body}` with the members as statements in
//      topological order and their control inputs; the other members lose their last user, and
//      their control users follow the fused node instead.
//   4. Compact away the absorbed members.
// Reductions at the end of a chain (softmax, cross-entropy) are not fused yet (docs/opt.md).
//
// Requires: a verified graph  Preserves: frames, side effects  Invalidates: node ids
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/FusedOp.h"
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"

#include "compiler/ir/OpRegistry.h"

#include <algorithm>
#include <map>

namespace dlm::opt {

using namespace graph;

namespace {

/// floordiv, mod and integer pow stay kernels: their Python floor semantics and their run-time
/// errors (integer division by zero, negative integer exponents) have no inline code in
/// codegen (compiler/codegen/ElementCode.cpp), which evaluates every other fusible op.
bool staysKernel(const Node &n) {
  return n.op == OpKind::Floordiv || n.op == OpKind::Mod ||
         (n.op == OpKind::Pow && !isFloat(n.results[0].dtype()));
}

bool isFusible(const Node &n) {
  if (!isPure(n) || n.op == OpKind::Fused || !n.attrs.empty() || n.results.size() != 1 ||
      !n.results[0].isTensor() || staysKernel(n))
    return false;
  return n.info().elementwise && n.info().attrs.empty();
}

/// The most statements a fused node's body holds. Its loop body is one basic block that
/// codegen emits as one function; LLVM's passes and instruction selection take more than linear
/// time in the size of a block, so an unbounded group made a chain of N elementwise ops compile
/// in time quadratic in N (issue #27: 2.2 s of CPU in LLVM for 2000 ops on a 4-element tensor).
/// A longer chain becomes several fused nodes, each reading the previous one's result: one more
/// intermediate tensor per kMaxFusedStatements ops, which costs nothing measurable at run time.
constexpr size_t kMaxFusedStatements = 64;

struct Grouping {
  const Graph &g;
  std::vector<std::vector<Use>> uses;
  std::vector<std::vector<NodeId>> controlUsers;
  std::vector<int64_t> groupOf; // -1: none
  std::vector<size_t> pos;

  explicit Grouping(const Graph &g)
      : g(g), uses(g.dataUses()), controlUsers(g.controlUses()), groupOf(g.numNodes(), -1),
        pos(g.numNodes(), 0) {}

  bool canJoin(NodeId p, const Node &root, int64_t group) const {
    const Node &n = g.node(p);
    if (groupOf[p] != -1 || !isFusible(n) || n.frame != root.frame ||
        n.results[0].shape() != root.results[0].shape())
      return false;
    return std::all_of(uses[p].begin(), uses[p].end(),
                       [&](const Use &u) { return groupOf[u.user] == group; }) &&
           std::all_of(controlUsers[p].begin(), controlUsers[p].end(),
                       [&](NodeId u) { return pos[u] > pos[root.id]; });
  }

  /// Grows the group rooted at `root`; returns its members, root first.
  std::vector<NodeId> grow(NodeId root, int64_t group) {
    std::vector<NodeId> members{root};
    groupOf[root] = group;
    // Candidates ordered latest-first in the schedule: every user joins before its producer.
    std::map<size_t, NodeId, std::greater<>> frontier;
    auto addOperands = [&](NodeId id) {
      for (const ValueRef &in : g.node(id).inputs)
        frontier.emplace(pos[in.node], in.node);
    };
    addOperands(root);
    while (!frontier.empty() && members.size() < kMaxFusedStatements) {
      NodeId p = frontier.begin()->second;
      frontier.erase(frontier.begin());
      if (!canJoin(p, g.node(root), group))
        continue;
      groupOf[p] = group;
      members.push_back(p);
      addOperands(p);
    }
    return members;
  }
};

/// Rewrites the root of `members` into the fused node.
void fuse(Graph &g, std::vector<NodeId> members, const std::vector<size_t> &pos,
          std::vector<std::vector<NodeId>> &controlUsers) {
  std::sort(members.begin(), members.end(), [&](NodeId a, NodeId b) { return pos[a] < pos[b]; });
  std::vector<ValueRef> inputs;
  std::map<NodeId, unsigned> statementOf;
  auto numberOf = [&](ValueRef v) -> unsigned {
    if (auto it = statementOf.find(v.node); it != statementOf.end() && v.port == 0)
      return it->second;
    auto found = std::find(inputs.begin(), inputs.end(), v);
    if (found != inputs.end())
      return static_cast<unsigned>(found - inputs.begin());
    inputs.push_back(v);
    return static_cast<unsigned>(inputs.size() - 1);
  };
  // Inputs first (first-use order), then statement numbers after them.
  std::vector<FusedStatement> body;
  for (NodeId id : members) {
    for (const ValueRef &in : g.node(id).inputs)
      if (!statementOf.count(in.node))
        numberOf(in);
    statementOf[id] = 0; // placeholder until the inputs are all known
  }
  unsigned next = static_cast<unsigned>(inputs.size());
  for (NodeId id : members)
    statementOf[id] = next++;
  for (NodeId id : members) {
    FusedStatement st;
    st.op = g.node(id).op;
    for (const ValueRef &in : g.node(id).inputs)
      st.operands.push_back(numberOf(in));
    st.dtype = g.node(id).results[0].dtype();
    body.push_back(std::move(st));
  }
  // The fused node reports a run-time error (a broadcast of run-time shapes, an integer
  // division by zero) at the first member that can fail, where -O0 reports it: only members with
  // two or more operands can. The root's location pointed at `tanh(` of tanh(w * h).
  Location loc = g.node(members.back()).loc;
  for (NodeId id : members)
    if (g.node(id).inputs.size() > 1 && mayFail(g, g.node(id))) {
      loc = g.node(id).loc;
      break;
    }
  NodeId rootId = members.back();
  for (NodeId id : members) {
    if (id == rootId)
      continue;
    for (NodeId c : g.node(id).controlInputs)
      g.addControlInput(rootId, c);
    moveControlUsers(g, id, rootId, controlUsers);
  }
  Node &root = g.node(rootId);
  root.loc = std::move(loc);
  root.op = OpKind::Fused;
  root.attrs = {{"body", printFusedBody(body, inputs.size())}};
  root.inputs = std::move(inputs);
}

} // namespace

PassResult runElementwiseFusion(Graph &g, PassContext &ctx) {
  std::optional<std::vector<NodeId>> order = g.topologicalOrder();
  if (!order)
    return PassResult::Unchanged;
  Grouping grouping(g);
  for (size_t i = 0; i < order->size(); ++i)
    grouping.pos[(*order)[i]] = i;
  std::vector<bool> keep(g.numNodes(), true);
  int64_t groups = 0;
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    NodeId id = *it;
    if (grouping.groupOf[id] != -1 || !isFusible(g.node(id)))
      continue;
    std::vector<NodeId> members = grouping.grow(id, groups++);
    if (members.size() < 2)
      continue;
    for (size_t k = 1; k < members.size(); ++k)
      keep[members[k]] = false;
    fuse(g, members, grouping.pos, grouping.controlUsers);
    ctx.count("groups");
    ctx.count("nodes-fused", static_cast<int64_t>(members.size()));
  }
  if (std::all_of(keep.begin(), keep.end(), [](bool k) { return k; }))
    return PassResult::Unchanged;
  g.compact(keep);
  return PassResult::Changed;
}

} // namespace dlm::opt
