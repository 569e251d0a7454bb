//===- runtime/exec/ExecGraph.cpp - Building and checking executable graphs -===//
//
// finalize() is the only entry point with logic: it rejects graphs the executor could not run to
// completion (bad arities, edges that cross a frame boundary other than through Enter/Exit, nodes
// without inputs inside a loop, cycles that do not pass through NextIteration, ops without a
// kernel) and lays out the per-frame state the executor allocates for each iteration.
//
//===----------------------------------------------------------------------===//
#include "runtime/exec/ExecGraph.h"

#include <utility>

namespace dlm::rt {

const char *execKindName(ExecKind kind) {
  switch (kind) {
  case ExecKind::Kernel:
    return "Kernel";
  case ExecKind::Switch:
    return "Switch";
  case ExecKind::Merge:
    return "Merge";
  case ExecKind::Enter:
    return "Enter";
  case ExecKind::Exit:
    return "Exit";
  case ExecKind::NextIteration:
    return "NextIteration";
  case ExecKind::LoopCond:
    return "LoopCond";
  case ExecKind::Identity:
    return "Identity";
  case ExecKind::Arg:
    return "arg";
  }
  return "?";
}

ExecKind execKindOf(std::string_view op) {
  for (ExecKind k :
       {ExecKind::Switch, ExecKind::Merge, ExecKind::Enter, ExecKind::Exit, ExecKind::NextIteration,
        ExecKind::LoopCond, ExecKind::Identity, ExecKind::Arg})
    if (op == execKindName(k))
      return k;
  return ExecKind::Kernel;
}

std::string ExecLocation::str() const {
  if (line == 0)
    return "<unknown>";
  return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

ExecGraph::ExecGraph() { frameList.push_back(ExecFrame{"", -1, 1}); }

ExecFrameId ExecGraph::addFrame(std::string name, ExecFrameId parent, int32_t parallelIterations) {
  frameList.push_back(ExecFrame{std::move(name), parent, parallelIterations});
  finalized = false;
  return (ExecFrameId)frameList.size() - 1;
}

ExecNodeId ExecGraph::addNode(std::string op, std::vector<ExecPort> inputs, int32_t numOutputs,
                              ExecFrameId frame, Attrs attrs) {
  ExecNode n;
  n.kind = execKindOf(op);
  n.op = std::move(op);
  n.inputs = std::move(inputs);
  n.numOutputs = numOutputs;
  n.frame = frame;
  n.attrs = std::move(attrs);
  nodeList.push_back(std::move(n));
  finalized = false;
  return (ExecNodeId)nodeList.size() - 1;
}

ExecNodeId ExecGraph::addEnter(ExecPort input, ExecFrameId frame, bool isConstant) {
  ExecNodeId id = addNode("Enter", {input}, 1, frame);
  nodeList[id].isConstant = isConstant;
  return id;
}

void ExecGraph::addControlEdge(ExecNodeId from, ExecNodeId to) {
  nodeList[to].controlInputs.push_back(from);
  finalized = false;
}

Status ExecGraph::fail(ExecNodeId id, const std::string &message) const {
  const ExecNode &n = nodeList[id];
  std::string where = "node " + std::to_string(id) + " '" + n.op + "'";
  if (n.loc.line != 0)
    where += " at " + n.loc.str();
  return Status::error(where + ": " + message);
}

namespace {

/// Fixed arities of the primitives: {inputs, outputs}; -1 = any.
std::pair<int, int> primitiveArity(ExecKind kind) {
  switch (kind) {
  case ExecKind::Switch:
    return {2, 2};
  case ExecKind::Merge:
    return {-1, -1};
  case ExecKind::Kernel:
    return {-1, -1};
  case ExecKind::Arg:
    return {0, 1};
  default:
    return {1, 1};
  }
}

bool isLoopPrimitive(ExecKind k) {
  return k == ExecKind::Enter || k == ExecKind::Exit || k == ExecKind::NextIteration;
}

} // namespace

Status ExecGraph::checkNode(ExecNodeId id) const {
  const ExecNode &n = nodeList[id];
  if (n.frame < 0 || n.frame >= (ExecFrameId)frameList.size())
    return fail(id, "unknown frame");
  if (n.numOutputs < 0)
    return fail(id, "negative output count");
  for (const ExecPort &in : n.inputs) {
    if (in.node < 0 || in.node >= (ExecNodeId)nodeList.size())
      return fail(id, "input from unknown node " + std::to_string(in.node));
    if (in.port < 0 || in.port >= nodeList[in.node].numOutputs)
      return fail(id, "input from missing output " + std::to_string(in.port) + " of node " +
                          std::to_string(in.node));
  }
  for (ExecNodeId c : n.controlInputs)
    if (c < 0 || c >= (ExecNodeId)nodeList.size())
      return fail(id, "control input from unknown node " + std::to_string(c));
  auto [ins, outs] = primitiveArity(n.kind);
  if (ins >= 0 && (int)n.inputs.size() != ins)
    return fail(id, "expects " + std::to_string(ins) + " data inputs, has " +
                        std::to_string(n.inputs.size()));
  if (outs >= 0 && n.numOutputs != outs)
    return fail(id, "expects " + std::to_string(outs) + " outputs, has " +
                        std::to_string(n.numOutputs));
  if (n.kind == ExecKind::Merge && (n.inputs.empty() || n.numOutputs < 1 || n.numOutputs > 2))
    return fail(id, "Merge needs at least one input and one or two outputs");
  if (isLoopPrimitive(n.kind) && n.frame == 0)
    return fail(id, "loop primitive in the root frame");
  if (n.kind == ExecKind::Enter && frameList[n.frame].parallelIterations < 1)
    return fail(id, "frame '" + frameList[n.frame].name + "' has parallel_iterations < 1");
  return Status();
}

Status ExecGraph::checkEdges() const {
  // The frame a node's outputs live in, and the frame its inputs must come from.
  auto outFrame = [&](const ExecNode &n) {
    if (n.kind == ExecKind::Exit)
      return frameList[n.frame].parent;
    return n.frame;
  };
  auto inFrame = [&](const ExecNode &n) {
    if (n.kind == ExecKind::Enter)
      return frameList[n.frame].parent;
    return n.frame;
  };
  for (ExecNodeId id = 0; id < (ExecNodeId)nodeList.size(); ++id) {
    const ExecNode &n = nodeList[id];
    auto check = [&](ExecNodeId src) -> Status {
      if (outFrame(nodeList[src]) == inFrame(n))
        return Status();
      return fail(id, "input from node " + std::to_string(src) +
                          " crosses a frame boundary "
                          "without Enter/Exit");
    };
    for (const ExecPort &in : n.inputs)
      if (Status s = check(in.node); !s)
        return s;
    for (ExecNodeId c : n.controlInputs)
      if (Status s = check(c); !s)
        return s;
    if (n.inputs.empty() && n.controlInputs.empty() && inFrame(n) != 0)
      return fail(id, "has no inputs inside loop frame '" + frameList[inFrame(n)].name +
                          "' (it needs a control input from the frame's pivot)");
  }
  return Status();
}

void ExecGraph::layOut() {
  size_t numNodes = nodeList.size();
  nodePlans.assign(numNodes, ExecNodePlan());
  framePlans.assign(frameList.size(), ExecFramePlan());
  std::vector<uint32_t> outCount(numNodes + 1, 0);
  for (ExecNodeId id = 0; id < (ExecNodeId)numNodes; ++id) {
    const ExecNode &n = nodeList[id];
    ExecNodePlan &p = nodePlans[id];
    p.kind = n.kind;
    p.expensive = n.expensive;
    p.numOutputs = n.numOutputs;
    p.execFrame = n.kind == ExecKind::Enter ? frameList[n.frame].parent : n.frame;
    ExecFramePlan &fp = framePlans[p.execFrame];
    p.local = fp.numNodes++;
    p.inputBase = fp.numSlots;
    p.numData = (int32_t)n.inputs.size();
    p.numControl = (int32_t)n.controlInputs.size();
    p.accumulates = n.kind == ExecKind::Kernel && n.op == "matmul_bias" &&
                    n.device == Device::CPU && p.numData == 3;
    fp.numSlots += p.numData;
    fp.initialPending.push_back(n.kind == ExecKind::Merge ? p.numControl
                                                          : p.numData + p.numControl);
    if (p.numData == 0 && p.numControl == 0)
      fp.roots.push_back(id);
    if (n.kind == ExecKind::Enter)
      framePlans[n.frame].numEnters++;
    if (n.kind == ExecKind::Exit) {
      p.exitIndex = (int32_t)framePlans[n.frame].exits.size();
      framePlans[n.frame].exits.push_back(id);
    }
    for (const ExecPort &in : n.inputs) {
      outCount[in.node]++;
      if (n.kind == ExecKind::Merge && nodeList[in.node].kind == ExecKind::NextIteration)
        p.numBackEdges++;
    }
    for (ExecNodeId c : n.controlInputs)
      outCount[c]++;
  }
  // Counting sort of the edges by source node, in (destination, slot) order per source.
  uint32_t total = 0;
  for (size_t i = 0; i < numNodes; ++i) {
    nodePlans[i].outBegin = nodePlans[i].outEnd = total;
    total += outCount[i];
  }
  edges.assign(total, ExecOutEdge{});
  for (ExecNodeId id = 0; id < (ExecNodeId)numNodes; ++id) {
    const ExecNode &n = nodeList[id];
    for (int32_t slot = 0; slot < (int32_t)n.inputs.size(); ++slot) {
      const ExecPort &in = n.inputs[slot];
      edges[nodePlans[in.node].outEnd++] = ExecOutEdge{id, in.port, slot, false};
    }
    for (ExecNodeId c : n.controlInputs)
      edges[nodePlans[c].outEnd++] = ExecOutEdge{id, -1, -1, false};
  }
  // The last edge reading each port may move the value instead of copying it.
  std::vector<char> seen;
  for (size_t i = 0; i < numNodes; ++i) {
    seen.assign(nodeList[i].numOutputs, 0);
    for (uint32_t e = nodePlans[i].outEnd; e-- > nodePlans[i].outBegin;) {
      ExecOutEdge &edge = edges[e];
      if (edge.srcPort < 0 || seen[edge.srcPort])
        continue;
      seen[edge.srcPort] = 1;
      edge.lastUseOfPort = true;
    }
  }
}

Status ExecGraph::checkAcyclic() const {
  // Kahn's algorithm over every edge except those leaving a NextIteration (the loop back edges).
  size_t numNodes = nodeList.size();
  std::vector<int32_t> indegree(numNodes, 0);
  for (size_t i = 0; i < numNodes; ++i) {
    if (nodeList[i].kind == ExecKind::NextIteration)
      continue;
    for (uint32_t e = nodePlans[i].outBegin; e < nodePlans[i].outEnd; ++e)
      indegree[edges[e].dst]++;
  }
  std::vector<ExecNodeId> work;
  for (size_t i = 0; i < numNodes; ++i)
    if (indegree[i] == 0)
      work.push_back((ExecNodeId)i);
  size_t visited = 0;
  while (!work.empty()) {
    ExecNodeId id = work.back();
    work.pop_back();
    ++visited;
    if (nodeList[id].kind == ExecKind::NextIteration)
      continue;
    for (uint32_t e = nodePlans[id].outBegin; e < nodePlans[id].outEnd; ++e)
      if (--indegree[edges[e].dst] == 0)
        work.push_back(edges[e].dst);
  }
  if (visited == numNodes)
    return Status();
  for (size_t i = 0; i < numNodes; ++i)
    if (indegree[i] > 0)
      return fail((ExecNodeId)i, "is on a cycle that does not pass through NextIteration");
  return Status::error("graph has a cycle");
}

Status ExecGraph::finalize() {
  finalized = false;
  for (size_t f = 1; f < frameList.size(); ++f) {
    ExecFrameId parent = frameList[f].parent;
    if (parent < 0 || parent >= (ExecFrameId)f)
      return Status::error("frame '" + frameList[f].name + "' has an invalid parent");
  }
  for (ExecNodeId id = 0; id < (ExecNodeId)nodeList.size(); ++id) {
    if (Status s = checkNode(id); !s)
      return s;
    ExecNode &n = nodeList[id];
    if (n.kind != ExecKind::Kernel)
      continue;
    n.kernel = findKernel(n.op, n.device);
    if (!n.kernel)
      return fail(id,
                  "no kernel for op '" + n.op + "'" +
                      (n.device == Device::CPU ? "" : std::string(" on ") + deviceName(n.device)));
  }
  if (Status s = checkEdges(); !s)
    return s;
  layOut();
  if (Status s = checkAcyclic(); !s)
    return s;
  finalized = true;
  return Status();
}

} // namespace dlm::rt
