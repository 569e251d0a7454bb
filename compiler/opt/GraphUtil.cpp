//===- compiler/opt/GraphUtil.cpp - Small graph queries and edits for passes ===//
#include "compiler/opt/GraphUtil.h"

#include "compiler/ir/OpRegistry.h"

#include <algorithm>
#include <string_view>

namespace dlm::opt {

using namespace graph;

bool hasEffect(const Node &n) { return n.info().sideEffects; }

bool isPure(const Node &n) {
  if (isControlFlow(n) || opHas(n.op, opflag::StackOp))
    return false;
  // An Identity with control inputs is a pivot: it exists for the nodes hanging from it.
  if (n.op == OpKind::Identity)
    return n.controlInputs.empty();
  return !n.info().sideEffects;
}

std::vector<bool> markLiveFrom(const Graph &g, const std::vector<NodeId> &roots) {
  std::vector<bool> live(g.numNodes(), false);
  std::vector<NodeId> work;
  auto mark = [&](NodeId id) {
    if (!live[id]) {
      live[id] = true;
      work.push_back(id);
    }
  };
  for (NodeId r : roots)
    mark(r);
  while (!work.empty()) {
    const Node &n = g.node(work.back());
    work.pop_back();
    for (const ValueRef &in : n.inputs)
      mark(in.node);
    for (NodeId c : n.controlInputs)
      mark(c);
  }
  return live;
}

PassResult sweepDead(Graph &g, PassContext &ctx, const std::vector<bool> &live,
                     const char *counter) {
  size_t removed = std::count(live.begin(), live.end(), false);
  if (removed == 0)
    return PassResult::Unchanged;
  g.compact(live);
  ctx.count(counter, static_cast<int64_t>(removed));
  return PassResult::Changed;
}

PassResult finishRewrite(Graph &g, bool changed, std::vector<bool> keep) {
  if (!changed)
    return PassResult::Unchanged;
  keep.resize(g.numNodes(), true);
  g.compact(keep);
  return PassResult::Changed;
}

void renumberNodes(Graph &g, const std::vector<NodeId> &order) {
  std::vector<NodeId> newId(order.size());
  for (NodeId k = 0; k < order.size(); ++k)
    newId[order[k]] = k;
  std::vector<Node> nodes;
  nodes.reserve(order.size());
  for (NodeId old : order) {
    Node n = std::move(g.nodes()[old]);
    n.id = newId[old];
    for (ValueRef &in : n.inputs)
      in.node = newId[in.node];
    for (NodeId &c : n.controlInputs)
      c = newId[c];
    nodes.push_back(std::move(n));
  }
  g.nodes() = std::move(nodes);
}

void replaceAllUses(Graph &g, ValueRef from, ValueRef to) {
  for (Node &user : g.nodes())
    for (ValueRef &in : user.inputs)
      if (in == from)
        in = to;
}

void moveControlUsers(Graph &g, NodeId from, NodeId to,
                      std::vector<std::vector<NodeId>> &controlUsers) {
  for (NodeId u : controlUsers[from]) {
    Node &user = g.node(u);
    std::erase(user.controlInputs, from);
    bool readsTo = std::any_of(user.inputs.begin(), user.inputs.end(),
                               [&](ValueRef v) { return v.node == to; });
    if (readsTo)
      continue;
    g.addControlInput(u, to);
    if (std::find(controlUsers[to].begin(), controlUsers[to].end(), u) == controlUsers[to].end())
      controlUsers[to].push_back(u);
  }
  controlUsers[from].clear();
}

void forwardValue(Graph &g, NodeId n, ValueRef v, std::vector<NodeId> lostDeps) {
  // A dependency `v` itself carries (or `v`'s producer) is not lost.
  const Node &producer = g.node(v.node);
  std::erase_if(lostDeps, [&](NodeId d) {
    return d == v.node || d == n ||
           std::find(producer.controlInputs.begin(), producer.controlInputs.end(), d) !=
               producer.controlInputs.end();
  });
  std::sort(lostDeps.begin(), lostDeps.end());
  lostDeps.erase(std::unique(lostDeps.begin(), lostDeps.end()), lostDeps.end());
  if (lostDeps.empty()) {
    replaceAllUses(g, Graph::value(n), v);
    return;
  }
  Node &node = g.node(n);
  node.op = OpKind::Identity;
  node.inputs = {v};
  node.attrs.clear();
  node.controlInputs = std::move(lostDeps);
  node.results = {g.typeOf(v)};
}

std::optional<ValueRef> invariantSource(const Graph &g, ValueRef x) {
  const Node *n = &g.node(x.node);
  if (n->op == OpKind::Identity && n->inputs.size() == 1)
    n = &g.node(n->inputs[0].node);
  const bool *constant = n->attrAs<bool>("is_constant");
  if (n->op != OpKind::Enter || !constant || !*constant)
    return std::nullopt;
  return n->inputs[0];
}

std::optional<double> scalarConstant(const Node &n) {
  if (n.op != OpKind::Const)
    return std::nullopt;
  const AttrValue *v = n.attr("value");
  if (!v)
    return std::nullopt;
  if (auto *i = std::get_if<int64_t>(v))
    return static_cast<double>(*i);
  if (auto *d = std::get_if<double>(v))
    return *d;
  if (auto *b = std::get_if<bool>(v))
    return *b ? 1.0 : 0.0;
  if (auto *list = std::get_if<std::vector<double>>(v); list && list->size() == 1)
    return (*list)[0];
  return std::nullopt;
}

bool isSplatConstant(const Node &n, double value) {
  if (std::optional<double> s = scalarConstant(n))
    return *s == value;
  if (n.op != OpKind::Const)
    return false;
  const auto *list = n.attrAs<std::vector<double>>("value");
  return list && !list->empty() &&
         std::all_of(list->begin(), list->end(), [&](double x) { return x == value; });
}

} // namespace dlm::opt
