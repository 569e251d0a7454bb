//===- tests/executor/TestKernels.cpp - Kernels and builders for executor tests ===//
#include "tests/executor/TestKernels.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace dlm::rt::test {
namespace {

std::atomic<int64_t> counts[16];

void constKernel(std::span<const Value>, const Attrs &attrs, std::vector<Value> &outs) {
  outs.emplace_back(attrs.getTensor("value"));
}

void fillKernel(std::span<const Value>, const Attrs &attrs, std::vector<Value> &outs) {
  int64_t n = attrs.getInt("n");
  Tensor t = Tensor::empty(DType::F32, {n});
  float v = (float)attrs.getFloat("value");
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = v;
  outs.emplace_back(std::move(t));
}

void countKernel(std::span<const Value> ins, const Attrs &attrs, std::vector<Value> &outs) {
  counts[attrs.getInt("slot")].fetch_add(1);
  outs.push_back(ins[0]);
}

void failIfKernel(std::span<const Value> ins, const Attrs &attrs, std::vector<Value> &outs) {
  int64_t v = attrs.getInt("value");
  check(ins[0].tensor().itemI64() != v, "reached " + std::to_string(v));
  outs.push_back(ins[0]);
}

/// Two parties meet; generations let the barrier be reused by later tests.
struct Barrier {
  std::mutex mu;
  std::condition_variable cv;
  int waiting = 0;
  int64_t generation = 0;
};
Barrier barrier;

void barrierKernel(std::span<const Value> ins, const Attrs &attrs, std::vector<Value> &outs) {
  std::unique_lock<std::mutex> lock(barrier.mu);
  int64_t gen = barrier.generation;
  if (++barrier.waiting == 2) {
    barrier.waiting = 0;
    ++barrier.generation;
    barrier.cv.notify_all();
  } else {
    auto timeout = std::chrono::milliseconds(attrs.getInt("timeout_ms"));
    if (!barrier.cv.wait_for(lock, timeout, [&] { return barrier.generation != gen; })) {
      barrier.waiting = 0;
      throw Error("barrier partner never arrived");
    }
  }
  outs.push_back(ins[0]);
}

} // namespace

void registerTestKernels() {
  static bool done = [] {
    registerKernel("test_const", Device::CPU, constKernel);
    registerKernel("test_fill", Device::CPU, fillKernel);
    registerKernel("test_count", Device::CPU, countKernel);
    registerKernel("test_fail_if", Device::CPU, failIfKernel);
    registerKernel("test_barrier", Device::CPU, barrierKernel);
    return true;
  }();
  (void)done;
}

int64_t callCount(int slot) { return counts[slot].load(); }
void resetCallCounts() {
  for (auto &c : counts) c.store(0);
}

CountingAllocator::CountingAllocator() : inner(allocatorFor(Device::CPU)) { setAllocator(this); }
CountingAllocator::~CountingAllocator() { setAllocator(inner); }

void *CountingAllocator::allocate(size_t bytes) {
  void *p = inner->allocate(bytes);
  int64_t now = live.fetch_add((int64_t)bytes) + (int64_t)bytes;
  int64_t old = peak.load();
  while (now > old && !peak.compare_exchange_weak(old, now)) {
  }
  return p;
}

void CountingAllocator::deallocate(void *ptr, size_t bytes) {
  live.fetch_sub((int64_t)bytes);
  inner->deallocate(ptr, bytes);
}

ExecPort out(ExecNodeId node, int32_t port) { return ExecPort{node, port}; }

namespace {
ExecNodeId constTensor(ExecGraph &g, Tensor t, ExecFrameId frame, ExecNodeId after) {
  ExecNodeId id = g.addNode("test_const", {}, 1, frame, Attrs{{"value", t}});
  if (after >= 0) g.addControlEdge(after, id);
  return id;
}
} // namespace

ExecNodeId constI64(ExecGraph &g, int64_t v, ExecFrameId frame, ExecNodeId after) {
  return constTensor(g, Tensor::scalarI64(v), frame, after);
}

ExecNodeId constBool(ExecGraph &g, bool v, ExecFrameId frame, ExecNodeId after) {
  return constTensor(g, Tensor::scalarBool(v), frame, after);
}

ExecNodeId op(ExecGraph &g, const std::string &name, std::vector<ExecPort> inputs,
              ExecFrameId frame, Attrs attrs) {
  return g.addNode(name, std::move(inputs), 1, frame, std::move(attrs));
}

std::vector<ExecPort> buildWhile(ExecGraph &g, ExecFrameId parent, const std::string &name,
                                 int32_t parallelIterations, const std::vector<ExecPort> &inits,
                                 const CondFn &cond, const BodyFn &body) {
  ExecFrameId f = g.addFrame(name, parent, parallelIterations);
  std::vector<ExecNodeId> merges;
  std::vector<ExecPort> mergeOuts;
  for (const ExecPort &init : inits) {
    ExecNodeId enter = g.addEnter(init, f, false);
    merges.push_back(g.addNode("Merge", {out(enter)}, 1, f));
    mergeOuts.push_back(out(merges.back()));
  }
  ExecPort pred = cond(g, f, mergeOuts, merges[0]);
  ExecNodeId loopCond = g.addNode("LoopCond", {pred}, 1, f);
  LoopBody b{f, {}, -1};
  std::vector<ExecPort> exits;
  for (ExecNodeId m : merges) {
    ExecNodeId sw = g.addNode("Switch", {out(m), out(loopCond)}, 2, f);
    exits.push_back(out(g.addNode("Exit", {out(sw, 0)}, 1, f)));
    ExecNodeId id = g.addNode("Identity", {out(sw, 1)}, 1, f);
    if (b.pivot < 0) b.pivot = id;
    b.vars.push_back(out(id));
  }
  std::vector<ExecPort> next = body(g, b);
  for (size_t i = 0; i < merges.size(); ++i) {
    ExecNodeId ni = g.addNode("NextIteration", {next[i]}, 1, f);
    g.node(merges[i]).inputs.push_back(out(ni));
  }
  return exits;
}

std::vector<ExecPort> buildCountedLoop(ExecGraph &g, ExecFrameId parent, const std::string &name,
                                       int32_t parallelIterations, int64_t n,
                                       const std::vector<ExecPort> &inits, const BodyFn &body,
                                       ExecNodeId initAfter) {
  std::vector<ExecPort> all = {out(constI64(g, 0, parent, initAfter))};
  all.insert(all.end(), inits.begin(), inits.end());
  auto cond = [n](ExecGraph &g, ExecFrameId f, const std::vector<ExecPort> &vars,
                  ExecNodeId pivot) {
    return out(op(g, "lt", {vars[0], out(constI64(g, n, f, pivot))}, f));
  };
  auto loopBody = [&body](ExecGraph &g, const LoopBody &b) {
    std::vector<ExecPort> next = {out(op(g, "add", {b.vars[0], out(constI64(g, 1, b.frame, b.pivot))}, b.frame))};
    std::vector<ExecPort> rest = body(g, b);
    next.insert(next.end(), rest.begin(), rest.end());
    return next;
  };
  std::vector<ExecPort> exits = buildWhile(g, parent, name, parallelIterations, all, cond, loopBody);
  return std::vector<ExecPort>(exits.begin() + 1, exits.end());
}

int64_t scalarOf(const Value &v) {
  if (!v.isTensor() || !v.tensor()) {
    ADD_FAILURE() << "fetched value is missing (dead or never produced)";
    return INT64_MIN;
  }
  return v.tensor().itemI64();
}

} // namespace dlm::rt::test
