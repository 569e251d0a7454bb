//===- compiler/ir/Ops.cpp - The entries of the op registry ----------------===//
//
// One entry per op of docs/ops.md with its operands, attributes and dtype/shape rule. Rules are
// grouped by family (elementwise, reductions, shape, nn, creation, ...); each takes operand types
// and attributes and returns the result type, or fails with a message in the style of
// STYLE.md "Diagnostics". Operands may be numeric scalars (int, float, bool): they act as 0-d
// tensors, and an op whose operands are all scalars gives a scalar.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/OpRegistry.h"

#include <algorithm>
#include <numeric>

namespace dlm {
namespace {

//===--- helpers ----------------------------------------------------------===//

Shape shapeOf(const Type &t) { return t.isTensor() ? t.shape() : Shape{}; }

Type scalarOf(DType t) {
  if (isFloat(t))
    return Type::floatTy();
  if (isInteger(t))
    return Type::intTy();
  return Type::boolTy();
}

/// The type of an elementwise result: a scalar when every operand is one, else a tensor.
Type elementwiseResult(const std::vector<Type> &operands, DType dtype, Shape shape) {
  bool anyTensor =
      std::any_of(operands.begin(), operands.end(), [](const Type &t) { return t.isTensor(); });
  return anyTensor ? Type::tensor(dtype, std::move(shape)) : scalarOf(dtype);
}

/// Fails unless every operand is a tensor or a numeric scalar.
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

/// Fails unless operand `i` is a tensor.
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

/// The optimizer's fused library ops (docs/opt.md), `op(..., bias)`: operand 2 must have the
/// float dtype of `product` (the unfused op's result) and broadcast to its shape without growing
/// it.
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

//===--- shape ops --------------------------------------------------------===//

Type inferReshape(InferContext &ctx) {
  if (!checkTensor(ctx, 0))
    return Type::error();
  const Type &x = ctx.operand(0);
  Shape target = *ctx.shapeAttr("shape");
  int inferAt = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (!isInferDim(target[i]))
      continue;
    if (inferAt >= 0)
      return ctx.fail("reshape: only one dimension can be -1");
    inferAt = int(i);
  }
  // Cancel symbols that appear on both sides, then compare the static products.
  Shape in = x.shape(), rest;
  for (size_t i = 0; i < target.size(); ++i) {
    if (int(i) == inferAt)
      continue;
    auto it = std::find(in.begin(), in.end(), target[i]);
    if (target[i].isSymbolic() && it != in.end())
      in.erase(it);
    else
      rest.push_back(target[i]);
  }
  auto pin = staticProduct(in), prest = staticProduct(rest);
  std::string desc =
      x.str() + " (" +
      (x.staticNumElements() ? std::to_string(*x.staticNumElements()) : std::string("?")) +
      " elements)";
  if (inferAt >= 0) {
    if (pin && prest) {
      if (*prest == 0 || *pin % *prest != 0)
        return ctx.fail("cannot reshape " + desc + " to " + shapeStr(target) + ": " +
                        std::to_string(*pin) + " is not a multiple of " + std::to_string(*prest));
      target[inferAt] = Dim::fixed(*pin / *prest);
    } else {
      // One run-time dim left over whose static companions match the target's exactly
      // ([B, 28, 28] -> [-1, 784]): the -1 is that dim.
      Shape syms, statics;
      for (const Dim &d : in)
        (d.isStatic() ? statics : syms).push_back(d);
      bool same = syms.size() == 1 && prest && staticProduct(statics) == *prest;
      target[inferAt] = same ? syms[0] : ctx.dims.fresh();
    }
  } else if (pin && prest && *pin != *prest) {
    return ctx.fail("cannot reshape " + desc + " to " + shapeStr(target) + " (" +
                    std::to_string(*staticProduct(target)) + " elements)");
  }
  return Type::tensor(x.dtype(), target);
}

Type inferTranspose(InferContext &ctx) {
  if (!checkTensor(ctx, 0))
    return Type::error();
  const Type &x = ctx.operand(0);
  std::vector<int64_t> perm;
  if (const auto *p = ctx.intsAttr("perm"); p && !p->empty())
    perm = *p;
  else
    for (size_t i = x.rank(); i-- > 0;)
      perm.push_back(int64_t(i));
  if (perm.size() != x.rank())
    return ctx.fail("transpose: " + std::to_string(perm.size()) + " axes given for " + x.str() +
                    " (rank " + std::to_string(x.rank()) + ")");
  Shape out;
  std::vector<bool> seen(x.rank(), false);
  for (int64_t a : perm) {
    auto n = normAxis(ctx, a, x.rank(), x);
    if (!n)
      return Type::error();
    if (seen[*n])
      return ctx.fail("transpose: axis " + std::to_string(a) + " appears twice");
    seen[*n] = true;
    out.push_back(x.shape()[*n]);
  }
  return Type::tensor(x.dtype(), out);
}

/// concat and stack: at least one operand, all tensors.
bool checkTensorList(InferContext &ctx, const char *op) {
  if (ctx.operands.empty()) {
    ctx.fail(std::string(op) + ": needs at least one tensor");
    return false;
  }
  for (size_t i = 0; i < ctx.operands.size(); ++i)
    if (!checkTensor(ctx, i))
      return false;
  return true;
}

Type inferConcat(InferContext &ctx) {
  if (!checkTensorList(ctx, "concat"))
    return Type::error();
  const Type &first = ctx.operand(0);
  auto axis = normAxis(ctx, ctx.intAttr("axis"), first.rank(), first);
  if (!axis)
    return Type::error();
  Shape out = first.shape();
  DType dtype = first.dtype();
  for (size_t i = 1; i < ctx.operands.size(); ++i) {
    const Type &t = ctx.operand(i);
    if (t.rank() != first.rank())
      return ctx.fail("concat: rank of " + t.str() + " does not match " + first.str(), int(i));
    for (size_t d = 0; d < out.size(); ++d) {
      if (int64_t(d) == *axis)
        continue;
      const Dim &a = out[d], &b = t.shape()[d];
      if (a.isStatic() && b.isStatic() && a != b)
        return ctx.fail("concat: dim " + std::to_string(d) + " of " + t.str() + " does not match " +
                            first.str(),
                        int(i));
    }
    out[*axis] = sumDims(out[*axis], t.shape()[*axis], ctx.dims);
    dtype = promoteDTypes(dtype, t.dtype());
  }
  return Type::tensor(dtype, out);
}

Type inferStack(InferContext &ctx) {
  if (!checkTensorList(ctx, "stack"))
    return Type::error();
  const Type &first = ctx.operand(0);
  Type probe = Type::tensor(first.dtype(), Shape(first.rank() + 1, Dim::fixed(1)));
  auto axis = normAxis(ctx, ctx.intAttr("axis"), first.rank() + 1, probe);
  if (!axis)
    return Type::error();
  DType dtype = first.dtype();
  for (size_t i = 1; i < ctx.operands.size(); ++i) {
    const Type &t = ctx.operand(i);
    bool same = t.rank() == first.rank();
    for (size_t d = 0; same && d < t.rank(); ++d)
      same = !(t.shape()[d].isStatic() && first.shape()[d].isStatic() &&
               t.shape()[d] != first.shape()[d]);
    if (!same)
      return ctx.fail("stack: shape of " + t.str() + " does not match " + first.str(), int(i));
    dtype = promoteDTypes(dtype, t.dtype());
  }
  Shape out = first.shape();
  out.insert(out.begin() + *axis, Dim::fixed(int64_t(ctx.operands.size())));
  return Type::tensor(dtype, out);
}

Type inferSplit(InferContext &ctx) {
  if (!checkTensor(ctx, 0))
    return Type::error();
  const Type &x = ctx.operand(0);
  auto axis = normAxis(ctx, ctx.intAttr("axis"), x.rank(), x);
  if (!axis)
    return Type::error();
  const std::vector<int64_t> *sizes = ctx.intsAttr("sizes");
  if (!sizes || sizes->empty())
    return ctx.fail("split: needs at least one part");
  int64_t total = std::accumulate(sizes->begin(), sizes->end(), int64_t(0));
  const Dim &d = x.shape()[*axis];
  if (d.isStatic() && d.size() != total)
    return ctx.fail("split: parts add up to " + std::to_string(total) + " but axis " +
                    std::to_string(*axis) + " of " + x.str() + " has " + d.str());
  std::vector<Type> parts;
  for (int64_t s : *sizes) {
    Shape ps = x.shape();
    ps[*axis] = Dim::fixed(s);
    parts.push_back(Type::tensor(x.dtype(), ps));
  }
  return Type::tuple(parts);
}

Type inferBroadcastTo(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  const Type &x = ctx.operand(0);
  const Shape &target = *ctx.shapeAttr("shape");
  auto s = broadcastShapes(shapeOf(x), target, ctx.dims);
  if (!s || s->size() != target.size())
    return ctx.fail("cannot broadcast " + x.str() + " to " + shapeStr(target));
  for (size_t i = 0; i < target.size(); ++i)
    if ((*s)[i].isStatic() && target[i].isStatic() && (*s)[i] != target[i])
      return ctx.fail("cannot broadcast " + x.str() + " to " + shapeStr(target));
  return Type::tensor(x.dtype(), target);
}

/// Length of the Python slice [b:e:s] of a dim of static size n.
int64_t sliceLength(int64_t n, int64_t b, int64_t e, int64_t s) {
  auto clamp = [&](int64_t v) {
    if (v == kSliceToEnd)
      return s > 0 ? n : int64_t(-1);
    if (v < 0)
      v += n;
    if (s > 0)
      return std::clamp<int64_t>(v, 0, n);
    return std::clamp<int64_t>(v, -1, n - 1);
  };
  // An omitted begin starts at the first element in the step's direction (the kernels' reading).
  int64_t lo = b == kSliceToEnd ? (s > 0 ? 0 : n - 1) : clamp(b), hi = clamp(e);
  if (s > 0)
    return hi > lo ? (hi - lo + s - 1) / s : 0;
  return lo > hi ? (lo - hi - s - 1) / -s : 0;
}

Type inferSlice(InferContext &ctx) {
  if (!checkTensor(ctx, 0))
    return Type::error();
  const Type &x = ctx.operand(0);
  const auto *b = ctx.intsAttr("begin"), *e = ctx.intsAttr("end"), *s = ctx.intsAttr("step");
  if (!b || !e || !s || b->size() != x.rank() || e->size() != x.rank() || s->size() != x.rank())
    return ctx.fail("slice: begin, end and step need one entry per dim of " + x.str());
  Shape out;
  for (size_t i = 0; i < x.rank(); ++i) {
    int64_t bi = (*b)[i], ei = (*e)[i], si = (*s)[i];
    if (si == 0)
      return ctx.fail("slice step cannot be zero");
    const Dim &d = x.shape()[i];
    bool whole = (bi == 0 || bi == kSliceToEnd) && ei == kSliceToEnd && si == 1;
    if (whole)
      out.push_back(d);
    else if (d.isStatic() && bi != kDynamicIndex && ei != kDynamicIndex && si != kDynamicIndex)
      out.push_back(Dim::fixed(sliceLength(d.size(), bi, ei, si)));
    else
      out.push_back(ctx.dims.fresh());
  }
  return Type::tensor(x.dtype(), out);
}

/// `x` without its `axis` attribute's dim (index, squeeze).
Type dropAxis(InferContext &ctx, const Type &x) {
  auto axis = normAxis(ctx, ctx.intAttr("axis"), x.rank(), x);
  if (!axis)
    return Type::error();
  Shape out = x.shape();
  out.erase(out.begin() + *axis);
  return Type::tensor(x.dtype(), out);
}

Type inferIndex(InferContext &ctx) {
  if (!checkTensor(ctx, 0))
    return Type::error();
  const Type &x = ctx.operand(0), &i = ctx.operand(1);
  if (!(i.kind() == Type::Kind::Int || (i.isTensor() && isInteger(i.dtype()) && i.rank() == 0)))
    return ctx.fail("index must be an int, found " + i.str(), 1);
  if (x.rank() == 0)
    return ctx.fail("cannot index a 0-d tensor " + x.str(), 0);
  return dropAxis(ctx, x);
}

/// gather{axis}(x, i): x.take(i, axis), i an integer tensor; i's shape replaces that axis.
Type inferGather(InferContext &ctx) {
  if (!checkTensor(ctx, 0) || !checkTensor(ctx, 1))
    return Type::error();
  const Type &x = ctx.operand(0), &i = ctx.operand(1);
  if (!isInteger(i.dtype()))
    return ctx.fail("gather: indices must be an integer tensor, found " + i.str(), 1);
  if (x.rank() == 0)
    return ctx.fail("gather: cannot index a 0-d tensor " + x.str(), 0);
  auto axis = normAxis(ctx, ctx.intAttr("axis"), x.rank(), x);
  if (!axis)
    return Type::error();
  Shape out(x.shape().begin(), x.shape().begin() + *axis);
  out.insert(out.end(), i.shape().begin(), i.shape().end());
  out.insert(out.end(), x.shape().begin() + *axis + 1, x.shape().end());
  return Type::tensor(x.dtype(), out);
}

Type inferExpandDims(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  const Type &x = ctx.operand(0);
  Shape in = shapeOf(x);
  Type probe = Type::tensor(x.dtype(), Shape(in.size() + 1, Dim::fixed(1)));
  auto axis = normAxis(ctx, ctx.intAttr("axis"), in.size() + 1, probe);
  if (!axis)
    return Type::error();
  in.insert(in.begin() + *axis, Dim::fixed(1));
  return Type::tensor(x.dtype(), in);
}

Type inferSqueeze(InferContext &ctx) {
  if (!checkTensor(ctx, 0))
    return Type::error();
  const Type &x = ctx.operand(0);
  auto axis = normAxis(ctx, ctx.intAttr("axis"), x.rank(), x);
  if (!axis)
    return Type::error();
  const Dim &d = x.shape()[*axis];
  if (d.isStatic() && d.size() != 1)
    return ctx.fail("squeeze: axis " + std::to_string(*axis) + " of " + x.str() + " has size " +
                    d.str() + ", not 1");
  return dropAxis(ctx, x);
}

Type inferSumTo(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  return Type::tensor(ctx.operand(0).dtype(), *ctx.shapeAttr("shape"));
}

Type inferShapeOf(InferContext &ctx) {
  if (!checkTensor(ctx, 0))
    return Type::error();
  return Type::tensor(DType::I64, {Dim::fixed(int64_t(ctx.operand(0).rank()))});
}

//===--- nn ---------------------------------------------------------------===//

Type inferSoftmax(InferContext &ctx) {
  if (!checkTensor(ctx, 0))
    return Type::error();
  const Type &x = ctx.operand(0);
  if (!normAxis(ctx, ctx.intAttr("axis", -1), x.rank(), x))
    return Type::error();
  return isFloat(x.dtype()) ? x : Type::tensor(DType::F32, x.shape());
}

Type inferCrossEntropy(InferContext &ctx) {
  if (!checkTensor(ctx, 0) || !checkTensor(ctx, 1))
    return Type::error();
  const Type &logits = ctx.operand(0), &labels = ctx.operand(1);
  if (logits.rank() != 2)
    return ctx.fail("cross_entropy: logits must be [N, C], found " + logits.str(), 0);
  if (labels.rank() != 1 || !isInteger(labels.dtype()))
    return ctx.fail("cross_entropy: labels must be integer [N], found " + labels.str(), 1);
  const Dim &n1 = logits.shape()[0], &n2 = labels.shape()[0];
  if (n1.isStatic() && n2.isStatic() && n1 != n2)
    return ctx.fail("cross_entropy: " + n1.str() + " rows of logits vs " + n2.str() + " labels");
  return Type::tensor(isFloat(logits.dtype()) ? logits.dtype() : DType::F32, {});
}

Type inferMse(InferContext &ctx) {
  if (!checkTensor(ctx, 0) || !checkTensor(ctx, 1))
    return Type::error();
  if (!broadcastAll(ctx))
    return Type::error();
  DType t = promoteDTypes(ctx.operand(0).dtype(), ctx.operand(1).dtype());
  return Type::tensor(isFloat(t) ? t : DType::F32, {});
}

/// Output size of a window of `k` with `stride`/`padding` over a dim.
Dim windowDim(const Dim &in, int64_t k, int64_t stride, int64_t padding, DimContext &dims) {
  if (!in.isStatic())
    return dims.fresh();
  return Dim::fixed((in.size() + 2 * padding - k) / stride + 1);
}

/// The `layout` attribute of the conv and pool ops: absent or "NCHW" (the language's layout),
/// or "NHWC" (what the `layout` pass rewrites conv chains to, compiler/opt/Layout.cpp); weights
/// stay OIHW. Sets `nhwc`; false after a failure reported to ctx.
bool layoutAttr(InferContext &ctx, const char *op, bool &nhwc) {
  auto it = ctx.attrs.find("layout");
  const std::string *l = it == ctx.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
  nhwc = l && *l == "NHWC";
  if (it == ctx.attrs.end() || (l && (*l == "NCHW" || *l == "NHWC")))
    return true;
  ctx.fail(std::string(op) + ": layout must be \"NCHW\" or \"NHWC\", found " + attrStr(it->second));
  return false;
}

/// An activation shape of a rank-4 `nhwc` tensor as NCHW dims, and back.
Shape nchwDims(const Shape &s, bool nhwc) { return nhwc ? Shape{s[0], s[3], s[1], s[2]} : s; }
Shape fromNchwDims(const Shape &s, bool nhwc) { return nhwc ? Shape{s[0], s[2], s[3], s[1]} : s; }

Type inferConv2d(InferContext &ctx) {
  bool nhwc = false;
  if (!checkTensor(ctx, 0) || !checkTensor(ctx, 1) || !layoutAttr(ctx, "conv2d", nhwc))
    return Type::error();
  const Type &x = ctx.operand(0), &w = ctx.operand(1);
  const char *layout = nhwc ? "NHWC" : "NCHW";
  if (x.rank() != 4)
    return ctx.fail(std::string("conv2d: input must be ") + layout + " (rank 4), found " + x.str(),
                    0);
  if (w.rank() != 4)
    return ctx.fail("conv2d: weight must be OIHW (rank 4), found " + w.str(), 1);
  Shape xs = nchwDims(x.shape(), nhwc);
  const Dim &c1 = xs[1], &c2 = w.shape()[1];
  if (c1.isStatic() && c2.isStatic() && c1 != c2)
    return ctx.fail("conv2d: " + c1.str() + " input channels vs " + c2.str() + " in the weight (" +
                    x.str() + ", " + w.str() + ")");
  int64_t stride = ctx.intAttr("stride", 1), pad = ctx.intAttr("padding", 0);
  if (stride < 1 || pad < 0)
    return ctx.fail("conv2d: stride must be positive and padding non-negative");
  Shape out = {xs[0], w.shape()[0]};
  for (int d = 2; d < 4; ++d) {
    const Dim &k = w.shape()[d];
    Dim o = k.isStatic() ? windowDim(xs[d], k.size(), stride, pad, ctx.dims) : ctx.dims.fresh();
    if (o.isStatic() && o.size() <= 0)
      return ctx.fail("conv2d: kernel " + shapeStr(w.shape()) + " is larger than the input " +
                      x.str());
    out.push_back(o);
  }
  // The kernels compute in the promoted float dtype: integers and bools give f32.
  DType t = promoteDTypes(x.dtype(), w.dtype());
  return Type::tensor(isFloat(t) ? t : DType::F32, fromNchwDims(out, nhwc));
}

/// conv2d_bias(x, w, bias) {stride, padding, relu}
Type inferConv2dBias(InferContext &ctx) { return withBias(ctx, inferConv2d(ctx), "conv2d_bias"); }

Type inferPool(InferContext &ctx) {
  bool nhwc = false;
  if (!checkTensor(ctx, 0) || !layoutAttr(ctx, "pooling", nhwc))
    return Type::error();
  const Type &x = ctx.operand(0);
  if (x.rank() != 4)
    return ctx.fail(std::string("pooling input must be ") + (nhwc ? "NHWC" : "NCHW") +
                        " (rank 4), found " + x.str(),
                    0);
  int64_t k = ctx.intAttr("k", 2);
  if (k < 1)
    return ctx.fail("pooling window must be positive, found " + std::to_string(k));
  Shape out = nchwDims(x.shape(), nhwc);
  for (int d = 2; d < 4; ++d)
    out[d] = out[d].isStatic() ? Dim::fixed(out[d].size() / k) : ctx.dims.fresh();
  // The kernels pool floats: integers and bools give f32 (as conv2d).
  return Type::tensor(isFloat(x.dtype()) ? x.dtype() : DType::F32, fromNchwDims(out, nhwc));
}

Type inferDropout(InferContext &ctx) {
  if (!checkTensor(ctx, 0))
    return Type::error();
  return ctx.operand(0);
}

//===--- creation ---------------------------------------------------------===//

/// Operands that give run-time sizes of symbolic dims must be ints.
bool checkDimOperands(InferContext &ctx, size_t first) {
  for (size_t i = first; i < ctx.operands.size(); ++i)
    if (ctx.operand(i).kind() != Type::Kind::Int) {
      ctx.fail("dimension must be an int, found " + ctx.operand(i).str(), int(i));
      return false;
    }
  return true;
}

Type inferCreate(InferContext &ctx) {
  if (!checkDimOperands(ctx, 0))
    return Type::error();
  return Type::tensor(ctx.dtypeAttr("dtype"), *ctx.shapeAttr("shape"));
}

Type inferFull(InferContext &ctx) {
  if (!ctx.operand(0).isNumericScalar() &&
      !(ctx.operand(0).isTensor() && ctx.operand(0).rank() == 0))
    return ctx.fail("full: fill value must be a number, found " + ctx.operand(0).str(), 0);
  if (!checkDimOperands(ctx, 1))
    return Type::error();
  return Type::tensor(ctx.dtypeAttr("dtype"), *ctx.shapeAttr("shape"));
}

Type inferEye(InferContext &ctx) {
  int64_t n = ctx.intAttr("n");
  if (n < 0)
    return ctx.fail("eye: size must be non-negative, found " + std::to_string(n));
  return Type::tensor(ctx.dtypeAttr("dtype"), {Dim::fixed(n), Dim::fixed(n)});
}

Type inferArange(InferContext &ctx) {
  if (!checkDimOperands(ctx, 0))
    return Type::error();
  return Type::tensor(ctx.dtypeAttr("dtype"), *ctx.shapeAttr("shape"));
}

Type inferConst(InferContext &ctx) {
  const AttrValue &v = ctx.attrs.at("value");
  if (std::holds_alternative<int64_t>(v))
    return Type::intTy();
  if (std::holds_alternative<double>(v))
    return Type::floatTy();
  if (std::holds_alternative<bool>(v))
    return Type::boolTy();
  if (std::holds_alternative<std::string>(v))
    return Type::strTy();
  // A tensor literal: flat values with a shape and dtype.
  return Type::tensor(ctx.dtypeAttr("dtype"), *ctx.shapeAttr("shape"));
}

Type inferNone(InferContext &ctx) { return Type::none(); }

Type inferProgress(InferContext &ctx) {
  for (size_t i = 0; i < 2; ++i)
    if (ctx.operand(i).kind() != Type::Kind::Int)
      return ctx.fail("progress needs int counts, found " + ctx.operand(i).str(), i);
  return Type::none();
}

/// memory_stats(after...) -> (int, int); the operands only order it.
Type inferMemoryStats(InferContext &) { return Type::tuple({Type::intTy(), Type::intTy()}); }

Type inferSeed(InferContext &ctx) {
  if (ctx.operand(0).kind() != Type::Kind::Int)
    return ctx.fail("seed must be an int, found " + ctx.operand(0).str(), 0);
  return Type::none();
}

//===--- side effects -----------------------------------------------------===//

/// The operands of save{names}(path, names..., tensors...) and load{names}(path, names...)
/// that are tensor names (the attribute `names` counts them; none without it).
size_t numNames(InferContext &ctx) {
  auto it = ctx.attrs.find("names");
  return it == ctx.attrs.end() ? 0 : size_t(std::max<int64_t>(0, std::get<int64_t>(it->second)));
}

bool checkNames(InferContext &ctx, const char *op, size_t count) {
  if (ctx.operands.size() < 1 + count) {
    ctx.fail(std::string(op) + ": expected " + std::to_string(count) + " tensor names");
    return false;
  }
  for (size_t i = 1; i <= count; ++i)
    if (ctx.operand(i).kind() != Type::Kind::Str) {
      ctx.fail(std::string(op) + ": a tensor name must be a str, found " + ctx.operand(i).str(),
               int(i));
      return false;
    }
  return true;
}

Type inferSave(InferContext &ctx) {
  if (ctx.operand(0).kind() != Type::Kind::Str)
    return ctx.fail("save: path must be a str, found " + ctx.operand(0).str(), 0);
  size_t names = numNames(ctx);
  if (!checkNames(ctx, "save", names))
    return Type::error();
  if (names && ctx.operands.size() != 1 + 2 * names)
    return ctx.fail("save: " + std::to_string(names) + " names for " +
                    std::to_string(ctx.operands.size() - 1 - names) + " tensors");
  for (size_t i = 1 + names; i < ctx.operands.size(); ++i)
    if (!checkTensor(ctx, i))
      return Type::error();
  return Type::none();
}

Type inferLoad(InferContext &ctx) {
  if (ctx.operand(0).kind() != Type::Kind::Str)
    return ctx.fail("load: path must be a str, found " + ctx.operand(0).str(), 0);
  const auto &dtypes = std::get<std::vector<DType>>(ctx.attrs.at("dtypes"));
  const auto &shapes = std::get<std::vector<Shape>>(ctx.attrs.at("shapes"));
  size_t names = numNames(ctx);
  if (!checkNames(ctx, "load", names))
    return Type::error();
  if (ctx.operands.size() != 1 + names || (names && names != dtypes.size()))
    return ctx.fail("load: " + std::to_string(ctx.operands.size() - 1) + " tensor names for " +
                    std::to_string(dtypes.size()) + " tensors");
  std::vector<Type> out;
  for (size_t i = 0; i < dtypes.size() && i < shapes.size(); ++i)
    out.push_back(Type::tensor(dtypes[i], shapes[i]));
  return Type::tuple(out);
}

/// fashion_mnist(split) -> (f32[N, 784], i64[N]): N is one run-time size shared by both.
Type inferFashionMnist(InferContext &ctx) {
  if (ctx.operand(0).kind() != Type::Kind::Str)
    return ctx.fail("fashion_mnist: split must be a str, found " + ctx.operand(0).str(), 0);
  Dim n = ctx.dims.fresh();
  return Type::tuple(
      {Type::tensor(DType::F32, {n, Dim::fixed(784)}), Type::tensor(DType::I64, {n})});
}

/// load_idx(path){rank} -> i32 with `rank` run-time dims; load_csv(path){dtype} -> [rows, cols].
Type inferReadFile(InferContext &ctx) {
  if (ctx.operand(0).kind() != Type::Kind::Str)
    return ctx.fail("path must be a str, found " + ctx.operand(0).str(), 0);
  bool idx = ctx.attrs.count("rank");
  Shape s;
  for (int64_t i = 0, n = idx ? ctx.intAttr("rank") : 2; i < n; ++i)
    s.push_back(ctx.dims.fresh());
  return Type::tensor(idx ? DType::I32 : ctx.dtypeAttr("dtype"), s);
}

Type inferAssert(InferContext &ctx) {
  const Type &c = ctx.operand(0);
  if (c.kind() != Type::Kind::Bool && !(c.isTensor() && c.dtype() == DType::Bool && c.rank() == 0))
    return ctx.fail("assert condition must be bool, found " + c.str(), 0);
  return Type::none();
}

//===--- backward helpers -------------------------------------------------===//

/// relu_grad(x, g) and friends: the gradient has the type of operand `Which`.
template <int Which> Type inferLike(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  return ctx.operand(Which);
}

Type inferInputShaped(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  return Type::tensor(ctx.operand(0).dtype(), *ctx.shapeAttr("input_shape"));
}

Type inferWeightShaped(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  return Type::tensor(ctx.operand(0).dtype(), *ctx.shapeAttr("weight_shape"));
}

//===--- the table --------------------------------------------------------===//

struct Entry {
  const char *name;
  std::vector<std::string> operands;
  std::vector<AttrSpec> attrs;
  InferFn infer;
  bool elementwise = false;
  CostClass cost = CostClass::Cheap;
  bool differentiable = true;
  bool variadic = false;
  bool sideEffects = false;
};

const AttrSpec kAxes{"axes", AttrKind::Ints}, kKeepdims{"keepdims", AttrKind::Bool},
    kAxis{"axis", AttrKind::Int}, kShape{"shape", AttrKind::Shape},
    kDtype{"dtype", AttrKind::DType}, kK{"k", AttrKind::Int}, kStride{"stride", AttrKind::Int},
    kPadding{"padding", AttrKind::Int}, kInputShape{"input_shape", AttrKind::Shape},
    kLayout{"layout", AttrKind::Str};

std::vector<Entry> entries() {
  using C = CostClass;
  std::vector<Entry> e;
  for (const char *n : {"add", "sub", "mul", "floordiv", "mod", "pow", "maximum", "minimum"})
    e.push_back({n, {"a", "b"}, {}, inferArith, true});
  e.push_back({"div", {"a", "b"}, {}, inferDiv, true});
  for (const char *n : {"eq", "ne", "lt", "le", "gt", "ge"})
    e.push_back({n, {"a", "b"}, {}, inferCompare, true, C::Cheap, false});
  for (const char *n : {"logical_and", "logical_or"})
    e.push_back({n, {"a", "b"}, {}, inferLogical, true, C::Cheap, false});
  e.push_back({"logical_not", {"x"}, {}, inferLogical, true, C::Cheap, false});
  for (const char *n : {"neg", "abs", "relu"})
    e.push_back({n, {"x"}, {}, inferSameUnary, true});
  for (const char *n : {"exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid"})
    e.push_back({n, {"x"}, {}, inferFloatUnary, true});
  e.push_back({"where", {"cond", "a", "b"}, {}, inferWhere, true});
  e.push_back({"clip", {"x", "lo", "hi"}, {}, inferClip, true});
  e.push_back({"cast", {"x"}, {kDtype}, inferCast, true});

  e.push_back({"sum", {"x"}, {kAxes, kKeepdims}, inferSum});
  e.push_back({"mean", {"x"}, {kAxes, kKeepdims}, inferFloatReduce});
  e.push_back({"logsumexp", {"x"}, {kAxes, kKeepdims}, inferFloatReduce});
  e.push_back({"norm", {"x"}, {kAxes, kKeepdims}, inferFloatReduce});
  for (const char *n : {"max", "min"})
    e.push_back({n, {"x"}, {kAxes, kKeepdims}, inferMaxMin});
  e.push_back({"argmax", {"x"}, {kAxis, kKeepdims}, inferArgmax, false, C::Cheap, false});

  e.push_back({"matmul", {"a", "b"}, {}, inferMatmul, false, C::Expensive});
  e.push_back({"dot", {"a", "b"}, {}, inferDot, false, C::Expensive});
  e.push_back({"matmul_bias",
               {"a", "b", "bias"},
               {{"relu", AttrKind::Bool}},
               inferMatmulBias,
               false,
               C::Expensive,
               false});

  e.push_back({"reshape", {"x", "dims"}, {kShape}, inferReshape, false, C::Cheap, true, true});
  e.push_back({"transpose", {"x"}, {{"perm", AttrKind::Ints}}, inferTranspose});
  e.push_back({"concat", {"xs"}, {kAxis}, inferConcat, false, C::Cheap, true, true});
  e.push_back({"stack", {"xs"}, {kAxis}, inferStack, false, C::Cheap, true, true});
  e.push_back({"split", {"x"}, {kAxis, {"sizes", AttrKind::Ints}}, inferSplit});
  e.push_back(
      {"broadcast_to", {"x", "dims"}, {kShape}, inferBroadcastTo, false, C::Cheap, true, true});
  e.push_back({"slice",
               {"x", "bounds"},
               {{"begin", AttrKind::Ints}, {"end", AttrKind::Ints}, {"step", AttrKind::Ints}},
               inferSlice,
               false,
               C::Cheap,
               true,
               true});
  e.push_back({"index", {"x", "i"}, {kAxis}, inferIndex});
  e.push_back({"gather", {"x", "indices"}, {kAxis}, inferGather});
  e.push_back({"expand_dims", {"x"}, {kAxis}, inferExpandDims});
  e.push_back({"squeeze", {"x"}, {kAxis}, inferSqueeze});
  e.push_back({"sum_to", {"x"}, {kShape}, inferSumTo});
  e.push_back({"shape_of", {"x"}, {}, inferShapeOf, false, C::Cheap, false});

  e.push_back({"softmax", {"x"}, {kAxis}, inferSoftmax});
  e.push_back({"log_softmax", {"x"}, {kAxis}, inferSoftmax});
  e.push_back({"cross_entropy", {"logits", "labels"}, {}, inferCrossEntropy});
  e.push_back({"mse", {"a", "b"}, {}, inferMse});
  e.push_back(
      {"conv2d", {"x", "w"}, {kStride, kPadding, kLayout}, inferConv2d, false, C::Expensive});
  e.push_back({"conv2d_bias",
               {"x", "w", "bias"},
               {kStride, kPadding, {"relu", AttrKind::Bool}, kLayout},
               inferConv2dBias,
               false,
               C::Expensive,
               false});
  e.push_back({"max_pool2d", {"x"}, {kK, kLayout}, inferPool, false, C::Expensive});
  e.push_back({"avg_pool2d", {"x"}, {kK, kLayout}, inferPool, false, C::Expensive});
  // Draws from the RNG stream, so it is ordered with seed/randn like a side effect.
  e.push_back({"dropout",
               {"x"},
               {{"p", AttrKind::Float}},
               inferDropout,
               false,
               C::Cheap,
               true,
               false,
               true});
  // Identity whose gradient is zero (LANGUAGE.md "stop_gradient"); not in docs/ops.md's table.
  e.push_back({"stop_gradient", {"x"}, {}, inferLike<0>, true, C::Cheap, false});

  e.push_back({"const",
               {},
               {{"value", AttrKind::Float}, kShape, kDtype},
               inferConst,
               false,
               C::Cheap,
               false});
  for (const char *n : {"zeros", "ones"})
    e.push_back({n, {"dims"}, {kShape, kDtype}, inferCreate, false, C::Cheap, false, true});
  e.push_back(
      {"full", {"value", "dims"}, {kShape, kDtype}, inferFull, false, C::Cheap, true, true});
  e.push_back({"eye", {}, {{"n", AttrKind::Int}, kDtype}, inferEye, false, C::Cheap, false});
  e.push_back({"arange", {"dims"}, {kShape, kDtype}, inferArange, false, C::Cheap, false, true});
  for (const char *n : {"randn", "rand"})
    e.push_back({n, {"dims"}, {kShape, kDtype}, inferCreate, false, C::Cheap, false, true, true});
  e.push_back(
      {"randperm", {"dims"}, {kShape, kDtype}, inferCreate, false, C::Cheap, false, true, true});
  e.push_back({"seed", {"n"}, {}, inferSeed, false, C::Cheap, false, false, true});
  e.push_back(
      {"progress", {"done", "total"}, {}, inferProgress, false, C::Cheap, false, false, true});

  e.push_back({"relu_grad", {"x", "g"}, {}, inferLike<1>, true, C::Cheap, false});
  e.push_back({"sigmoid_grad", {"y", "g"}, {}, inferLike<1>, true, C::Cheap, false});
  e.push_back({"tanh_grad", {"y", "g"}, {}, inferLike<1>, true, C::Cheap, false});
  e.push_back({"softmax_grad", {"y", "g"}, {kAxis}, inferLike<1>, false, C::Cheap, false});
  e.push_back({"log_softmax_grad", {"y", "g"}, {kAxis}, inferLike<1>, false, C::Cheap, false});
  e.push_back(
      {"cross_entropy_grad", {"logits", "labels", "g"}, {}, inferLike<0>, false, C::Cheap, false});
  e.push_back({"conv2d_grad_input",
               {"g", "w"},
               {kStride, kPadding, kInputShape, kLayout},
               inferInputShaped,
               false,
               C::Expensive,
               false});
  e.push_back({"conv2d_grad_weight",
               {"x", "g"},
               {kStride, kPadding, {"weight_shape", AttrKind::Shape}, kLayout},
               inferWeightShaped,
               false,
               C::Expensive,
               false});
  e.push_back(
      {"max_pool2d_grad", {"x", "g"}, {kK, kLayout}, inferLike<0>, false, C::Expensive, false});
  e.push_back({"avg_pool2d_grad",
               {"g"},
               {kK, kInputShape, kLayout},
               inferInputShaped,
               false,
               C::Expensive,
               false});
  e.push_back(
      {"slice_grad",
       {"g"},
       {kInputShape, {"begin", AttrKind::Ints}, {"end", AttrKind::Ints}, {"step", AttrKind::Ints}},
       inferInputShaped,
       false,
       C::Cheap,
       false});
  // Trailing int operands give the run-time sizes of input_shape's symbolic dims (gather's
  // gradient on a run-time sized tensor).
  e.push_back({"index_grad",
               {"g", "i", "dims"},
               {kAxis, kInputShape},
               inferInputShaped,
               false,
               C::Cheap,
               false,
               true});
  e.push_back({"dropout_grad", {"g", "mask"}, {}, inferLike<0>, true, C::Cheap, false});
  for (const char *n : {"max_grad", "min_grad"})
    e.push_back({n, {"x", "g"}, {kAxes, kKeepdims}, inferLike<0>, false, C::Cheap, false});

  // `scalars` (one flag per operand) marks language int/float/bool operands; without it a 0-d
  // f64/i64/bool operand reads as one (runtime/Print.h).
  e.push_back({"print",
               {"values"},
               {{"scalars", AttrKind::Ints}},
               inferNone,
               false,
               C::Cheap,
               false,
               true,
               true});
  // save{names = N}(path, N names, N tensors) writes named tensors (names= of save()).
  e.push_back({"save",
               {"path", "tensors"},
               {{"names", AttrKind::Int}},
               inferSave,
               false,
               C::Expensive,
               false,
               true,
               true});
  // load{names = N}(path, N names) reads tensors by name (names= of load()).
  e.push_back(
      {"load",
       {"path", "names"},
       {{"dtypes", AttrKind::DTypes}, {"shapes", AttrKind::Shapes}, {"names", AttrKind::Int}},
       inferLoad,
       false,
       C::Expensive,
       false,
       true,
       true});
  // Dataset readers behind stdlib/data.dlm (runtime/Data.h); not in docs/ops.md's table.
  e.push_back(
      {"fashion_mnist", {"split"}, {}, inferFashionMnist, false, C::Expensive, false, false, true});
  e.push_back({"load_idx",
               {"path"},
               {{"rank", AttrKind::Int}},
               inferReadFile,
               false,
               C::Expensive,
               false,
               false,
               true});
  e.push_back(
      {"load_csv", {"path"}, {kDtype}, inferReadFile, false, C::Expensive, false, false, true});
  e.push_back(
      {"memory_stats", {"after"}, {}, inferMemoryStats, false, C::Cheap, false, true, true});
  e.push_back({"assert",
               {"cond"},
               {{"message", AttrKind::Str}, {"location", AttrKind::Str}},
               inferAssert,
               false,
               C::Cheap,
               false,
               false,
               true});
  return e;
}

} // namespace

void registerBuiltinOps(OpRegistry &registry) {
  for (Entry &e : entries()) {
    OpInfo info;
    info.name = e.name;
    info.operands = std::move(e.operands);
    info.variadic = e.variadic;
    info.attrs = std::move(e.attrs);
    info.infer = e.infer;
    info.elementwise = e.elementwise;
    info.cost = e.cost;
    info.differentiable = e.differentiable;
    info.sideEffects = e.sideEffects;
    registry.add(std::move(info));
  }
}

} // namespace dlm
