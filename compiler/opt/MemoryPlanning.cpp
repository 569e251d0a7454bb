//===- compiler/opt/MemoryPlanning.cpp - Liveness, buffer reuse, peak bytes ===//
//
// Memory planning: computes how long each tensor lives in an execution order of the graph and
// assigns tensors to buffers so that a buffer whose tensor has died is reused, and an
// elementwise op writes over an operand it is the last reader of (in place). It reports the
// bytes needed without planning (every tensor its own buffer) and with it (the arena: the sum
// of the buffers the plan creates) under `--stats`. The plan is an analysis: the graph is not
// changed, and the executor's own allocator does not read it yet (docs/opt.md).
//
// Algorithm:
//   1. Schedule: the graph's topological order (the loop back edges left out); pos[n] is n's
//      place in it. A frame spans from its first to its last node in the schedule.
//   2. Sizes: a tensor result with static dims takes numel * dtype size bytes; one with run-time
//      dims is counted under "unknown-size" and left out. Control-flow primitives and Identity
//      forward their input's buffer and take none.
//   3. Liveness: a value lives from its producer to its last reader. Going backwards through the
//      schedule, a forwarding node's lifetime extends its inputs' (a loop-invariant Enter keeps
//      its input alive for the whole frame), and a value read by NextIteration lives to the end
//      of its frame (the next iteration reads it through the Merge).
//   4. Assignment, in schedule order: an elementwise node whose operand dies here with the same
//      byte size takes over that operand's buffer; otherwise the smallest free buffer that fits
//      (best fit, lowest index on ties), else a new one. Then the buffers of the values that die
//      here are freed.
// Iterations of a loop are assumed to run one at a time (parallel_iterations is ignored).
//
// Requires: an acyclic graph apart from loop back edges  Preserves: everything  Invalidates: nothing
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/MemoryPlanning.h"

#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"

#include "compiler/ir/OpRegistry.h"

#include <algorithm>
#include <map>

namespace dlm::opt {

using namespace graph;

namespace {

/// Nodes whose outputs are their input's buffer, not a new one.
bool forwardsBuffer(const Node &n) { return isControlFlow(n) || n.op == "Identity"; }

int64_t bytesOf(const Type &t) {
  std::optional<int64_t> n = t.isTensor() ? t.staticNumElements() : std::nullopt;
  return n ? *n * static_cast<int64_t>(dtypeSize(t.dtype())) : -1;
}

class Planner {
public:
  Planner(const Graph &g, std::vector<NodeId> schedule) : g(g), order(plan.order) {
    plan.order = std::move(schedule);
  }

  MemoryPlan run() {
    computeLiveness();
    assignBuffers();
    return std::move(plan);
  }

private:
  const Graph &g;
  MemoryPlan plan;
  const std::vector<NodeId> &order;
  std::vector<size_t> &pos = plan.pos;
  std::map<ValueRef, size_t> &lastUse = plan.lastUse;
  std::vector<int64_t> bufferSize;              // by buffer id
  std::multimap<int64_t, size_t> freeBuffers;   // size -> buffer id
  std::map<ValueRef, size_t> bufferOf;

  void extend(ValueRef v, size_t until) {
    size_t &end = lastUse.try_emplace(v, pos[v.node]).first->second;
    end = std::max(end, until);
  }

  void computeLiveness() {
    pos.assign(g.numNodes(), 0);
    for (size_t i = 0; i < order.size(); ++i)
      pos[order[i]] = i;
    std::vector<size_t> frameEnd(g.numFrames(), 0);
    for (NodeId id : order)
      for (FrameId f = g.node(id).frame; f != kNoFrame; f = g.frame(f).parent)
        frameEnd[f] = std::max(frameEnd[f], pos[id]);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Node &n = g.node(*it);
      for (const ValueRef &in : n.inputs) {
        size_t until = pos[n.id];
        if (n.op == "NextIteration" || (n.op == "Enter" && n.attrAs<bool>("is_constant") &&
                                        *n.attrAs<bool>("is_constant")))
          until = frameEnd[n.frame];
        if (forwardsBuffer(n))
          for (uint32_t p = 0; p < n.numResults(); ++p)
            until = std::max(until, lastUse.count(Graph::value(n.id, p)) ? lastUse[Graph::value(n.id, p)] : until);
        extend(in, until);
      }
    }
  }

  size_t takeBuffer(int64_t bytes) {
    auto fit = freeBuffers.lower_bound(bytes);
    if (fit != freeBuffers.end()) {
      size_t id = fit->second;
      freeBuffers.erase(fit);
      ++plan.reused;
      return id;
    }
    bufferSize.push_back(bytes);
    plan.arenaBytes += bytes;
    return bufferSize.size() - 1;
  }

  /// An operand of elementwise `n` that dies at n and whose buffer `bytes` fits exactly.
  std::optional<size_t> inPlaceOperand(const Node &n, int64_t bytes) {
    const OpInfo *info = OpRegistry::get().lookup(n.op);
    if (!info || !info->elementwise)
      return std::nullopt;
    for (const ValueRef &in : n.inputs) {
      auto b = bufferOf.find(in);
      if (b != bufferOf.end() && lastUse[in] == pos[n.id] && bufferSize[b->second] == bytes &&
          g.node(in.node).op != "const")
        return b->second;
    }
    return std::nullopt;
  }

  void assignBuffers() {
    for (NodeId id : order) {
      const Node &n = g.node(id);
      std::vector<size_t> taken;
      for (uint32_t p = 0; p < n.numResults() && !forwardsBuffer(n); ++p) {
        int64_t bytes = bytesOf(n.results[p]);
        if (bytes < 0) {
          plan.unknownSize += n.results[p].isTensor();
          continue;
        }
        plan.unplannedBytes += bytes;
        std::optional<size_t> reuse = p == 0 ? inPlaceOperand(n, bytes) : std::nullopt;
        plan.inPlace += reuse.has_value();
        size_t buffer = reuse ? *reuse : takeBuffer(bytes);
        bufferOf[Graph::value(id, p)] = buffer;
        taken.push_back(buffer);
      }
      // Free what dies here (an operand taken over in place lives on as the result).
      for (const ValueRef &in : n.inputs) {
        auto b = bufferOf.find(in);
        if (b == bufferOf.end() || lastUse[in] != pos[id])
          continue;
        if (std::find(taken.begin(), taken.end(), b->second) == taken.end())
          freeBuffers.emplace(bufferSize[b->second], b->second);
        bufferOf.erase(b);
      }
      // A result nobody reads dies at once.
      for (uint32_t p = 0; p < n.numResults(); ++p) {
        auto b = bufferOf.find(Graph::value(id, p));
        if (b != bufferOf.end() && lastUse.count(b->first) == 0) {
          freeBuffers.emplace(bufferSize[b->second], b->second);
          bufferOf.erase(b);
        }
      }
    }
  }
};

} // namespace

std::optional<MemoryPlan> planMemory(const Graph &g) {
  std::optional<std::vector<NodeId>> order = g.topologicalOrder();
  if (!order)
    return std::nullopt;
  return Planner(g, std::move(*order)).run();
}

PassResult runMemoryPlanning(Graph &g, PassContext &ctx) {
  std::optional<MemoryPlan> planned = planMemory(g);
  if (!planned)
    return PassResult::Unchanged;
  const MemoryPlan &plan = *planned;
  ctx.stats.set(ctx.current, "bytes-unplanned", plan.unplannedBytes);
  ctx.stats.set(ctx.current, "bytes-planned", plan.arenaBytes);
  ctx.stats.set(ctx.current, "in-place", plan.inPlace);
  ctx.stats.set(ctx.current, "buffers-reused", plan.reused);
  ctx.stats.set(ctx.current, "unknown-size-values", plan.unknownSize);
  return PassResult::Unchanged;
}

} // namespace dlm::opt
