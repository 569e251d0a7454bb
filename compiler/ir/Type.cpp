//===- compiler/ir/Type.cpp - Value types and their static rules -----------===//
//
// Construction, printing and equality of types, and the rules shared by every stage:
// broadcasting, dtype promotion and unification at joins.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/Type.h"
#include "runtime/Promotion.h"

#include <algorithm>

namespace dlm {

Type::Type(Kind k) : kind_(k) {
  if (k == Kind::Int)
    dtype_ = DType::I64;
  else if (k == Kind::Float)
    dtype_ = DType::F64;
  else if (k == Kind::Bool)
    dtype_ = DType::Bool;
}

Type Type::tensor(DType dtype, Shape shape) {
  Type t(Kind::Tensor);
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  return t;
}

Type Type::tuple(std::vector<Type> elements) {
  Type t(Kind::Tuple);
  t.elements_ = std::move(elements);
  return t;
}

Type Type::function(std::shared_ptr<const Callable> callee) {
  Type t(Kind::Function);
  t.callee_ = std::move(callee);
  return t;
}

bool Type::containsError() const {
  if (isError())
    return true;
  return std::any_of(elements_.begin(), elements_.end(),
                     [](const Type &e) { return e.containsError(); });
}

std::optional<int64_t> staticProduct(const Shape &s) {
  int64_t n = 1;
  for (const Dim &d : s) {
    if (!d.isStatic())
      return std::nullopt;
    n *= d.size();
  }
  return n;
}

std::optional<int64_t> Type::staticNumElements() const { return staticProduct(shape_); }

std::string shapeStr(const Shape &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i)
      out += ", ";
    out += s[i].str();
  }
  return out + "]";
}

std::string Type::str() const {
  switch (kind_) {
  case Kind::Error:
    return "<error>";
  case Kind::None:
    return "none";
  case Kind::Int:
    return "int";
  case Kind::Float:
    return "float";
  case Kind::Bool:
    return "bool";
  case Kind::Str:
    return "str";
  case Kind::Tensor:
    return std::string(dtypeName(dtype_)) + shapeStr(shape_);
  case Kind::Function:
    return callee_ ? callee_->describe() : "fn";
  case Kind::Tuple:
    break;
  }
  std::string out = "(";
  for (size_t i = 0; i < elements_.size(); ++i) {
    if (i)
      out += ", ";
    out += elements_[i].str();
  }
  if (elements_.size() == 1)
    out += ",";
  return out + ")";
}

std::string Type::kindName() const {
  switch (kind_) {
  case Kind::Tensor:
    return "Tensor";
  case Kind::Tuple:
    return "tuple";
  case Kind::Function:
    return "function";
  default:
    return str();
  }
}

bool Type::operator==(const Type &o) const {
  if (kind_ != o.kind_)
    return false;
  switch (kind_) {
  case Kind::Tensor:
    return dtype_ == o.dtype_ && shape_ == o.shape_;
  case Kind::Tuple:
    return elements_ == o.elements_;
  case Kind::Function:
    return callee_ == o.callee_;
  default:
    return true;
  }
}

std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b, DimContext &dims) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align from the right; a missing leading dim behaves as 1.
    const Dim one = Dim::fixed(1);
    const Dim &x = i < rank - a.size() ? one : a[i - (rank - a.size())];
    const Dim &y = i < rank - b.size() ? one : b[i - (rank - b.size())];
    if (x == y || (y.isStatic() && y.size() == 1))
      out[i] = x;
    else if (x.isStatic() && x.size() == 1)
      out[i] = y;
    else if (x.isStatic() && y.isStatic())
      return std::nullopt;
    else if (x.isStatic())
      out[i] = x;
    else if (y.isStatic())
      out[i] = y;
    else
      out[i] = dims.fresh();
  }
  return out;
}

DType promoteDTypes(DType a, DType b) { return widerDType(a, b); }

DType promoteOperands(const Type &a, const Type &b) {
  auto operand = [](const Type &t) {
    OperandRank rank = !t.isTensor()   ? OperandRank::Scalar
                       : t.rank() == 0 ? OperandRank::ZeroDim
                                       : OperandRank::Dimensioned;
    return PromotionOperand{t.dtype(), rank};
  };
  return promoteElementwise(operand(a), operand(b));
}

TypeResult unify(const Type &a, const Type &b, DimContext &dims) {
  if (a.isError() || b.isError())
    return {Type::error(), ""};
  if (a == b)
    return {a, ""};
  auto mismatch = [&] {
    return TypeResult::failure("type " + a.str() + " does not match " + b.str());
  };
  if (a.isTensor() && b.isTensor()) {
    if (a.dtype() != b.dtype())
      return TypeResult::failure("dtype " + std::string(dtypeName(a.dtype())) + " does not match " +
                                 std::string(dtypeName(b.dtype())) + " (" + a.str() + " vs " +
                                 b.str() + ")");
    if (a.rank() != b.rank())
      return TypeResult::failure("rank " + std::to_string(a.rank()) + " does not match rank " +
                                 std::to_string(b.rank()) + " (" + a.str() + " vs " + b.str() +
                                 ")");
    Shape s(a.rank());
    for (size_t i = 0; i < a.rank(); ++i)
      s[i] = a.shape()[i] == b.shape()[i] ? a.shape()[i] : dims.fresh();
    return {Type::tensor(a.dtype(), std::move(s)), ""};
  }
  if (a.isTuple() && b.isTuple()) {
    if (a.elements().size() != b.elements().size())
      return mismatch();
    std::vector<Type> elems;
    for (size_t i = 0; i < a.elements().size(); ++i) {
      TypeResult r = unify(a.elements()[i], b.elements()[i], dims);
      if (!r.ok())
        return mismatch();
      elems.push_back(r.type);
    }
    return {Type::tuple(std::move(elems)), ""};
  }
  return mismatch();
}

} // namespace dlm
