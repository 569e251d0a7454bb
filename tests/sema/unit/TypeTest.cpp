//===- tests/sema/unit/TypeTest.cpp - Broadcasting, promotion, unification ===//
//
// The static rules of compiler/ir/Type.h, case by case: NumPy broadcasting with static and
// symbolic dims, PyTorch dtype promotion between tensors and scalars, and unification at joins.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/Type.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace dlm;

namespace {
Shape shape(std::initializer_list<const char *> dims) {
  Shape s;
  for (const char *d : dims) {
    if (d[0] >= '0' && d[0] <= '9')
      s.push_back(Dim::fixed(std::stoll(d)));
    else
      s.push_back(Dim::symbol(d));
  }
  return s;
}
Type f32(Shape s) { return Type::tensor(DType::F32, std::move(s)); }
std::string bcast(const Shape &a, const Shape &b) {
  DimContext dims;
  auto r = broadcastShapes(a, b, dims);
  return r ? shapeStr(*r) : "error";
}
} // namespace

TEST(Type, Printing) {
  EXPECT_EQ(f32(shape({"128", "784"})).str(), "f32[128, 784]");
  EXPECT_EQ(f32(shape({"B", "784"})).str(), "f32[B, 784]");
  EXPECT_EQ(Type::tuple({f32(shape({"3"})), Type::tensor(DType::I64, {})}).str(),
            "(f32[3], i64[])");
  EXPECT_EQ(Type::tuple({Type::intTy()}).str(), "(int,)");
  EXPECT_EQ(Type::intTy().str(), "int");
  EXPECT_EQ(Type::error().str(), "<error>");
}

TEST(Type, Equality) {
  EXPECT_EQ(f32(shape({"B", "3"})), f32(shape({"B", "3"})));
  EXPECT_NE(f32(shape({"B", "3"})), f32(shape({"C", "3"})));
  EXPECT_NE(f32(shape({"3"})), Type::tensor(DType::F64, shape({"3"})));
  EXPECT_NE(Type::intTy(), Type::floatTy());
  EXPECT_TRUE(Type::tuple({Type::intTy(), Type::error()}).containsError());
  EXPECT_EQ(f32(shape({"2", "3", "4"})).staticNumElements(), 24);
  EXPECT_EQ(f32(shape({"2", "N"})).staticNumElements(), std::nullopt);
}

TEST(Broadcast, StaticDims) {
  EXPECT_EQ(bcast(shape({"3", "4"}), shape({"4"})), "[3, 4]");
  EXPECT_EQ(bcast(shape({"3", "1"}), shape({"1", "4"})), "[3, 4]");
  EXPECT_EQ(bcast(shape({}), shape({"2", "2"})), "[2, 2]");
  EXPECT_EQ(bcast(shape({"5", "1", "7"}), shape({"6", "1"})), "[5, 6, 7]");
  EXPECT_EQ(bcast(shape({"3", "4"}), shape({"5"})), "error");
  EXPECT_EQ(bcast(shape({"2", "3"}), shape({"3", "3"})), "error");
}

TEST(Broadcast, SymbolicDims) {
  // A symbol meets itself or 1: kept. Against a static size: that size (checked at run time).
  EXPECT_EQ(bcast(shape({"B", "784"}), shape({"784"})), "[B, 784]");
  EXPECT_EQ(bcast(shape({"B", "1"}), shape({"1", "10"})), "[B, 10]");
  EXPECT_EQ(bcast(shape({"B", "10"}), shape({"B", "10"})), "[B, 10]");
  EXPECT_EQ(bcast(shape({"B"}), shape({"3"})), "[3]");
  // Two different symbols: unknown until run time, a fresh symbol.
  EXPECT_EQ(bcast(shape({"B"}), shape({"N"})), "[?1]");
}

TEST(Promotion, Tensors) {
  EXPECT_EQ(promoteDTypes(DType::F32, DType::F64), DType::F64);
  EXPECT_EQ(promoteDTypes(DType::I32, DType::I64), DType::I64);
  EXPECT_EQ(promoteDTypes(DType::I64, DType::F32), DType::F32);
  EXPECT_EQ(promoteDTypes(DType::Bool, DType::I32), DType::I32);
  EXPECT_EQ(promoteDTypes(DType::Bool, DType::Bool), DType::Bool);
}

TEST(Promotion, EveryPairIsTheWiderInTheLattice) {
  // bool < i32 < i64 < f32 < f64 (runtime/Promotion.h's widerDType, the one rule), both ways.
  const DType lattice[] = {DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64};
  for (size_t i = 0; i < 5; ++i)
    for (size_t j = 0; j < 5; ++j)
      EXPECT_EQ(promoteDTypes(lattice[i], lattice[j]), lattice[std::max(i, j)])
          << dtypeName(lattice[i]) << " with " << dtypeName(lattice[j]);
}

TEST(Promotion, ScalarsDoNotWidenTensors) {
  Type f32t = f32(shape({"3"}));
  Type i32t = Type::tensor(DType::I32, shape({"3"}));
  Type boolt = Type::tensor(DType::Bool, shape({"3"}));
  EXPECT_EQ(promoteOperands(f32t, Type::floatTy()), DType::F32); // f32 * 0.5 is f32
  EXPECT_EQ(promoteOperands(Type::floatTy(), i32t), DType::F32); // float with int tensor: f32
  EXPECT_EQ(promoteOperands(i32t, Type::intTy()), DType::I32);   // int scalar keeps i32
  EXPECT_EQ(promoteOperands(boolt, Type::intTy()), DType::I64);
  EXPECT_EQ(promoteOperands(boolt, Type::boolTy()), DType::Bool);
  EXPECT_EQ(promoteOperands(Type::tensor(DType::F64, {}), Type::floatTy()), DType::F64);
  // Scalars with scalars follow Python: int with float is float.
  EXPECT_EQ(promoteOperands(Type::intTy(), Type::floatTy()), DType::F64);
  EXPECT_EQ(promoteOperands(Type::intTy(), Type::boolTy()), DType::I64);
}

// Dimensioned tensors outrank 0-d tensors, which outrank scalars (PyTorch; runtime/Promotion.h
// is the rule the kernels share, tests/e2e/zero_d_promotion.dlm runs it on both engines).
TEST(Promotion, ZeroDimTensorsRankBetweenTensorsAndScalars) {
  Type f32z = Type::tensor(DType::F32, {}), f64z = Type::tensor(DType::F64, {});
  Type i32z = Type::tensor(DType::I32, {});
  EXPECT_EQ(promoteOperands(f32z, Type::floatTy()), DType::F32); // x * 1.5 with x: f32[]
  EXPECT_EQ(promoteOperands(i32z, Type::floatTy()), DType::F32);
  EXPECT_EQ(promoteOperands(i32z, Type::intTy()), DType::I32);
  EXPECT_EQ(promoteOperands(f64z, f32(shape({"3"}))), DType::F32); // the dimensioned one wins
  EXPECT_EQ(promoteOperands(Type::tensor(DType::I32, shape({"2"})), f64z), DType::F64);
  EXPECT_EQ(promoteOperands(f32z, f64z), DType::F64); // two 0-d tensors promote as equals
}

TEST(Unify, EqualAndShapes) {
  DimContext dims;
  EXPECT_EQ(unify(Type::intTy(), Type::intTy(), dims).type, Type::intTy());
  auto r = unify(f32(shape({"3", "4"})), f32(shape({"5", "4"})), dims);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.type.str(), "f32[?1, 4]");
  auto same = unify(f32(shape({"B", "4"})), f32(shape({"B", "4"})), dims);
  EXPECT_EQ(same.type.str(), "f32[B, 4]");
}

TEST(Unify, Tuples) {
  DimContext dims;
  auto r = unify(Type::tuple({f32(shape({"3"})), Type::intTy()}),
                 Type::tuple({f32(shape({"4"})), Type::intTy()}), dims);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.type.str(), "(f32[?1], int)");
  EXPECT_FALSE(
      unify(Type::tuple({Type::intTy()}), Type::tuple({Type::intTy(), Type::intTy()}), dims).ok());
}

TEST(Unify, Mismatches) {
  DimContext dims;
  auto kinds = unify(f32(shape({"3"})), Type::intTy(), dims);
  EXPECT_FALSE(kinds.ok());
  EXPECT_EQ(kinds.message, "type f32[3] does not match int");
  auto dtypes = unify(f32(shape({"3"})), Type::tensor(DType::F64, shape({"3"})), dims);
  EXPECT_FALSE(dtypes.ok());
  EXPECT_NE(dtypes.message.find("dtype f32 does not match f64"), std::string::npos);
  auto ranks = unify(f32(shape({"3"})), f32(shape({"3", "1"})), dims);
  EXPECT_FALSE(ranks.ok());
  EXPECT_NE(ranks.message.find("rank 1 does not match rank 2"), std::string::npos);
  // The error type unifies with anything, silently (no cascade of errors).
  auto poisoned = unify(Type::error(), Type::intTy(), dims);
  EXPECT_TRUE(poisoned.ok());
  EXPECT_TRUE(poisoned.type.isError());
}
