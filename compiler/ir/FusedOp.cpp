//===- compiler/ir/FusedOp.cpp - The `fused` op: registry entry, type rule ===//
#include "compiler/ir/FusedOp.h"

#include "compiler/ir/OpRegistry.h"

#include <mutex>

namespace dlm {

namespace {

/// Whether st's op is a registry elementwise op without attributes, of st's arity.
bool isStatementOp(const FusedStatement &st) {
  const OpInfo *info = OpRegistry::get().lookup(st.op);
  return info && info->elementwise && info->attrs.empty() &&
         st.operands.size() == info->operands.size();
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

} // namespace

std::optional<std::vector<FusedStatement>> parseFusedBody(std::string_view body, size_t numInputs) {
  auto statements = rt::parseFusedStatements(body, numInputs);
  if (!statements)
    return std::nullopt;
  for (const FusedStatement &st : *statements)
    if (!isStatementOp(st))
      return std::nullopt;
  return statements;
}

std::string printFusedBody(const std::vector<FusedStatement> &body, size_t numInputs) {
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (i)
      out += "; ";
    out += "%" + std::to_string(numInputs + i) + " = " + body[i].op + "(";
    for (size_t k = 0; k < body[i].operands.size(); ++k)
      out += (k ? ", %" : "%") + std::to_string(body[i].operands[k]);
    out += ") : " + std::string(dtypeName(body[i].dtype));
  }
  return out;
}

void registerFusedOp() {
  static std::once_flag once;
  std::call_once(once, [] {
    OpInfo info;
    info.name = "fused";
    info.operands = {"inputs"};
    info.variadic = true;
    info.attrs = {{"body", AttrKind::Str}};
    info.infer = inferFused;
    info.differentiable = false;
    info.elementwise = true;
    OpRegistry::get().add(std::move(info));
  });
}

} // namespace dlm
