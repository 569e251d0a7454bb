//===- tests/runtime/TensorTest.cpp - Tensor layout, views and the kernel table ---===//
#include "runtime/Kernel.h"
#include "runtime/MemoryStats.h"
#include "runtime/Random.h"
#include "runtime/Strided.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <thread>

using namespace dlm;
using namespace dlm::rt;

namespace {

Tensor iota(DType dt, Shape shape) {
  Tensor t = Tensor::empty(dt, shape);
  dispatchDType(dt, [&]<typename T>() {
    for (int64_t i = 0; i < t.numel(); ++i)
      t.data<T>()[i] = (T)i;
  });
  return t;
}

TEST(Tensor, ContiguousLayoutAndAlignment) {
  Tensor t = Tensor::zeros(DType::F32, {3, 4});
  EXPECT_EQ(t.shape(), (Shape{3, 4}));
  EXPECT_EQ(t.strides(), (Shape{4, 1}));
  EXPECT_EQ(t.numel(), 12);
  EXPECT_TRUE(t.isContiguous());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.rawData()) % 64, 0u);
  EXPECT_EQ(t.typeString(), "f32[3, 4]");
}

TEST(Tensor, ScalarsAreZeroD) {
  EXPECT_EQ(Tensor::scalarI64(7).rank(), 0);
  EXPECT_EQ(Tensor::scalarI64(7).dtype(), DType::I64);
  EXPECT_EQ(Tensor::scalarF64(0.5).item(), 0.5);
  EXPECT_TRUE(Tensor::scalarBool(true).itemBool());
  EXPECT_EQ(Tensor::scalarF64(2.5).typeString(), "f64[]");
}

TEST(Tensor, TransposeIsAViewAndContiguousCopies) {
  Tensor t = iota(DType::F64, {2, 3});
  Tensor tt = t.transpose();
  EXPECT_EQ(tt.shape(), (Shape{3, 2}));
  EXPECT_EQ(tt.buffer(), t.buffer());
  EXPECT_FALSE(tt.isContiguous());
  EXPECT_EQ(tt.getF64({2, 1}), 5.0);
  EXPECT_EQ(tt.getF64({1, 0}), 1.0);
  Tensor c = tt.contiguous();
  EXPECT_TRUE(c.isContiguous());
  EXPECT_NE(c.buffer(), t.buffer());
  const double expect[] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(c.data<double>()[i], expect[i]);
}

TEST(Tensor, BroadcastViewHasZeroStrides) {
  Tensor t = iota(DType::I32, {3});
  Tensor b = t.broadcastTo({2, 3});
  EXPECT_EQ(b.strides(), (Shape{0, 1}));
  EXPECT_EQ(b.getI64({1, 2}), 2);
  EXPECT_THROW(t.broadcastTo({4}), Error);
}

TEST(Tensor, ReshapeInfersOneDim) {
  Tensor t = iota(DType::F32, {2, 6});
  EXPECT_EQ(t.reshape({3, -1}).shape(), (Shape{3, 4}));
  EXPECT_EQ(t.reshape({3, -1}).buffer(), t.buffer());
  EXPECT_THROW(t.reshape({5, -1}), Error);
  EXPECT_THROW(t.reshape({-1, -1}), Error);
  // Reshaping a transposed view copies.
  Tensor r = t.transpose().reshape({12});
  EXPECT_EQ(r.getF64({1}), 6.0);
}

TEST(Tensor, CastSaturatesAndHandlesNaN) {
  Tensor f = Tensor::fromVector<double>(DType::F64, {1e30, -1e30, NAN, 2.7, -2.7});
  Tensor i = f.to(DType::I32);
  EXPECT_EQ(i.getI64({0}), INT32_MAX);
  EXPECT_EQ(i.getI64({1}), INT32_MIN);
  EXPECT_EQ(i.getI64({2}), 0);
  EXPECT_EQ(i.getI64({3}), 2);
  EXPECT_EQ(i.getI64({4}), -2);
  Tensor b = f.to(DType::Bool);
  EXPECT_TRUE(b.getI64({3}));
}

TEST(Tensor, EmptyTensors) {
  Tensor t = Tensor::empty(DType::F32, {0, 5});
  EXPECT_EQ(t.numel(), 0);
  EXPECT_TRUE(t.isContiguous());
  EXPECT_EQ(t.clone().numel(), 0);
  EXPECT_EQ(t.transpose().shape(), (Shape{5, 0}));
}

TEST(Tensor, RefcountSharesBuffer) {
  Tensor a = Tensor::zeros(DType::F32, {4});
  Tensor b = a;
  EXPECT_EQ(a.get()->refs.load(), 2);
  b = Tensor();
  EXPECT_EQ(a.get()->refs.load(), 1);
}

// Freed tensors and small buffers are kept per thread and handed out again (runtime/Tensor.cpp):
// a reused one must look exactly like a new one — one reference, its own shape, contiguous
// strides, offset 0, a buffer of the new size whose claimed mark is the whole buffer (a stack
// may have lowered it), 64-byte alignment — and memory statistics must count it afresh.
TEST(Tensor, ReusedTensorsAndBuffersStartClean) {
  int64_t before = memoryStats().liveBytes;
  for (int round = 0; round < 3; ++round) {
    {
      Tensor base = Tensor::zeros(DType::F32, {4, 8});
      base.buffer()->unclaim(16);
      Tensor view = base.view({2, 2, 2}, {8, 2, 1}, 5);
      EXPECT_EQ(memoryStats().liveBytes, before + 128);
    }
    EXPECT_EQ(memoryStats().liveBytes, before);
    // Same 64-byte size class as the freed buffer (128 bytes), another shape and dtype.
    Tensor t = Tensor::empty(DType::I64, {15});
    EXPECT_EQ(t.get()->refs.load(), 1);
    EXPECT_EQ(t.buffer()->useCount(), 1);
    EXPECT_EQ(t.shape(), (Shape{15}));
    EXPECT_EQ(t.strides(), (Shape{1}));
    EXPECT_EQ(t.offset(), 0);
    EXPECT_EQ(t.buffer()->bytes(), 120u);
    EXPECT_EQ(t.buffer()->claimedBytes(), 120u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.rawData()) % 64, 0u);
    EXPECT_EQ(memoryStats().liveBytes, before + 120);
    for (int64_t i = 0; i < 15; ++i)
      t.data<int64_t>()[i] = i;
    Tensor u = Tensor::zeros(DType::F32, {3});
    EXPECT_EQ(u.data<float>()[2], 0.0f);
    EXPECT_EQ(t.data<int64_t>()[14], 14);
  }
  EXPECT_EQ(memoryStats().liveBytes, before);
}

TEST(Tensor, HugeShapesFailCleanly) {
  EXPECT_THROW(Tensor::empty(DType::F64, {1LL << 40, 1LL << 40}), Error);
  EXPECT_THROW(Tensor::empty(DType::F64, {-1}), Error);
}

/// The message of the rt::Error that `f` throws ("" when it throws none).
template <typename F> std::string errorOf(F &&f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(Tensor, ShapeErrorsSayWhatIsWrong) {
  EXPECT_EQ(errorOf([] { numelOf({2, -3}); }), "negative dimension -3 in shape [2, -3]");
  EXPECT_EQ(errorOf([] {
              numelOf({1LL << 40, 1LL << 40});
            }),
            "shape [1099511627776, 1099511627776] has too many elements");
  EXPECT_EQ(numelOf({0, 1LL << 40, 1LL << 40}), 0) << "after an empty dim nothing overflows";
  EXPECT_NE(errorOf([] { numelOf({1LL << 40, 1LL << 40, 0}); }), "") << "dims multiply in order";
  EXPECT_EQ(numelOf({}), 1);
  Tensor t = iota(DType::F32, {2, 3});
  EXPECT_EQ(errorOf([&] { t.reshape({4, -1}); }), "cannot reshape f32[2, 3] to [4, -1]");
  EXPECT_EQ(errorOf([&] {
              t.reshape({-1, -1});
            }),
            "reshape: only one dimension can be -1 in [-1, -1]");
  EXPECT_EQ(errorOf([&] { t.transpose({0}); }), "transpose: permutation [0] does not match rank 2");
  EXPECT_EQ(errorOf([&] {
              t.transpose({1, -1});
            }),
            "transpose: repeated axis in permutation [1, -1]");
  EXPECT_EQ(errorOf([&] { t.transpose({0, 2}); }), "transpose axis 2 is out of range for rank 2");
  EXPECT_EQ(errorOf([&] {
              t.broadcastTo({4, 3, 2});
            }),
            "cannot broadcast f32[2, 3] to shape [4, 3, 2]");
  EXPECT_EQ(errorOf([&] { t.item(); }), "expected a single value, got f32[2, 3]");
  EXPECT_EQ(errorOf([] {
              Tensor::fromVector<float>(DType::F32, {1, 2}, {3});
            }),
            "fromVector: 2 values for shape [3]");
}

// select, transpose, reshape and broadcastTo write the view's shape and strides in place (no
// vectors built): each view must still read the elements its definition says.
TEST(Tensor, ViewsReadTheRightElements) {
  Tensor t = iota(DType::F64, {2, 3, 4});
  Tensor s = t.select(1, 2); // t[:, 2, :]
  EXPECT_EQ(s.shape(), (Shape{2, 4}));
  EXPECT_EQ(s.strides(), (Shape{12, 1}));
  EXPECT_EQ(s.buffer(), t.buffer());
  EXPECT_EQ(s.getF64({1, 3}), t.getF64({1, 2, 3}));
  Tensor p = t.transpose({2, -3, 1}); // [4, 2, 3]
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(p.getF64({3, 1, 2}), t.getF64({1, 2, 3}));
  Tensor r = p.reshape({8, 3}); // a copy: p is not contiguous
  EXPECT_NE(r.buffer(), t.buffer());
  EXPECT_EQ(r.strides(), (Shape{3, 1}));
  EXPECT_EQ(r.getF64({7, 1}), t.getF64({1, 1, 3}));
  Tensor v = s.select(0, 1).reshape({2, 2}); // a contiguous row of s: a view
  EXPECT_EQ(v.buffer(), t.buffer());
  EXPECT_EQ(v.getF64({1, 0}), t.getF64({1, 2, 2}));
  Tensor b = s.select(1, 3).broadcastTo({3, 2}); // s[:, 3] as rows
  EXPECT_EQ(b.strides(), (Shape{0, 12}));
  EXPECT_EQ(b.getF64({2, 1}), t.getF64({1, 2, 3}));
  EXPECT_EQ(broadcastByteStrides(s.select(1, 3), {3, 2}), (Shape{0, 96}));
}

// Past rank 64 transpose tracks the axes it has seen in a vector instead of a bit mask, and
// past rank 8 the strided loops keep their scratch on the heap.
TEST(Tensor, HighRankViewsAndCopies) {
  Shape ones(70, 1);
  ones[0] = 2;
  Tensor t = iota(DType::F32, ones);
  std::vector<int64_t> perm(70);
  for (int64_t i = 0; i < 70; ++i)
    perm[i] = 69 - i;
  EXPECT_EQ(t.transpose(perm).shape(), t.transpose().shape());
  EXPECT_EQ(t.transpose(perm).dim(69), 2);
  perm[5] = 69;
  EXPECT_EQ(errorOf([&] { t.transpose(perm); }).rfind("transpose: repeated axis", 0), 0u);

  Shape shape{2, 3, 2, 2, 3, 2, 2, 1, 2, 3};
  Tensor x = iota(DType::F64, shape);
  Tensor xt = x.transpose(); // rank 10, not contiguous
  Tensor c = Tensor::empty(DType::F32, xt.shape());
  copyInto(c, xt);
  Shape idx(10, 0);
  for (int64_t n = 0; n < c.numel(); ++n) { // every element, by multi-index
    Shape rev(idx.rbegin(), idx.rend());
    ASSERT_EQ(c.getF64(idx), x.getF64(rev)) << n;
    for (int64_t d = 9; d >= 0 && ++idx[d] == c.dim(d); --d)
      idx[d] = 0;
  }
}

// The last reference is dropped without an atomic read-modify-write (Tensor::releaseImpl,
// Buffer::release): copies dropped by several threads at once must free each tensor and
// buffer exactly once, and memory statistics must come back to where they started.
TEST(Tensor, ConcurrentDropsFreeEachBufferOnce) {
  int64_t before = memoryStats().liveBytes;
  for (int round = 0; round < 200; ++round) {
    Tensor shared = Tensor::zeros(DType::F32, {16});
    std::vector<std::thread> threads;
    for (int k = 0; k < 4; ++k)
      threads.emplace_back([copy = shared, view = shared.transpose()]() mutable {
        Tensor again = copy;
        copy = Tensor();
        view = Tensor();
        EXPECT_EQ(again.numel(), 16);
      });
    shared = Tensor();
    for (auto &th : threads)
      th.join();
  }
  EXPECT_EQ(memoryStats().liveBytes, before);
}

TEST(KernelTable, LookupByOpName) {
  EXPECT_NE(findKernel("add"), nullptr);
  EXPECT_EQ(findKernel("no_such_op"), nullptr);
  int32_t id = kernelId("add");
  EXPECT_EQ(kernelById(id)->name, "add");
  std::vector<Value> outs;
  Status s = callKernel("no_such_op", {}, {}, outs);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no kernel for op 'no_such_op'"), std::string::npos);
}

TEST(KernelTable, BroadcastMismatchIsAStatusNotACrash) {
  std::vector<Value> ins = {Tensor::zeros(DType::F32, {3, 4}), Tensor::zeros(DType::F32, {5})};
  std::vector<Value> outs;
  Status s = callKernel("add", ins, {}, outs);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "cannot broadcast f32[3, 4] with f32[5]");
}

TEST(KernelTable, AttrsReportMissingAndWrongKinds) {
  Attrs a{{"axis", int64_t(1)}, {"name", std::string("x")}};
  EXPECT_EQ(a.getInt("axis"), 1);
  EXPECT_EQ(a.getInts("axis"), (std::vector<int64_t>{1}));
  EXPECT_EQ(a.getInt("missing", 5), 5);
  try {
    a.getInt("name");
    FAIL();
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "attribute 'name' is not an int");
  }
  EXPECT_THROW(a.getFloat("nope"), Error);
}

TEST(Random, PhiloxKnownAnswer) {
  // Random123's known-answer test for philox4x32-10 with counter 0 and key 0.
  auto w = philox4x32(0, 0);
  EXPECT_EQ(w[0], 0x6627e8d5u);
  EXPECT_EQ(w[1], 0xe169c58du);
  EXPECT_EQ(w[2], 0xbc57ac4cu);
  EXPECT_EQ(w[3], 0x9b00dbd8u);
}

TEST(Random, SeedRepeats) {
  seed(42);
  Tensor a = Tensor::empty(DType::F32, {1000});
  fillNormal(a);
  Tensor u = Tensor::empty(DType::F64, {7});
  fillUniform(u);
  seed(42);
  Tensor b = Tensor::empty(DType::F32, {1000});
  fillNormal(b);
  EXPECT_EQ(std::memcmp(a.rawData(), b.rawData(), 4000), 0);
  double mean = 0, var = 0;
  for (int i = 0; i < 1000; ++i)
    mean += a.data<float>()[i] / 1000.0;
  for (int i = 0; i < 1000; ++i)
    var += std::pow(a.data<float>()[i] - mean, 2) / 1000.0;
  EXPECT_NEAR(mean, 0.0, 0.15);
  EXPECT_NEAR(var, 1.0, 0.15);
  for (int i = 0; i < 7; ++i) {
    EXPECT_GE(u.data<double>()[i], 0.0);
    EXPECT_LT(u.data<double>()[i], 1.0);
  }
}

} // namespace

#include "kernels/cpu/CpuKernels.h"
#include "runtime/Threads.h"

#include <vector>

namespace {
TEST(Threads, InterOpScopesSplitTheCores) {
  (void)findKernel("add"); // registration applies the default policy
  int cores = computeCores();
  EXPECT_EQ(blasThreads(), cores);
  {
    ScopedInterOpThreads scope(cores);
    EXPECT_EQ(blasThreads(), 1);
    {
      ScopedInterOpThreads inner(1); // nested: the larger inter-op count wins
      EXPECT_EQ(blasThreads(), 1);
    }
  }
  EXPECT_EQ(blasThreads(), cores);
}

/// One product OpenBLAS threads (m * n * k = 128^3 > 262144), as the kernels call it.
void threadedProduct() {
  std::vector<float> a(128 * 128, 1.0f), c(128 * 128);
  cpu::gemm(false, false, 128, 128, 128, a.data(), 128, a.data(), 128, 0.0f, c.data(), 128);
  EXPECT_EQ(c[0], 128.0f);
}

TEST(Threads, OpenBlasRaisedOnlyForAThreadedProductTheScopeAllows) {
  (void)findKernel("add");
  int cores = computeCores();
  {
    // Kernels running side by side on every core: OpenBLAS stays at one thread.
    ScopedInterOpThreads scope(cores);
    threadedProduct();
    EXPECT_EQ(openBlasThreads(), 1);
  }
  // Alone again: the next threaded product gets the policy's count.
  threadedProduct();
  EXPECT_EQ(openBlasThreads(), blasThreads());
  {
    ScopedInterOpThreads scope(cores); // lowering is immediate
    EXPECT_EQ(openBlasThreads(), 1);
  }
  EXPECT_EQ(openBlasThreads(), blasThreads()); // back up to the workers it has
}
} // namespace
