//===- compiler/autodiff/Autodiff.h - Reverse mode as a transformation ----===//
//
// `grad(f)` and `value_and_grad(f)` are implemented by transforming the program, never by a
// run-time tape (docs/autodiff.md). For a Grad op of sema's structured SSA the Differentiator
// builds one new function with f's parameters: the forward computation of f (calls inlined,
// augmented with trip counters and stack pushes of exactly the loop values the backward reads),
// then the backward computation, then a return of the gradients. Lowering turns that function
// into the dataflow graph like any other (so a backward `if` is a Switch/Merge on the forward
// predicate and a backward loop a frame that pops the stacks). The result is itself an ordinary
// program — stacks are differentiable tensor values — so grad(grad(f)) differentiates it again.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_AUTODIFF_AUTODIFF_H
#define DLM_COMPILER_AUTODIFF_AUTODIFF_H

#include "compiler/sema/SSA.h"

#include <map>
#include <memory>
#include <set>
#include <tuple>

namespace dlm {
class DiagnosticEngine;
}

namespace dlm::autodiff {

class Differentiator {
public:
  explicit Differentiator(DiagnosticEngine &diags);
  ~Differentiator();

  /// The function computing what `gradOp` (an ssa Grad op) returns, taking the callee's
  /// parameters. Null after reporting an error. Results are cached per (callee, argnums,
  /// with_value) and owned by the Differentiator.
  const ssa::Function *derivative(const ssa::Operation &gradOp);

  /// Makes the derivative of every Grad op lowering will meet: those of `main` and of the
  /// functions it calls, in the order lowering reaches them (program order, into each callee at
  /// its first call), so derivatives are made and errors reported as lowering would. Every
  /// error is reported; false when there was one.
  bool differentiateProgram(const ssa::Program &program);

  /// A copy of `f` with every call inlined (checkpointed calls kept, to inlined copies) and
  /// every Grad op replaced by its derivative's body. Owned by the Differentiator; `share`
  /// returns one copy per function for readers that never modify it. Null after an error.
  ssa::Function *flatten(const ssa::Function &f, bool share = false);

  /// Appends a copy of `f`'s body (flattened) to `into` with its parameters bound to `args`
  /// and its ops' chains under `site` (the call being inlined); returns the copy of the
  /// returned value (null after an error or for none).
  ssa::Value *inlineInto(const ssa::Function &f, ssa::Block &into,
                         const std::vector<ssa::Value *> &args, const ssa::InlineSite *site);

  /// The functions made so far, in the order they were made: the derivatives (`grad.f`,
  /// `value_and_grad.f`, then `.1`, `.2` for other argnums of the same function) and the
  /// flattened copies of checkpointed functions they call (`dlmc --emit=grad-ssa` prints them).
  const ssa::Program &program() const { return *store; }
  DiagnosticEngine &diagnostics() { return diags; }
  DimContext &dims() { return store->dims; }
  /// Owns the inlined-call sites of the ops it copies (ssa::Operation::inlinedAt).
  ssa::Program &sites() { return *store; }

private:
  bool differentiateCalls(const ssa::Block &block, std::set<const ssa::Function *> &seen);

  DiagnosticEngine &diags;
  std::unique_ptr<ssa::Program> store;
  std::map<std::tuple<const ssa::Function *, std::vector<int64_t>, bool>, ssa::Function *> cache;
  std::map<const ssa::Function *, ssa::Function *> flatCache;
  bool failed = false;
  friend class Reverse;
};

} // namespace dlm::autodiff

#endif // DLM_COMPILER_AUTODIFF_AUTODIFF_H
