//===- tests/embed/TestTensor.h - Host tensors of the embedding tests -----===//
//
// What tests/embed's C++ programs pass to dlm: a float32 tensor owning its data, with the
// deterministic values Inputs/check_mlp.py recomputes, and the MLP's sizes.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_TESTS_EMBED_TESTTENSOR_H
#define DLM_TESTS_EMBED_TESTTENSOR_H

#include <dlpack/dlpack.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace dlm_test {

constexpr int64_t kIn = 4, kHidden = 8, kOut = 3;

/// A float32 tensor owning its data: element i is 0.5 sin(0.37 i + salt), row-major.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;
  DLTensor dl{};
  Tensor(std::vector<int64_t> s, double salt) : shape(std::move(s)) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    for (int64_t i = 0; i < n; ++i)
      data.push_back(float(std::sin(double(i) * 0.37 + salt)) * 0.5f);
    dl.data = data.data();
    dl.device = {kDLCPU, 0};
    dl.ndim = int32_t(shape.size());
    dl.dtype = {kDLFloat, 32, 1};
    dl.shape = shape.data();
  }
};

} // namespace dlm_test

#endif // DLM_TESTS_EMBED_TESTTENSOR_H
