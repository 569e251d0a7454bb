//===- compiler/ir/Graph.cpp - The dataflow graph IR ----------------------===//
//
// Node and frame bookkeeping for the graph IR; the data structure is documented in Graph.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/Graph.h"

#include <algorithm>
#include <cassert>
#include <queue>

namespace dlm::graph {

const AttrValue *Node::attr(const std::string &name) const {
  auto it = attrs.find(name);
  return it == attrs.end() ? nullptr : &it->second;
}

Graph::Graph() { frameList.push_back(Frame{"", kNoFrame, 1}); }

Graph Graph::clone() const {
  Graph g;
  g.graphName = graphName;
  g.frameList = frameList;
  g.nodeList = nodeList;
  for (Node &n : g.nodeList) {
    if (!n.loc.file.empty())
      n.loc.file = g.internFile(n.loc.file);
    if (!n.loc.gradOf.empty())
      n.loc.gradOf = g.internFile(n.loc.gradOf);
  }
  g.callSiteList = callSiteList;
  for (CallSite &c : g.callSiteList) {
    c.function = g.internFile(c.function);
    if (!c.at.file.empty())
      c.at.file = g.internFile(c.at.file);
  }
  return g;
}

FrameId Graph::addFrame(std::string name, FrameId parent, int64_t parallelIterations) {
  assert(parent < frameList.size() && "parent frame out of range");
  frameList.push_back(Frame{std::move(name), parent, parallelIterations});
  return static_cast<FrameId>(frameList.size() - 1);
}

std::optional<FrameId> Graph::findFrame(std::string_view name) const {
  for (size_t i = 0; i < frameList.size(); ++i)
    if (frameList[i].name == name)
      return static_cast<FrameId>(i);
  return std::nullopt;
}

bool Graph::frameWithin(FrameId inner, FrameId outer) const {
  for (FrameId f = inner; f != kNoFrame; f = frameList[f].parent)
    if (f == outer)
      return true;
  return false;
}

unsigned Graph::frameDepth(FrameId id) const {
  unsigned depth = 0;
  for (FrameId f = frameList[id].parent; f != kNoFrame; f = frameList[f].parent)
    ++depth;
  return depth;
}

Node &Graph::addNode(OpKind op, std::vector<ValueRef> inputs, std::vector<Type> results,
                     FrameId frame, Location loc) {
  Node n;
  n.id = static_cast<NodeId>(nodeList.size());
  n.op = op;
  n.inputs = std::move(inputs);
  n.results = std::move(results);
  n.frame = frame;
  n.loc = loc;
  if (!loc.file.empty())
    n.loc.file = internFile(loc.file);
  if (!loc.gradOf.empty())
    n.loc.gradOf = internFile(loc.gradOf);
  nodeList.push_back(std::move(n));
  return nodeList.back();
}

void Graph::addControlInput(NodeId to, NodeId from) {
  std::vector<NodeId> &ctl = nodeList[to].controlInputs;
  if (std::find(ctl.begin(), ctl.end(), from) == ctl.end())
    ctl.push_back(from);
}

std::vector<std::vector<Use>> Graph::dataUses() const {
  std::vector<std::vector<Use>> uses(nodeList.size());
  for (const Node &n : nodeList)
    for (uint32_t i = 0; i < n.inputs.size(); ++i)
      uses[n.inputs[i].node].push_back(Use{n.id, i});
  return uses;
}

std::vector<std::vector<NodeId>> Graph::controlUses() const {
  std::vector<std::vector<NodeId>> uses(nodeList.size());
  for (const Node &n : nodeList)
    for (NodeId c : n.controlInputs)
      uses[c].push_back(n.id);
  return uses;
}

/// True for the loop back edge NextIteration -> Merge, which topological orders skip.
static bool isBackEdge(const Graph &g, const Node &user, NodeId producer) {
  return user.op == OpKind::Merge && g.node(producer).op == OpKind::NextIteration;
}

std::optional<std::vector<NodeId>> Graph::topologicalOrder() const {
  size_t n = nodeList.size();
  std::vector<uint32_t> pending(n, 0);
  std::vector<std::vector<NodeId>> succs(n);
  for (const Node &node : nodeList) {
    auto addEdge = [&](NodeId from) {
      if (isBackEdge(*this, node, from))
        return;
      succs[from].push_back(node.id);
      ++pending[node.id];
    };
    for (const ValueRef &in : node.inputs)
      addEdge(in.node);
    for (NodeId c : node.controlInputs)
      addEdge(c);
  }
  // Min-heap on NodeId keeps the order deterministic and close to creation order.
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
  for (NodeId i = 0; i < n; ++i)
    if (pending[i] == 0)
      ready.push(i);
  std::vector<NodeId> order;
  order.reserve(n);
  while (!ready.empty()) {
    NodeId id = ready.top();
    ready.pop();
    order.push_back(id);
    for (NodeId s : succs[id])
      if (--pending[s] == 0)
        ready.push(s);
  }
  if (order.size() != n)
    return std::nullopt;
  return order;
}

void Graph::compact(const std::vector<bool> &keep) {
  assert(keep.size() == nodeList.size());
  std::vector<NodeId> newId(nodeList.size(), UINT32_MAX);
  std::vector<Node> kept;
  for (Node &n : nodeList) {
    if (!keep[n.id])
      continue;
    newId[n.id] = static_cast<NodeId>(kept.size());
    kept.push_back(std::move(n));
  }
  for (Node &n : kept) {
    n.id = newId[n.id];
    for (ValueRef &in : n.inputs) {
      assert(newId[in.node] != UINT32_MAX && "kept node uses a removed node");
      in.node = newId[in.node];
    }
    for (NodeId &c : n.controlInputs) {
      assert(newId[c] != UINT32_MAX && "kept node depends on a removed node");
      c = newId[c];
    }
  }
  nodeList = std::move(kept);
  dropEmptyFrames();
}

// A frame is kept when a node runs in it or in a frame nested in it; the root always is. Kept
// frames keep their order, so the printed form stays stable.
void Graph::dropEmptyFrames() {
  std::vector<bool> used(frameList.size(), false);
  used[0] = true;
  for (const Node &n : nodeList)
    for (FrameId f = n.frame; f != kNoFrame && !used[f]; f = frameList[f].parent)
      used[f] = true;
  std::vector<FrameId> newFrame(frameList.size(), kNoFrame);
  std::vector<Frame> keptFrames;
  for (FrameId f = 0; f < frameList.size(); ++f) {
    if (!used[f])
      continue;
    newFrame[f] = static_cast<FrameId>(keptFrames.size());
    keptFrames.push_back(std::move(frameList[f]));
  }
  if (keptFrames.size() == frameList.size()) {
    frameList = std::move(keptFrames);
    return;
  }
  for (Frame &fr : keptFrames)
    if (fr.parent != kNoFrame)
      fr.parent = newFrame[fr.parent];
  for (Node &n : nodeList)
    n.frame = newFrame[n.frame];
  frameList = std::move(keptFrames);
}

std::string_view Graph::internFile(std::string_view file) {
  for (const std::string &f : fileNames)
    if (f == file)
      return f;
  fileNames.emplace_back(file);
  return fileNames.back();
}

CallSiteId Graph::internCallSite(std::string_view function, Location at) {
  assert(at.inlinedAt <= callSiteList.size() && "caller's call site out of range");
  for (size_t i = 0; i < callSiteList.size(); ++i) {
    const CallSite &c = callSiteList[i];
    if (c.function == function && c.at.file == at.file && c.at.line == at.line &&
        c.at.col == at.col && c.at.inlinedAt == at.inlinedAt)
      return CallSiteId(i + 1);
  }
  at.gradOf = {};
  if (!at.file.empty())
    at.file = internFile(at.file);
  callSiteList.push_back(CallSite{internFile(function), at});
  return CallSiteId(callSiteList.size());
}

std::vector<Type> graphTypes(const Type &t) {
  switch (t.kind()) {
  case Type::Kind::Int:
    return {Type::tensor(DType::I64, {})};
  case Type::Kind::Float:
    return {Type::tensor(DType::F64, {})};
  case Type::Kind::Bool:
    return {Type::tensor(DType::Bool, {})};
  case Type::Kind::None:
    return {};
  case Type::Kind::Tuple: {
    std::vector<Type> out;
    for (const Type &e : t.elements())
      for (Type &g : graphTypes(e))
        out.push_back(std::move(g));
    return out;
  }
  default:
    return {t};
  }
}

bool typesCompatible(const Type &a, const Type &b) {
  if (a.kind() != b.kind())
    return false;
  if (!a.isTensor())
    return true;
  if (a.dtype() != b.dtype() || a.rank() != b.rank())
    return false;
  for (size_t i = 0; i < a.rank(); ++i) {
    const Dim &x = a.shape()[i], &y = b.shape()[i];
    if (x.isStatic() && y.isStatic() && x.size() != y.size())
      return false;
  }
  return true;
}

} // namespace dlm::graph
