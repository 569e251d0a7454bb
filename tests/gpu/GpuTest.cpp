//===- tests/gpu/GpuTest.cpp - CUDA runtime and kernels against the CPU ---===//
//
// Discovery and the allocator's size classes run everywhere. Everything that touches a device
// skips with "skipped: no GPU (<reason>)" when cudaGetDeviceCount finds none. Kernel tests draw
// fresh random inputs (the seed is printed with any failure), poison every GPU allocation with
// NaN bytes, and compare the CUDA result with the CPU kernel's: same dtype and shape, f32
// relative error below 1e-4 (integers exactly).
//
//===----------------------------------------------------------------------===//
#include "tests/gpu/GpuCompare.h"

#include "kernels/cuda/CudaKernels.h"
#include "kernels/cuda/Launch.h"
#include "runtime/Kernel.h"
#include "runtime/Random.h"
#include "runtime/cuda/CudaRuntime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace dlm;
using rt::Attrs;
using rt::Device;
using rt::Shape;
using rt::Tensor;
using rt::Value;

using gputest::compare;
using gputest::freshSeed;
using gputest::randomF32;

TEST(CudaDiscovery, NoGpuIsNotAnError) {
  const rt::cuda::Discovery &d = rt::cuda::discover();
  if (d.deviceCount == 0) {
    EXPECT_FALSE(d.reason.empty());
    EXPECT_FALSE(dlm::cuda::enableCuda());
    EXPECT_EQ(rt::findKernel("add", Device::CUDA), nullptr);
    try {
      rt::cuda::requireDevice();
      ADD_FAILURE() << "requireDevice did not throw without a GPU";
    } catch (const rt::Error &e) {
      EXPECT_EQ(std::string(e.what()), "no CUDA device available (" + d.reason + ")");
    }
    std::printf("no GPU: %s\n", d.reason.c_str());
  } else {
    EXPECT_TRUE(d.reason.empty());
    EXPECT_FALSE(d.description.empty());
    EXPECT_NO_THROW(rt::cuda::requireDevice());
    std::printf("GPU 0: %s\n", d.description.c_str());
  }
}

TEST(CudaFusedIndexSpace, MergesDimsOperandsRunAlongAlike) {
  using cuda::fusedIndexSpace;
  // Same-shape dense operands and a scalar: one flat dim.
  cuda::FusedIndexSpace flat = fusedIndexSpace({4, 6, 5}, {{30, 5, 1}, {}, {30, 5, 1}});
  EXPECT_EQ(flat.dims, (Shape{120}));
  EXPECT_EQ(flat.strides, (std::vector<Shape>{{1}, {}, {1}}));
  // A row broadcast (strides 0, 1) keeps two dims; a column broadcast too.
  cuda::FusedIndexSpace row = fusedIndexSpace({64, 256}, {{256, 1}, {0, 1}, {1, 0}});
  EXPECT_EQ(row.dims, (Shape{64, 256}));
  EXPECT_EQ(row.strides, (std::vector<Shape>{{256, 1}, {0, 1}, {1, 0}}));
  // Size-1 dims drop out; dims merge where all agree, not across a transposed operand.
  cuda::FusedIndexSpace mixed = fusedIndexSpace({2, 1, 3, 4}, {{12, 12, 4, 1}, {1, 1, 2, 6}});
  EXPECT_EQ(mixed.dims, (Shape{2, 3, 4}));
  EXPECT_EQ(mixed.strides, (std::vector<Shape>{{12, 4, 1}, {1, 2, 6}}));
  cuda::FusedIndexSpace outer = fusedIndexSpace({3, 4, 5}, {{20, 5, 1}, {4, 1, 0}});
  EXPECT_EQ(outer.dims, (Shape{12, 5}));
  EXPECT_EQ(outer.strides, (std::vector<Shape>{{5, 1}, {1, 0}}));
  // One element.
  cuda::FusedIndexSpace one = fusedIndexSpace({1, 1}, {{1, 1}, {}});
  EXPECT_EQ(one.dims, (Shape{1}));
  EXPECT_EQ(one.strides, (std::vector<Shape>{{0}, {}}));
}

TEST(CudaAllocator, SizeClasses) {
  using A = rt::cuda::CachingAllocator;
  EXPECT_EQ(A::roundSize(0), 512u);
  EXPECT_EQ(A::roundSize(1), 512u);
  EXPECT_EQ(A::roundSize(512), 512u);
  EXPECT_EQ(A::roundSize(513), 1024u);
  EXPECT_EQ(A::roundSize((1u << 20) - 1), 1u << 20);
  EXPECT_EQ(A::roundSize((1u << 20) + 1), 2u << 20);
}

TEST(CudaAllocator, ReusesFreedBlocks) {
  REQUIRE_GPU();
  auto &a = rt::cuda::cachingAllocator();
  a.emptyCache();
  void *p = a.allocate(1000);
  auto before = a.stats();
  a.deallocate(p, 1000);
  void *q = a.allocate(900); // same 1024-byte class
  EXPECT_EQ(p, q);
  EXPECT_EQ(a.stats().reuses, before.reuses + 1);
  EXPECT_EQ(a.stats().mallocs, before.mallocs);
  a.deallocate(q, 900);
  a.emptyCache();
  EXPECT_EQ(a.stats().cachedBytes, 0u);
}

TEST(CudaCopies, RoundTripAndStreams) {
  REQUIRE_GPU();
  std::mt19937 gen(freshSeed());
  Tensor x = randomF32({7, 33}, gen);
  Tensor back = rt::cuda::toHost(rt::cuda::toDevice(x.transpose()));
  Tensor want = x.transpose().contiguous();
  ASSERT_EQ(back.typeString(), want.typeString());
  EXPECT_EQ(0, std::memcmp(back.rawData(), want.rawData(), (size_t)want.numel() * 4));

  rt::cuda::Stream s = rt::cuda::Stream::create();
  Tensor d = Tensor::empty(DType::F32, x.shape(), Device::CUDA);
  rt::cuda::Event start, end;
  start.record(s);
  s.copyAsync(d.rawData(), x.rawData(), (size_t)x.numel() * 4);
  end.record(s);
  end.synchronize();
  EXPECT_GE(end.elapsedMsSince(start), 0.0f);
  Tensor h = rt::cuda::toHost(d);
  EXPECT_EQ(0, std::memcmp(h.rawData(), x.rawData(), (size_t)x.numel() * 4));
}

namespace {

/// Runs kernel `op` of `device` on one operand.
Value runKernel(const char *op, Device device, const Value &x, const Attrs &attrs = {}) {
  std::vector<Value> in{x}, out;
  rt::Status s = rt::callKernel(*rt::findKernel(op, device), in, attrs, out);
  EXPECT_TRUE(s.ok()) << op << ": " << s.message();
  return out.empty() ? Value() : out[0];
}

} // namespace

TEST(CudaTransfers, AsyncSendRecvRoundTripsExactly) {
  REQUIRE_GPU();
  SEEDED_GENERATOR(gen);
  uint64_t reusesBefore = rt::cuda::pinnedPool().stats().reuses;
  for (int round = 0; round < 3; ++round) {
    Tensor x = randomF32({300, 257}, gen);
    // cpu -> cuda (staged, copy stream, event), a kernel on the default stream after Recv,
    // cuda -> cpu of a strided view (packed first), Recv on the CPU waits for its event only.
    Value onGpu =
        runKernel("Recv", Device::CUDA,
                  runKernel("Send", Device::CPU, Value(x), Attrs{{"to", std::string("cuda")}}));
    ASSERT_EQ(onGpu.tensor().device(), Device::CUDA);
    Value y = runKernel("relu", Device::CUDA, onGpu);
    Value back = runKernel("Recv", Device::CPU,
                           runKernel("Send", Device::CUDA, Value(y.tensor().transpose()),
                                     Attrs{{"to", std::string("cpu")}}));
    Tensor got = back.tensor();
    Tensor want = runKernel("relu", Device::CPU, Value(x)).tensor().transpose().contiguous();
    ASSERT_EQ(got.device(), Device::CPU);
    ASSERT_EQ(got.typeString(), want.typeString());
    ASSERT_EQ(std::memcmp(got.rawData(), want.rawData(), (size_t)want.numel() * sizeof(float)), 0)
        << "round " << round;
  }
  EXPECT_GT(rt::cuda::pinnedPool().stats().reuses, reusesBefore)
      << "staging buffers are not reused";
}

TEST(CudaKernels, ElementwiseBroadcastingAndStrides) {
  REQUIRE_GPU();
  SEEDED_GENERATOR(gen);
  Tensor a = randomF32({3, 1, 5}, gen), b = randomF32({4, 5}, gen);
  for (const char *op : {"add", "sub", "mul", "div", "maximum", "minimum"}) {
    compare(op, {a, b}, {});
    compare(op, {b, Tensor::fromVector(DType::F32, std::vector<float>{1.5f}, Shape{})}, {});
  }
  Tensor wide = randomF32({6, 9}, gen, 0.1f, 3.0f);
  for (const char *op : {"neg", "abs", "exp", "log", "sqrt", "tanh", "sigmoid", "relu"}) {
    compare(op, {wide}, {});
    compare(op, {wide.transpose()}, {});
  }
}

TEST(CudaKernels, Reductions) {
  REQUIRE_GPU();
  SEEDED_GENERATOR(gen);
  Tensor x = randomF32({4, 6, 5}, gen);
  for (const char *op : {"sum", "mean", "max", "min"})
    for (std::vector<int64_t> axes : {std::vector<int64_t>{}, {1}, {0, 2}, {-1}})
      for (bool keep : {false, true}) {
        compare(op, {x}, Attrs{{"axes", axes}, {"keepdims", keep}});
        compare(op, {x.transpose()}, Attrs{{"axes", axes}, {"keepdims", keep}});
      }
  compare("argmax", {x}, {});
  for (int64_t axis : {0, 1, -1})
    for (bool keep : {false, true})
      compare("argmax", {x}, Attrs{{"axis", axis}, {"keepdims", keep}});
}

TEST(CudaKernels, SoftmaxAndCrossEntropy) {
  REQUIRE_GPU();
  SEEDED_GENERATOR(gen);
  Tensor x = randomF32({5, 300}, gen, -8.0f, 8.0f);
  for (int64_t axis : {0, 1, -1}) {
    compare("softmax", {x}, Attrs{{"axis", axis}});
    compare("log_softmax", {x}, Attrs{{"axis", axis}});
  }
  std::uniform_int_distribution<int64_t> label(0, 299);
  std::vector<int64_t> labels(5);
  for (int64_t &l : labels)
    l = label(gen);
  compare("cross_entropy", {x, Tensor::fromVector(DType::I64, labels)}, {});

  labels[3] = 300;
  std::vector<Value> in{Value(rt::cuda::toDevice(x)),
                        Value(rt::cuda::toDevice(Tensor::fromVector(DType::I64, labels)))};
  std::vector<Value> out;
  rt::Status s = rt::callKernel(*rt::findKernel("cross_entropy", Device::CUDA), in, {}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("label 300 at row 3 is out of range for 300 classes"),
            std::string::npos)
      << s.message();
}

TEST(CudaKernels, MatmulThroughCublas) {
  REQUIRE_GPU();
  SEEDED_GENERATOR(gen);
  compare("matmul", {randomF32({33, 65}, gen), randomF32({65, 17}, gen)}, {});
  compare("matmul", {randomF32({3, 8, 16}, gen), randomF32({3, 16, 4}, gen)}, {});
  compare("matmul", {randomF32({3, 8, 16}, gen), randomF32({16, 4}, gen)}, {});
  compare("matmul", {randomF32({16, 8}, gen).transpose(), randomF32({16, 4}, gen)}, {});
}

TEST(CudaKernels, GatherMatchesTheCpu) {
  REQUIRE_GPU();
  SEEDED_GENERATOR(gen);
  Tensor x = randomF32({7, 9, 5}, gen);
  std::vector<int64_t> rows = {6, 0, -1, 3, 3, 2, 5, 1};
  Tensor perm = Tensor::fromVector(DType::I64, rows, {2, 4});
  for (int64_t axis : {0, 1, -1})
    compare("gather", {x, perm.to(DType::I32)}, Attrs{{"axis", axis}});
  compare("gather", {x.transpose(), Tensor::fromVector(DType::I64, rows)}, Attrs{{"axis", 0}});
  compare("gather", {x, Tensor::scalarI64(-2)}, Attrs{{"axis", 1}});
  // Indices on the CPU (a randperm result) work as they are; a bad one fails in the CPU's words.
  std::vector<Value> in{Value(rt::cuda::toDevice(x)), Value(perm)}, out;
  ASSERT_TRUE(
      rt::callKernel(*rt::findKernel("gather", Device::CUDA), in, Attrs{{"axis", int64_t(0)}}, out)
          .ok());
  rows[4] = 7;
  in[1] = Value(Tensor::fromVector(DType::I64, rows));
  out.clear();
  rt::Status s =
      rt::callKernel(*rt::findKernel("gather", Device::CUDA), in, Attrs{{"axis", int64_t(0)}}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("index 7 is out of range for axis 0 with size 7"), std::string::npos)
      << s.message();
}

TEST(CudaKernels, PhiloxMatchesTheCpuStream) {
  REQUIRE_GPU();
  uint64_t key = ((uint64_t)freshSeed() << 32) | freshSeed(), start = freshSeed();
  SCOPED_TRACE("key " + std::to_string(key) + " start " + std::to_string(start));
  const int64_t n = 1001;
  Tensor words = Tensor::empty(DType::I32, {n}, Device::CUDA);
  rt::cuda::checkCuda(
      dlm::cuda::launchPhiloxWords(static_cast<uint32_t *>(words.rawData()), n, key, start),
      "philox");
  Tensor h = rt::cuda::toHost(words);
  rt::RandomRange r{key, start};
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(static_cast<const uint32_t *>(h.rawData())[i], r.word((uint64_t)i)) << "word " << i;

  for (bool normal : {false, true}) {
    uint64_t s = freshSeed();
    Tensor cpu = Tensor::empty(DType::F32, {3, 7});
    rt::seed(s);
    normal ? rt::fillNormal(cpu) : rt::fillUniform(cpu);
    Tensor gpu = Tensor::empty(DType::F32, {3, 7}, Device::CUDA);
    rt::seed(s);
    normal ? dlm::cuda::fillNormalCuda(gpu) : dlm::cuda::fillUniformCuda(gpu);
    Tensor g = rt::cuda::toHost(gpu);
    for (int64_t i = 0; i < cpu.numel(); ++i) {
      float w = cpu.data<float>()[i], v = g.data<float>()[i];
      if (normal)
        EXPECT_LE(std::fabs(v - w), 1e-6f * std::max(1.0f, std::fabs(w))) << "element " << i;
      else
        EXPECT_EQ(v, w) << "element " << i;
    }
  }
}
