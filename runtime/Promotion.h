//===- runtime/Promotion.h - Elementwise dtype promotion, one rule for both sides ===//
//
// PyTorch's rule (LANGUAGE.md "Dtype promotion"): the operands of an elementwise op rank as
// dimensioned tensors > 0-d tensors > language scalars. The result's category (bool < int <
// float) is the highest among the operands; its dtype comes from the highest-ranked operands of
// that category, promoted among themselves — or, when only a scalar has that category, from the
// category's default (f32, i64). So `f32[3] * 1.5`, `f32[] * 1.5` and `f32[3] * f64[]` are f32,
// `i32[] + 2` is i32, `i32[2] * f64[]` is f64, and two scalars promote as Python does.
//
// The compiler ranks operands by their types (sema: compiler/ir/Type.cpp promoteOperands); the
// kernels (kernels/cpu/CpuKernels.cpp resultType) see only tensors, and rank a 0-d i64, f64 or
// bool as the language scalar it was lowered from (docs/ir.md) and a 0-d f32 or i32 as a 0-d
// tensor. Both call this one function, so the engines agree with the types the compiler
// declares; the one case they cannot agree on is a genuine 0-d f64/i64/bool *tensor* meeting
// another 0-d operand, which the kernels read as a scalar (docs/runtime.md).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_PROMOTION_H
#define DLM_RUNTIME_PROMOTION_H

#include "runtime/DType.h"

namespace dlm {

enum class OperandRank : uint8_t { Scalar, ZeroDim, Dimensioned };

/// One operand as promotion sees it.
struct PromotionOperand {
  DType dtype;
  OperandRank rank;
};

/// 0 bool, 1 integer, 2 float.
constexpr int dtypeCategory(DType t) { return isFloat(t) ? 2 : isInteger(t) ? 1 : 0; }

/// The wider of two dtypes in PyTorch's lattice bool < i32 < i64 < f32 < f64.
constexpr DType widerDType(DType a, DType b) {
  int ca = dtypeCategory(a), cb = dtypeCategory(b);
  if (ca != cb) return ca > cb ? a : b;
  return dtypeSize(a) >= dtypeSize(b) ? a : b;
}

/// How the kernels rank a run-time operand of `rank` dims (see the file comment).
constexpr OperandRank runtimeOperandRank(DType dtype, int64_t rank) {
  if (rank > 0) return OperandRank::Dimensioned;
  bool scalarDType = dtype == DType::F64 || dtype == DType::I64 || dtype == DType::Bool;
  return scalarDType ? OperandRank::Scalar : OperandRank::ZeroDim;
}

/// The dtype an elementwise op on `a` and `b` computes in.
constexpr DType promoteElementwise(PromotionOperand a, PromotionOperand b) {
  if (a.rank == OperandRank::Scalar && b.rank == OperandRank::Scalar) return widerDType(a.dtype, b.dtype);
  int ca = dtypeCategory(a.dtype), cb = dtypeCategory(b.dtype);
  if (ca != cb) {
    const PromotionOperand &high = ca > cb ? a : b;
    if (high.rank != OperandRank::Scalar) return high.dtype;
    return dtypeCategory(high.dtype) == 2 ? DType::F32 : DType::I64; // the category's default
  }
  if (a.rank != b.rank) return (a.rank > b.rank ? a : b).dtype;
  return widerDType(a.dtype, b.dtype);
}

} // namespace dlm

#endif // DLM_RUNTIME_PROMOTION_H
