//===- compiler/opt/StackWeb.cpp - Autodiff stacks as webs of nodes -------===//
#include "compiler/opt/StackWeb.h"

#include "compiler/opt/GraphUtil.h"

namespace dlm::opt {

using namespace graph;

namespace {

/// Nodes through which a stack value flows unchanged as a whole.
bool carriesStack(const Node &n) { return isControlFlow(n) || n.op == OpKind::Identity; }

} // namespace

StackWeb collectStackWeb(const Graph &g, NodeId stackNew, const std::vector<std::vector<Use>> &uses,
                         const std::vector<std::vector<NodeId>> &controlUses) {
  StackWeb web;
  std::vector<NodeId> work{stackNew};
  web.nodes.insert(stackNew);
  while (!work.empty() && !web.escapes) {
    NodeId id = work.back();
    work.pop_back();
    if (!controlUses[id].empty())
      web.escapes = true;
    for (const Use &u : uses[id]) {
      const Node &user = g.node(u.user);
      bool follows =
          (carriesStack(user) && !(user.op == OpKind::Switch && u.operand == 1)) ||
          ((user.op == OpKind::StackPush || user.op == OpKind::StackPop) && u.operand == 0);
      if (user.op == OpKind::StackTop) {
        web.readers.push_back(u.user);
        continue;
      }
      if (!follows) {
        web.escapes = true;
        break;
      }
      if (!web.nodes.insert(u.user).second)
        continue;
      if (user.op == OpKind::StackPush)
        web.pushes.push_back(u.user);
      work.push_back(u.user);
    }
  }
  return web;
}

std::optional<NodeId> bodyPivot(Graph &g, FrameId f, const std::set<NodeId> &avoid) {
  // A loop Switch is decided by the frame's LoopCond; the Switch of an `if` in the body passes
  // its value only in the iterations taking that branch, so a node hung from it would be dead in
  // the others (and with it everything computed from it, the loop's next values included).
  auto isLoopSwitch = [&](const Node &n) {
    return n.frame == f && n.op == OpKind::Switch && n.inputs.size() == 2 &&
           g.node(n.inputs[1].node).op == OpKind::LoopCond && !avoid.count(n.id);
  };
  for (const Node &n : g.nodes())
    if (n.frame == f && n.op == OpKind::Identity && n.controlInputs.empty() &&
        n.inputs.size() == 1 && n.inputs[0].port == 1 && isLoopSwitch(g.node(n.inputs[0].node)))
      return n.id;
  for (const Node &n : g.nodes())
    if (isLoopSwitch(n)) {
      ValueRef body = Graph::value(n.id, 1);
      Type t = g.typeOf(body);
      Location loc = n.loc;
      return g.addNode(OpKind::Identity, {body}, {std::move(t)}, f, loc).id;
    }
  return std::nullopt;
}

} // namespace dlm::opt
