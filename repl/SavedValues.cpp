//===- repl/SavedValues.cpp - Session variables kept as data --------------===//
#include "repl/SavedValues.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdio>
#include <cstring>
#include <vector>

namespace dlm::repl {

namespace {

/// One tensor of a safetensors file written by `save`: its shape and raw data.
struct SavedLeaf {
  std::vector<int64_t> shape;
  std::string bytes;
};

/// The leaves of a file written by `save`, in order ("0", "1", ...); nullopt if unreadable.
std::optional<std::vector<SavedLeaf>> readSaved(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return std::nullopt;
  llvm::StringRef data = (*buffer)->getBuffer();
  if (data.size() < 8)
    return std::nullopt;
  uint64_t headerSize = 0;
  std::memcpy(&headerSize, data.data(), 8);
  llvm::StringRef header = data.substr(8, headerSize);
  llvm::StringRef payload = data.substr(8 + headerSize);
  std::vector<SavedLeaf> leaves;
  for (unsigned i = 0;; ++i) {
    size_t at = header.find("\"" + std::to_string(i) + "\":{");
    if (at == llvm::StringRef::npos)
      break;
    llvm::StringRef rest = header.substr(at);
    SavedLeaf leaf;
    llvm::StringRef shape = rest.substr(rest.find("\"shape\":[") + 9);
    shape = shape.take_until([](char c) { return c == ']'; });
    llvm::SmallVector<llvm::StringRef> dims;
    shape.split(dims, ',', -1, false);
    for (llvm::StringRef d : dims)
      leaf.shape.push_back(std::atoll(d.trim().str().c_str()));
    llvm::StringRef offsets = rest.substr(rest.find("\"data_offsets\":[") + 16);
    uint64_t begin = 0, end = 0;
    auto [b, e] = offsets.take_until([](char c) { return c == ']'; }).split(',');
    b.trim().getAsInteger(10, begin);
    e.trim().getAsInteger(10, end);
    leaf.bytes = payload.substr(begin, end - begin).str();
    leaves.push_back(std::move(leaf));
  }
  return leaves;
}

bool isTensorTree(const Type &type) {
  if (type.isTensor())
    return true;
  if (!type.isTuple() || type.elements().empty())
    return false;
  for (const Type &element : type.elements())
    if (!isTensorTree(element))
      return false;
  return true;
}

/// A `zeros(...)`-like expression with `type`'s structure and the saved leaves' shapes.
bool likeExpr(const Type &type, const std::vector<SavedLeaf> &leaves, size_t &next,
              std::string &out) {
  if (type.isTensor()) {
    if (next >= leaves.size())
      return false;
    out += "zeros((";
    for (int64_t d : leaves[next].shape)
      out += std::to_string(d) + ",";
    out += "), dtype=" + std::string(dtypeName(type.dtype())) + ")";
    ++next;
    return true;
  }
  out += "(";
  for (const Type &element : type.elements()) {
    if (!likeExpr(element, leaves, next, out))
      return false;
    out += ", ";
  }
  out += ")";
  return true;
}

/// The literal of a number or bool saved as a one-element f64 or i64 tensor.
std::optional<std::string> scalarLiteral(const Type &type, const std::string &bytes) {
  if (bytes.size() != 8)
    return std::nullopt;
  if (type.kind() == Type::Kind::Float) {
    double d;
    std::memcpy(&d, bytes.data(), 8);
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.17g", d);
    std::string literal = buffer;
    if (literal.find_first_of(".en") == std::string::npos)
      literal += ".0";
    return literal;
  }
  int64_t n;
  std::memcpy(&n, bytes.data(), 8);
  if (type.kind() == Type::Kind::Bool)
    return std::string(n ? "True" : "False");
  return std::to_string(n);
}

} // namespace

std::string saveStatement(llvm::StringRef name, const Type &type, llvm::StringRef file) {
  std::string target = "save(\"" + file.str() + "\", ";
  if (isTensorTree(type))
    return target + name.str() + ")\n";
  switch (type.kind()) {
  case Type::Kind::Float:
    return target + "full((1,), " + name.str() + ", dtype=f64))\n";
  case Type::Kind::Int:
    return target + "full((1,), " + name.str() + ", dtype=i64))\n";
  case Type::Kind::Bool:
    return target + "full((1,), 1 if " + name.str() + " else 0, dtype=i64))\n";
  default:
    return "";
  }
}

std::optional<std::string> restoreExpression(const Type &type, llvm::StringRef file) {
  std::optional<std::vector<SavedLeaf>> leaves = readSaved(file);
  if (!leaves)
    return std::nullopt;
  if (isTensorTree(type)) {
    std::string like;
    size_t next = 0;
    if (!likeExpr(type, *leaves, next, like))
      return std::nullopt;
    return "load(\"" + file.str() + "\", like=" + like + ")";
  }
  if (leaves->size() != 1 || !type.isNumericScalar())
    return std::nullopt;
  return scalarLiteral(type, leaves->front().bytes);
}

} // namespace dlm::repl
