//===- compiler/ir/GraphOps.cpp - Type rules of the graph-only ops --------===//
//
// The control-flow primitives of the graph IR are ordinary rows of the op table (docs/ops.md
// "control flow (graph only)"), so the parser, the verifier, the executor's kernel table and
// autodiff's gradient slot treat them like any other op. Their type rules pass the data type
// through; docs/ir.md gives their semantics. Here too: the rules of the ops autodiff adds
// (zeros_like, the stacks, after) and of the optimizer's `fused`.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/FusedOp.h"
#include "compiler/ir/OpRules.h"

namespace dlm {
namespace oprules {

static bool isBoolScalar(const Type &t) {
  return t.kind() == Type::Kind::Bool ||
         (t.isTensor() && t.dtype() == DType::Bool && t.rank() == 0);
}

Type inferPassThrough(InferContext &ctx) { return ctx.operand(0); }

Type inferSwitch(InferContext &ctx) {
  if (!isBoolScalar(ctx.operand(1)))
    return ctx.fail("Switch: the predicate must be a bool scalar, found " + ctx.operand(1).str(),
                    1);
  return Type::tuple({ctx.operand(0), ctx.operand(0)});
}

Type inferMerge(InferContext &ctx) {
  if (ctx.operands.empty())
    return ctx.fail("Merge: needs at least one input");
  return ctx.operand(0);
}

Type inferLoopCond(InferContext &ctx) {
  if (!isBoolScalar(ctx.operand(0)))
    return ctx.fail("LoopCond: the predicate must be a bool scalar, found " + ctx.operand(0).str(),
                    0);
  return ctx.operand(0);
}

/// arg{index, dtype, shape}: the entry's argument `index`, of the type its attributes give (a
/// 0-d shape for a scalar).
Type inferArg(InferContext &ctx) {
  const Shape *shape = ctx.shapeAttr("shape");
  return Type::tensor(ctx.dtypeAttr("dtype"), shape ? *shape : Shape{});
}

/// retval{index}(x): hands x to the caller as result `index`; no value in the graph.
Type inferRetval(InferContext &ctx) {
  const Type &x = ctx.operand(0);
  if (!x.isTensor() && !x.isNumericScalar())
    return ctx.fail("retval: expected a tensor or a number, found " + x.str(), 0);
  return Type::none();
}

/// The shape of a stack of `element`s: a leading dim for the entries (docs/autodiff.md).
static Type stackOf(InferContext &ctx, DType dtype, const Shape &element) {
  Shape s{ctx.dims.fresh()};
  s.insert(s.end(), element.begin(), element.end());
  return Type::tensor(dtype, s);
}

/// stack_new{dtype, rank}: an empty stack whose entries have `rank` dims.
Type inferStackNew(InferContext &ctx) {
  Shape element;
  for (int64_t i = 0; i < ctx.intAttr("rank"); ++i)
    element.push_back(ctx.dims.fresh());
  return stackOf(ctx, ctx.dtypeAttr("dtype"), element);
}

/// stack_push(s, x): s with x on top.
Type inferStackPush(InferContext &ctx) {
  const Type &s = ctx.operand(0), &x = ctx.operand(1);
  if (!s.isTensor() || s.rank() != (x.isTensor() ? x.rank() : 0) + 1)
    return ctx.fail("stack_push: " + s.str() + " is not a stack of " + x.str(), 0);
  return stackOf(ctx, s.dtype(), x.isTensor() ? x.shape() : Shape{});
}

/// stack_top(s): the top entry; stack_pop(s): s without it.
Type inferStackTop(InferContext &ctx) {
  const Type &s = ctx.operand(0);
  if (!s.isTensor() || s.rank() == 0)
    return ctx.fail("stack_top: expected a stack, found " + s.str(), 0);
  return Type::tensor(s.dtype(), Shape(s.shape().begin() + 1, s.shape().end()));
}

Type inferStackPop(InferContext &ctx) {
  const Type &s = ctx.operand(0);
  if (!s.isTensor() || s.rank() == 0)
    return ctx.fail("stack_pop: expected a stack, found " + s.str(), 0);
  return stackOf(ctx, s.dtype(), Shape(s.shape().begin() + 1, s.shape().end()));
}

/// stack_extend(s, t): s with t's entries on top; stack_tail(s, n) / stack_drop(s, n): the top
/// n entries / the rest. A stack of a nested loop travels on the outer loop's stack this way.
Type inferStackExtend(InferContext &ctx) {
  const Type &s = ctx.operand(0), &t = ctx.operand(1);
  if (!s.isTensor() || !t.isTensor() || s.rank() != t.rank() || s.rank() == 0)
    return ctx.fail("stack_extend: " + s.str() + " and " + t.str() + " are not stacks of one kind",
                    1);
  return stackOf(ctx, s.dtype(), Shape(t.shape().begin() + 1, t.shape().end()));
}

Type inferStackSplit(InferContext &ctx) {
  const Type &s = ctx.operand(0);
  if (!s.isTensor() || s.rank() == 0)
    return ctx.fail("expected a stack, found " + s.str(), 0);
  return stackOf(ctx, s.dtype(), Shape(s.shape().begin() + 1, s.shape().end()));
}

/// The broadcast of every operand's shape, with the last statement's dtype.
Type inferFused(InferContext &ctx) {
  const std::string *body = std::get_if<std::string>(&ctx.attrs.at("body"));
  auto statements = body ? parseFusedBody(*body, ctx.operands.size()) : std::nullopt;
  if (!statements || statements->empty())
    return ctx.fail("fused: malformed body");
  Shape shape;
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    const Type &t = ctx.operand(i);
    if (!t.isTensor() && !t.isNumericScalar())
      return ctx.fail("fused: operand " + std::to_string(i) + " is not a tensor",
                      static_cast<int>(i));
    std::optional<Shape> b = broadcastShapes(shape, t.isTensor() ? t.shape() : Shape{}, ctx.dims);
    if (!b)
      return ctx.fail("fused: operands do not broadcast", static_cast<int>(i));
    shape = *b;
  }
  return Type::tensor(statements->back().dtype, shape);
}

} // namespace oprules

namespace {
/// Whether st's op is an elementwise op without attributes, of st's arity.
bool isStatementOp(const rt::FusedStatement &st) {
  const OpInfo &info = opInfo(st.op);
  return info.elementwise && info.attrs.empty() && st.operands.size() == info.operands.size();
}
} // namespace

std::optional<std::vector<rt::FusedStatement>> parseFusedBody(std::string_view body,
                                                              size_t numInputs) {
  auto statements = rt::parseFusedStatements(body, numInputs);
  if (!statements)
    return std::nullopt;
  for (const rt::FusedStatement &st : *statements)
    if (!isStatementOp(st))
      return std::nullopt;
  return statements;
}

} // namespace dlm
