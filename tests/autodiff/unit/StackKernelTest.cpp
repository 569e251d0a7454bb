//===- tests/autodiff/unit/StackKernelTest.cpp - Stacks grow in place, versions stay --===//
//
// The stack kernels (kernels/cpu/Stack.cpp) must cost O(entry) per push and O(1) per pop,
// yet stay values: every version of a stack keeps its entries, whatever is pushed onto an
// older version later (grad(grad(f)) replays a backward loop's pops, and pushes onto them).
// These tests check both: the newest version grows inside one buffer, an older version is
// copied, and every version reads back what it held.
//
//===----------------------------------------------------------------------===//
#include "runtime/Kernel.h"
#include "runtime/StackStats.h"

#include <gtest/gtest.h>

using namespace dlm::rt;

namespace {

Tensor scalar(double v) { return Tensor::scalar(dlm::DType::F64, v); }

Tensor push(const Tensor &s, double v) { return run("stack_push", {s, scalar(v)}); }

Tensor emptyStack() {
  return run("stack_new", {}, Attrs{{"dtype", dlm::DType::F64}, {"rank", int64_t(0)}});
}

std::vector<double> entries(const Tensor &s) {
  std::vector<double> out;
  for (int64_t i = 0; i < s.dim(0); ++i)
    out.push_back(s.getF64({i}));
  return out;
}

TEST(StackKernels, NewestVersionGrowsInOneBuffer) {
  Tensor s = push(emptyStack(), 0);
  Buffer *first = s.buffer();
  for (int i = 1; i < 4; ++i)
    s = push(s, i);
  EXPECT_EQ(s.buffer(), first) << "pushes within the reserved room must not copy";
  EXPECT_EQ(entries(s), (std::vector<double>{0, 1, 2, 3}));
  for (int i = 4; i < 1000; ++i)
    s = push(s, i);
  EXPECT_EQ(s.dim(0), 1000);
  EXPECT_EQ(s.getF64({999}), 999);
  EXPECT_LE(int64_t(s.buffer()->bytes()), 2 * 1000 * 8 + 64) << "room is at most doubled";
}

TEST(StackKernels, OlderVersionsKeepTheirEntries) {
  Tensor s1 = push(push(emptyStack(), 1), 2); // [1, 2]
  Tensor s2 = push(s1, 3);                    // [1, 2, 3], in place
  Tensor s3 = push(s1, 4);                    // [1, 2, 4]: s1 no longer ends at the mark
  EXPECT_EQ(entries(s1), (std::vector<double>{1, 2}));
  EXPECT_EQ(entries(s2), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(entries(s3), (std::vector<double>{1, 2, 4}));
  EXPECT_NE(s3.buffer(), s2.buffer());

  Tensor popped = run("stack_pop", {s2}); // [1, 2], a view of s2's buffer
  EXPECT_EQ(popped.buffer(), s2.buffer());
  Tensor again = push(popped, 5); // must not overwrite s2's top
  EXPECT_EQ(entries(s2), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(entries(again), (std::vector<double>{1, 2, 5}));
  EXPECT_EQ(run("stack_top", {s2}).item(), 3);
  EXPECT_EQ(run("stack_top", {again}).item(), 5);
}

TEST(StackKernels, SplitAndExtendAreViewsAndAppends) {
  Tensor s = emptyStack();
  for (int i = 0; i < 5; ++i)
    s = push(s, i);
  Tensor tail = run("stack_tail", {s, Tensor::scalarI64(2)});
  Tensor drop = run("stack_drop", {s, Tensor::scalarI64(2)});
  EXPECT_EQ(entries(tail), (std::vector<double>{3, 4}));
  EXPECT_EQ(entries(drop), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(tail.buffer(), s.buffer());
  Tensor joined = run("stack_extend", {drop, tail}); // drop is not the newest: a copy
  EXPECT_EQ(entries(joined), (std::vector<double>{0, 1, 2, 3, 4}));
  Tensor longer = run("stack_extend", {s, tail}); // s is the newest: in place
  EXPECT_EQ(longer.buffer(), s.buffer());
  EXPECT_EQ(entries(longer), (std::vector<double>{0, 1, 2, 3, 4, 3, 4}));
  EXPECT_EQ(entries(s), (std::vector<double>{0, 1, 2, 3, 4}));
}

TEST(StackKernels, EntriesKeepTheirShapeAndStatsCountThem) {
  resetStackStats();
  Tensor s = run("stack_new", {}, Attrs{{"dtype", dlm::DType::F32}, {"rank", int64_t(1)}});
  s = run("stack_push", {s, Tensor::fromVector(dlm::DType::F32, std::vector<float>{1, 2, 3})});
  s = run("stack_push", {s, Tensor::fromVector(dlm::DType::F32, std::vector<float>{4, 5, 6})});
  EXPECT_EQ(s.shape(), (Shape{2, 3}));
  EXPECT_EQ(run("stack_top", {s}).getF64({1}), 5);
  EXPECT_THROW(run("stack_push", {s, Tensor::zeros(dlm::DType::F32, {4})}), Error);
  StackStats st = stackStats();
  EXPECT_EQ(st.pushes, 2);
  EXPECT_EQ(st.bytesPushed, 24);
  EXPECT_EQ(st.peakStackBytes, 24);
  EXPECT_GE(st.peakReservedBytes, 24);
}

// A pushed value need not be contiguous nor of the stack's dtype: the entry is its row-major
// copy in the stack's dtype, appended in place all the same; tops and pops of a stack that is
// itself a strided view (a transposed stack) read the same entries as its contiguous copy.
TEST(StackKernels, PushedValuesAreCopiedInTheStacksLayoutAndDType) {
  Tensor m = Tensor::fromVector(dlm::DType::F32, std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor s = run("stack_new", {}, Attrs{{"dtype", dlm::DType::F64}, {"rank", int64_t(2)}});
  s = run("stack_push", {s, Tensor::zeros(dlm::DType::F64, {3, 2})});
  Buffer *grown = s.buffer();
  s = run("stack_push", {s, m.transpose()}); // f32 [3, 2] view onto an f64 stack
  EXPECT_EQ(s.buffer(), grown) << "a converted entry still goes in place";
  EXPECT_EQ(s.dtype(), dlm::DType::F64);
  Tensor top = run("stack_top", {s});
  const double expect[] = {1, 4, 2, 5, 3, 6};
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(top.getF64({i / 2, i % 2}), expect[i]);
  Tensor strided = s.transpose({1, 0, 2}); // [3, 2, 2]: strided[k][i] is s[i][k]
  EXPECT_EQ(run("stack_top", {strided}).shape(), (Shape{2, 2}));
  EXPECT_EQ(run("stack_top", {strided}).getF64({1, 0}), 3);
  EXPECT_EQ(run("stack_pop", {strided}).shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(run("stack_pop", {strided}).getF64({1, 1, 1}), 5);
  EXPECT_THROW(run("stack_top", {run("stack_pop", {run("stack_pop", {s})})}), Error);
}

} // namespace
