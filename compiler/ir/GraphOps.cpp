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
  return t.kind() == Type::Kind::Bool || (t.isTensor() && t.dtype() == DType::Bool && t.rank() == 0);
}

Type inferPassThrough(InferContext &ctx) { return ctx.operand(0); }

Type inferSwitch(InferContext &ctx) {
  if (!isBoolScalar(ctx.operand(1)))
    return ctx.fail("Switch: the predicate must be a bool scalar, found " + ctx.operand(1).str(), 1);
  return Type::tuple({ctx.operand(0), ctx.operand(0)});
}

Type inferMerge(InferContext &ctx) {
  if (ctx.operands.empty())
    return ctx.fail("Merge: needs at least one input");
  return ctx.operand(0);
}

Type inferLoopCond(InferContext &ctx) {
  if (!isBoolScalar(ctx.operand(0)))
    return ctx.fail("LoopCond: the predicate must be a bool scalar, found " + ctx.operand(0).str(), 0);
  return ctx.operand(0);
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
}

} // namespace dlm
