//===- compiler/codegen/Structure.cpp - Graph -> structured control flow --===//
//
// Algorithm (docs/codegen.md "Structuring"):
//   1. Give every node a role (Compute, Forward, LoopMerge, CondMerge, Exit).
//   2. For each region (frame) build its items — its own nodes and each child frame as one
//      loop item — and order them by Kahn's algorithm over the region-local dependencies
//      (a dependency on anything inside a child frame is a dependency on its loop item; the
//      NextIteration -> Merge back edges are ignored), ties broken by the smallest node id.
//   3. Walk the regions top-down in schedule order, computing each node's guard and, in a loop,
//      whether it is in the body; a loop item's guard is the join of its Enters' operands'
//      guards. Checks on the way reject any pattern outside the documented set.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Structure.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <set>

namespace dlm::codegen {

using graph::FrameId;
using graph::Graph;
using graph::Node;
using graph::NodeId;
using graph::ValueRef;

graph::ValueRef Structure::resolve(const Graph &g, ValueRef v) const {
  while (roles[v.node] == NodeRole::Forward)
    v = g.node(v.node).inputs[0];
  return v;
}

namespace {

bool isForwardOp(OpKind op) {
  return op == OpKind::Switch || op == OpKind::Enter || op == OpKind::Identity ||
         op == OpKind::NextIteration || op == OpKind::LoopCond;
}

class Structurer {
public:
  Structurer(const Graph &g, StructureError &error) : g(g), error(error) {}

  std::optional<Structure> run() {
    assignRoles();
    s.regions.resize(g.numFrames());
    s.nodeGuards.resize(g.numNodes());
    nodeBody.assign(g.numNodes(), false);
    childFrames.resize(g.numFrames());
    frameNodes.resize(g.numFrames());
    for (FrameId f = 1; f < g.numFrames(); ++f)
      childFrames[g.frame(f).parent].push_back(f);
    for (const Node &n : g.nodes())
      frameNodes[n.frame].push_back(n.id);
    for (FrameId f = 0; f < g.numFrames(); ++f) {
      s.regions[f].frame = f;
      if (!schedule(f))
        return std::nullopt;
    }
    if (!walk(graph::kRootFrame))
      return std::nullopt;
    return std::move(s);
  }

private:
  bool fail(NodeId n, std::string message) {
    if (error.message.empty())
      error = {std::move(message), n};
    return false;
  }

  void assignRoles() {
    s.roles.resize(g.numNodes());
    s.mergePred.resize(g.numNodes());
    s.mergeTrueInput.assign(g.numNodes(), 0);
    for (const Node &n : g.nodes()) {
      NodeRole role = NodeRole::Compute;
      if (isForwardOp(n.op))
        role = NodeRole::Forward;
      if (n.op == OpKind::Exit)
        role = NodeRole::Exit;
      if (n.op == OpKind::Merge) {
        bool loop = std::any_of(n.inputs.begin(), n.inputs.end(), [&](ValueRef v) {
          return g.node(v.node).op == OpKind::NextIteration;
        });
        role = loop ? NodeRole::LoopMerge : NodeRole::CondMerge;
      }
      s.roles[n.id] = role;
    }
  }

  bool isBackEdge(const Node &n, ValueRef in) const {
    return n.op == OpKind::Merge && g.node(in.node).op == OpKind::NextIteration;
  }

  bool isLoopSwitch(NodeId id) const {
    const Node &n = g.node(id);
    return n.op == OpKind::Switch && n.inputs.size() == 2 &&
           g.node(n.inputs[1].node).op == OpKind::LoopCond;
  }

  // --- 2. schedules ---------------------------------------------------------------------
  /// Items are keyed by node id, or numNodes + frame id for a child loop.
  size_t loopKey(FrameId f) const { return g.numNodes() + f; }

  /// The item of region `r` that contains node `n` (whose frame lies within r).
  size_t ownerIn(NodeId n, FrameId r) const {
    FrameId f = g.node(n).frame;
    if (f == r)
      return n;
    while (g.frame(f).parent != r)
      f = g.frame(f).parent;
    return loopKey(f);
  }

  /// Whether a producer belongs to region r's scope (a value r computes, not one from outside
  /// or one of r's own Exits, which its parent reads).
  bool producedIn(NodeId p, FrameId r) const {
    const Node &n = g.node(p);
    if (!g.frameWithin(n.frame, r))
      return false;
    return !(n.frame == r && s.roles[p] == NodeRole::Exit);
  }

  bool schedule(FrameId r) {
    std::vector<size_t> keys;
    for (NodeId n : frameNodes[r])
      if (s.roles[n] != NodeRole::Exit)
        keys.push_back(n);
    for (FrameId c : childFrames[r])
      keys.push_back(loopKey(c));
    std::vector<NodeId> minId(g.numNodes() + g.numFrames(), UINT32_MAX);
    std::vector<std::set<size_t>> succs(minId.size());
    std::vector<size_t> indegree(minId.size(), 0);
    for (const Node &n : g.nodes()) {
      if (!producedIn(n.id, r))
        continue;
      size_t dst = ownerIn(n.id, r);
      minId[dst] = std::min(minId[dst], n.id);
      auto depend = [&](NodeId p) {
        if (!producedIn(p, r))
          return;
        size_t src = ownerIn(p, r);
        if (src != dst && succs[src].insert(dst).second)
          ++indegree[dst];
      };
      for (ValueRef v : n.inputs)
        if (!isBackEdge(n, v))
          depend(v.node);
      for (NodeId c : n.controlInputs)
        depend(c);
    }
    using Entry = std::pair<NodeId, size_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
    for (size_t k : keys)
      if (indegree[k] == 0)
        ready.push({minId[k], k});
    Region &region = s.regions[r];
    while (!ready.empty()) {
      size_t k = ready.top().second;
      ready.pop();
      Item item;
      if (k >= g.numNodes())
        item.loop = (FrameId)(k - g.numNodes());
      else
        item.node = (NodeId)k;
      region.items.push_back(item);
      for (size_t next : succs[k])
        if (--indegree[next] == 0)
          ready.push({minId[next], next});
    }
    if (region.items.size() != keys.size())
      return fail(frameNodes[r].empty() ? 0 : frameNodes[r][0],
                  "the nodes of frame '" + g.frame(r).name + "' form a cycle");
    return true;
  }

  // --- 3. guards and bodies -------------------------------------------------------------
  bool join(Guard &into, const Guard &other, NodeId at) {
    const Guard &shorter = into.size() <= other.size() ? into : other;
    const Guard &longer = into.size() <= other.size() ? other : into;
    if (!std::equal(shorter.begin(), shorter.end(), longer.begin()))
      return fail(at, "operands of '" + opString(g.node(at).op) +
                          "' are live under unrelated conditions");
    into = longer;
    return true;
  }

  Guard valueGuard(ValueRef v) const {
    Guard guard = s.nodeGuards[v.node];
    if (g.node(v.node).op == OpKind::Switch && !isLoopSwitch(v.node))
      guard.push_back({s.resolve(g, g.node(v.node).inputs[1]), v.port == 1});
    return guard;
  }

  bool valueBody(ValueRef v) const {
    if (isLoopSwitch(v.node))
      return v.port == 1;
    return nodeBody[v.node];
  }

  bool walk(FrameId r) {
    Region &region = s.regions[r];
    if (r != graph::kRootFrame && !describeLoop(r))
      return false;
    for (Item &item : region.items) {
      if (item.isLoop()) {
        if (!walkLoop(item.loop))
          return false;
        item.guard = s.regions[item.loop].guard;
        item.body = s.regions[item.loop].body;
        for (NodeId x : s.regions[item.loop].exits)
          region.owned.push_back(x);
        continue;
      }
      if (!visitNode(item.node))
        return false;
      item.guard = s.nodeGuards[item.node];
      item.body = nodeBody[item.node];
      NodeRole role = s.roles[item.node];
      if (role == NodeRole::Compute || role == NodeRole::CondMerge)
        region.owned.push_back(item.node);
    }
    return true;
  }

  bool walkLoop(FrameId f) {
    Region &loop = s.regions[f];
    for (NodeId n : frameNodes[f]) {
      if (g.node(n).op != OpKind::Enter)
        continue;
      ValueRef in = g.node(n).inputs[0];
      if (!join(loop.guard, valueGuard(in), n))
        return false;
      loop.body = loop.body || valueBody(in);
    }
    if (!walk(f))
      return false;
    for (NodeId x : loop.exits) {
      ValueRef in = g.node(x).inputs[0];
      if (valueBody(in) || !s.nodeGuards[in.node].empty())
        return fail(x, "a loop result must be available when the loop condition is false");
      s.nodeGuards[x] = loop.guard;
      nodeBody[x] = loop.body;
    }
    return true;
  }

  /// Fills a loop region's predicate, carried variables and exits, checking their shape.
  bool describeLoop(FrameId f) {
    Region &loop = s.regions[f];
    int conds = 0;
    for (NodeId n : frameNodes[f]) {
      const Node &node = g.node(n);
      if (node.op == OpKind::LoopCond) {
        ++conds;
        loop.pred = node.inputs[0];
      } else if (node.op == OpKind::Exit) {
        loop.exits.push_back(n);
      } else if (s.roles[n] == NodeRole::LoopMerge) {
        if (!describeMerge(node, loop))
          return false;
      }
    }
    if (conds != 1)
      return fail(frameNodes[f].empty() ? 0 : frameNodes[f][0],
                  "frame '" + g.frame(f).name + "' has " + std::to_string(conds) +
                      " LoopCond nodes (expected 1)");
    return true;
  }

  bool describeMerge(const Node &merge, Region &loop) {
    const Node *enter = nullptr, *next = nullptr;
    for (ValueRef v : merge.inputs) {
      const Node &in = g.node(v.node);
      if (in.op == OpKind::Enter && !enter &&
          !(in.attrAs<bool>("is_constant") && *in.attrAs<bool>("is_constant")))
        enter = &in;
      else if (in.op == OpKind::NextIteration && !next)
        next = &in;
      else
        return fail(merge.id, "a loop Merge must join one Enter and one NextIteration");
    }
    if (!enter || !next)
      return fail(merge.id, "a loop Merge must join one Enter and one NextIteration");
    loop.merges.push_back(merge.id);
    loop.mergeInit.push_back(enter->inputs[0]);
    loop.mergeNext.push_back(next->inputs[0]);
    return true;
  }

  bool visitNode(NodeId id) {
    const Node &n = g.node(id);
    Guard guard;
    bool body = false;
    NodeRole role = s.roles[id];
    if (n.op == OpKind::Enter || role == NodeRole::LoopMerge) {
      s.nodeGuards[id] = {};
      nodeBody[id] = false;
      return true;
    }
    if (role == NodeRole::CondMerge && !joinBranches(n, guard))
      return false;
    for (ValueRef v : n.inputs) {
      if (isLoopSwitch(v.node) && v.port == 0 && role != NodeRole::Exit)
        return fail(id, "only an Exit may read the false side of a loop's Switch");
      if (role != NodeRole::CondMerge && !join(guard, valueGuard(v), id))
        return false;
      body = body || valueBody(v);
    }
    for (NodeId c : n.controlInputs) {
      if (!join(guard, s.nodeGuards[c], id))
        return false;
      body = body || nodeBody[c];
    }
    if (n.op == OpKind::NextIteration && !guard.empty())
      return fail(id, "a loop's next value must not be conditional");
    s.nodeGuards[id] = std::move(guard);
    nodeBody[id] = body;
    return true;
  }

  /// A conditional Merge: its two inputs are live under `p + (P, false)` and `p + (P, true)`;
  /// the Merge is live under `p`.
  bool joinBranches(const Node &n, Guard &guard) {
    if (n.inputs.size() != 2)
      return fail(n.id, "a conditional Merge must have two inputs");
    Guard a = valueGuard(n.inputs[0]), b = valueGuard(n.inputs[1]);
    if (a.empty() || a.size() != b.size() || !std::equal(a.begin(), a.end() - 1, b.begin()) ||
        !(a.back().pred == b.back().pred) || a.back().side == b.back().side)
      return fail(n.id, "a conditional Merge must join the two sides of one Switch predicate");
    s.mergePred[n.id] = a.back().pred;
    s.mergeTrueInput[n.id] = a.back().side ? 0 : 1;
    guard.assign(a.begin(), a.end() - 1);
    return true;
  }

  const Graph &g;
  StructureError &error;
  Structure s;
  std::vector<bool> nodeBody;
  std::vector<std::vector<FrameId>> childFrames;
  std::vector<std::vector<NodeId>> frameNodes;
};

} // namespace

std::optional<Structure> structureGraph(const Graph &g, StructureError &error) {
  return Structurer(g, error).run();
}

} // namespace dlm::codegen
