//===- compiler/opt/FusedOp.cpp - The `fused` op: syntax, type rule, kernel ===//
#include "compiler/opt/FusedOp.h"

#include "compiler/ir/OpRegistry.h"
#include "runtime/Kernel.h"

#include <cctype>
#include <charconv>
#include <mutex>

namespace dlm::opt {

namespace {

/// A cursor over the body text.
struct Reader {
  std::string_view s;
  bool eat(std::string_view t) {
    if (!s.starts_with(t))
      return false;
    s.remove_prefix(t.size());
    return true;
  }
  std::optional<unsigned> value() {
    unsigned v = 0;
    if (!eat("%"))
      return std::nullopt;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc())
      return std::nullopt;
    s.remove_prefix(end - s.data());
    return v;
  }
  std::string_view word() {
    size_t n = 0;
    while (n < s.size() && (std::isalnum(static_cast<unsigned char>(s[n])) || s[n] == '_'))
      ++n;
    std::string_view w = s.substr(0, n);
    s.remove_prefix(n);
    return w;
  }
};

std::optional<FusedStatement> parseStatement(Reader &r, unsigned number) {
  std::optional<unsigned> defined = r.value();
  if (!defined || *defined != number || !r.eat(" = "))
    return std::nullopt;
  FusedStatement st;
  st.op = std::string(r.word());
  if (st.op.empty() || !r.eat("("))
    return std::nullopt;
  do {
    std::optional<unsigned> v = r.value();
    if (!v || *v >= number)
      return std::nullopt;
    st.operands.push_back(*v);
  } while (r.eat(", "));
  std::optional<DType> dtype;
  if (!r.eat(") : ") || !(dtype = parseDType(r.word())))
    return std::nullopt;
  st.dtype = *dtype;
  const OpInfo *info = OpRegistry::get().lookup(st.op);
  if (!info || !info->elementwise || !info->attrs.empty() || st.operands.size() != info->operands.size())
    return std::nullopt;
  return st;
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
      return ctx.fail("fused: operand " + std::to_string(i) + " is not a tensor", static_cast<int>(i));
    std::optional<Shape> b = broadcastShapes(shape, t.isTensor() ? t.shape() : Shape{}, ctx.dims);
    if (!b)
      return ctx.fail("fused: operands do not broadcast", static_cast<int>(i));
    shape = *b;
  }
  return Type::tensor(statements->back().dtype, shape);
}

/// The executor's kernel: evaluates the statements in order with the ordinary kernels.
void fusedKernel(std::span<const rt::Value> inputs, const rt::Attrs &attrs,
                 std::vector<rt::Value> &outputs) {
  const std::string &body = attrs.getString("body");
  auto statements = parseFusedBody(body, inputs.size());
  if (!statements || statements->empty())
    throw rt::Error("fused: malformed body '" + body + "'");
  std::vector<rt::Value> values(inputs.begin(), inputs.end());
  for (const FusedStatement &st : *statements) {
    std::vector<rt::Value> args;
    for (unsigned v : st.operands)
      args.push_back(values[v]);
    values.push_back(rt::run(st.op, std::move(args)));
  }
  outputs.push_back(values.back());
}

} // namespace

std::optional<std::vector<FusedStatement>> parseFusedBody(std::string_view body, size_t numInputs) {
  Reader r{body};
  std::vector<FusedStatement> statements;
  do {
    auto st = parseStatement(r, static_cast<unsigned>(numInputs + statements.size()));
    if (!st)
      return std::nullopt;
    statements.push_back(std::move(*st));
  } while (r.eat("; "));
  if (!r.s.empty())
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
    rt::registerKernel("fused", rt::Device::CPU, fusedKernel);
  });
}

} // namespace dlm::opt
