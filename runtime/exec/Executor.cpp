//===- runtime/exec/Executor.cpp - The graph executor ----------------------===//
//
// One RunState per run. Its bookkeeping — frame instances, iterations, pending counts, the shared
// ready queue — is guarded by one mutex, taken once per executed node to propagate the node's
// outputs; kernels run outside it. The algorithm follows TensorFlow's executor:
//
//  1. Seed: the nodes without inputs are ready in iteration 0 of the root frame.
//  2. Process a ready node: take its inputs out of its input slots, run it (kernel or
//     primitive) unless it is dead, then, under the lock, propagate its outputs: write each
//     consumer's slot, count the input down, and collect consumers that became ready.
//  3. Where outputs go depends on the node: Enter into iteration 0 of the child frame instance
//     (found or created for the current parent iteration; constant Enters into every iteration),
//     Exit into the parent's iteration, NextIteration into the next iteration (started on demand,
//     or deferred while `parallelIterations` iterations are in flight), all others into their
//     own iteration.
//  4. A node that finished decrements its iteration's outstanding count. The oldest iteration
//     of a frame is done when nothing is outstanding in it, no child frame of it is alive, and
//     (iteration 0) every Enter has arrived or (later ones) the previous iteration is done. Done
//     iterations are recycled; a frame whose iterations are all done and whose Enters have all
//     arrived is deleted, sending dead tokens out of the Exits that never fired (a loop in the
//     untaken branch of an if), which may in turn complete the parent's iteration.
//  5. Schedule: cheap ready nodes go on the current thread's inline queue; expensive ones go to
//     the shared queue for idle threads, except that one is kept inline when nothing else is.
//  6. The run ends when no node is outstanding; on an error nothing new starts.
//
//===----------------------------------------------------------------------===//
#include "runtime/exec/Executor.h"

#include "kernels/cpu/CpuKernels.h"
#include "runtime/Interrupt.h"
#include "runtime/Threads.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace dlm::rt {

std::string RunResult::errorString() const {
  if (status.ok())
    return "";
  if (errorLoc.line == 0)
    return "error: " + status.message();
  return errorLoc.str() + ": error: " + status.message();
}

namespace {

/// A value in an input slot or on an output port; `has` is false for a dead token.
struct Entry {
  Value val;
  bool has = false;
};

/// Per node and iteration: inputs still to arrive, dead inputs seen, and for Merge the slot of
/// the first live input and whether it has fired.
struct PendingState {
  int32_t pending = 0;
  int32_t dead = 0;
  int32_t liveSlot = -1;
  bool fired = false;
};

struct Iteration {
  std::unique_ptr<Entry[]> slots;
  std::unique_ptr<PendingState[]> pending;
  int64_t outstandingOps = 0;    ///< Ready or running nodes of this iteration.
  int32_t outstandingFrames = 0; ///< Child frame instances entered from this iteration.
};

/// One dynamic instance of a loop frame (or the root frame).
struct FrameInst {
  ExecFrameId staticId = 0;
  FrameInst *parent = nullptr;
  int64_t parentIter = 0;
  int64_t iterationCount = 0;           ///< The newest iteration started.
  int64_t numOutstandingIterations = 1; ///< Iterations alive.
  int32_t maxIterations = 1;            ///< parallelIterations.
  int32_t numPendingInputs = 0;         ///< Enters that have not arrived yet.
  std::vector<Iteration *> iterations;  ///< Ring of maxIterations + 1 by iteration number.
  std::vector<std::pair<ExecNodeId, Entry>> invariants; ///< Constant Enters' values.
  std::vector<std::pair<ExecNodeId, Entry>> deferred;   ///< NextIterations waiting for room.
  std::vector<char> exitFired;
  /// Exit k's loop variable was live here: its Switch fired live (a live value and a live
  /// predicate), so Exit k must fire live too. A loop entered in a dead iteration (the body of a
  /// loop that runs no iteration) can get live values from invariants while its predicate is
  /// dead: its Exits fire dead, and that is no error.
  std::vector<char> exitArmed;
  bool ranLive = false; ///< A Merge fired live: for Exits not fed by a Switch (no exitOfSwitch).
  std::map<std::pair<int64_t, ExecFrameId>, FrameInst *> children;

  Iteration *iteration(int64_t iter) const { return iterations[iter % iterations.size()]; }
  void setIteration(int64_t iter, Iteration *it) { iterations[iter % iterations.size()] = it; }
};

/// A ready node of one iteration of one frame instance.
struct Tagged {
  ExecNodeId node;
  bool dead;
  FrameInst *frame;
  Iteration *iter;
  int64_t iterNum;
};

/// Buffers a thread reuses from node to node.
struct Scratch {
  std::vector<Value> ins, vals;
  std::vector<Entry> outs;
  std::vector<Tagged> ready;
  std::deque<Tagged> inlineQueue;
};

/// matmul_bias's sum written over its addend (kernels/cpu matmulBiasAccumulate, the kernel's
/// bits) when the run holds the addend alone: it was moved out of the slot of its last reader
/// and nothing else references it (no other reader's slot, fetch or stack entry) or its buffer
/// (no view). The operands are in s.ins; the result goes to s.outs[0].
bool accumulateInPlace(const ExecNode &n, Scratch &s) {
  Tensor *a = s.ins[0].tensorIf(), *b = s.ins[1].tensorIf(), *acc = s.ins[2].tensorIf();
  if (!a || !b || !acc || !cpu::isSoleOwner(*acc))
    return false;
  bool relu = false;
  if (!guard([&] { relu = n.attrs.getBool("relu", false); }) ||
      !cpu::matmulBiasAccumulate(*a, *b, *acc, relu))
    return false;
  s.outs[0] = Entry{std::move(s.ins[2]), true};
  s.ins.clear();
  return true;
}

class RunState : public std::enable_shared_from_this<RunState> {
public:
  RunState(const ExecGraph &g, const RunOptions &opts);
  ~RunState();
  RunResult run();

private:
  // --- executing (no lock held) ---
  void processChain(Scratch &s);
  void processNode(const Tagged &t, Scratch &s);
  Status compute(const Tagged &t, Entry *slots, Scratch &s, int &consumed);
  void helperLoop();

  // --- bookkeeping (lock held) ---
  void propagate(const Tagged &t, Entry *outs, std::vector<Tagged> &ready);
  void activate(FrameInst *f, int64_t iter, ExecNodeId src, Entry *outs, bool srcDead, bool mayMove,
                std::vector<Tagged> &ready);
  void activateMerge(FrameInst *f, Iteration *it, int64_t iter, const ExecOutEdge &e, bool inDead,
                     Entry *outs, bool mayMove, std::vector<Tagged> &ready);
  void writeSlot(Iteration *it, int32_t slot, Entry &src, bool move);
  void pushReady(ExecNodeId node, bool dead, FrameInst *f, Iteration *it, int64_t iter,
                 std::vector<Tagged> &ready);
  FrameInst *findOrCreateChild(FrameInst *parent, int64_t iter, ExecFrameId staticId);
  void addInvariant(FrameInst *f, ExecNodeId node, const Entry &value, std::vector<Tagged> &ready);
  void incrementIteration(FrameInst *f, std::vector<Tagged> &ready);
  void cleanupIterations(FrameInst *f, std::vector<Tagged> &ready);
  void deleteFrame(FrameInst *f, std::vector<Tagged> &ready);
  Iteration *newIteration(ExecFrameId staticId);
  void releaseIteration(ExecFrameId staticId, Iteration *it);
  int schedule(Scratch &s);
  void recordError(ExecNodeId node, FrameInst *f, int64_t iter, const Status &status);
  bool inErrorWindow(const Tagged &t) const;
  bool inErrorIteration(const FrameInst *f, int64_t iter) const;
  void recordIncomplete(ExecNodeId node, const std::string &what);
  void checkComplete();
  ExecNodeId stuckNode(const FrameInst *f) const;
  void recordFetches(const Tagged &t, Entry *outs);
  void destroyFrame(FrameInst *f);
  void noteValues(int64_t delta);

  const ExecGraph &g;
  const RunOptions &opts;
  int maxHelpers = 0;
  ThreadPool *pool = nullptr;

  std::mutex mu;
  std::condition_variable doneCv;
  std::deque<Tagged> sharedQueue;
  int64_t outstanding = 0;
  int helpersScheduled = 0; ///< Helper tasks queued on the pool or running.
  int helpersBusy = 0;      ///< Helpers processing nodes.
  bool callerWaiting = false;
  /// Set under `mu` by the first error; read without it before starting a node.
  std::atomic<bool> aborted{false};
  /// The failing node's frame instance and iteration (under `mu`): see inErrorWindow.
  FrameInst *errorFrame = nullptr;
  int64_t errorIter = -1;
  RunResult result;
  std::unique_ptr<FrameInst> root;
  std::vector<std::vector<Iteration *>> iterationPool; ///< Recycled iterations per static frame.
  std::vector<std::vector<std::pair<int32_t, int32_t>>> fetchesOf; ///< node -> (port, index).
  /// A loop Switch -> the index among its frame's exits of the Exit its port 0 feeds; -1 for
  /// every other node.
  std::vector<int32_t> exitOfSwitch;
};

RunState::RunState(const ExecGraph &g, const RunOptions &opts) : g(g), opts(opts) {
  int threads = opts.numThreads > 0 ? opts.numThreads : ThreadPool::defaultThreadCount();
  maxHelpers = threads - 1;
  if (maxHelpers > 0)
    pool = opts.pool ? opts.pool : &ThreadPool::shared();
  iterationPool.resize(g.numFrames());
  result.fetched.resize(opts.fetches.size());
  result.fetchedLive.assign(opts.fetches.size(), false);
  if (!opts.fetches.empty()) {
    fetchesOf.resize(g.numNodes());
    for (size_t i = 0; i < opts.fetches.size(); ++i)
      fetchesOf[opts.fetches[i].node].push_back({opts.fetches[i].port, (int32_t)i});
  }
  exitOfSwitch.assign(g.numNodes(), -1);
  for (ExecFrameId f = 0; f < (ExecFrameId)g.numFrames(); ++f) {
    const std::vector<ExecNodeId> &exits = g.framePlan(f).exits;
    for (size_t k = 0; k < exits.size(); ++k)
      if (const ExecNode &e = g.node(exits[k]); !e.inputs.empty() && e.inputs[0].port == 0 &&
                                                g.plan(e.inputs[0].node).kind == ExecKind::Switch)
        exitOfSwitch[e.inputs[0].node] = (int32_t)k;
  }
}

RunState::~RunState() {
  for (auto &pooled : iterationPool)
    for (Iteration *it : pooled)
      delete it;
}

void RunState::noteValues(int64_t delta) {
  result.stats.liveValues += delta;
  result.stats.peakLiveValues = std::max(result.stats.peakLiveValues, result.stats.liveValues);
}

// --- Iterations and frames ------------------------------------------------------------------

Iteration *RunState::newIteration(ExecFrameId staticId) {
  const ExecFramePlan &fp = g.framePlan(staticId);
  Iteration *it;
  auto &pooled = iterationPool[staticId];
  if (!pooled.empty()) {
    it = pooled.back();
    pooled.pop_back();
  } else {
    it = new Iteration();
    it->slots.reset(new Entry[fp.numSlots]);
    it->pending.reset(new PendingState[fp.numNodes]);
  }
  for (int32_t i = 0; i < fp.numNodes; ++i)
    it->pending[i] = PendingState{fp.initialPending[i], 0, -1, false};
  it->outstandingOps = 0;
  it->outstandingFrames = 0;
  if (staticId != 0) {
    ++result.stats.liveIterations;
    ++result.stats.iterationsStarted;
    result.stats.peakLiveIterations =
        std::max(result.stats.peakLiveIterations, result.stats.liveIterations);
  }
  return it;
}

void RunState::releaseIteration(ExecFrameId staticId, Iteration *it) {
  // Slots are normally empty here (every value was consumed); clear leftovers of a stopped run.
  int32_t numSlots = g.framePlan(staticId).numSlots;
  int64_t left = 0;
  for (int32_t i = 0; i < numSlots; ++i) {
    if (!it->slots[i].has)
      continue;
    it->slots[i] = Entry();
    ++left;
  }
  noteValues(-left);
  if (staticId != 0)
    --result.stats.liveIterations;
  iterationPool[staticId].push_back(it);
}

FrameInst *RunState::findOrCreateChild(FrameInst *parent, int64_t iter, ExecFrameId staticId) {
  auto key = std::make_pair(iter, staticId);
  auto found = parent->children.find(key);
  if (found != parent->children.end())
    return found->second;
  const ExecFramePlan &fp = g.framePlan(staticId);
  auto *f = new FrameInst();
  f->staticId = staticId;
  f->parent = parent;
  f->parentIter = iter;
  f->maxIterations = g.frame(staticId).parallelIterations;
  f->numPendingInputs = fp.numEnters;
  f->iterations.assign(f->maxIterations + 1, nullptr);
  f->setIteration(0, newIteration(staticId));
  f->exitFired.assign(fp.exits.size(), 0);
  f->exitArmed.assign(fp.exits.size(), 0);
  parent->children.emplace(key, f);
  parent->iteration(iter)->outstandingFrames++;
  ++result.stats.framesCreated;
  ++result.stats.liveFrames;
  result.stats.peakLiveFrames = std::max(result.stats.peakLiveFrames, result.stats.liveFrames);
  return f;
}

void RunState::addInvariant(FrameInst *f, ExecNodeId node, const Entry &value,
                            std::vector<Tagged> &ready) {
  f->invariants.push_back({node, value});
  noteValues(1);
  Entry &stored = f->invariants.back().second;
  // Every iteration alive has to see it: iteration 0 cannot be done before all Enters arrived,
  // so iterations 0..iterationCount are all still alive.
  for (int64_t i = 0; i <= f->iterationCount; ++i)
    activate(f, i, node, &stored, !stored.has, /*mayMove=*/false, ready);
}

void RunState::incrementIteration(FrameInst *f, std::vector<Tagged> &ready) {
  int64_t next = ++f->iterationCount;
  f->setIteration(next, newIteration(f->staticId));
  ++f->numOutstandingIterations;
  std::vector<std::pair<ExecNodeId, Entry>> deferred;
  deferred.swap(f->deferred);
  for (auto &[node, entry] : deferred) {
    activate(f, next, node, &entry, false, /*mayMove=*/true, ready);
    noteValues(-1);
  }
  for (auto &[node, entry] : f->invariants)
    activate(f, next, node, &entry, !entry.has, /*mayMove=*/false, ready);
}

void RunState::cleanupIterations(FrameInst *f, std::vector<Tagged> &ready) {
  while (f->numOutstandingIterations > 0) {
    int64_t oldest = f->iterationCount - f->numOutstandingIterations + 1;
    Iteration *it = f->iteration(oldest);
    if (it->outstandingOps != 0 || it->outstandingFrames != 0)
      break;
    if (oldest == 0 && f->numPendingInputs != 0)
      break;
    releaseIteration(f->staticId, it);
    f->setIteration(oldest, nullptr);
    --f->numOutstandingIterations;
    if (!f->deferred.empty())
      incrementIteration(f, ready);
  }
  if (f->numOutstandingIterations == 0 && f->numPendingInputs == 0)
    deleteFrame(f, ready);
}

void RunState::deleteFrame(FrameInst *f, std::vector<Tagged> &ready) {
  FrameInst *parent = f->parent;
  int64_t parentIter = f->parentIter;
  // An Exit that never fired belongs to a loop variable that was never live here (the loop was
  // entered with dead tokens, e.g. in the untaken branch of an if, or its predicate was dead, as
  // in the body of a loop that runs no iteration): its consumers get a dead token.
  // An Exit whose Switch fired live but that never fired means a value of the loop died mid-run
  // (a dead NextIteration ends the loop early): its consumers would silently never run.
  const std::vector<ExecNodeId> &exits = g.framePlan(f->staticId).exits;
  Entry dead;
  for (size_t k = 0; k < exits.size(); ++k) {
    if (f->exitFired[k])
      continue;
    const ExecNode &e = g.node(exits[k]);
    bool viaSwitch = !e.inputs.empty() && exitOfSwitch[e.inputs[0].node] == (int32_t)k;
    if (viaSwitch ? f->exitArmed[k] : f->ranLive)
      recordIncomplete(exits[k],
                       "loop '" + g.frame(f->staticId).name +
                           "' ran but ended without it (a value of the loop died in an iteration)");
    activate(parent, parentIter, exits[k], &dead, true, false, ready);
  }
  parent->children.erase({parentIter, f->staticId});
  noteValues(-(int64_t)(f->invariants.size() + f->deferred.size()));
  delete f;
  --result.stats.liveFrames;
  Iteration *pit = parent->iteration(parentIter);
  if (--pit->outstandingFrames == 0 && pit->outstandingOps == 0 && parent->parent)
    cleanupIterations(parent, ready);
}

// --- Propagation ----------------------------------------------------------------------------

void RunState::pushReady(ExecNodeId node, bool dead, FrameInst *f, Iteration *it, int64_t iter,
                         std::vector<Tagged> &ready) {
  ready.push_back(Tagged{node, dead, f, it, iter});
  ++it->outstandingOps;
  ++outstanding;
}

void RunState::writeSlot(Iteration *it, int32_t slot, Entry &src, bool move) {
  Entry &dst = it->slots[slot];
  if (move)
    dst.val = std::move(src.val);
  else
    dst.val = src.val;
  if (!dst.has)
    noteValues(1);
  dst.has = true;
}

void RunState::activateMerge(FrameInst *f, Iteration *it, int64_t iter, const ExecOutEdge &e,
                             bool inDead, Entry *outs, bool mayMove, std::vector<Tagged> &ready) {
  const ExecNodePlan &dp = g.plan(e.dst);
  PendingState &ps = it->pending[dp.local];
  if (e.srcPort < 0) {
    --ps.pending;
  } else if (inDead) {
    ++ps.dead;
  } else if (ps.liveSlot < 0) {
    ps.liveSlot = e.dstSlot;
    writeSlot(it, dp.inputBase + e.dstSlot, outs[e.srcPort], mayMove && e.lastUseOfPort);
  }
  if (ps.fired || ps.pending > 0)
    return;
  if (ps.liveSlot >= 0) {
    ps.fired = true;
    f->ranLive = true;
    pushReady(e.dst, false, f, it, iter, ready);
    return;
  }
  // Dead when every input expected in this iteration is dead: a loop's Merge expects its Enter
  // inputs in iteration 0 and its NextIteration inputs later (which never carry dead tokens).
  int32_t expected = dp.numBackEdges == 0 ? dp.numData
                     : iter == 0          ? dp.numData - dp.numBackEdges
                                          : dp.numBackEdges;
  if (ps.dead >= expected) {
    ps.fired = true;
    pushReady(e.dst, true, f, it, iter, ready);
  }
}

void RunState::activate(FrameInst *f, int64_t iter, ExecNodeId src, Entry *outs, bool srcDead,
                        bool mayMove, std::vector<Tagged> &ready) {
  Iteration *it = f->iteration(iter);
  const ExecNodePlan &sp = g.plan(src);
  const std::vector<ExecOutEdge> &edges = g.outEdges();
  for (uint32_t i = sp.outBegin; i < sp.outEnd; ++i) {
    const ExecOutEdge &e = edges[i];
    bool inDead = srcDead || (e.srcPort >= 0 && !outs[e.srcPort].has);
    const ExecNodePlan &dp = g.plan(e.dst);
    if (dp.kind == ExecKind::Merge) {
      activateMerge(f, it, iter, e, inDead, outs, mayMove, ready);
      continue;
    }
    PendingState &ps = it->pending[dp.local];
    if (inDead)
      ++ps.dead;
    else if (e.srcPort >= 0)
      writeSlot(it, dp.inputBase + e.dstSlot, outs[e.srcPort], mayMove && e.lastUseOfPort);
    if (--ps.pending == 0)
      pushReady(e.dst, ps.dead > 0, f, it, iter, ready);
  }
}

void RunState::propagate(const Tagged &t, Entry *outs, std::vector<Tagged> &ready) {
  const ExecNodePlan &p = g.plan(t.node);
  FrameInst *f = t.frame;
  switch (p.kind) {
  case ExecKind::Enter: {
    const ExecNode &n = g.node(t.node);
    FrameInst *child = findOrCreateChild(f, t.iterNum, n.frame);
    if (n.isConstant)
      addInvariant(child, t.node, outs[0], ready);
    else
      activate(child, 0, t.node, outs, t.dead, true, ready);
    if (--child->numPendingInputs == 0)
      cleanupIterations(child, ready);
    break;
  }
  case ExecKind::Exit:
    if (t.dead)
      break; // a dead Exit of a loop that ran live: the live one comes later
    f->exitFired[p.exitIndex] = 1;
    activate(f->parent, f->parentIter, t.node, outs, false, true, ready);
    break;
  case ExecKind::NextIteration:
    if (t.dead)
      break; // the loop has ended: deadness stops here
    if (t.iterNum == f->iterationCount && f->numOutstandingIterations == f->maxIterations) {
      f->deferred.push_back({t.node, std::move(outs[0])});
      noteValues(1);
      break;
    }
    if (t.iterNum == f->iterationCount)
      incrementIteration(f, ready);
    activate(f, t.iterNum + 1, t.node, outs, false, true, ready);
    break;
  default:
    if (!t.dead && p.kind == ExecKind::Switch)
      if (int32_t k = exitOfSwitch[t.node]; k >= 0)
        f->exitArmed[k] = 1;
    activate(f, t.iterNum, t.node, outs, t.dead, true, ready);
    break;
  }
  // The node is done; this may complete its iteration (it kept the iteration alive until now).
  if (--t.iter->outstandingOps == 0 && f->parent)
    cleanupIterations(f, ready);
}

// --- Executing nodes ------------------------------------------------------------------------

Status RunState::compute(const Tagged &t, Entry *slots, Scratch &s, int &consumed) {
  const ExecNodePlan &p = g.plan(t.node);
  auto take = [&](int32_t i) {
    ++consumed;
    slots[i].has = false;
    return std::move(slots[i].val);
  };
  switch (p.kind) {
  case ExecKind::Kernel: {
    const ExecNode &n = g.node(t.node);
    s.ins.clear();
    for (int32_t i = 0; i < p.numData; ++i)
      s.ins.push_back(take(i));
    if (p.accumulates && accumulateInPlace(n, s))
      return Status();
    s.vals.clear();
    Status st;
    try {
      st = callKernel(*n.kernel, s.ins, n.attrs, s.vals);
    } catch (const std::exception &e) {
      st = Status::error(std::string("internal error in kernel '") + n.op + "': " + e.what());
    }
    s.ins.clear(); // inputs die here unless the outputs share their buffers
    if (!st)
      return st;
    if ((int32_t)s.vals.size() != n.numOutputs)
      return Status::error("internal error: kernel '" + n.op + "' produced " +
                           std::to_string(s.vals.size()) + " results, expected " +
                           std::to_string(n.numOutputs));
    for (int32_t i = 0; i < n.numOutputs; ++i)
      s.outs[i] = Entry{std::move(s.vals[i]), true};
    return Status();
  }
  case ExecKind::Switch: {
    bool pred = false;
    Status st = guard([&] {
      const Tensor &c = slots[1].val.tensor();
      check(c.numel() == 1, "Switch predicate must be a scalar, got " + c.typeString());
      pred = c.itemBool();
    });
    take(1);
    if (!st)
      return st;
    s.outs[pred ? 1 : 0] = Entry{take(0), true};
    return Status();
  }
  case ExecKind::Merge: {
    int32_t live = t.iter->pending[p.local].liveSlot;
    s.outs[0] = Entry{take(live), true};
    if (p.numOutputs > 1)
      s.outs[1] = Entry{Value(Tensor::scalarI64(live)), true};
    return Status();
  }
  case ExecKind::Arg: {
    int32_t index = g.node(t.node).argIndex;
    if (index < 0 || index >= (int32_t)opts.feeds.size())
      return Status::error("internal error: argument " + std::to_string(index) + " of " +
                           std::to_string(opts.feeds.size()) + " was not given");
    s.outs[0] = Entry{opts.feeds[index], true};
    return Status();
  }
  default: // Enter, Exit, NextIteration, LoopCond, Identity forward their input
    s.outs[0] = Entry{take(0), true};
    return Status();
  }
}

void RunState::recordFetches(const Tagged &t, Entry *outs) {
  if (fetchesOf.empty())
    return;
  // Fetches are root-frame values: outputs of root-frame nodes and of Exits out of top loops.
  ExecKind kind = g.plan(t.node).kind;
  FrameInst *outFrame = kind == ExecKind::Exit ? t.frame->parent : t.frame;
  if (outFrame != root.get() || kind == ExecKind::Enter)
    return;
  for (auto [port, index] : fetchesOf[t.node]) {
    result.fetchedLive[index] = outs[port].has;
    if (outs[port].has)
      result.fetched[index] = outs[port].val;
  }
}

/// After an error, the nodes of the failing iteration that come before the failing node in
/// program order (smaller ids) still run, so that of several failing nodes the run reports the
/// first in program order, as the JIT (which runs them in that order) does: a matmul whose
/// operand is also pushed on an autodiff stack fails before the push, whichever a thread
/// reached first. That includes the iterations of loops nested in the failing iteration: the
/// push of a value that is invariant in an inner loop sits after that loop, in the outer
/// iteration, and the inner loop's matmul comes first. Everything else stops.
bool RunState::inErrorWindow(const Tagged &t) const {
  return t.node < result.errorNode && inErrorIteration(t.frame, t.iterNum);
}

/// Whether iteration `iter` of frame instance `f` is the failing iteration or runs inside it.
bool RunState::inErrorIteration(const FrameInst *f, int64_t iter) const {
  for (; f; iter = f->parentIter, f = f->parent)
    if (f == errorFrame && iter == errorIter)
      return true;
  return false;
}

void RunState::recordError(ExecNodeId node, FrameInst *f, int64_t iter, const Status &status) {
  bool earlier = aborted && node < result.errorNode && inErrorIteration(f, iter);
  if (aborted && !earlier)
    return;
  aborted.store(true, std::memory_order_release);
  result.status = status;
  result.errorNode = node;
  result.errorLoc = node >= 0 ? g.node(node).loc : ExecLocation();
  if (!earlier) { // an earlier error in a nested loop keeps the window of the outer iteration
    errorFrame = f;
    errorIter = iter;
  }
  std::deque<Tagged> keep;
  for (const Tagged &q : sharedQueue)
    if (inErrorWindow(q))
      keep.push_back(q);
  outstanding -= (int64_t)(sharedQueue.size() - keep.size());
  sharedQueue.swap(keep);
}

void RunState::recordIncomplete(ExecNodeId node, const std::string &what) {
  if (aborted)
    return;
  std::string name =
      node < 0 ? "a node" : "node " + std::to_string(node) + " '" + g.node(node).op + "'";
  recordError(node, nullptr, -1,
              Status::error("internal error: the graph executor's run ended with " + name +
                            " never run: " + what));
  result.internal = true;
}

/// The first node (in id order) of `f` or a frame instance below it that is still waiting: in
/// a live loop iteration, or (root frame) one that never became ready. -1 when there is none.
ExecNodeId RunState::stuckNode(const FrameInst *f) const {
  for (const auto &[key, child] : f->children)
    if (ExecNodeId id = stuckNode(child); id >= 0)
      return id;
  for (ExecNodeId id = 0; id < (ExecNodeId)g.numNodes(); ++id) {
    const ExecNodePlan &p = g.plan(id);
    if (p.execFrame != f->staticId)
      continue;
    for (const Iteration *it : f->iterations) {
      if (!it)
        continue;
      const PendingState &ps = it->pending[p.local];
      if (p.kind == ExecKind::Merge ? !ps.fired : ps.pending > 0)
        return id;
    }
  }
  return -1;
}

/// After a run without error nothing may be left waiting: every root-frame node ran (live or
/// dead) and no loop frame instance is alive. Otherwise the program would end "successfully"
/// with its prints or results silently missing.
void RunState::checkComplete() {
  if (aborted)
    return;
  ExecNodeId stuck = stuckNode(root.get());
  if (stuck < 0 && result.stats.liveFrames == 0)
    return;
  recordIncomplete(stuck, result.stats.liveFrames > 0 ? std::to_string(result.stats.liveFrames) +
                                                            " loop frame instance(s) still live"
                                                      : "it never received all its inputs");
}

void RunState::processNode(const Tagged &t, Scratch &s) {
  const ExecNodePlan &p = g.plan(t.node);
  int32_t numOutputs = p.numOutputs;
  Entry *slots = t.iter->slots.get() + p.inputBase;
  if ((int32_t)s.outs.size() < numOutputs)
    s.outs.resize(numOutputs); // all dead (has = false)
  int consumed = 0;
  Status st;
  bool runs = !aborted.load(std::memory_order_acquire);
  if (!runs) { // (the error path only: the window is read under the lock)
    std::unique_lock<std::mutex> lock(mu, std::defer_lock);
    if (maxHelpers > 0)
      lock.lock();
    runs = inErrorWindow(t);
  }
  if (runs) {
    if (dlm_interrupt_requested()) {
      // Ctrl-C in the REPL (runtime/Interrupt.h): stop as on a run-time error at this node.
      st = Status::error(kInterruptedMessage);
    } else if (!t.dead) {
      st = compute(t, slots, s, consumed);
    } else {
      for (int32_t i = 0; i < p.numData; ++i)
        if (slots[i].has) {
          slots[i] = Entry();
          ++consumed;
        }
    }
  }
  // A run on one thread has nobody to exclude: skip the lock on its hot path.
  std::unique_lock<std::mutex> lock(mu, std::defer_lock);
  if (maxHelpers > 0)
    lock.lock();
  noteValues(-consumed);
  ++result.stats.nodesRun;
  if (t.dead)
    ++result.stats.deadNodes;
  if (!st)
    recordError(t.node, t.frame, t.iterNum, st);
  if (runs && st && (!aborted || inErrorWindow(t))) {
    recordFetches(t, s.outs.data());
    propagate(t, s.outs.data(), s.ready);
  } else {
    s.ready.clear();
  }
  --outstanding;
  int helpers = schedule(s);
  bool wake = callerWaiting && (outstanding == 0 || !sharedQueue.empty());
  if (lock.owns_lock())
    lock.unlock();
  // Outputs nobody consumed die here, before the run can end; the buffer is kept for reuse.
  for (int32_t i = 0; i < numOutputs; ++i)
    s.outs[i] = Entry();
  if (wake)
    doneCv.notify_all();
  for (int i = 0; i < helpers; ++i)
    pool->schedule([self = shared_from_this()] { self->helperLoop(); });
}

int RunState::schedule(Scratch &s) {
  if (aborted) { // only the error window's nodes still run, here
    for (const Tagged &r : s.ready) {
      if (inErrorWindow(r))
        s.inlineQueue.push_back(r);
      else
        --outstanding;
    }
    s.ready.clear();
    return 0;
  }
  if (maxHelpers == 0) {
    for (const Tagged &r : s.ready)
      s.inlineQueue.push_back(r);
    s.ready.clear();
    return 0;
  }
  // Cheap nodes (and dead ones, which do no work) run inline; expensive ones go to idle
  // threads, except that the last one stays here when there is nothing else to do inline.
  const Tagged *kept = nullptr;
  for (const Tagged &r : s.ready) {
    if (r.dead || !g.plan(r.node).expensive) {
      s.inlineQueue.push_back(r);
      continue;
    }
    if (kept)
      sharedQueue.push_back(*kept);
    kept = &r;
  }
  if (kept) {
    if (s.inlineQueue.empty())
      s.inlineQueue.push_back(*kept);
    else
      sharedQueue.push_back(*kept);
  }
  s.ready.clear();
  int start = std::min<int>((int)sharedQueue.size(), maxHelpers - helpersScheduled);
  if (start <= 0)
    return 0;
  helpersScheduled += start;
  return start;
}

void RunState::processChain(Scratch &s) {
  while (!s.inlineQueue.empty()) {
    Tagged t = s.inlineQueue.front();
    s.inlineQueue.pop_front();
    processNode(t, s);
  }
}

void RunState::helperLoop() {
  Scratch s;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (sharedQueue.empty()) {
        --helpersScheduled;
        return;
      }
      s.inlineQueue.push_back(sharedQueue.front());
      sharedQueue.pop_front();
      ++helpersBusy;
    }
    processChain(s);
    std::lock_guard<std::mutex> lock(mu);
    --helpersBusy;
    if (callerWaiting && outstanding == 0 && helpersBusy == 0)
      doneCv.notify_all();
  }
}

void RunState::destroyFrame(FrameInst *f) {
  for (auto &[key, child] : f->children)
    destroyFrame(child);
  for (Iteration *it : f->iterations)
    if (it)
      releaseIteration(f->staticId, it);
  noteValues(-(int64_t)(f->invariants.size() + f->deferred.size()));
  if (f != root.get()) {
    --result.stats.liveFrames;
    delete f;
  }
}

RunResult RunState::run() {
  Scratch s;
  int helpers;
  {
    std::lock_guard<std::mutex> lock(mu);
    root = std::make_unique<FrameInst>();
    root->iterations.assign(1, nullptr);
    root->setIteration(0, newIteration(0));
    Iteration *it0 = root->iteration(0);
    for (ExecNodeId r : g.framePlan(0).roots)
      pushReady(r, false, root.get(), it0, 0, s.ready);
    helpers = schedule(s);
  }
  for (int i = 0; i < helpers; ++i)
    pool->schedule([self = shared_from_this()] { self->helperLoop(); });
  for (;;) {
    processChain(s);
    std::unique_lock<std::mutex> lock(mu);
    callerWaiting = true;
    doneCv.wait(lock,
                [&] { return !sharedQueue.empty() || (outstanding == 0 && helpersBusy == 0); });
    callerWaiting = false;
    if (sharedQueue.empty())
      break;
    s.inlineQueue.push_back(sharedQueue.front());
    sharedQueue.pop_front();
  }
  std::lock_guard<std::mutex> lock(mu);
  checkComplete();
  // What is still alive after a complete run is a leak; report it before tearing down.
  ExecStats atEnd = result.stats;
  destroyFrame(root.get());
  root.reset();
  result.stats.liveFrames = atEnd.liveFrames;
  result.stats.liveIterations = atEnd.liveIterations;
  result.stats.liveValues = atEnd.liveValues;
  return std::move(result);
}

} // namespace

RunResult runGraph(const ExecGraph &graph, const RunOptions &options) {
  if (!graph.isFinalized()) {
    RunResult r;
    r.status = Status::error("internal error: running a graph that is not finalized");
    return r;
  }
  // Up to `threads` kernels may run at once: OpenBLAS gets cores / threads (runtime/Threads.h).
  int threads = options.numThreads > 0 ? options.numThreads : ThreadPool::defaultThreadCount();
  ScopedInterOpThreads interOp(threads);
  auto state = std::make_shared<RunState>(graph, options);
  return state->run();
}

} // namespace dlm::rt
