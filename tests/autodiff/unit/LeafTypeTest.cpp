//===- tests/autodiff/unit/LeafTypeTest.cpp - One leaf of a tuple type --------===//
//
// leafType(t, i) and numLeaves(t) answer for one leaf what leafTypes(t) answers for all: the
// reverse sweep asks them once per leaf of every parameter, and copying every leaf each time
// made the gradient of a tuple of thousands of parameters quadratic (issue #27).
//
//===----------------------------------------------------------------------===//
#include "compiler/autodiff/Reverse.h"

#include <gtest/gtest.h>

namespace dlm::autodiff {
namespace {

TEST(LeafType, EveryLeafOfANestedTupleIsLeafTypesAtItsIndex) {
  Type f32x3 = Type::tensor(DType::F32, {Dim::fixed(3)});
  Type f64x2x2 = Type::tensor(DType::F64, {Dim::fixed(2), Dim::fixed(2)});
  Type nested = Type::tuple({Type::floatTy(), Type::tuple({f32x3, Type::tuple({}), f64x2x2}),
                             Type::tuple({Type::tuple({Type::intTy()})}), f32x3});
  std::vector<Type> all = leafTypes(nested);
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(numLeaves(nested), all.size());
  for (size_t i = 0; i < all.size(); ++i)
    EXPECT_EQ(leafType(nested, i), all[i]) << "leaf " << i;
}

TEST(LeafType, ANonTupleIsItsOwnOnlyLeaf) {
  Type t = Type::tensor(DType::F32, {Dim::fixed(4)});
  EXPECT_EQ(numLeaves(t), 1u);
  EXPECT_EQ(leafType(t, 0), t);
}

} // namespace
} // namespace dlm::autodiff
