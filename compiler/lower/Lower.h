//===- compiler/lower/Lower.h - Typed SSA -> dataflow graph ---------------===//
//
// Lowers sema's structured SSA into the graph IR (docs/ir.md "Lowering"):
//   - every SSA op becomes a node; scalars become 0-d tensors and tuples are flattened, so one
//     SSA value may stand for several graph values;
//   - `if` becomes a Switch on every value the branches use and a Merge on every value they
//     define; nodes inside a branch that would otherwise have no input hang from a pivot
//     (Identity of the predicate's own Switch) so they are dead when the branch is not taken;
//   - `while` and `for` become one frame each: Enter -> Merge -> cond -> LoopCond -> Switch ->
//     body -> NextIteration back to the Merge, and Exit on the Switch's false side; values from
//     outside that the loop only reads enter once as constant Enters; nested loops nest frames;
//   - break/continue/return arrive as sema's exit flags, ordinary carried bools;
//   - calls are inlined (recursion is reported as an error);
//   - side-effecting ops (print, save, load, assert, RNG) are ordered by control edges, with an
//     ordering token threaded through branches (Switch/Merge) and loops (a carried value).
// The result is verified before it is returned.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_LOWER_LOWER_H
#define DLM_COMPILER_LOWER_LOWER_H

#include "compiler/ir/Graph.h"
#include "compiler/sema/SSA.h"

#include <optional>

namespace dlm {
class DiagnosticEngine;
namespace autodiff {
class Differentiator;
}
} // namespace dlm

namespace dlm::lower {

struct LowerOptions {
  /// parallel_iterations of every loop frame (TensorFlow's default is 10).
  int64_t parallelIterations = 10;
  /// Where the derivatives of `grad` ops come from: the driver's autodiff stage, which has made
  /// them already (Differentiator::differentiateProgram); null: lowering makes its own.
  autodiff::Differentiator *differentiator = nullptr;
  /// Lower Program::entry instead of main: an entry graph for a host program to call
  /// (docs/embedding.md). Each leaf of its parameters (tuples flattened, scalars as 0-d
  /// tensors) is an `arg{index}` node and each leaf of its result a `retval{index}` node.
  bool entry = false;
};

/// Lowers `program` (its `main`, or its entry with LowerOptions::entry, with every call inlined)
/// into one graph named "main". Reports
/// what cannot be lowered (recursion, `grad` until autodiff handles it) to `diags` and returns
/// nullopt; an invalid result is reported as an internal error.
std::optional<graph::Graph> lowerToGraph(const ssa::Program &program, DiagnosticEngine &diags,
                                         const LowerOptions &options = {});

} // namespace dlm::lower

#endif // DLM_COMPILER_LOWER_LOWER_H
