//===- compiler/ir/ShapeOps.cpp - Type rules of the shape ops --------------===//
//
// reshape, transpose, concat, stack, split, broadcast_to, slice, index, gather, expand_dims,
// squeeze, sum_to and shape_of (docs/ops.md "shape"): the rows of ops/Ops.def name these rules.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/OpRules.h"

#include <algorithm>
#include <numeric>

namespace dlm::oprules {

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
static bool checkTensorList(InferContext &ctx, const char *op) {
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
static int64_t sliceLength(int64_t n, int64_t b, int64_t e, int64_t s) {
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
static Type dropAxis(InferContext &ctx, const Type &x) {
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

} // namespace dlm::oprules
