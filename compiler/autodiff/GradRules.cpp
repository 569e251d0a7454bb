//===- compiler/autodiff/GradRules.cpp - One gradient rule per op ----------===//
//
// The gradient rules of the op registry, one small graph-building function per op (or family),
// gathered in one table keyed by op name (tinygrad's habit: all rules on one screen). Each reads
// primal operands x(i), results y(i) and result adjoints g(i) and gives each operand its
// gradient; give() undoes broadcasting and accumulates. Rules are written with differentiable
// ops only (where, mul, ...) wherever that costs nothing, so their output can be differentiated
// again (grad of grad); the few that use a backward helper kernel (conv2d, pooling, slices,
// cross_entropy) give the helper a rule of its own where it is linear in its gradient input.
//
// Ops marked non-differentiable in the registry (comparisons, argmax, integer and creation ops,
// I/O, stop_gradient, zeros_like) have no rule: their gradient is zero. The control-flow
// primitives (Switch, Merge, Enter, Exit, NextIteration, LoopCond) are differentiated
// structurally by Reverse.cpp on the structured program before lowering — a backward `if` on
// the same predicate is Switch for Merge and Merge for Switch, a backward loop frame is Enter for
// Exit — so their slots point at `structural`, which is never reached from a lowered program.
//
//===----------------------------------------------------------------------===//
#include "compiler/autodiff/GradContext.h"
#include "compiler/autodiff/Reverse.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <mutex>
#include <numeric>

namespace dlm {

//===--- GradContext ------------------------------------------------------===//

using ssa::Value;

Value *GradContext::x(size_t i) { return reverse.primal(op.operands[i], level); }
Value *GradContext::y(size_t i) { return reverse.primal(op.results[i].get(), level); }

Value *GradContext::g(size_t i) {
  if (Value *a = reverse.adjoint(level, {op.results[i].get(), 0}))
    return a;
  return reverse.zerosOf(level, op.results[i].get(), 0, op.loc);
}

bool GradContext::needs(size_t i) const {
  return i < op.operands.size() && autodiff::isFloatType(op.operands[i]->type) &&
         reverse.isActive(op.operands[i]);
}

void GradContext::give(size_t i, Value *grad) {
  if (needs(i))
    reverse.give(level, {op.operands[i], 0}, grad, op.loc);
}

Value *GradContext::emit(OpKind kind, std::vector<Value *> operands, Attrs attrs) {
  return reverse.emit(level, kind, std::move(operands), std::move(attrs), op.loc);
}

Value *GradContext::emitTyped(OpKind kind, std::vector<Value *> operands, Attrs attrs, Type type) {
  return reverse.emit(level, kind, std::move(operands), std::move(attrs), op.loc, std::move(type));
}

Value *GradContext::num(double v, Value *like) { return reverse.constLike(level, v, like, op.loc); }

Value *GradContext::intConst(int64_t v) {
  Attrs a;
  a["value"] = v;
  return emitTyped(OpKind::Const, {}, a, Type::intTy());
}

Value *GradContext::dimSize(Value *v, size_t axis) {
  const Dim &d = v->type.shape()[axis];
  if (d.isStatic())
    return intConst(d.size());
  Value *shape = emitTyped(OpKind::ShapeOf, {v}, {},
                           Type::tensor(DType::I64, {Dim::fixed(int64_t(v->type.rank()))}));
  Attrs a;
  a["axis"] = int64_t(0);
  return emitTyped(OpKind::Index, {shape, intConst(int64_t(axis))}, a, Type::intTy());
}

void GradContext::unsupported(const std::string &why) {
  reverse.fail(op.loc, "cannot differentiate '" + op.info->name + "': " + why);
}

namespace autodiff {
namespace {

using Ctx = GradContext;

Attrs attr(const char *name, AttrValue v) {
  Attrs a;
  a[name] = std::move(v);
  return a;
}

//===--- shared pieces ----------------------------------------------------===//

Value *zeroLike(Ctx &c, Value *v) { return c.emit(OpKind::ZerosLike, {v}); }
Value *where(Ctx &c, Value *cond, Value *a, Value *b) {
  return c.emit(OpKind::Where, {cond, a, b});
}
Value *mul(Ctx &c, Value *a, Value *b) { return c.emit(OpKind::Mul, {a, b}); }
Value *div(Ctx &c, Value *a, Value *b) { return c.emit(OpKind::Div, {a, b}); }
Value *sub(Ctx &c, Value *a, Value *b) { return c.emit(OpKind::Sub, {a, b}); }
Value *add(Ctx &c, Value *a, Value *b) { return c.emit(OpKind::Add, {a, b}); }
Value *neg(Ctx &c, Value *a) { return c.emit(OpKind::Neg, {a}); }

/// The reduced axes of a reduction (normalised, ascending; all axes when the list is empty).
std::vector<int64_t> reducedAxes(Ctx &c, const Type &x) {
  std::vector<int64_t> axes;
  if (auto *a = c.attrs().count("axes") ? std::get_if<std::vector<int64_t>>(&c.attrs().at("axes"))
                                        : nullptr)
    axes = *a;
  int64_t r = int64_t(x.isTensor() ? x.rank() : 0);
  if (axes.empty())
    for (int64_t i = 0; i < r; ++i)
      axes.push_back(i);
  for (int64_t &a : axes)
    if (a < 0)
      a += r;
  std::sort(axes.begin(), axes.end());
  return axes;
}

bool keepdims(Ctx &c) {
  auto it = c.attrs().find("keepdims");
  return it != c.attrs().end() && std::get<bool>(it->second);
}

/// `v` (a reduction's result or its adjoint) with the reduced axes put back as size 1.
Value *unreduce(Ctx &c, Value *v, const Type &x) {
  if (keepdims(c) || !v->type.isTensor())
    return v;
  for (int64_t a : reducedAxes(c, x))
    v = c.emit(OpKind::ExpandDims, {v}, attr("axis", a));
  return v;
}

bool staticShape(const Type &t) { return t.isTensor() && t.staticNumElements().has_value(); }

/// `v` in dtype `dtype` (itself when it has it already).
Value *castTo(Ctx &c, Value *v, DType dtype) {
  if (v->type.dtype() == dtype)
    return v;
  return c.emit(OpKind::Cast, {v}, attr("dtype", dtype));
}

/// `v` broadcast to the type of forward operand `i`: broadcast_to a static shape, else adds
/// zeros of the primal operand's shape (read only then).
Value *broadcastLike(Ctx &c, Value *v, size_t i) {
  const Type &t = c.forwardOp().operands[i]->type;
  if (staticShape(t))
    return c.emitTyped(OpKind::BroadcastTo, {v}, attr("shape", t.shape()),
                       Type::tensor(v->type.dtype(), t.shape()));
  return add(c, zeroLike(c, c.x(i)), v);
}

/// Sum-of-ones counts: how many elements each entry of a reduction over x covered.
Value *reducedCount(Ctx &c, Value *x) {
  Value *ones = add(c, zeroLike(c, x), c.num(1.0, x));
  Attrs a;
  a["axes"] = reducedAxes(c, x->type);
  a["keepdims"] = true;
  return c.emit(OpKind::Sum, {ones}, a);
}

Value *matrixTranspose(Ctx &c, Value *v) {
  std::vector<int64_t> perm(v->type.rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return c.emit(OpKind::Transpose, {v}, attr("perm", perm));
}

//===--- the rules --------------------------------------------------------===//

void gradAdd(Ctx &c) {
  c.give(0, c.g());
  c.give(1, c.g());
}
void gradSub(Ctx &c) {
  c.give(0, c.g());
  if (c.needs(1))
    c.give(1, neg(c, c.g()));
}
void gradMul(Ctx &c) {
  if (c.needs(0))
    c.give(0, mul(c, c.g(), c.x(1)));
  if (c.needs(1))
    c.give(1, mul(c, c.g(), c.x(0)));
}
void gradDiv(Ctx &c) {
  if (c.needs(0))
    c.give(0, div(c, c.g(), c.x(1)));
  if (c.needs(1))
    c.give(1, neg(c, mul(c, c.g(), div(c, c.y(), c.x(1)))));
}
/// x ** p: p x^(p-1) and x^p log x.
void gradPow(Ctx &c) {
  if (c.needs(0)) {
    Value *p = c.x(1);
    c.give(0, mul(c, c.g(), mul(c, p, c.emit(OpKind::Pow, {c.x(0), sub(c, p, c.num(1.0, p))}))));
  }
  if (c.needs(1))
    c.give(1, mul(c, c.g(), mul(c, c.y(), c.emit(OpKind::Log, {c.x(0)}))));
}
/// maximum/minimum: the gradient goes to the chosen side (the first one on ties).
void gradSelect(Ctx &c, OpKind cmp) {
  Value *first = c.emit(cmp, {c.x(0), c.x(1)});
  Value *g = c.g();
  if (c.needs(0))
    c.give(0, where(c, first, g, zeroLike(c, g)));
  if (c.needs(1))
    c.give(1, where(c, first, zeroLike(c, g), g));
}
void gradMaximum(Ctx &c) { gradSelect(c, OpKind::Ge); }
void gradMinimum(Ctx &c) { gradSelect(c, OpKind::Le); }
/// floordiv is piecewise constant: no gradient. mod: a - floor(a/b) b.
void gradFloordiv(Ctx &) {}
void gradMod(Ctx &c) {
  c.give(0, c.g());
  if (c.needs(1))
    c.give(1, neg(c, mul(c, c.g(), c.emit(OpKind::Floordiv, {c.x(0), c.x(1)}))));
}
void gradNeg(Ctx &c) { c.give(0, neg(c, c.g())); }
void gradAbs(Ctx &c) {
  Value *g = c.g();
  c.give(0, where(c, c.emit(OpKind::Lt, {c.x(0), c.num(0.0, c.x(0))}), neg(c, g), g));
}
// The mask reads the output (y <= 0 exactly where x <= 0: relu keeps NaN and -0.0), so the
// forward needs to keep only y: then the optimizer may fold the relu into its producer
// (matmul_bias {relu}), and the masked value is a 0-d zero, not a zeros_like tensor. A NaN
// input passes g, as PyTorch's threshold_backward (x <= 0 ? 0 : g).
void gradRelu(Ctx &c) {
  Value *g = c.g(), *y = c.y();
  c.give(0, where(c, c.emit(OpKind::Le, {y, c.num(0.0, y)}), c.num(0.0, g), g));
}
void gradExp(Ctx &c) { c.give(0, mul(c, c.g(), c.y())); }
void gradLog(Ctx &c) { c.give(0, div(c, c.g(), c.x(0))); }
void gradSqrt(Ctx &c) { c.give(0, div(c, c.g(), mul(c, c.y(), c.num(2.0, c.y())))); }
void gradSin(Ctx &c) { c.give(0, mul(c, c.g(), c.emit(OpKind::Cos, {c.x(0)}))); }
void gradCos(Ctx &c) { c.give(0, neg(c, mul(c, c.g(), c.emit(OpKind::Sin, {c.x(0)})))); }
void gradLog1p(Ctx &c) { c.give(0, div(c, c.g(), add(c, c.x(0), c.num(1.0, c.x(0))))); }
/// erf'(x) = 2 / sqrt(pi) * exp(-x^2).
void gradErf(Ctx &c) {
  Value *x = c.x(0);
  Value *e = c.emit(OpKind::Exp, {neg(c, mul(c, x, x))});
  c.give(0, mul(c, c.g(), mul(c, c.num(M_2_SQRTPI, x), e)));
}
/// gelu(x) = x * Phi(x): gelu'(x) = Phi(x) + x * phi(x), the normal distribution's cdf
/// Phi(x) = (1 + erf(x / sqrt(2))) / 2 and density phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
void gradGelu(Ctx &c) {
  Value *x = c.x(0);
  Value *erf = c.emit(OpKind::Erf, {mul(c, x, c.num(M_SQRT1_2, x))});
  Value *cdf = mul(c, c.num(0.5, x), add(c, c.num(1.0, x), erf));
  Value *density = c.emit(OpKind::Exp, {mul(c, c.num(-0.5, x), mul(c, x, x))});
  Value *pdf = mul(c, c.num(0.5 * M_2_SQRTPI * M_SQRT1_2, x), density);
  c.give(0, mul(c, c.g(), add(c, cdf, mul(c, x, pdf))));
}
void gradTanh(Ctx &c) {
  Value *y = c.y();
  c.give(0, mul(c, c.g(), sub(c, c.num(1.0, y), mul(c, y, y))));
}
void gradSigmoid(Ctx &c) {
  Value *y = c.y();
  c.give(0, mul(c, c.g(), mul(c, y, sub(c, c.num(1.0, y), y))));
}
void gradWhere(Ctx &c) {
  Value *cond = c.x(0), *g = c.g();
  if (c.needs(1))
    c.give(1, where(c, cond, g, zeroLike(c, g)));
  if (c.needs(2))
    c.give(2, where(c, cond, zeroLike(c, g), g));
}
void gradClip(Ctx &c) {
  Value *x = c.x(0), *lo = c.x(1), *hi = c.x(2), *g = c.g(), *z = zeroLike(c, g);
  Value *below = c.emit(OpKind::Lt, {x, lo}), *above = c.emit(OpKind::Gt, {x, hi});
  if (c.needs(0))
    c.give(0, where(c, below, z, where(c, above, z, g)));
  if (c.needs(1))
    c.give(1, where(c, below, g, z));
  if (c.needs(2))
    c.give(2, where(c, above, g, z));
}
void gradCast(Ctx &c) {
  const Type &t = c.forwardOp().operands[0]->type;
  c.give(0, c.emit(OpKind::Cast, {c.g()}, attr("dtype", t.dtype())));
}
void gradIdentity(Ctx &c) { c.give(0, c.g()); }

void gradSum(Ctx &c) {
  const Type &x = c.forwardOp().operands[0]->type;
  c.give(0, broadcastLike(c, unreduce(c, c.g(), x), 0));
}
void gradMean(Ctx &c) {
  const Type &x = c.forwardOp().operands[0]->type;
  Value *g = unreduce(c, c.g(), x);
  if (!staticShape(x))
    g = div(c, g, reducedCount(c, c.x(0)));
  else {
    int64_t count = 1;
    for (int64_t a : reducedAxes(c, x))
      count *= x.shape()[size_t(a)].size();
    g = mul(c, g, c.num(1.0 / double(count), g));
  }
  c.give(0, broadcastLike(c, g, 0));
}
void gradLogsumexp(Ctx &c) {
  Value *x = c.x(0);
  Value *g = unreduce(c, c.g(), x->type), *y = unreduce(c, c.y(), x->type);
  c.give(0, mul(c, g, c.emit(OpKind::Exp, {sub(c, x, y)})));
}
void gradNorm(Ctx &c) {
  Value *x = c.x(0);
  Value *g = unreduce(c, c.g(), x->type), *y = unreduce(c, c.y(), x->type);
  c.give(0, mul(c, g, div(c, x, y)));
}
/// max/min over axes: split evenly between ties (as torch.amax).
void gradMaxMin(Ctx &c) {
  Value *x = c.x(0);
  Value *y = unreduce(c, c.y(), x->type), *g = unreduce(c, c.g(), x->type);
  Value *hit = c.emit(OpKind::Cast, {c.emit(OpKind::Eq, {x, y})}, attr("dtype", x->type.dtype()));
  Attrs a;
  a["axes"] = reducedAxes(c, x->type);
  a["keepdims"] = true;
  Value *count = c.emit(OpKind::Sum, {hit}, a);
  c.give(0, mul(c, hit, div(c, g, count)));
}

void gradMatmul(Ctx &c) {
  Value *a = c.x(0), *b = c.x(1), *g = c.g();
  bool vecA = a->type.rank() == 1, vecB = b->type.rank() == 1;
  if (vecA && vecB) {
    if (c.needs(0))
      c.give(0, mul(c, g, b));
    if (c.needs(1))
      c.give(1, mul(c, g, a));
    return;
  }
  Value *A = vecA ? c.emit(OpKind::ExpandDims, {a}, attr("axis", int64_t(0))) : a;
  Value *B = vecB ? c.emit(OpKind::ExpandDims, {b}, attr("axis", int64_t(1))) : b;
  Value *G = g;
  if (vecB)
    G = c.emit(OpKind::ExpandDims, {G}, attr("axis", int64_t(G->type.rank())));
  if (vecA)
    G = c.emit(OpKind::ExpandDims, {G}, attr("axis", int64_t(G->type.rank()) - 1));
  if (c.needs(0)) {
    Value *ga = c.emit(OpKind::Matmul, {G, matrixTranspose(c, B)});
    if (vecA)
      ga = c.emit(OpKind::Squeeze, {ga}, attr("axis", int64_t(ga->type.rank()) - 2));
    c.give(0, ga);
  }
  if (c.needs(1)) {
    Value *gb = c.emit(OpKind::Matmul, {matrixTranspose(c, A), G});
    if (vecB)
      gb = c.emit(OpKind::Squeeze, {gb}, attr("axis", int64_t(gb->type.rank()) - 1));
    c.give(1, gb);
  }
}
void gradDot(Ctx &c) {
  if (c.needs(0))
    c.give(0, mul(c, c.g(), c.x(1)));
  if (c.needs(1))
    c.give(1, mul(c, c.g(), c.x(0)));
}

/// reshape back to the operand's shape; its run-time dims become trailing operands.
void gradReshape(Ctx &c) {
  Value *x = c.x(0);
  std::vector<Value *> operands{c.g()};
  for (size_t i = 0; i < x->type.rank(); ++i)
    if (x->type.shape()[i].isSymbolic())
      operands.push_back(c.dimSize(x, i));
  c.give(0, c.emitTyped(OpKind::Reshape, operands, attr("shape", x->type.shape()), x->type));
}
void gradTranspose(Ctx &c) {
  size_t r = c.forwardOp().operands[0]->type.rank();
  std::vector<int64_t> perm;
  if (auto it = c.attrs().find("perm"); it != c.attrs().end())
    perm = std::get<std::vector<int64_t>>(it->second);
  if (perm.empty())
    for (size_t i = r; i-- > 0;)
      perm.push_back(int64_t(i));
  std::vector<int64_t> inverse(r);
  for (size_t i = 0; i < r; ++i)
    inverse[size_t(perm[i] < 0 ? perm[i] + int64_t(r) : perm[i])] = int64_t(i);
  c.give(0, c.emit(OpKind::Transpose, {c.g()}, attr("perm", inverse)));
}
void gradExpandDims(Ctx &c) {
  c.give(0, c.emit(OpKind::Squeeze, {c.g()}, attr("axis", c.attrs().at("axis"))));
}
void gradSqueeze(Ctx &c) {
  c.give(0, c.emit(OpKind::ExpandDims, {c.g()}, attr("axis", c.attrs().at("axis"))));
}
void gradBroadcastTo(Ctx &c) { c.give(0, c.g()); }
void gradSumTo(Ctx &c) { c.give(0, broadcastLike(c, c.g(), 0)); }

/// concat: each operand gets its slice of the adjoint (static sizes along the axis).
void gradConcat(Ctx &c) {
  const Type &first = c.forwardOp().operands[0]->type;
  int64_t r = int64_t(first.rank()), axis = std::get<int64_t>(c.attrs().at("axis"));
  if (axis < 0)
    axis += r;
  int64_t offset = 0;
  for (size_t i = 0; i < c.numOperands(); ++i) {
    const Dim &d = c.forwardOp().operands[i]->type.shape()[size_t(axis)];
    if (!d.isStatic())
      return c.unsupported("a run-time sized concatenation axis");
    std::vector<int64_t> begin(size_t(r), 0), end(size_t(r), kSliceToEnd), step(size_t(r), 1);
    begin[size_t(axis)] = offset;
    end[size_t(axis)] = offset + d.size();
    offset += d.size();
    if (!c.needs(i))
      continue;
    Attrs a;
    a["begin"] = begin;
    a["end"] = end;
    a["step"] = step;
    c.give(i, c.emit(OpKind::Slice, {c.g()}, a));
  }
}
void gradStack(Ctx &c) {
  Value *g = c.g();
  for (size_t i = 0; i < c.numOperands(); ++i)
    if (c.needs(i))
      c.give(i, c.emit(OpKind::Index, {g, c.intConst(int64_t(i))},
                       attr("axis", c.attrs().at("axis"))));
}
/// split has one tuple result: its parts' adjoints (zeros where none) concatenated.
void gradSplit(Ctx &c) {
  std::vector<Value *> parts;
  const ssa::Value *r = c.forwardOp().result();
  for (unsigned l = 0, n = unsigned(autodiff::numLeaves(r->type)); l < n; ++l) {
    Value *g = c.reverse.adjoint(c.level, {r, l});
    parts.push_back(g ? g : c.reverse.zerosOf(c.level, r, l, c.forwardOp().loc));
  }
  c.give(0, c.emit(OpKind::Concat, parts, attr("axis", c.attrs().at("axis"))));
}
/// slice / index scatter the adjoint into zeros of the operand's (static) shape.
void gradSlice(Ctx &c) {
  const Type &x = c.forwardOp().operands[0]->type;
  if (!staticShape(x) || c.numOperands() > 1)
    return c.unsupported("a slice of a run-time sized tensor or with run-time bounds");
  Attrs a;
  a["input_shape"] = x.shape();
  for (const char *k : {"begin", "end", "step"})
    a[k] = c.attrs().at(k);
  c.give(0, c.emitTyped(OpKind::SliceGrad, {c.g()}, a, x));
}
void gradSliceGrad(Ctx &c) {
  Attrs a;
  for (const char *k : {"begin", "end", "step"})
    a[k] = c.attrs().at(k);
  c.give(0, c.emit(OpKind::Slice, {c.g()}, a));
}
/// index on a run-time sized tensor: g, put back as a size-1 axis, times a one-hot mask
/// arange(n) == i along that axis (i counted from the end when negative).
void gradIndexDynamic(Ctx &c, const Type &x) {
  int64_t rank = int64_t(x.rank()), axis = std::get<int64_t>(c.attrs().at("axis"));
  if (axis < 0)
    axis += rank;
  Value *xv = c.x(0), *i = c.x(1), *n = c.dimSize(xv, size_t(axis));
  Value *wrapped = where(c, c.emit(OpKind::Lt, {i, c.intConst(0)}), add(c, i, n), i);
  Dim len = x.shape()[size_t(axis)];
  Attrs range;
  range["shape"] = Shape{len};
  range["dtype"] = DType::I64;
  std::vector<Value *> rangeOps;
  if (len.isSymbolic())
    rangeOps.push_back(n);
  Value *hot = c.emitTyped(OpKind::Arange, rangeOps, range, Type::tensor(DType::I64, {len}));
  hot = c.emit(OpKind::Cast, {c.emit(OpKind::Eq, {hot, wrapped})}, attr("dtype", x.dtype()));
  for (int64_t d = axis + 1; d < rank; ++d)
    hot = c.emit(OpKind::ExpandDims, {hot}, attr("axis", int64_t(-1)));
  c.give(0, mul(c, c.emit(OpKind::ExpandDims, {c.g()}, attr("axis", axis)), hot));
}

void gradIndex(Ctx &c) {
  const Type &x = c.forwardOp().operands[0]->type;
  if (!staticShape(x))
    return gradIndexDynamic(c, x);
  Attrs a;
  a["input_shape"] = x.shape();
  a["axis"] = c.attrs().at("axis");
  c.give(0, c.emitTyped(OpKind::IndexGrad, {c.g(), c.x(1)}, a, x));
}
/// index_grad is linear in g: its adjoint takes the same positions back out (a gather when
/// the indices are a tensor, as after gather).
void gradIndexGrad(Ctx &c) {
  const Type &i = c.forwardOp().operands[1]->type;
  OpKind op = i.isTensor() && i.rank() > 0 ? OpKind::Gather : OpKind::Index;
  c.give(0, c.emit(op, {c.g(), c.x(1)}, attr("axis", c.attrs().at("axis"))));
}
/// gather scatters the adjoint back: index_grad adds g's slices at the gathered positions
/// (repeated indices accumulate). The run-time sizes of x's symbolic dims go as operands.
void gradGather(Ctx &c) {
  const Type &x = c.forwardOp().operands[0]->type;
  Attrs a;
  a["input_shape"] = x.shape();
  a["axis"] = c.attrs().at("axis");
  std::vector<Value *> operands{c.g(), c.x(1)};
  for (size_t d = 0; d < x.rank(); ++d)
    if (!x.shape()[d].isStatic())
      operands.push_back(c.dimSize(c.x(0), d));
  c.give(0, c.emitTyped(OpKind::IndexGrad, operands, a, x));
}

void gradSoftmax(Ctx &c) {
  Value *y = c.y(), *g = c.g();
  Attrs a;
  a["axes"] = std::vector<int64_t>{std::get<int64_t>(c.attrs().at("axis"))};
  a["keepdims"] = true;
  Value *dotYG = c.emit(OpKind::Sum, {mul(c, g, y)}, a);
  c.give(0, mul(c, y, sub(c, g, dotYG)));
}
void gradLogSoftmax(Ctx &c) {
  Value *y = c.y(), *g = c.g();
  Attrs a;
  a["axes"] = std::vector<int64_t>{std::get<int64_t>(c.attrs().at("axis"))};
  a["keepdims"] = true;
  c.give(0, sub(c, g, mul(c, c.emit(OpKind::Exp, {y}), c.emit(OpKind::Sum, {g}, a))));
}
void gradCrossEntropy(Ctx &c) {
  c.give(0, c.emit(OpKind::CrossEntropyGrad, {c.x(0), c.x(1), c.g()}));
}
/// mse = mean((a - b)^2).
void gradMse(Ctx &c) {
  Value *d = sub(c, c.x(0), c.x(1));
  Value *count = c.emit(OpKind::Sum, {add(c, zeroLike(c, d), c.num(1.0, d))});
  Value *scale = mul(c, d, div(c, mul(c, c.g(), c.num(2.0, c.g())), count));
  if (c.needs(0))
    c.give(0, scale);
  if (c.needs(1))
    c.give(1, neg(c, scale));
}
/// conv2d computes in its operands' promoted dtype (an i64 or f32 input with an f64 kernel
/// runs in f64; PyTorch would reject the mix), and its helpers take operands of one dtype: the
/// other operand is cast to the result's, and give() casts each gradient back to its operand's.
void gradConv2d(Ctx &c) {
  const Type &x = c.forwardOp().operands[0]->type, &w = c.forwardOp().operands[1]->type;
  if (!staticShape(x) || !staticShape(w))
    return c.unsupported("conv2d on run-time sized tensors");
  DType computed = c.forwardOp().result()->type.dtype();
  Attrs base;
  base["stride"] = c.attrs().count("stride") ? c.attrs().at("stride") : AttrValue(int64_t(1));
  base["padding"] = c.attrs().count("padding") ? c.attrs().at("padding") : AttrValue(int64_t(0));
  if (c.needs(0)) {
    Attrs a = base;
    a["input_shape"] = x.shape();
    c.give(0, c.emitTyped(OpKind::Conv2dGradInput, {c.g(), castTo(c, c.x(1), computed)}, a,
                          Type::tensor(computed, x.shape())));
  }
  if (c.needs(1)) {
    Attrs a = base;
    a["weight_shape"] = w.shape();
    c.give(1, c.emitTyped(OpKind::Conv2dGradWeight, {castTo(c, c.x(0), computed), c.g()}, a,
                          Type::tensor(computed, w.shape())));
  }
}
void gradMaxPool(Ctx &c) {
  c.give(0, c.emit(OpKind::MaxPool2dGrad, {c.x(0), c.g()}, attr("k", c.attrs().at("k"))));
}
void gradAvgPool(Ctx &c) {
  const Type &x = c.forwardOp().operands[0]->type;
  if (!staticShape(x))
    return c.unsupported("avg_pool2d on a run-time sized tensor");
  Attrs a;
  a["k"] = c.attrs().at("k");
  a["input_shape"] = x.shape();
  c.give(0, c.emitTyped(OpKind::AvgPool2dGrad, {c.g()}, a, x));
}
/// avg_pool2d_grad is linear in g: its adjoint is the pooled adjoint.
void gradAvgPoolGrad(Ctx &c) {
  c.give(0, c.emit(OpKind::AvgPool2d, {c.g()}, attr("k", c.attrs().at("k"))));
}
/// dropout: y = x * mask / (1 - p); kept entries are the non-zero outputs.
void gradDropout(Ctx &c) {
  double p = std::get<double>(c.attrs().at("p"));
  Value *g = c.g();
  Value *kept = c.emit(OpKind::Ne, {c.y(), c.num(0.0, c.y())});
  c.give(0, where(c, kept, mul(c, g, c.num(1.0 / (1.0 - p), g)), zeroLike(c, g)));
}
void gradFull(Ctx &c) { c.give(0, c.g()); }
/// allreduce (sum, mean): every rank's result depends on every rank's x, so x's adjoint is
/// the same allreduce of the result adjoints of all ranks (docs/dist.md). max and min have
/// no rule: which rank's value won is not kept.
void gradAllReduce(Ctx &c) {
  const auto &op = std::get<std::string>(c.attrs().at("op"));
  if (op != "sum" && op != "mean")
    return c.unsupported("allreduce with op=\"" + op + "\"");
  c.give(0, c.emit(OpKind::AllReduce, {c.g()}, attr("op", op)));
}
/// broadcast: the root's x reaches every rank, so its adjoint is the sum of all ranks' result
/// adjoints; the other ranks' x reaches nothing (zero).
void gradBroadcast(Ctx &c) {
  Value *sum = c.emit(OpKind::AllReduce, {c.g()}, attr("op", std::string("sum")));
  Value *root = c.intConst(std::get<int64_t>(c.attrs().at("root")));
  Value *isRoot = c.emit(OpKind::Eq, {c.emitTyped(OpKind::Rank, {}, {}, Type::intTy()), root});
  c.give(0, where(c, isRoot, sum, zeroLike(c, sum)));
}

// Stacks (docs/autodiff.md): a stack is a tensor of entries, so its adjoint is one too.
//
// A backward loop reads each saved value with an adjacent pair on its carried stack s:
// `stack_top(s)` then `stack_pop(s)` (or `stack_tail(s, n)` then `stack_drop(s, n)` for a
// nested loop's stack), together one pop with two results. Their adjoints make one push:
// adj s = push(adj pop, adj top). The pop's rule builds it (it is swept first, and every reader
// of the top comes after the pair, so the top's adjoint is complete) and the top's rule then
// gives nothing. Apart, the top's adjoint would be a whole stack of zeros with one entry set,
// and reading s would save every version of it on the outer loop's stack: O(n) per backward
// iteration, so O(n^2) for grad(grad(f)) through an n-iteration loop instead of O(n).

/// The op `delta` places from `op` in its block when it is `kind` on the same operands.
const ssa::Operation *pairedOp(const ssa::Operation &op, ptrdiff_t delta, OpKind kind) {
  const ssa::Block &b = *op.parent;
  size_t j = size_t(ptrdiff_t(indexIn(b, &op)) + delta);
  if (j >= b.ops.size())
    return nullptr;
  const ssa::Operation &o = *b.ops[j];
  bool same = o.kind == ssa::OpKind::Builtin && o.info->kind == kind && o.operands == op.operands;
  return same ? &o : nullptr;
}

/// top/tail of a pair whose pop/drop has an adjoint: the pop's rule gave this one's too.
bool givenByPop(Ctx &c, OpKind pop) {
  const ssa::Operation *p = pairedOp(c.forwardOp(), 1, pop);
  return p && c.reverse.adjoint(c.level, {p->result(), 0});
}

/// pop/drop of a pair: adj s = push/extend(g, adjoint of the top/tail, zeros when none);
/// false when the op has no pair.
bool givePair(Ctx &c, OpKind top, OpKind join) {
  const ssa::Operation *t = pairedOp(c.forwardOp(), -1, top);
  if (!t)
    return false;
  if (!c.needs(0))
    return true;
  Value *gt = c.reverse.adjoint(c.level, {t->result(), 0});
  if (!gt)
    gt = c.reverse.zerosOf(c.level, t->result(), 0, c.forwardOp().loc);
  c.give(0, c.emit(join, {c.g(), gt}));
  return true;
}

/// push(s, x): s's adjoint is the adjoint without its top entry, x's is the top entry. The two
/// reads of g are made as a pair (top, then pop), so a third derivative pairs them too.
void gradStackPush(Ctx &c) {
  Value *g = c.g();
  Value *top = c.needs(1) ? c.emitTyped(OpKind::StackTop, {g}, {}, c.forwardOp().operands[1]->type)
                          : nullptr;
  Value *pop = c.needs(0) ? c.emit(OpKind::StackPop, {g}) : nullptr;
  c.give(0, pop);
  c.give(1, top);
}
/// top(s) on its own: the adjoint of s is zeros with g on top.
void gradStackTop(Ctx &c) {
  if (givenByPop(c, OpKind::StackPop))
    return;
  Value *zeros = c.emit(OpKind::StackPop, {zeroLike(c, c.x(0))});
  c.give(0, c.emit(OpKind::StackPush, {zeros, c.g()}));
}
/// pop(s) on its own: the adjoint of s is g with a zero entry on top.
void gradStackPop(Ctx &c) {
  if (givePair(c, OpKind::StackTop, OpKind::StackPush))
    return;
  Value *top = c.emitTyped(OpKind::StackTop, {c.x(0)}, {}, [&] {
    const Type &s = c.forwardOp().operands[0]->type;
    return Type::tensor(s.dtype(), Shape(s.shape().begin() + 1, s.shape().end()));
  }());
  c.give(0, c.emit(OpKind::StackPush, {c.g(), zeroLike(c, top)}));
}

/// extend(s, t): s's adjoint is g without t's entries, t's is those entries (a pair again).
void gradStackExtend(Ctx &c) {
  Value *g = c.g(), *n = c.dimSize(c.x(1), 0);
  Value *tail = c.needs(1)
                    ? c.emitTyped(OpKind::StackTail, {g, n}, {}, c.forwardOp().operands[1]->type)
                    : nullptr;
  Value *drop = c.needs(0) ? c.emit(OpKind::StackDrop, {g, n}) : nullptr;
  c.give(0, drop);
  c.give(1, tail);
}
/// tail(s, n) / drop(s, n) on their own: zeros for the other part.
void gradStackTail(Ctx &c) {
  if (givenByPop(c, OpKind::StackDrop))
    return;
  Value *zeros = c.emit(OpKind::StackDrop, {zeroLike(c, c.x(0)), c.x(1)});
  c.give(0, c.emit(OpKind::StackExtend, {zeros, c.g()}));
}
void gradStackDrop(Ctx &c) {
  if (givePair(c, OpKind::StackTail, OpKind::StackExtend))
    return;
  Value *zeros = c.emit(OpKind::StackTail, {zeroLike(c, c.x(0)), c.x(1)});
  c.give(0, c.emit(OpKind::StackExtend, {c.g(), zeros}));
}

/// The control-flow primitives are differentiated on the structured program (see above).
void structural(Ctx &c) {
  c.unsupported("control-flow primitives are differentiated structurally, before lowering");
}

struct Rule {
  OpKind op;
  GradRuleFn fn;
};

const Rule kRules[] = {
    {OpKind::Add, gradAdd},
    {OpKind::Sub, gradSub},
    {OpKind::Mul, gradMul},
    {OpKind::Div, gradDiv},
    {OpKind::Pow, gradPow},
    {OpKind::Maximum, gradMaximum},
    {OpKind::Minimum, gradMinimum},
    {OpKind::Floordiv, gradFloordiv},
    {OpKind::Mod, gradMod},
    {OpKind::Neg, gradNeg},
    {OpKind::Abs, gradAbs},
    {OpKind::Relu, gradRelu},
    {OpKind::Exp, gradExp},
    {OpKind::Log, gradLog},
    {OpKind::Sqrt, gradSqrt},
    {OpKind::Sin, gradSin},
    {OpKind::Cos, gradCos},
    {OpKind::Tanh, gradTanh},
    {OpKind::Sigmoid, gradSigmoid},
    {OpKind::Log1p, gradLog1p},
    {OpKind::Erf, gradErf},
    {OpKind::Gelu, gradGelu},
    {OpKind::Where, gradWhere},
    {OpKind::Clip, gradClip},
    {OpKind::Cast, gradCast},
    {OpKind::Identity, gradIdentity},
    {OpKind::After, gradIdentity},
    {OpKind::Sum, gradSum},
    {OpKind::Mean, gradMean},
    {OpKind::Logsumexp, gradLogsumexp},
    {OpKind::Norm, gradNorm},
    {OpKind::Max, gradMaxMin},
    {OpKind::Min, gradMaxMin},
    {OpKind::Matmul, gradMatmul},
    {OpKind::Dot, gradDot},
    {OpKind::Reshape, gradReshape},
    {OpKind::Transpose, gradTranspose},
    {OpKind::Concat, gradConcat},
    {OpKind::Stack, gradStack},
    {OpKind::Split, gradSplit},
    {OpKind::BroadcastTo, gradBroadcastTo},
    {OpKind::Slice, gradSlice},
    {OpKind::Index, gradIndex},
    {OpKind::Gather, gradGather},
    {OpKind::ExpandDims, gradExpandDims},
    {OpKind::Squeeze, gradSqueeze},
    {OpKind::SumTo, gradSumTo},
    {OpKind::Softmax, gradSoftmax},
    {OpKind::LogSoftmax, gradLogSoftmax},
    {OpKind::CrossEntropy, gradCrossEntropy},
    {OpKind::Mse, gradMse},
    {OpKind::Conv2d, gradConv2d},
    {OpKind::MaxPool2d, gradMaxPool},
    {OpKind::AvgPool2d, gradAvgPool},
    {OpKind::Dropout, gradDropout},
    {OpKind::Full, gradFull},
    {OpKind::AllReduce, gradAllReduce},
    {OpKind::Broadcast, gradBroadcast},
    {OpKind::SliceGrad, gradSliceGrad},
    {OpKind::IndexGrad, gradIndexGrad},
    {OpKind::AvgPool2dGrad, gradAvgPoolGrad},
    {OpKind::StackPush, gradStackPush},
    {OpKind::StackTop, gradStackTop},
    {OpKind::StackPop, gradStackPop},
    {OpKind::StackExtend, gradStackExtend},
    {OpKind::StackTail, gradStackTail},
    {OpKind::StackDrop, gradStackDrop},
    {OpKind::Switch, structural},
    {OpKind::Merge, structural},
    {OpKind::Enter, structural},
    {OpKind::Exit, structural},
    {OpKind::NextIteration, structural},
};

} // namespace

void registerGradRules() {
  static std::once_flag once;
  std::call_once(once, [] {
    OpRegistry &registry = OpRegistry::get();
    for (const Rule &r : kRules) {
      OpInfo &info = registry.infoMutable(r.op);
      assert(info.differentiable && "a gradient rule for an op the table marks NotDifferentiable");
      info.grad = r.fn;
    }
  });
}

} // namespace autodiff
} // namespace dlm
