//===- compiler/ir/Ops.cpp - The op table's entries, elementwise and linalg rules ===//
//
// Fills the registry from ops/Ops.def, and holds the type rules of the elementwise ops, the
// reductions and linear algebra with the helpers every rule file shares (OpRules.h). Each rule
// takes operand types and attributes and returns the result type, or fails with a message in
// the style of STYLE.md "Diagnostics". Operands may be numeric scalars (int, float, bool): they
// act as 0-d tensors, and an op whose operands are all scalars gives a scalar.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/OpRules.h"

#include <algorithm>

namespace dlm {
namespace oprules {

//===--- helpers ----------------------------------------------------------===//

Shape shapeOf(const Type &t) { return t.isTensor() ? t.shape() : Shape{}; }

Type scalarOf(DType t) {
  if (isFloat(t))
    return Type::floatTy();
  if (isInteger(t))
    return Type::intTy();
  return Type::boolTy();
}

Type elementwiseResult(const std::vector<Type> &operands, DType dtype, Shape shape) {
  bool anyTensor =
      std::any_of(operands.begin(), operands.end(), [](const Type &t) { return t.isTensor(); });
  return anyTensor ? Type::tensor(dtype, std::move(shape)) : scalarOf(dtype);
}

bool checkNumeric(InferContext &ctx) {
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    const Type &t = ctx.operand(i);
    if (!t.isTensor() && !t.isNumericScalar()) {
      ctx.fail("expected a Tensor or a number, found " + t.str(), int(i));
      return false;
    }
  }
  return true;
}

bool checkTensor(InferContext &ctx, size_t i) {
  if (ctx.operand(i).isTensor())
    return true;
  ctx.fail("expected a Tensor, found " + ctx.operand(i).str(), int(i));
  return false;
}

/// Normalises `axis` against `rank` (negative counts from the end); fails when out of range.
std::optional<int64_t> normAxis(InferContext &ctx, int64_t axis, size_t rank, const Type &t) {
  int64_t r = int64_t(rank);
  if (axis < -r || axis >= r) {
    ctx.fail("axis " + std::to_string(axis) + " is out of range for " + t.str() + " (rank " +
             std::to_string(r) + ")");
    return std::nullopt;
  }
  return axis < 0 ? axis + r : axis;
}

Dim sumDims(const Dim &a, const Dim &b, DimContext &dims) {
  if (a.isStatic() && b.isStatic())
    return Dim::fixed(a.size() + b.size());
  return dims.fresh();
}

/// Broadcasts all operands' shapes; fails with both shapes named.
std::optional<Shape> broadcastAll(InferContext &ctx) {
  Shape out = shapeOf(ctx.operand(0));
  for (size_t i = 1; i < ctx.operands.size(); ++i) {
    auto s = broadcastShapes(out, shapeOf(ctx.operand(i)), ctx.dims);
    if (!s) {
      ctx.fail("cannot broadcast " + ctx.operand(i - 1).str() + " with " + ctx.operand(i).str());
      return std::nullopt;
    }
    out = *s;
  }
  return out;
}

//===--- elementwise ------------------------------------------------------===//

/// add sub mul floordiv mod pow maximum minimum: broadcast, PyTorch promotion.
Type inferArith(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  auto shape = broadcastAll(ctx);
  if (!shape)
    return Type::error();
  return elementwiseResult(ctx.operands, promoteOperands(ctx.operand(0), ctx.operand(1)), *shape);
}

/// div is true division: integer operands give a float.
Type inferDiv(InferContext &ctx) {
  Type t = inferArith(ctx);
  if (t.isError() || isFloat(t.dtype()))
    return t;
  return t.isTensor() ? Type::tensor(DType::F32, t.shape()) : Type::floatTy();
}

Type inferCompare(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  auto shape = broadcastAll(ctx);
  if (!shape)
    return Type::error();
  return elementwiseResult(ctx.operands, DType::Bool, *shape);
}

Type inferLogical(InferContext &ctx) {
  for (size_t i = 0; i < ctx.operands.size(); ++i)
    if (ctx.operand(i).dtype() != DType::Bool ||
        !(ctx.operand(i).isTensor() || ctx.operand(i).kind() == Type::Kind::Bool))
      return ctx.fail("expected bool operands, found " + ctx.operand(i).str(), int(i));
  return inferCompare(ctx);
}

/// neg abs relu: keep the dtype.
Type inferSameUnary(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  return ctx.operand(0);
}

/// exp log sqrt sin cos tanh sigmoid: integer inputs give f32 (float for an int scalar).
Type inferFloatUnary(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  const Type &x = ctx.operand(0);
  if (isFloat(x.dtype()))
    return x;
  return x.isTensor() ? Type::tensor(DType::F32, x.shape()) : Type::floatTy();
}

Type inferWhere(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  if (ctx.operand(0).dtype() != DType::Bool)
    return ctx.fail("where: condition must be bool, found " + ctx.operand(0).str(), 0);
  auto shape = broadcastAll(ctx);
  if (!shape)
    return Type::error();
  return elementwiseResult(ctx.operands, promoteOperands(ctx.operand(1), ctx.operand(2)), *shape);
}

Type inferClip(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  for (size_t i = 1; i < 3; ++i)
    if (ctx.operand(i).isTensor() && ctx.operand(i).rank() != 0)
      return ctx.fail("clip: bounds must be scalars, found " + ctx.operand(i).str(), int(i));
  return ctx.operand(0);
}

Type inferCast(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  DType to = ctx.dtypeAttr("dtype");
  const Type &x = ctx.operand(0);
  return x.isTensor() ? Type::tensor(to, x.shape()) : scalarOf(to);
}

//===--- reductions -------------------------------------------------------===//

namespace {

/// The shape left after reducing `axes` (empty = all) of `x`, or nullopt on a bad axis.
std::optional<Shape> reducedShape(InferContext &ctx, const Type &x,
                                  const std::vector<int64_t> &axes, bool keepdims) {
  Shape in = shapeOf(x);
  std::vector<bool> reduce(in.size(), axes.empty());
  for (int64_t a : axes) {
    auto n = normAxis(ctx, a, in.size(), x);
    if (!n)
      return std::nullopt;
    reduce[*n] = true;
  }
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!reduce[i])
      out.push_back(in[i]);
    else if (keepdims)
      out.push_back(Dim::fixed(1));
  }
  return out;
}

Type reduceWith(InferContext &ctx, DType (*dtypeOf)(DType)) {
  if (!checkNumeric(ctx))
    return Type::error();
  static const std::vector<int64_t> none;
  const std::vector<int64_t> *axes = ctx.intsAttr("axes");
  auto shape = reducedShape(ctx, ctx.operand(0), axes ? *axes : none, ctx.boolAttr("keepdims"));
  if (!shape)
    return Type::error();
  return Type::tensor(dtypeOf(ctx.operand(0).dtype()), *shape);
}

} // namespace

/// sum: integers and bools accumulate in i64 (PyTorch).
Type inferSum(InferContext &ctx) {
  return reduceWith(ctx, [](DType t) { return isFloat(t) ? t : DType::I64; });
}
/// max min: same dtype.
Type inferMaxMin(InferContext &ctx) {
  return reduceWith(ctx, [](DType t) { return t; });
}
/// mean logsumexp norm: a float result.
Type inferFloatReduce(InferContext &ctx) {
  return reduceWith(ctx, [](DType t) { return isFloat(t) ? t : DType::F32; });
}

Type inferArgmax(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  std::vector<int64_t> axes;
  if (ctx.attrs.count("axis"))
    axes.push_back(ctx.intAttr("axis"));
  auto shape = reducedShape(ctx, ctx.operand(0), axes, ctx.boolAttr("keepdims"));
  if (!shape)
    return Type::error();
  return Type::tensor(DType::I64, *shape);
}

//===--- linear algebra ---------------------------------------------------===//

Type inferMatmul(InferContext &ctx) {
  if (!checkTensor(ctx, 0) || !checkTensor(ctx, 1))
    return Type::error();
  const Type &a = ctx.operand(0), &b = ctx.operand(1);
  for (size_t i = 0; i < 2; ++i)
    if (ctx.operand(i).rank() == 0)
      return ctx.fail("matmul: operand must have at least one dimension, found " +
                          ctx.operand(i).str(),
                      int(i));
  Shape sa = a.shape(), sb = b.shape();
  bool vecA = sa.size() == 1, vecB = sb.size() == 1;
  if (vecA)
    sa.insert(sa.begin(), Dim::fixed(1));
  if (vecB)
    sb.push_back(Dim::fixed(1));
  const Dim &k1 = sa.back(), &k2 = sb[sb.size() - 2];
  if (k1.isStatic() && k2.isStatic() && k1 != k2)
    return ctx.fail("matmul: " + k1.str() + " columns on the left vs " + k2.str() +
                    " rows on the right (" + a.str() + " @ " + b.str() + ")");
  if (k1.isSymbolic() && k2.isSymbolic() && k1 != k2 && !k1.isFresh() && !k2.isFresh())
    return ctx.fail("matmul: " + k1.str() + " columns on the left vs " + k2.str() +
                    " rows on the right (" + a.str() + " @ " + b.str() + ")");
  Shape batchA(sa.begin(), sa.end() - 2), batchB(sb.begin(), sb.end() - 2);
  auto batch = broadcastShapes(batchA, batchB, ctx.dims);
  if (!batch)
    return ctx.fail("matmul: cannot broadcast batch dims of " + a.str() + " with " + b.str());
  Shape out = *batch;
  if (!vecA)
    out.push_back(sa[sa.size() - 2]);
  if (!vecB)
    out.push_back(sb.back());
  return Type::tensor(promoteDTypes(a.dtype(), b.dtype()), out);
}

Type withBias(InferContext &ctx, const Type &product, const char *op) {
  if (product.isError())
    return product;
  const Type &bias = ctx.operand(2);
  if (!bias.isTensor() || bias.dtype() != product.dtype() || !isFloat(product.dtype()))
    return ctx.fail(std::string(op) +
                        ": the bias must be a tensor of the product's float dtype, found " +
                        bias.str() + " for " + product.str(),
                    2);
  auto shape = broadcastShapes(product.shape(), bias.shape(), ctx.dims);
  if (!shape || shape->size() != product.shape().size())
    return ctx.fail(std::string(op) + ": cannot add " + bias.str() + " to " + product.str(), 2);
  return product;
}

/// matmul_bias(a, b, bias) {relu}
Type inferMatmulBias(InferContext &ctx) { return withBias(ctx, inferMatmul(ctx), "matmul_bias"); }

Type inferDot(InferContext &ctx) {
  if (!checkTensor(ctx, 0) || !checkTensor(ctx, 1))
    return Type::error();
  const Type &a = ctx.operand(0), &b = ctx.operand(1);
  for (size_t i = 0; i < 2; ++i)
    if (ctx.operand(i).rank() != 1)
      return ctx.fail("dot: expected a 1-d tensor, found " + ctx.operand(i).str(), int(i));
  if (a.shape()[0].isStatic() && b.shape()[0].isStatic() && a.shape()[0] != b.shape()[0])
    return ctx.fail("dot: length " + a.shape()[0].str() + " on the left vs " + b.shape()[0].str() +
                    " on the right");
  return Type::tensor(promoteDTypes(a.dtype(), b.dtype()), {});
}

} // namespace oprules

void fillOpEntries(std::vector<OpInfo> &entries) {
  using namespace opflag;
  using namespace oprules;
#define DLM_EXPAND(...) __VA_ARGS__
#define ATTR(Name, Kind)                                                                           \
  AttrSpec { #Name, AttrKind::Kind }
#define DLM_OP(Kind, Name, Operands, Attrs, Rule, Flags)                                           \
  {                                                                                                \
    OpInfo &info = entries[size_t(OpKind::Kind)];                                                  \
    info.kind = OpKind::Kind;                                                                      \
    info.name = Name;                                                                              \
    info.flags = Flags;                                                                            \
    info.operands = {DLM_EXPAND Operands};                                                         \
    info.attrs = {DLM_EXPAND Attrs};                                                               \
    info.infer = infer##Rule;                                                                      \
  }
#include "ops/Ops.def"
#undef ATTR
#undef DLM_EXPAND
  for (OpInfo &info : entries) {
    info.variadic = info.has(Variadic);
    info.differentiable = !info.has(NotDifferentiable);
    info.cost = info.has(Expensive) ? CostClass::Expensive : CostClass::Cheap;
    info.elementwise = info.has(Elementwise);
    info.sideEffects = info.has(SideEffects);
  }
}

} // namespace dlm
