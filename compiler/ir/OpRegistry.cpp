//===- compiler/ir/OpRegistry.cpp - The op table and its lookups -----------===//
//
// Storage and lookup for op entries, attribute printing and the attribute accessors type rules
// use. The entries come from ops/Ops.def (fillOpEntries, Ops.cpp).
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/OpRegistry.h"
#include "compiler/ir/OpRules.h"

#include <cassert>
#include <charconv>

namespace dlm {

namespace {
std::string floatStr(double v) {
  // The shortest text that reads back exactly (std::to_chars), always marked as a float.
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, ec == std::errc() ? end : buf);
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s;
}

template <typename T, typename F> std::string listStr(const std::vector<T> &xs, F each) {
  std::string out = "[";
  for (size_t i = 0; i < xs.size(); ++i)
    out += (i ? ", " : "") + each(xs[i]);
  return out + "]";
}
} // namespace

std::string attrStr(const AttrValue &v) {
  if (auto *i = std::get_if<int64_t>(&v))
    return std::to_string(*i);
  if (auto *d = std::get_if<double>(&v))
    return floatStr(*d);
  if (auto *b = std::get_if<bool>(&v))
    return *b ? "true" : "false";
  if (auto *s = std::get_if<std::string>(&v)) {
    std::string out = "\"";
    for (char c : *s) {
      if (c == '"' || c == '\\')
        out += '\\';
      if (c == '\n') {
        out += "\\n";
        continue;
      }
      out += c;
    }
    return out + "\"";
  }
  if (auto *is = std::get_if<std::vector<int64_t>>(&v))
    return listStr(*is, [](int64_t x) { return std::to_string(x); });
  if (auto *ds = std::get_if<std::vector<double>>(&v))
    return listStr(*ds, floatStr);
  if (auto *t = std::get_if<DType>(&v))
    return std::string(dtypeName(*t));
  if (auto *ts = std::get_if<std::vector<DType>>(&v))
    return listStr(*ts, [](DType t) { return std::string(dtypeName(t)); });
  if (auto *s = std::get_if<Shape>(&v))
    return shapeStr(*s);
  return listStr(std::get<std::vector<Shape>>(v), shapeStr);
}

int64_t InferContext::intAttr(const std::string &name, int64_t otherwise) const {
  auto it = attrs.find(name);
  if (it == attrs.end())
    return otherwise;
  if (auto *i = std::get_if<int64_t>(&it->second))
    return *i;
  return otherwise;
}

bool InferContext::boolAttr(const std::string &name, bool otherwise) const {
  auto it = attrs.find(name);
  if (it == attrs.end())
    return otherwise;
  if (auto *b = std::get_if<bool>(&it->second))
    return *b;
  return otherwise;
}

const std::vector<int64_t> *InferContext::intsAttr(const std::string &name) const {
  auto it = attrs.find(name);
  return it == attrs.end() ? nullptr : std::get_if<std::vector<int64_t>>(&it->second);
}

const Shape *InferContext::shapeAttr(const std::string &name) const {
  auto it = attrs.find(name);
  return it == attrs.end() ? nullptr : std::get_if<Shape>(&it->second);
}

DType InferContext::dtypeAttr(const std::string &name, DType otherwise) const {
  auto it = attrs.find(name);
  if (it == attrs.end())
    return otherwise;
  if (auto *t = std::get_if<DType>(&it->second))
    return *t;
  return otherwise;
}

const AttrSpec *OpInfo::findAttr(std::string_view attr) const {
  for (const AttrSpec &a : attrs)
    if (a.name == attr)
      return &a;
  return nullptr;
}

OpRegistry::OpRegistry() : ops_(kNumOpKinds) { fillOpEntries(ops_); }

OpRegistry &OpRegistry::get() {
  static OpRegistry registry;
  return registry;
}

const OpInfo *OpRegistry::lookup(std::string_view name) const {
  std::optional<OpKind> kind = opKindNamed(name);
  return kind ? &ops_[size_t(*kind)] : nullptr;
}

std::vector<const OpInfo *> OpRegistry::all() const {
  std::vector<const OpInfo *> out;
  for (OpKind k : optable::kByName)
    out.push_back(&ops_[size_t(k)]);
  return out;
}

Type OpRegistry::infer(const OpInfo &op, const std::vector<Type> &operands, const Attrs &attrs,
                       DimContext &dims, std::string &error, int &culprit) const {
  InferContext ctx{operands, attrs, dims, {}, -1};
  Type t = op.infer(ctx);
  error = ctx.error;
  culprit = ctx.culprit;
  return t;
}

} // namespace dlm
