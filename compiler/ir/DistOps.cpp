//===- compiler/ir/DistOps.cpp - Type rules of the collectives -------------===//
//
// The rules of docs/ops.md's collective rows (docs/dist.md): rank() and world_size() are ints;
// allreduce and broadcast keep their operand's type; allgather concatenates along dim 0, whose
// total only the run knows.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/OpRules.h"

namespace dlm::oprules {

namespace {

/// The dtype of a tensor or language scalar.
DType elementDType(const Type &t) {
  if (t.isTensor())
    return t.dtype();
  return t.kind() == Type::Kind::Float ? DType::F64
         : t.kind() == Type::Kind::Int ? DType::I64
                                       : DType::Bool;
}

} // namespace

/// rank() and world_size(): ints.
Type inferRank(InferContext &) { return Type::intTy(); }

/// allreduce{op}(x): x's type, for numbers; op "mean" needs floats.
Type inferAllReduce(InferContext &ctx) {
  auto it = ctx.attrs.find("op");
  const std::string *op = it == ctx.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
  if (!op || (*op != "sum" && *op != "mean" && *op != "max" && *op != "min"))
    return ctx.fail("allreduce: op must be \"sum\", \"mean\", \"max\" or \"min\", found " +
                    (it == ctx.attrs.end() ? std::string("none") : attrStr(it->second)));
  if (!checkNumeric(ctx))
    return Type::error();
  const Type &x = ctx.operand(0);
  DType dt = elementDType(x);
  if (dt == DType::Bool)
    return ctx.fail("allreduce of bool values (" + x.str() + "); cast them to int first", 0);
  if (*op == "mean" && !isFloat(dt))
    return ctx.fail("allreduce with op=\"mean\" needs float values, found " + x.str(), 0);
  return x;
}

/// broadcast{root}(x): x's type.
Type inferBroadcast(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  if (ctx.intAttr("root", 0) < 0)
    return ctx.fail("broadcast: root must be a rank (>= 0), found " +
                    std::to_string(ctx.intAttr("root", 0)));
  return ctx.operand(0);
}

/// allgather(x): x with dim 0 the sum over the ranks, a run-time size.
Type inferAllGather(InferContext &ctx) {
  if (!checkTensor(ctx, 0))
    return Type::error();
  const Type &x = ctx.operand(0);
  if (x.rank() == 0)
    return ctx.fail(
        "allgather concatenates along dim 0: it needs a tensor of rank >= 1, found " + x.str(), 0);
  Shape s = x.shape();
  s[0] = ctx.dims.fresh();
  return Type::tensor(x.dtype(), s);
}

} // namespace dlm::oprules
