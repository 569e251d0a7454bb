//===- compiler/ir/Type.h - Value types of the language --------------------===//
//
// The types every compiler stage after the frontend speaks: int, float, bool, str, none, Tensor
// (dtype + shape), tuples (nested) and functions, plus an error type that sema gives to values
// whose expression already failed, so one mistake produces one diagnostic (poisoning). Types are
// small value objects compared with ==; a shape is a list of dims, each a static size, a named
// symbolic dim (`B` from an annotation) or a fresh symbol (`?3`) for a size only known at run
// time. The static rules on them — broadcasting, dtype promotion, unification at control-flow
// joins — live here too, so sema, the graph IR and the unit tests share one implementation.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_IR_TYPE_H
#define DLM_IR_TYPE_H

#include "runtime/DType.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dlm {

/// One dimension of a shape: a static size (>= 0) or a symbol. Named symbols come from
/// annotations (`Tensor[B, 784]`); fresh ones (`?N`) stand for sizes known only at run time.
class Dim {
public:
  Dim() = default;
  static Dim fixed(int64_t size) {
    Dim d;
    d.size_ = size;
    return d;
  }
  static Dim symbol(std::string name) {
    Dim d;
    d.size_ = -1;
    d.name_ = std::move(name);
    return d;
  }

  bool isStatic() const { return size_ >= 0; }
  bool isSymbolic() const { return size_ < 0; }
  /// Static size; only valid when isStatic().
  int64_t size() const { return size_; }
  /// Symbol name; empty for static dims.
  const std::string &name() const { return name_; }
  /// True for a fresh symbol made by DimContext (printed `?N`).
  bool isFresh() const { return isSymbolic() && !name_.empty() && name_[0] == '?'; }
  std::string str() const { return isStatic() ? std::to_string(size_) : name_; }

  bool operator==(const Dim &o) const { return size_ == o.size_ && name_ == o.name_; }
  bool operator!=(const Dim &o) const { return !(*this == o); }

private:
  int64_t size_ = 0;
  std::string name_;
};

using Shape = std::vector<Dim>;

/// Makes fresh symbolic dims, numbered in creation order so printed output is deterministic.
class DimContext {
public:
  Dim fresh() { return Dim::symbol("?" + std::to_string(++counter_)); }

private:
  unsigned counter_ = 0;
};

/// Opaque description of a callable value (a def, a module function, grad(f), ...). Sema
/// defines it; Type only needs identity and a printable name.
struct Callable {
  virtual ~Callable() = default;
  /// How the function type prints, e.g. `fn mlp` or `grad(fn loss, argnums=0)`.
  virtual std::string describe() const = 0;
};

class Type {
public:
  enum class Kind : uint8_t { Error, None, Int, Float, Bool, Str, Tensor, Tuple, Function };

  Type() = default; // the error type
  static Type error() { return Type(); }
  static Type none() { return Type(Kind::None); }
  static Type intTy() { return Type(Kind::Int); }
  static Type floatTy() { return Type(Kind::Float); }
  static Type boolTy() { return Type(Kind::Bool); }
  static Type strTy() { return Type(Kind::Str); }
  static Type tensor(DType dtype, Shape shape);
  static Type tuple(std::vector<Type> elements);
  static Type function(std::shared_ptr<const Callable> callee);

  Kind kind() const { return kind_; }
  bool isError() const { return kind_ == Kind::Error; }
  bool isTensor() const { return kind_ == Kind::Tensor; }
  bool isTuple() const { return kind_ == Kind::Tuple; }
  bool isFunction() const { return kind_ == Kind::Function; }
  /// int, float or bool: the scalars that mix with tensors in arithmetic.
  bool isNumericScalar() const {
    return kind_ == Kind::Int || kind_ == Kind::Float || kind_ == Kind::Bool;
  }
  /// True if this type or any tuple element is the error type.
  bool containsError() const;

  /// Tensor dtype; for scalars, the dtype they travel as in the graph (int i64, float f64, bool).
  DType dtype() const { return dtype_; }
  const Shape &shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  const std::vector<Type> &elements() const { return elements_; }
  const std::shared_ptr<const Callable> &callee() const { return callee_; }

  /// Statically known number of elements of a tensor; nullopt if a dim is symbolic.
  std::optional<int64_t> staticNumElements() const;

  /// Printed form: `int`, `f32[128, 784]`, `f32[B, 784]`, `f32[]`, `(f32[3], i64[])`, `fn f`.
  std::string str() const;
  /// Kind name for messages that do not need the full type: `Tensor`, `int`, `tuple`, ...
  std::string kindName() const;

  bool operator==(const Type &o) const;
  bool operator!=(const Type &o) const { return !(*this == o); }

private:
  explicit Type(Kind k);
  Kind kind_ = Kind::Error;
  DType dtype_ = DType::F32;
  Shape shape_;
  std::vector<Type> elements_;
  std::shared_ptr<const Callable> callee_;
};

//===----------------------------------------------------------------------===//
// Static rules
//===----------------------------------------------------------------------===//

/// Result of a rule that can fail: on failure `type` is the error type and `message` says why.
struct TypeResult {
  Type type;
  std::string message;
  bool ok() const { return message.empty(); }
  static TypeResult failure(std::string message) { return {Type::error(), std::move(message)}; }
};

/// NumPy broadcasting of two shapes. Static dims must be equal or 1; a symbolic dim against a
/// static one gives the static one (checked at run time); two different symbols give a fresh one.
/// On failure returns nullopt.
std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b, DimContext &dims);

/// Product of the dims; nullopt if one is symbolic.
std::optional<int64_t> staticProduct(const Shape &s);

/// Shape printed the way types print it: `[3, B]`.
std::string shapeStr(const Shape &s);

/// Promotion of two tensor dtypes (PyTorch): bool < integers < floats, wider wins in a category
/// (runtime/Promotion.h's widerDType, the one rule).
DType promoteDTypes(DType a, DType b);

/// Result dtype of an arithmetic op between operands of types `a` and `b` (tensors or numeric
/// scalars) following PyTorch: dimensioned tensors outrank 0-d tensors, which outrank scalars,
/// and a lower-ranked operand only changes the dtype when it is of a higher category (a float
/// scalar with an int tensor gives f32; `f32[] * 1.5` is f32; `f32[3] * f64[]` is f32). The
/// kernels apply the same rule (runtime/Promotion.h).
DType promoteOperands(const Type &a, const Type &b);

/// The type of a value that has type `a` on one path and `b` on another (an if/else join or a
/// loop back edge). Equal types unify to themselves; tensors with the same dtype and rank unify
/// with differing dims replaced by fresh symbols; anything else fails with a message naming both.
TypeResult unify(const Type &a, const Type &b, DimContext &dims);

} // namespace dlm

#endif // DLM_IR_TYPE_H
