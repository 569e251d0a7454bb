//===- runtime/FusedBody.h - The body of a `fused` node -------------------===//
//
// `fused(x0, x1, ...) {body = "..."}` (compiler/ir/FusedOp.h, docs/ir.md "fused") computes a
// chain of elementwise ops in one node. Its body is a small expression in SSA form over the
// node's inputs:
//
//   body  := stmt ('; ' stmt)*
//   stmt  := '%'K ' = ' OP '(' '%'I (', ' '%'I)* ')' ' : ' DTYPE
//
// %0 .. %(n-1) are the inputs; statements number on from %n and read only inputs and earlier
// statements; the last statement is the result. This header is the syntax, shared by the
// compiler (which also checks every OP against its op registry) and the runtime's `fused`
// kernel (kernels/cpu/Fused.cpp), which interprets a body op by op with the ordinary kernels —
// the graph executor's implementation, and generated code's fallback for a body it does not
// emit inline, so AOT executables, which link only the runtime, have it too.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_FUSEDBODY_H
#define DLM_RUNTIME_FUSEDBODY_H

#include "ops/OpKind.h"
#include "runtime/DType.h"

#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlm::rt {

struct FusedStatement {
  OpKind op = OpKind::Add;
  std::vector<unsigned> operands; ///< value numbers: inputs first, then statements
  DType dtype = DType::F32;
};

// The parser's pieces; inline, so that compiler/ir checks bodies without linking the runtime.
namespace fusedbody {

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

inline std::optional<FusedStatement> parseStatement(Reader &r, unsigned number) {
  std::optional<unsigned> defined = r.value();
  if (!defined || *defined != number || !r.eat(" = "))
    return std::nullopt;
  FusedStatement st;
  std::optional<OpKind> op = opKindNamed(r.word());
  if (!op || !r.eat("("))
    return std::nullopt;
  st.op = *op;
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
  return st;
}

} // namespace fusedbody

/// Parses a body over `numInputs` inputs (syntax, numbering and op names: what the op may be
/// is the compiler's check); nullopt when it is malformed.
inline std::optional<std::vector<FusedStatement>> parseFusedStatements(std::string_view body,
                                                                       size_t numInputs) {
  using fusedbody::Reader;
  Reader r{body};
  std::vector<FusedStatement> statements;
  do {
    auto st = fusedbody::parseStatement(r, static_cast<unsigned>(numInputs + statements.size()));
    if (!st)
      return std::nullopt;
    statements.push_back(std::move(*st));
  } while (r.eat("; "));
  if (!r.s.empty())
    return std::nullopt;
  return statements;
}

} // namespace dlm::rt

#endif // DLM_RUNTIME_FUSEDBODY_H
