//===- tests/executor/TestKernels.h - Kernels and builders for executor tests ===//
//
// Test-only kernels, registered in the runtime's one kernel table under names no program can
// spell ("test_..."), and helpers that build TensorFlow-style cond and while structures in an
// ExecGraph the way lowering does. Each kernel is a test hook: a call counter, a failure
// trigger, a barrier two branches must both reach (observable concurrency, not timing), and a
// counting allocator for memory bounds.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_TESTS_EXECUTOR_TESTKERNELS_H
#define DLM_TESTS_EXECUTOR_TESTKERNELS_H

#include "runtime/exec/Executor.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace dlm::rt::test {

/// Registers the test kernels (idempotent):
///   test_const {value: Tensor}            -> value (shares the attribute's buffer)
///   test_fill(x) {n: int, value: float}   -> a new f32[n] filled with value (x only orders it)
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

// --- Graph building -----------------------------------------------------------------------
ExecPort out(ExecNodeId node, int32_t port = 0);
/// A 0-d i64 constant in `frame`; `after` (if >= 0) becomes its control input (the pivot).
ExecNodeId constI64(ExecGraph &g, int64_t v, ExecFrameId frame = 0, ExecNodeId after = -1);
ExecNodeId constBool(ExecGraph &g, bool v, ExecFrameId frame = 0, ExecNodeId after = -1);
/// A kernel node `op(inputs)` in `frame`.
ExecNodeId op(ExecGraph &g, const std::string &name, std::vector<ExecPort> inputs,
              ExecFrameId frame = 0, Attrs attrs = {});

/// What a loop body sees: the frame, the loop variables (after the Switch's true side) and the
/// pivot node that constants inside the body hang from.
struct LoopBody {
  ExecFrameId frame;
  std::vector<ExecPort> vars;
  ExecNodeId pivot;
};
using CondFn = std::function<ExecPort(ExecGraph &, ExecFrameId, const std::vector<ExecPort> &,
                                      ExecNodeId pivot)>;
using BodyFn = std::function<std::vector<ExecPort>(ExecGraph &, const LoopBody &)>;

/// Builds `while cond(vars): vars = body(vars)` like lowering does: Enter -> Merge -> cond ->
/// LoopCond -> Switch -> (Exit | Identity -> body -> NextIteration -> Merge). `inits` live in
/// `parent`; returns the Exit outputs (in `parent`).
std::vector<ExecPort> buildWhile(ExecGraph &g, ExecFrameId parent, const std::string &name,
                                 int32_t parallelIterations, const std::vector<ExecPort> &inits,
                                 const CondFn &cond, const BodyFn &body);

/// `for i in range(n)`-style loop over `inits` with i counting 0..n-1; `body` gets i as vars[0]
/// and returns the new values of the other variables. Returns the final other variables. The
/// counter's initial constant hangs from `initAfter` when given (a branch or body pivot).
std::vector<ExecPort> buildCountedLoop(ExecGraph &g, ExecFrameId parent, const std::string &name,
                                       int32_t parallelIterations, int64_t n,
                                       const std::vector<ExecPort> &inits, const BodyFn &body,
                                       ExecNodeId initAfter = -1);

/// The i64 value of a fetched scalar.
int64_t scalarOf(const Value &v);

} // namespace dlm::rt::test

#endif // DLM_TESTS_EXECUTOR_TESTKERNELS_H
