//===- compiler/codegen/ElementCode.h - Elementwise ops as scalar LLVM IR --===//
//
// Internal to compiler/codegen. The elementwise part of code generation, independent of the
// graph walk in Emitter.cpp:
//   - `op`: one elementwise registry op on one element per operand, with exactly the CPU
//     kernels' semantics (kernels/cpu/Elementwise.cpp: operands converted to the result dtype,
//     NaN-propagating maximum/minimum, f32 exp/tanh/sigmoid transcribed from
//     kernels/cpu/FastMath.h operation for operation, FMA contraction included, and the ops
//     ops/Ops.def writes DLM_SCALAR_OP as calls of the kernels' own scalar functions
//     (runtime/ScalarOps.h), so results are bitwise the kernels');
//   - `body`: an expression (a `fused` node's body, or one op) evaluated on scalars;
//   - `loopFunction`: the loop nest that evaluates a body once per element of a broadcast
//     output, written so LLVM's loop vectoriser widens its innermost loop for the host.
// docs/codegen.md "Elementwise code" describes the loop nest and what falls back to kernels.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_CODEGEN_ELEMENTCODE_H
#define DLM_COMPILER_CODEGEN_ELEMENTCODE_H

#include "compiler/ir/FusedOp.h"
#include "ops/OpKind.h"
#include "runtime/DType.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

#include <string>
#include <vector>

namespace dlm::codegen {

/// An elementwise expression: statements over numbered inputs (FusedOp.h's syntax).
using ElementBody = std::vector<FusedStatement>;

/// One operand of a loop function: a tensor (its data pointer) or a scalar (its value).
struct LoopOperand {
  DType dtype = DType::F32;
  bool tensor = false;
  /// Tensors: per loop dimension, whether the operand runs along it (else it is broadcast:
  /// stride 0). The operand is dense; its strides follow from the extents it runs along.
  std::vector<bool> full;
};

class ElementCode {
public:
  /// Emits with `b` (whose insert point the caller owns) into module `m`.
  ElementCode(llvm::IRBuilder<> &b, llvm::Module &m) : b(b), m(m) {}
  ~ElementCode();
  ElementCode(const ElementCode &) = delete;
  ElementCode &operator=(const ElementCode &) = delete;

  llvm::Type *scalarType(DType t);
  /// How an element sits in memory (bool as i8).
  llvm::Type *memoryType(DType t);

  /// Converts a scalar like the runtime's casts (static_cast); null for float -> int, whose
  /// out-of-range behaviour is left to the kernel.
  llvm::Value *convert(llvm::Value *v, DType from, DType to);

  /// `op` with result dtype `dt` on one element per operand (`args`, of dtypes `types`), or
  /// null when codegen leaves the op to its kernel.
  llvm::Value *op(OpKind op, DType dt, llvm::ArrayRef<llvm::Value *> args,
                  llvm::ArrayRef<DType> types);

  /// Evaluates `body` on the inputs `args` (of dtypes `types`); null when a statement is not
  /// supported (see op).
  llvm::Value *body(const ElementBody &body, llvm::ArrayRef<llvm::Value *> args,
                    llvm::ArrayRef<DType> types);

  /// Whether `body` can be evaluated on inputs of dtypes `types` (tried in a scratch function).
  bool supports(const ElementBody &body, llvm::ArrayRef<DType> types);

  /// An internal function `void NAME(ptr out, i64 extent_0 .. extent_{L-1}, operands...)`
  /// (L = numDims; a tensor operand is its dense data pointer, a scalar its value) that
  /// stores body(operands at the element) into the dense output for every element of the
  /// extents. The innermost loop carries llvm.loop.parallel_accesses (iterations touch
  /// disjoint output elements; an operand updated in place is read before the same element is
  /// written), so it vectorises even when the output is an operand's buffer.
  llvm::Function *loopFunction(const std::string &name, const ElementBody &body,
                               const std::vector<LoopOperand> &operands, size_t numDims);

private:
  llvm::Value *mulAdd(llvm::Value *a, llvm::Value *x, llvm::Value *c);
  llvm::Value *fastExpF32(llvm::Value *x);
  llvm::Value *fastTanhF32(llvm::Value *x);
  llvm::Value *fastSigmoidF32(llvm::Value *x);
  llvm::Value *libm(const char *f32Name, const char *f64Name, DType dt, llvm::Value *x);
  llvm::Value *scalarCall(OpKind kind, DType dt, llvm::Value *x, DType from);
  llvm::Value *unary(OpKind op, DType dt, llvm::Value *x);
  llvm::Value *compare(OpKind op, DType t, llvm::Value *x, llvm::Value *y);
  llvm::Value *minMax(bool max, DType dt, llvm::Value *x, llvm::Value *y);
  llvm::Constant *f32(float v);
  llvm::Constant *fp(DType dt, double v);

  llvm::IRBuilder<> &b;
  llvm::Module &m;
  llvm::Function *scratch = nullptr; ///< where `supports` tries bodies
};

} // namespace dlm::codegen

#endif // DLM_COMPILER_CODEGEN_ELEMENTCODE_H
