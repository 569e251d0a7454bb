//===- compiler/ir/GraphOps.cpp - Registry entries of the graph-only ops --===//
//
// The control-flow primitives of the graph IR are ordinary registry entries (docs/ops.md
// "control flow (graph only)"), so the parser, the verifier, the executor's kernel table and
// autodiff's gradient slot treat them like any other op. Their type rules pass the data type
// through; docs/ir.md gives their semantics. `Identity` (the pivot control edges hang from inside
// a branch or loop body) is the one graph-only helper lowering adds.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/OpRegistry.h"

namespace dlm {
namespace {

bool isBoolScalar(const Type &t) {
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

/// zeros_like(x): zeros of x's type (autodiff's materialised symbolic zero).
Type inferZerosLike(InferContext &ctx) { return ctx.operand(0); }

/// The shape of a stack of `element`s: a leading dim for the entries (docs/autodiff.md).
Type stackOf(InferContext &ctx, DType dtype, const Shape &element) {
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

OpInfo entry(const char *name, std::vector<std::string> operands, InferFn infer) {
  OpInfo info;
  info.name = name;
  info.operands = std::move(operands);
  info.infer = infer;
  return info;
}

} // namespace

void registerGraphOps(OpRegistry &registry) {
  registry.add(entry("Switch", {"data", "pred"}, inferSwitch));
  OpInfo merge = entry("Merge", {"inputs"}, inferMerge);
  merge.variadic = true;
  registry.add(std::move(merge));
  OpInfo enter = entry("Enter", {"x"}, inferPassThrough);
  enter.attrs = {{"is_constant", AttrKind::Bool}};
  registry.add(std::move(enter));
  registry.add(entry("Exit", {"x"}, inferPassThrough));
  registry.add(entry("NextIteration", {"x"}, inferPassThrough));
  OpInfo loopCond = entry("LoopCond", {"pred"}, inferLoopCond);
  loopCond.differentiable = false;
  registry.add(std::move(loopCond));
  registry.add(entry("Identity", {"x"}, inferPassThrough));

  // The device transfer pair the placement pass inserts on a data edge between devices
  // (docs/cuda.md "Placement"): Send runs on the producer's device and copies x to device `to`;
  // Recv runs on the consumer's device and hands the copy to its users. Send feeds only Recv.
  OpInfo send = entry("Send", {"x"}, inferPassThrough);
  send.attrs = {{"to", AttrKind::Str}};
  send.differentiable = false;
  registry.add(std::move(send));
  OpInfo recv = entry("Recv", {"x"}, inferPassThrough);
  recv.attrs = {{"from", AttrKind::Str}};
  recv.differentiable = false;
  registry.add(std::move(recv));

  // Ops the autodiff stage adds (docs/autodiff.md): materialised zeros and the stacks on which
  // a forward loop saves what its backward loop reads. Their gradient rules live in
  // compiler/autodiff/GradRules.cpp.
  OpInfo zerosLike = entry("zeros_like", {"x"}, inferZerosLike);
  zerosLike.differentiable = false;
  registry.add(std::move(zerosLike));
  OpInfo stackNew = entry("stack_new", {}, inferStackNew);
  stackNew.attrs = {{"dtype", AttrKind::DType}, {"rank", AttrKind::Int}};
  stackNew.differentiable = false;
  registry.add(std::move(stackNew));
  registry.add(entry("stack_push", {"stack", "x"}, inferStackPush));
  registry.add(entry("stack_top", {"stack"}, inferStackTop));
  registry.add(entry("stack_pop", {"stack"}, inferStackPop));
  registry.add(entry("stack_extend", {"stack", "entries"}, inferStackExtend));
  registry.add(entry("stack_tail", {"stack", "n"}, inferStackSplit));
  registry.add(entry("stack_drop", {"stack", "n"}, inferStackSplit));
  // after(x, token): x, once token exists. A checkpointed call's recomputation starts from its
  // arguments passed through `after` the adjoint of its result, so it runs in the backward pass
  // rather than as soon as the arguments exist; no pass looks through it.
  registry.add(entry("after", {"x", "token"}, inferPassThrough));

  // The arguments and results of an entry graph: a def compiled for a host program to call
  // (docs/embedding.md). `arg` reads the caller's argument `index`; `retval` hands a value back
  // as result `index` (a side effect: it is never dead code).
  OpInfo arg = entry("arg", {}, inferArg);
  arg.attrs = {{"index", AttrKind::Int}, {"dtype", AttrKind::DType}, {"shape", AttrKind::Shape}};
  arg.differentiable = false;
  registry.add(std::move(arg));
  OpInfo retval = entry("retval", {"x"}, inferRetval);
  retval.attrs = {{"index", AttrKind::Int}};
  retval.differentiable = false;
  retval.sideEffects = true;
  registry.add(std::move(retval));
}

} // namespace dlm
