//===- runtime/DType.h - Element types shared by compiler and runtime ------===//
//
// The five tensor element types of the language (LANGUAGE.md "Values and types"). This header is
// the one place both the compiler (types, op registry) and the runtime (tensors, kernels) take
// dtypes from, so it depends on nothing.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_DTYPE_H
#define DLM_RUNTIME_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace dlm {

enum class DType : uint8_t { F32, F64, I32, I64, Bool };

/// Size in bytes of one element.
constexpr size_t dtypeSize(DType t) {
  switch (t) {
  case DType::F32:
    return 4;
  case DType::F64:
    return 8;
  case DType::I32:
    return 4;
  case DType::I64:
    return 8;
  case DType::Bool:
    return 1;
  }
  return 0;
}

/// The language's spelling: "f32", "f64", "i32", "i64", "bool".
constexpr std::string_view dtypeName(DType t) {
  switch (t) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::Bool:
    return "bool";
  }
  return "?";
}

/// Parses a language spelling; nullopt when the name is not a dtype.
constexpr std::optional<DType> parseDType(std::string_view s) {
  if (s == "f32")
    return DType::F32;
  if (s == "f64")
    return DType::F64;
  if (s == "i32")
    return DType::I32;
  if (s == "i64")
    return DType::I64;
  if (s == "bool")
    return DType::Bool;
  return std::nullopt;
}

constexpr bool isFloat(DType t) { return t == DType::F32 || t == DType::F64; }
constexpr bool isInteger(DType t) { return t == DType::I32 || t == DType::I64; }

} // namespace dlm

#endif // DLM_RUNTIME_DTYPE_H
