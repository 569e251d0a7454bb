//===- tests/executor/TestKernels.h - Test-hook kernels for executor tests ---===//
//
// Test-only kernels, registered in the runtime's one kernel table under names no program can
// spell ("test_..."). Each is a test hook: a call counter, a failure
// trigger, a barrier two branches must both reach (observable concurrency, not timing), and a
// counting allocator for memory bounds.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_TESTS_EXECUTOR_TESTKERNELS_H
#define DLM_TESTS_EXECUTOR_TESTKERNELS_H

#include "tests/executor/ExecBuilders.h"

#include <atomic>
#include <string>
#include <vector>

namespace dlm::rt::test {

/// Registers the test kernels (idempotent):
///   test_fill {n: int, value: float}      -> a new f32[n] filled with value
///   test_count(x) {slot: int}             -> x, and counts the call in callCount(slot)
///   test_fail_if(x) {value: int}          -> x, or an error "reached <value>" when x == value
///   test_barrier(x) {timeout_ms: int}     -> x once two calls are inside the barrier; an error
///                                            when the partner does not arrive in time
void registerTestKernels();
int64_t callCount(int slot);
void resetCallCounts();

/// Allocator that counts the live bytes of CPU buffers; installed for its lifetime.
class CountingAllocator final : public Allocator {
public:
  CountingAllocator();
  ~CountingAllocator() override;
  void *allocate(size_t bytes) override;
  void deallocate(void *ptr, size_t bytes) override;
  Device device() const override { return Device::CPU; }
  int64_t liveBytes() const { return live.load(); }
  int64_t peakBytes() const { return peak.load(); }

private:
  Allocator *inner;
  std::atomic<int64_t> live{0}, peak{0};
};

/// The i64 value of a fetched scalar.
int64_t scalarOf(const Value &v);

} // namespace dlm::rt::test

#endif // DLM_TESTS_EXECUTOR_TESTKERNELS_H
