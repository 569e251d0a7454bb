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
// declares. Comparisons compute in the wider dtype of their operands in the kernels and in the
// JIT's inline code (which sees dtypes only, not ranks). widerDType is the lattice itself, for
// everything that promotes two dtypes without ranks (the IR's promoteDTypes, the kernels of
// matmul, concat and the gradient ops, the JIT's comparisons): there is no other copy of it.
//
// Where the graph's reading would compute in another dtype than PyTorch's rule on the true
// operands — a genuine 0-d f64/i64/bool *tensor* meeting a 0-d operand or a scalar, and any
// comparison whose operands' dtypes differ from the dtype PyTorch compares in, such as
// `f32[] <= 0.1` — lowering casts the operands to PyTorch's dtype first (explicitComputeDType
// below), so every engine computes what PyTorch does.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_PROMOTION_H
#define DLM_RUNTIME_PROMOTION_H

#include "runtime/DType.h"

#include <optional>
#include <string_view>

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
  if (ca != cb)
    return ca > cb ? a : b;
  return dtypeSize(a) >= dtypeSize(b) ? a : b;
}

/// How the kernels rank a run-time operand of `rank` dims (see the file comment).
constexpr OperandRank runtimeOperandRank(DType dtype, int64_t rank) {
  if (rank > 0)
    return OperandRank::Dimensioned;
  bool scalarDType = dtype == DType::F64 || dtype == DType::I64 || dtype == DType::Bool;
  return scalarDType ? OperandRank::Scalar : OperandRank::ZeroDim;
}

/// The dtype an elementwise op on `a` and `b` computes in.
constexpr DType promoteElementwise(PromotionOperand a, PromotionOperand b) {
  if (a.rank == OperandRank::Scalar && b.rank == OperandRank::Scalar)
    return widerDType(a.dtype, b.dtype);
  int ca = dtypeCategory(a.dtype), cb = dtypeCategory(b.dtype);
  if (ca != cb) {
    const PromotionOperand &high = ca > cb ? a : b;
    if (high.rank != OperandRank::Scalar)
      return high.dtype;
    return dtypeCategory(high.dtype) == 2 ? DType::F32 : DType::I64; // the category's default
  }
  if (a.rank != b.rank)
    return (a.rank > b.rank ? a : b).dtype;
  return widerDType(a.dtype, b.dtype);
}

/// How an elementwise op's compute dtype follows from its operands' promotion.
enum class ElementwiseKind : uint8_t { Arithmetic, TrueDivision, Comparison };

/// The promoting elementwise ops (their two promoted operands are the first two, or the last
/// two of `where`).
constexpr std::optional<ElementwiseKind> elementwiseKind(std::string_view op) {
  for (std::string_view a :
       {"add", "sub", "mul", "floordiv", "mod", "pow", "maximum", "minimum", "where"})
    if (op == a)
      return ElementwiseKind::Arithmetic;
  for (std::string_view c : {"eq", "ne", "lt", "le", "gt", "ge"})
    if (op == c)
      return ElementwiseKind::Comparison;
  if (op == "div")
    return ElementwiseKind::TrueDivision;
  return std::nullopt;
}

/// The dtype PyTorch computes an op of `kind` in: true division of integers gives the default
/// float (f64 for two Python numbers, as Python's `/`).
constexpr DType computeDType(ElementwiseKind kind, PromotionOperand a, PromotionOperand b) {
  DType d = promoteElementwise(a, b);
  if (kind != ElementwiseKind::TrueDivision || isFloat(d))
    return d;
  bool scalars = a.rank == OperandRank::Scalar && b.rank == OperandRank::Scalar;
  return scalars ? DType::F64 : DType::F32;
}

/// The dtype the kernels and the JIT compute an op of `kind` in from its graph operands (of
/// `rank` dims; see the file comment).
constexpr DType graphComputeDType(ElementwiseKind kind, DType a, int64_t rankA, DType b,
                                  int64_t rankB) {
  if (kind == ElementwiseKind::Comparison)
    return widerDType(a, b);
  return computeDType(kind, {a, runtimeOperandRank(a, rankA)}, {b, runtimeOperandRank(b, rankB)});
}

/// For promoting op `op` on two operands as the language types them (rank -1: a Python
/// scalar, which lowers to a 0-d tensor): the dtype to cast both to so that the graph computes
/// in PyTorch's dtype, or nullopt when it already does.
constexpr std::optional<DType> explicitComputeDType(std::string_view op, DType a, int64_t rankA,
                                                    DType b, int64_t rankB) {
  std::optional<ElementwiseKind> kind = elementwiseKind(op);
  if (!kind)
    return std::nullopt;
  auto operand = [](DType t, int64_t rank) {
    OperandRank r = rank < 0    ? OperandRank::Scalar
                    : rank == 0 ? OperandRank::ZeroDim
                                : OperandRank::Dimensioned;
    return PromotionOperand{t, r};
  };
  DType want = computeDType(*kind, operand(a, rankA), operand(b, rankB));
  DType got = graphComputeDType(*kind, a, rankA < 0 ? 0 : rankA, b, rankB < 0 ? 0 : rankB);
  if (want == got || want == DType::Bool)
    return std::nullopt;
  return want;
}

} // namespace dlm

#endif // DLM_RUNTIME_PROMOTION_H
