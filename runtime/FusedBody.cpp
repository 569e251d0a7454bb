//===- runtime/FusedBody.cpp - Parsing a `fused` body ----------------------===//
#include "runtime/FusedBody.h"

#include <cctype>
#include <charconv>

namespace dlm::rt {

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
  return st;
}

} // namespace

std::optional<std::vector<FusedStatement>> parseFusedStatements(std::string_view body,
                                                                size_t numInputs) {
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

} // namespace dlm::rt
