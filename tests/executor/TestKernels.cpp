//===- tests/executor/TestKernels.cpp - Kernels and builders for executor tests ===//
#include "tests/executor/TestKernels.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace dlm::rt::test {
namespace {

std::atomic<int64_t> counts[16];

void fillKernel(std::span<const Value>, const Attrs &attrs, std::vector<Value> &outs) {
  int64_t n = attrs.getInt("n");
  Tensor t = Tensor::empty(DType::F32, {n});
  float v = (float)attrs.getFloat("value");
  for (int64_t i = 0; i < n; ++i)
    t.data<float>()[i] = v;
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
  for (auto &c : counts)
    c.store(0);
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

int64_t scalarOf(const Value &v) {
  if (!v.isTensor() || !v.tensor()) {
    ADD_FAILURE() << "fetched value is missing (dead or never produced)";
    return INT64_MIN;
  }
  return v.tensor().itemI64();
}

} // namespace dlm::rt::test
