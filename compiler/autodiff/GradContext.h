//===- compiler/autodiff/GradContext.h - What a gradient rule sees ---------===//
//
// A gradient rule (one per differentiable op, GradRules.cpp) is a small function that builds
// the backward of one forward op: it reads the op's primal operands and results and the
// adjoints of its results, emits ops, and gives each differentiable operand its gradient. The
// context hides where values live: a primal value saved on a loop stack or exported out of a
// branch reads back through x()/y() like any other, and give() reduces a broadcast gradient to
// the operand's type and accumulates it. Every op a rule emits carries the forward op's
// location (so a failing gradient op points at the source it came from).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_AUTODIFF_GRADCONTEXT_H
#define DLM_COMPILER_AUTODIFF_GRADCONTEXT_H

#include "compiler/ir/OpRegistry.h"
#include "compiler/sema/SSA.h"

#include <optional>
#include <string>
#include <vector>

namespace dlm {

namespace autodiff {
class Reverse;
struct Level;
} // namespace autodiff

struct GradContext {
  GradContext(autodiff::Reverse &reverse, autodiff::Level &level, const ssa::Operation &op)
      : reverse(reverse), level(level), op(op) {}

  /// Primal operand `i` / result `i`, readable where the backward runs.
  ssa::Value *x(size_t i);
  ssa::Value *y(size_t i = 0);
  /// Adjoint of result `i` (zeros when that result has none).
  ssa::Value *g(size_t i = 0);
  size_t numOperands() const { return op.operands.size(); }
  /// True when operand `i` is active (a float value on a path to the output).
  bool needs(size_t i) const;
  /// Adds `grad` to operand i's adjoint, summed down to the operand's type first.
  void give(size_t i, ssa::Value *grad);

  /// Emits a registry op at the forward op's location; the result type comes from its rule.
  ssa::Value *emit(OpKind kind, std::vector<ssa::Value *> operands, Attrs attrs = {});
  /// Same, with the result type given (the type rule still has to agree in the graph).
  ssa::Value *emitTyped(OpKind kind, std::vector<ssa::Value *> operands, Attrs attrs, Type type);
  /// A float constant to combine with `like`: a 0-d tensor of like's dtype when like is a
  /// float tensor (so f32 stays f32 even against a 0-d tensor), else a `float`.
  ssa::Value *num(double v, ssa::Value *like);
  /// An int constant.
  ssa::Value *intConst(int64_t v);
  /// Run-time size of dim `axis` of `v` (a constant when static).
  ssa::Value *dimSize(ssa::Value *v, size_t axis);
  /// Reports that this op's gradient cannot be built (e.g. a run-time sized dim it needs
  /// statically); the differentiation fails.
  void unsupported(const std::string &why);

  const Attrs &attrs() const { return op.attrs; }
  const ssa::Operation &forwardOp() const { return op; }

  autodiff::Reverse &reverse;
  autodiff::Level &level;
  const ssa::Operation &op;
};

namespace autodiff {
/// Fills the registry's gradient slots (idempotent; Differentiator's constructor calls it).
void registerGradRules();
} // namespace autodiff

} // namespace dlm

#endif // DLM_COMPILER_AUTODIFF_GRADCONTEXT_H
