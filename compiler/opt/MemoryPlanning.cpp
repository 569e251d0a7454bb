//===- compiler/opt/MemoryPlanning.cpp - Liveness, buffer reuse, peak bytes ===//
//
// Memory planning: computes how long each tensor lives in an execution order of the graph and
// assigns tensors to buffers so that a buffer whose tensor has died is reused, an
// elementwise op writes over an operand it is the last reader of (in place), and matmul_bias
// accumulates into its addend when nothing else reads it (accumulatorOperand: a gradient
// accumulator, also across loop iterations). It reports the bytes needed without planning
// (every tensor its own buffer) and with it (the arena: the sum of the buffers the plan
// creates) under `--stats`. The plan is an analysis: the graph is not changed. The engines
// apply its two in-place rules themselves, with their own liveness and a run-time test that
// nothing else holds the tensor (docs/runtime.md "In place"); no allocator reads the arena.
//
// Algorithm:
//   1. Schedule: the graph's topological order (the loop back edges left out); pos[n] is n's
//      place in it. A frame spans from its first to its last node in the schedule.
//   2. Sizes: a tensor result with static dims takes numel * dtype size bytes; one with run-time
//      dims is counted under "unknown-size" and left out. Control-flow primitives and Identity
//      forward their input's buffer and take none; so do stack_push, stack_pop and stack_top
//      for their stack (operand 0: pushes grow the stack's buffer in place, tops are views),
//      and `after(x, token)` for x (a checkpoint's recomputation reads its arguments so).
//      An autodiff stack (StackWeb.h) whose pushes run a known number of times (`tripCount`
//      of each loop between the push and the stack_new) takes, at its stack_new, the bytes of
//      all its entries: the stack at its fullest, when the forward loop ends.
//   3. Liveness: a value lives from its producer to its last reader. Going backwards through the
//      schedule, a forwarding node's lifetime extends its inputs' (a loop-invariant Enter keeps
//      its input alive for the whole frame), and a value read by NextIteration lives to the end
//      of its frame (the next iteration reads it through the Merge).
//   4. Assignment, in schedule order: a matmul_bias whose addend has its type and no other
//      reader, followed back through forwarding nodes (a loop variable's Switch, Merge and
//      Enter: the accumulator's buffer for the whole loop), takes over that buffer; an
//      elementwise node whose operand dies here with the same byte size takes over that
//      operand's buffer; otherwise the smallest free buffer that fits
//      (best fit, lowest index on ties), else a new one. Then the buffers of the values that die
//      here are freed.
// Iterations of a loop are assumed to run one at a time (parallel_iterations is ignored).
//
// Requires: an acyclic graph apart from loop back edges  Preserves: everything  Invalidates:
// nothing
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/MemoryPlanning.h"

#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/Pass.h"
#include "compiler/opt/StackWeb.h"

#include "compiler/ir/NodeFacts.h"
#include "compiler/ir/OpRegistry.h"

#include <algorithm>
#include <map>

namespace dlm::opt {

using namespace graph;

namespace {

int64_t bytesOf(const Type &t) {
  std::optional<int64_t> n = t.isTensor() ? t.staticNumElements() : std::nullopt;
  return n ? *n * static_cast<int64_t>(dtypeSize(t.dtype())) : -1;
}

bool isStackAccess(const Node &n) {
  return n.op == OpKind::StackPush || n.op == OpKind::StackPop || n.op == OpKind::StackTop;
}

/// Nodes whose result is operand 0's buffer and not the others': stack accesses, and
/// `after(x, token)` (x, ordered after token: a checkpoint's recomputation, docs/autodiff.md).
bool forwardsFirstOperand(const Node &n) { return isStackAccess(n) || n.op == OpKind::After; }

/// Nodes whose outputs are their input's buffer, not a new one.
bool forwardsBuffer(const Node &n) {
  return isControlFlow(n) || n.op == OpKind::Identity || forwardsFirstOperand(n);
}

/// Whether `n`'s result shares operand `operand`'s buffer.
bool forwardsOperand(const Node &n, size_t operand) {
  return forwardsBuffer(n) && (!forwardsFirstOperand(n) || operand == 0);
}

/// The integer a scalar constant `v` holds, seen through Identity and constant Enters (and any
/// Enter when `anyEnter`: a loop variable's initial value).
std::optional<int64_t> intConstant(const Graph &g, ValueRef v, bool anyEnter = false) {
  for (;;) {
    const Node &n = g.node(v.node);
    bool constantEnter =
        n.op == OpKind::Enter &&
        (anyEnter || (n.attrAs<bool>("is_constant") && *n.attrAs<bool>("is_constant")));
    if (n.op == OpKind::Identity || constantEnter) {
      v = n.inputs[0];
      continue;
    }
    std::optional<double> d = scalarConstant(n);
    if (!d || !n.results[0].isTensor() || isFloat(n.results[0].dtype()))
      return std::nullopt;
    return static_cast<int64_t>(*d);
  }
}

/// Bytes of every entry of each stack whose pushes can be counted, by stack_new.
std::map<NodeId, int64_t> sizeStacks(const Graph &g) {
  std::map<NodeId, int64_t> sizes;
  std::vector<std::vector<Use>> uses = g.dataUses();
  std::vector<std::vector<NodeId>> controlUses = g.controlUses();
  for (const Node &n : g.nodes()) {
    if (n.op != OpKind::StackNew)
      continue;
    StackWeb web = collectStackWeb(g, n.id, uses, controlUses);
    if (web.escapes || web.pushes.empty())
      continue;
    int64_t total = 0;
    for (NodeId p : web.pushes) {
      int64_t entry = bytesOf(g.typeOf(g.node(p).inputs[1]));
      for (FrameId f = g.node(p).frame; entry >= 0 && f != n.frame; f = g.frame(f).parent) {
        std::optional<int64_t> trips = f == kRootFrame ? std::nullopt : tripCount(g, f);
        entry = trips ? entry * *trips : -1;
      }
      if (entry < 0) {
        total = -1;
        break;
      }
      total += entry;
    }
    if (total >= 0)
      sizes[n.id] = total;
  }
  return sizes;
}

class Planner {
public:
  Planner(const Graph &g, std::vector<NodeId> schedule)
      : g(g), order(plan.order), stackSizes(sizeStacks(g)) {
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
  std::vector<int64_t> bufferSize;            // by buffer id
  std::multimap<int64_t, size_t> freeBuffers; // size -> buffer id
  std::map<ValueRef, size_t> bufferOf;
  std::map<NodeId, int64_t> stackSizes; // by stack_new
  std::vector<std::vector<Use>> uses = g.dataUses();

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
      for (size_t operand = 0; operand < n.inputs.size(); ++operand) {
        const ValueRef &in = n.inputs[operand];
        size_t until = pos[n.id];
        if (n.op == OpKind::NextIteration ||
            (n.op == OpKind::Enter && n.attrAs<bool>("is_constant") &&
             *n.attrAs<bool>("is_constant")))
          until = frameEnd[n.frame];
        if (forwardsOperand(n, operand))
          for (uint32_t p = 0; p < n.numResults(); ++p)
            until = std::max(until, lastUse.count(Graph::value(n.id, p))
                                        ? lastUse[Graph::value(n.id, p)]
                                        : until);
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

  /// Readers of value v (data edges); an Identity counts as the readers of its result (the
  /// same tensor: a pivot whose only readers are control edges reads nothing).
  size_t readers(ValueRef v) const {
    size_t count = 0;
    for (const Use &u : uses[v.node]) {
      const Node &user = g.node(u.user);
      if (user.inputs[u.operand].port == v.port)
        count += user.op == OpKind::Identity ? readers(Graph::value(user.id, 0)) : 1;
    }
    return count;
  }

  /// The value whose buffer v is, followed back through forwarding nodes while each value on
  /// the way has one reader (the next on the way): Identity and Switch give operand 0 (at a
  /// Switch only the port taken counts: the other port's readers run in another iteration),
  /// a Merge its entry (a loop variable's first value; later iterations bring back the value
  /// its body computed), a non-constant Enter its input. nullopt at a value with another
  /// reader, an if's Merge (either branch's value), a constant Enter (a loop invariant every
  /// iteration reads), a stack access or `after` (the result is the stack's or x's buffer), or a
  /// const.
  std::optional<ValueRef> soleSource(ValueRef v) const {
    for (;;) {
      const Node &p = g.node(v.node);
      if (readers(v) != 1 || p.op == OpKind::Const || forwardsFirstOperand(p))
        return std::nullopt;
      if (!forwardsBuffer(p))
        return v;
      if (p.op == OpKind::Enter && p.attrAs<bool>("is_constant") && *p.attrAs<bool>("is_constant"))
        return std::nullopt;
      bool loopMerge = p.op == OpKind::Merge && p.inputs.size() == 2 &&
                       g.node(p.inputs[1].node).op == OpKind::NextIteration;
      if (p.inputs.empty() || (p.op == OpKind::Merge && !loopMerge))
        return std::nullopt;
      v = p.inputs[0];
    }
  }

  /// n's accumulatorOperand, when it is read only by n (through forwarding nodes: a loop-carried
  /// accumulator) and its buffer takes `bytes`: that buffer.
  std::optional<size_t> accumulatorBuffer(const Node &n, int64_t bytes) {
    std::optional<size_t> k = accumulatorOperand(g, n);
    std::optional<ValueRef> source = k ? soleSource(n.inputs[*k]) : std::nullopt;
    auto b = source ? bufferOf.find(*source) : bufferOf.end();
    if (b == bufferOf.end() || bufferSize[b->second] != bytes)
      return std::nullopt;
    ++plan.accumulated;
    return b->second;
  }

  /// An operand of elementwise `n` that dies at n and whose buffer `bytes` fits exactly, or
  /// the buffer n accumulates into.
  std::optional<size_t> inPlaceOperand(const Node &n, int64_t bytes) {
    if (std::optional<size_t> acc = accumulatorBuffer(n, bytes))
      return acc;
    if (!n.info().elementwise)
      return std::nullopt;
    for (const ValueRef &in : n.inputs) {
      auto b = bufferOf.find(in);
      if (b != bufferOf.end() && lastUse[in] == pos[n.id] && bufferSize[b->second] == bytes &&
          g.node(in.node).op != OpKind::Const)
        return b->second;
    }
    return std::nullopt;
  }

  void assignBuffers() {
    for (NodeId id : order) {
      const Node &n = g.node(id);
      std::vector<size_t> taken;
      for (uint32_t p = 0; p < n.numResults() && !forwardsBuffer(n); ++p) {
        auto stack = stackSizes.find(id);
        int64_t bytes = stack != stackSizes.end() ? stack->second : bytesOf(n.results[p]);
        if (stack != stackSizes.end()) {
          plan.stackBytes += bytes;
          ++plan.stacksSized;
        }
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

std::optional<int64_t> tripCount(const Graph &g, FrameId f) {
  for (const Node &cond : g.nodes()) {
    if (cond.frame != f || cond.op != OpKind::LoopCond)
      continue;
    // LoopCond(lt(Merge(Enter(start), NextIteration(add(Switch(Merge)#1, step))), limit))
    const Node &lt = g.node(cond.inputs[0].node);
    if (lt.op != OpKind::Lt || g.node(lt.inputs[0].node).op != OpKind::Merge)
      return std::nullopt;
    const Node &merge = g.node(lt.inputs[0].node);
    const Node &next = g.node(merge.inputs[1].node);
    if (merge.inputs.size() != 2 || next.op != OpKind::NextIteration)
      return std::nullopt;
    const Node &add = g.node(next.inputs[0].node);
    if (add.op != OpKind::Add)
      return std::nullopt;
    auto isCounter = [&](ValueRef v) {
      const Node &sw = g.node(v.node);
      return v.port == 1 && sw.op == OpKind::Switch && sw.inputs[0].node == merge.id;
    };
    std::optional<int64_t> step = isCounter(add.inputs[0])   ? intConstant(g, add.inputs[1])
                                  : isCounter(add.inputs[1]) ? intConstant(g, add.inputs[0])
                                                             : std::nullopt;
    std::optional<int64_t> start = intConstant(g, merge.inputs[0], /*anyEnter=*/true);
    std::optional<int64_t> limit = intConstant(g, lt.inputs[1]);
    if (!step || !start || !limit || *step <= 0)
      return std::nullopt;
    return *limit <= *start ? 0 : (*limit - *start + *step - 1) / *step;
  }
  return std::nullopt;
}

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
  ctx.stats.set(ctx.current, "in-place-accumulate", plan.accumulated);
  ctx.stats.set(ctx.current, "buffers-reused", plan.reused);
  ctx.stats.set(ctx.current, "unknown-size-values", plan.unknownSize);
  if (plan.stacksSized) {
    ctx.stats.set(ctx.current, "stacks-sized", plan.stacksSized);
    ctx.stats.set(ctx.current, "stack-bytes", plan.stackBytes);
  }
  return PassResult::Unchanged;
}

} // namespace dlm::opt
