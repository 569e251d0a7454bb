//===- tests/executor/ExecBuilders.h - Building executable graphs by hand --===//
//
// Helpers that build TensorFlow-style cond and while structures in an ExecGraph the way lowering
// does, for the executor's unit tests and benchmarks. Constants use the runtime's `const` kernel.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_TESTS_EXECUTOR_EXECBUILDERS_H
#define DLM_TESTS_EXECUTOR_EXECBUILDERS_H

#include "runtime/exec/Executor.h"

#include <functional>
#include <string>
#include <vector>

namespace dlm::rt::test {

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

} // namespace dlm::rt::test

#endif // DLM_TESTS_EXECUTOR_EXECBUILDERS_H
