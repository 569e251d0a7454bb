//===- tests/gpu/GpuCompare.h - Shared helpers of the GPU tests ------------===//
//
// REQUIRE_GPU() skips a test visibly ("skipped: no GPU (<reason>)") when no device answers and
// otherwise enables the backend with every GPU allocation poisoned (NaN bytes); `compare` runs
// a kernel on the CPU and on the GPU on the same values and checks dtype, shape and every
// element (f32 relative error below `tol`, integers exactly).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_TESTS_GPU_GPUCOMPARE_H
#define DLM_TESTS_GPU_GPUCOMPARE_H

#include "kernels/cuda/CudaKernels.h"
#include "runtime/Kernel.h"
#include "runtime/cuda/CudaRuntime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace dlm::gputest {

using rt::Attrs;
using rt::Device;
using rt::Shape;
using rt::Tensor;
using rt::Value;

#define REQUIRE_GPU()                                                                              \
  do {                                                                                             \
    if (!::dlm::cuda::enableCuda())                                                                \
      GTEST_SKIP() << "skipped: no GPU (" << ::dlm::rt::cuda::discover().reason << ")";            \
    ::dlm::rt::cuda::cachingAllocator().setPoison(true);                                           \
  } while (0)

/// `std::mt19937 gen` seeded afresh; every failure message of the test names the seed.
#define SEEDED_GENERATOR(gen)                                                                      \
  uint32_t gen##Seed = ::dlm::gputest::freshSeed();                                                \
  SCOPED_TRACE("seed " + std::to_string(gen##Seed));                                               \
  std::mt19937 gen(gen##Seed)

inline uint32_t freshSeed() {
  static std::random_device rd;
  return rd();
}

inline Tensor randomF32(const Shape &shape, std::mt19937 &gen, float lo = -2.0f, float hi = 2.0f) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v((size_t)rt::numelOf(shape));
  for (float &x : v)
    x = d(gen);
  return Tensor::fromVector(DType::F32, v, shape);
}

/// Runs `op` on the CPU and on the GPU (every operand copied over) and compares the outputs.
inline void compare(const std::string &op, const std::vector<Tensor> &inputs, const Attrs &attrs,
                    double tol = 1e-4) {
  const rt::KernelInfo *cpu = rt::findKernel(op, Device::CPU);
  const rt::KernelInfo *gpu = rt::findKernel(op, Device::CUDA);
  ASSERT_NE(cpu, nullptr) << op;
  ASSERT_NE(gpu, nullptr) << op << " has no CUDA kernel";
  std::vector<Value> cpuIn, gpuIn, cpuOut, gpuOut;
  for (const Tensor &t : inputs) {
    cpuIn.emplace_back(t);
    gpuIn.emplace_back(rt::cuda::toDevice(t));
  }
  rt::Status sc = rt::callKernel(*cpu, cpuIn, attrs, cpuOut);
  ASSERT_TRUE(sc.ok()) << op << " (cpu): " << sc.message();
  rt::Status sg = rt::callKernel(*gpu, gpuIn, attrs, gpuOut);
  ASSERT_TRUE(sg.ok()) << op << " (cuda): " << sg.message();
  ASSERT_EQ(cpuOut.size(), gpuOut.size()) << op;
  for (size_t i = 0; i < cpuOut.size(); ++i) {
    Tensor want = cpuOut[i].tensor().contiguous();
    Tensor got = gpuOut[i].tensor();
    ASSERT_EQ(got.device(), Device::CUDA) << op;
    got = rt::cuda::toHost(dlm::cuda::contiguousCuda(got));
    ASSERT_EQ(want.typeString(), got.typeString()) << op << " output " << i;
    for (int64_t j = 0; j < want.numel(); ++j) {
      if (want.dtype() == DType::F32) {
        float w = want.data<float>()[j], g = got.data<float>()[j];
        if (std::isnan(w)) {
          EXPECT_TRUE(std::isnan(g)) << op << " element " << j;
          continue;
        }
        ASSERT_FALSE(std::isnan(g)) << op << " element " << j << " not written (poison) or NaN";
        ASSERT_LE(std::fabs(g - w), tol * std::max(1.0f, std::fabs(w)))
            << op << " element " << j << ": cuda " << g << ", cpu " << w;
      } else {
        ASSERT_EQ(want.data<int64_t>()[j], got.data<int64_t>()[j]) << op << " element " << j;
      }
    }
  }
}

} // namespace dlm::gputest

#endif // DLM_TESTS_GPU_GPUCOMPARE_H
