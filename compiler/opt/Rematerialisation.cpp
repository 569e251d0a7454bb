//===- compiler/opt/Rematerialisation.cpp - Recompute instead of keeping, under a budget ===//
//
// Rematerialisation (Chen et al., "Training deep nets with sublinear memory cost"): a gradient
// program keeps every forward activation alive until the backward pass reads it, so the
// planned peak grows with the depth of the network. Given a budget (`--remat-budget=BYTES`),
// this pass finds the long chains of forward computations whose values are read again much
// later, keeps every ⌈√N⌉-th value of a chain of N as a checkpoint, and gives the late readers
// of the others copies recomputed from the checkpoint before them: a chain then holds √N
// checkpoints plus one segment of √N recomputed values instead of N values, at the price of
// about one more forward pass. It reports the planned peak (MemoryPlanning.h) before and
// after (`remat.peak-bytes-before`, `remat.peak-bytes-after`).
//
// Algorithm:
//   1. Plan memory. At or under the budget: nothing to do.
//   2. Chains, in the root frame: a node is recomputable when it is pure, cannot fail, has one
//      static result and is not a constant. Its chain predecessor is the recomputable input it
//      is the first reader of (the latest such input); maximal predecessor links are chains.
//      A chain value's late readers are those scheduled after the chain's last node.
//   3. Chains of at least four nodes, longest first, until the plan fits: with k = ⌈√N⌉, v_k,
//      v_2k, ... are checkpoints, and so is any node whose other inputs would have to live
//      longer for it to be recomputed (an input not read after the late readers anyway).
//      Each segment between checkpoints gets copies of its nodes up to the last one with late
//      readers, computed from the checkpoint (or the chain's inputs); the late readers read the
//      copies. The first copy of a segment takes a control edge from the latest input of its
//      earliest late reader, so no engine computes it before it is needed; segments are copied
//      last-first, so a schedule that breaks ties by node id recomputes them in the order the
//      backward pass reads them.
//   4. Plan again; keep the copies only when the planned peak shrank. Report.
//   5. Still over the budget: autodiff's stacks in loops whose entries other stacks' entries
//      recompute (StackRematerialisation.cpp).
// Values inside loops are not chained: they live per iteration; what grows with the trip count
// is their stacks, step 5's.
//
// Requires: a verified graph  Preserves: results, side effects  Invalidates: node order
//
//===----------------------------------------------------------------------===//
#include "compiler/opt/Rematerialisation.h"
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/MemoryPlanning.h"
#include "compiler/opt/Pass.h"

#include "compiler/support/Diagnostics.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace dlm::opt {

using namespace graph;

namespace {

bool isRecomputable(const Graph &g, const Node &n) {
  return n.frame == kRootFrame && n.op != OpKind::Const && n.results.size() == 1 && isPure(n) &&
         !mayFail(g, n) && n.results[0].isTensor() && n.results[0].staticNumElements();
}

using Chain = std::vector<NodeId>;

class Rematerialiser {
public:
  Rematerialiser(Graph &g, PassContext &ctx) : g(g), ctx(ctx) {}

  PassResult run(MemoryPlan plan) {
    ctx.stats.set(ctx.current, "peak-bytes-before", plan.arenaBytes);
    bool changed = false;
    // Each accepted chain renumbers the graph: find the chains again after it.
    for (bool progress = true; progress && plan.arenaBytes > ctx.rematBudget;) {
      progress = false;
      for (const Chain &chain : findChains(plan)) {
        if (std::optional<MemoryPlan> better = tryChain(chain, plan)) {
          plan = std::move(*better);
          progress = changed = true;
          break;
        }
      }
    }
    changed |= rematerialiseStacks(g, ctx, plan);
    ctx.stats.set(ctx.current, "peak-bytes-after", plan.arenaBytes);
    return changed ? PassResult::Changed : PassResult::Unchanged;
  }

private:
  Graph &g;
  PassContext &ctx;
  /// For each copy made for the chain being rewritten: the node it must precede.
  std::map<NodeId, NodeId> anchorOf;

  /// Rematerialises `chain`; keeps the result only when the planned peak shrinks.
  std::optional<MemoryPlan> tryChain(const Chain &chain, const MemoryPlan &plan) {
    Graph backup = g.clone();
    size_t nodesBefore = g.numNodes();
    anchorOf.clear();
    if (!rematerialise(chain, plan))
      return std::nullopt;
    size_t copies = g.numNodes() - nodesBefore;
    placeCopies(nodesBefore);
    std::optional<MemoryPlan> replanned = planMemory(g);
    if (!replanned || replanned->arenaBytes >= plan.arenaBytes) {
      g = std::move(backup);
      return std::nullopt;
    }
    ctx.count("chains");
    ctx.count("recomputed", static_cast<int64_t>(copies));
    return replanned;
  }

  /// Renumbers the nodes so that each copy (ids from `firstCopy` on) comes right before the
  /// late reader it serves: a schedule that breaks ties by node id (the planner's, and any
  /// engine's that follows it) then recomputes a segment where the backward pass needs it,
  /// not as soon as its checkpoint exists.
  void placeCopies(size_t firstCopy) {
    std::map<NodeId, std::vector<NodeId>> before;
    for (const auto &[copy, anchor] : anchorOf)
      before[anchor].push_back(copy);
    std::vector<NodeId> order;
    for (NodeId id = 0; id < firstCopy; ++id) {
      if (auto it = before.find(id); it != before.end())
        order.insert(order.end(), it->second.begin(), it->second.end());
      order.push_back(id);
    }
    renumberNodes(g, order);
  }

  /// Chains of at least four recomputable nodes, longest first.
  std::vector<Chain> findChains(const MemoryPlan &plan) {
    std::vector<std::vector<Use>> uses = g.dataUses();
    auto firstReader = [&](NodeId p) {
      NodeId best = p;
      size_t bestPos = SIZE_MAX;
      for (const Use &u : uses[p])
        if (plan.pos[u.user] < bestPos)
          best = u.user, bestPos = plan.pos[u.user];
      return best;
    };
    std::vector<std::optional<NodeId>> next(g.numNodes());
    std::vector<bool> hasPred(g.numNodes(), false);
    for (NodeId id : plan.order) {
      const Node &n = g.node(id);
      if (!isRecomputable(g, n))
        continue;
      std::optional<NodeId> pred;
      for (const ValueRef &in : n.inputs)
        if (isRecomputable(g, g.node(in.node)) && firstReader(in.node) == id && !next[in.node] &&
            (!pred || plan.pos[in.node] > plan.pos[*pred]))
          pred = in.node;
      if (pred) {
        next[*pred] = id;
        hasPred[id] = true;
      }
    }
    std::vector<Chain> chains;
    for (NodeId id : plan.order) {
      if (!isRecomputable(g, g.node(id)) || hasPred[id])
        continue;
      Chain chain{id};
      while (next[chain.back()])
        chain.push_back(*next[chain.back()]);
      if (chain.size() >= 4)
        chains.push_back(std::move(chain));
    }
    std::stable_sort(chains.begin(), chains.end(),
                     [](const Chain &a, const Chain &b) { return a.size() > b.size(); });
    return chains;
  }

  bool rematerialise(const Chain &chain, const MemoryPlan &plan) {
    size_t end = plan.pos[chain.back()];
    std::vector<std::vector<Use>> uses = g.dataUses();
    std::vector<std::vector<Use>> late(chain.size());
    for (size_t i = 0; i < chain.size(); ++i)
      for (const Use &u : uses[chain[i]])
        if (plan.pos[u.user] > end)
          late[i].push_back(u);
    std::vector<size_t> firstLate(chain.size() + 1, SIZE_MAX);
    for (size_t i = chain.size(); i-- > 0;) {
      firstLate[i] = firstLate[i + 1];
      for (const Use &u : late[i])
        firstLate[i] = std::min(firstLate[i], plan.pos[u.user]);
    }
    // The values read late are what a chain keeps alive: every k-th of those M stays.
    std::vector<bool> kept(chain.size() + 1, false);
    size_t stored = 0;
    for (size_t i = 0; i < chain.size(); ++i)
      stored += !late[i].empty();
    if (stored < 4)
      return false;
    size_t k = static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(stored))));
    for (size_t i = 0, seen = 0; i < chain.size(); ++i)
      if (!late[i].empty() && ++seen % k == 0)
        kept[i] = true;
    // Segments [start, stop) between checkpoints, each with the last late-read index.
    std::vector<std::pair<size_t, size_t>> segments;
    size_t start = 0;
    for (size_t i = 0; i <= chain.size(); ++i) {
      bool checkpoint =
          i == chain.size() || kept[i] || !inputsOutliveReaders(chain, i, firstLate[i], plan);
      if (!checkpoint)
        continue;
      if (i > start)
        segments.push_back({start, i});
      start = i + 1;
    }
    bool changed = false;
    for (auto it = segments.rbegin(); it != segments.rend(); ++it)
      changed |= copySegment(chain, it->first, it->second, late, plan);
    return changed;
  }

  /// Node chain[i] may be recomputed where it is needed again, at `firstLate` (the first late
  /// reader of it or of a node after it): every input but its chain predecessor is a constant
  /// or is read at or after that point anyway, so recomputing keeps nothing alive longer.
  bool inputsOutliveReaders(const Chain &chain, size_t i, size_t firstLate,
                            const MemoryPlan &plan) {
    for (const ValueRef &in : g.node(chain[i]).inputs) {
      if ((i > 0 && in.node == chain[i - 1]) || g.node(in.node).op == OpKind::Const)
        continue;
      auto last = plan.lastUse.find(in);
      if (last == plan.lastUse.end() || last->second < firstLate)
        return false;
    }
    return true;
  }

  /// True when `node` depends on `on` through data or control edges (or is it).
  bool dependsOn(NodeId node, NodeId on, const MemoryPlan &plan) {
    std::vector<bool> seen(g.numNodes(), false);
    std::vector<NodeId> work{node};
    while (!work.empty()) {
      NodeId id = work.back();
      work.pop_back();
      if (id == on)
        return true;
      // Nodes scheduled before `on` cannot depend on it; new copies are not in the plan.
      if (seen[id] || id >= plan.pos.size() || plan.pos[id] < plan.pos[on])
        continue;
      seen[id] = true;
      for (const ValueRef &in : g.node(id).inputs)
        work.push_back(in.node);
      for (NodeId c : g.node(id).controlInputs)
        work.push_back(c);
    }
    return false;
  }

  bool copySegment(const Chain &chain, size_t start, size_t stop,
                   const std::vector<std::vector<Use>> &late, const MemoryPlan &plan) {
    size_t lastRead = stop;
    for (size_t i = start; i < stop; ++i)
      if (!late[i].empty())
        lastRead = i;
    if (lastRead == stop)
      return false;
    // The earliest late reader of the segment, and its latest other input: the trigger.
    std::optional<NodeId> earliest;
    for (size_t i = start; i <= lastRead; ++i)
      for (const Use &u : late[i])
        if (!earliest || plan.pos[u.user] < plan.pos[*earliest])
          earliest = u.user;
    // A trigger must not make a copy dead where a reader was live: every late reader of the
    // segment depends on it, so when it is dead they all are.
    std::vector<NodeId> readers;
    for (size_t i = start; i <= lastRead; ++i)
      for (const Use &u : late[i])
        readers.push_back(u.user);
    std::optional<NodeId> trigger;
    for (const ValueRef &in : g.node(*earliest).inputs) {
      const Node &t = g.node(in.node);
      bool inSegment = std::find(chain.begin() + start, chain.begin() + lastRead + 1, t.id) !=
                       chain.begin() + lastRead + 1;
      if (inSegment || t.frame != kRootFrame || t.op == OpKind::Switch ||
          (trigger && plan.pos[t.id] <= plan.pos[*trigger]))
        continue;
      if (std::all_of(readers.begin(), readers.end(),
                      [&](NodeId r) { return dependsOn(r, t.id, plan); }))
        trigger = t.id;
    }
    std::map<NodeId, NodeId> copyOf;
    for (size_t i = start; i <= lastRead; ++i) {
      const Node &orig = g.node(chain[i]);
      std::vector<ValueRef> inputs = orig.inputs;
      for (ValueRef &in : inputs)
        if (auto c = copyOf.find(in.node); c != copyOf.end())
          in.node = c->second;
      Node &copy = g.addNode(orig.op, std::move(inputs), orig.results, kRootFrame, orig.loc);
      copy.attrs = g.node(chain[i]).attrs;
      copy.controlInputs = g.node(chain[i]).controlInputs;
      if (i == start && trigger)
        g.addControlInput(copy.id, *trigger);
      copyOf[chain[i]] = copy.id;
      anchorOf[copy.id] = *earliest;
    }
    for (size_t i = start; i <= lastRead; ++i)
      for (const Use &u : late[i])
        g.node(u.user).inputs[u.operand] = Graph::value(copyOf[chain[i]]);
    return true;
  }
};

} // namespace

PassResult runRematerialisation(Graph &g, PassContext &ctx) {
  if (ctx.rematBudget <= 0) {
    ctx.diag.error("pass 'remat' needs a memory budget (--remat-budget=BYTES)");
    return PassResult::Failed;
  }
  std::optional<MemoryPlan> plan = planMemory(g);
  if (!plan)
    return PassResult::Unchanged;
  return Rematerialiser(g, ctx).run(std::move(*plan));
}

} // namespace dlm::opt
