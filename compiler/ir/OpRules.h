//===- compiler/ir/OpRules.h - The type rules of the op table -------------===//
//
// Internal to compiler/ir. Each row of ops/Ops.def names its dtype and shape rule, `infer<Rule>`
// below; the rules of a family of ops live together (Ops.cpp: elementwise, reductions, linear
// algebra; ShapeOps.cpp; NNOps.cpp: nn, creation, effects, backward helpers; GraphOps.cpp:
// control flow, autodiff's and the optimizer's ops), with the helpers they share declared here.
// A rule a row names but no file defines fails the link.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_IR_OPRULES_H
#define DLM_IR_OPRULES_H

#include "compiler/ir/OpRegistry.h"

#include <optional>
#include <vector>

namespace dlm {

/// Fills `entries` (indexed by OpKind) from ops/Ops.def (Ops.cpp).
void fillOpEntries(std::vector<OpInfo> &entries);

namespace oprules {

#define DLM_OP(Kind, Name, Operands, Attrs, Rule, Flags) Type infer##Rule(InferContext &ctx);
#include "ops/Ops.def"

/// The shape of a tensor type; [] for a scalar.
Shape shapeOf(const Type &t);
/// The language scalar type of a dtype's category (float, int, bool).
Type scalarOf(DType t);
/// The type of an elementwise result: a scalar when every operand is one, else a tensor.
Type elementwiseResult(const std::vector<Type> &operands, DType dtype, Shape shape);
/// Fails unless every operand is a tensor or a numeric scalar.
bool checkNumeric(InferContext &ctx);
/// Fails unless operand `i` is a tensor.
bool checkTensor(InferContext &ctx, size_t i);
/// Normalises `axis` against `rank` (negative counts from the end); fails when out of range.
std::optional<int64_t> normAxis(InferContext &ctx, int64_t axis, size_t rank, const Type &t);
/// a + b when both are static, else a fresh dim.
Dim sumDims(const Dim &a, const Dim &b, DimContext &dims);
/// Broadcasts all operands' shapes; fails with both shapes named.
std::optional<Shape> broadcastAll(InferContext &ctx);
/// The optimizer's fused library ops (docs/opt.md), `op(..., bias)`: operand 2 must have the
/// float dtype of `product` (the unfused op's result) and broadcast to its shape without growing
/// it.
Type withBias(InferContext &ctx, const Type &product, const char *op);

} // namespace oprules
} // namespace dlm

#endif // DLM_IR_OPRULES_H
