//===- runtime/Random.cpp - Philox 4x32-10 and the process-wide stream ----===//
#include "runtime/Random.h"

#include <cmath>
#include <mutex>

namespace dlm::rt {

std::array<uint32_t, 4> philox4x32(uint64_t counter, uint64_t key) {
  constexpr uint32_t M0 = 0xD2511F53, M1 = 0xCD9E8D57;
  constexpr uint32_t W0 = 0x9E3779B9, W1 = 0xBB67AE85;
  uint32_t c0 = (uint32_t)counter, c1 = (uint32_t)(counter >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = (uint64_t)M0 * c0, p1 = (uint64_t)M1 * c2;
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0, c1 = n1, c2 = n2, c3 = n3;
    k0 += W0;
    k1 += W1;
  }
  return {c0, c1, c2, c3};
}

namespace {
struct Stream {
  std::mutex mu;
  uint64_t key = 0;
  uint64_t offset = 0;
};
Stream &stream() {
  static Stream s;
  return s;
}
} // namespace

void seed(uint64_t s) {
  Stream &st = stream();
  std::lock_guard<std::mutex> lock(st.mu);
  st.key = s;
  st.offset = 0;
}

RandomRange reserveRandom(uint64_t n) {
  Stream &st = stream();
  std::lock_guard<std::mutex> lock(st.mu);
  RandomRange r{st.key, st.offset};
  st.offset += (n + 3) / 4;
  return r;
}

namespace {
template <typename T> void fillUniformT(T *p, int64_t n, const RandomRange &r) {
  for (int64_t c = 0; c < (n + 3) / 4; ++c) {
    auto w = philox4x32(r.start + c, r.key);
    for (int64_t j = 0; j < 4 && c * 4 + j < n; ++j) {
      if constexpr (std::is_same_v<T, float>)
        p[c * 4 + j] = uniformF32(w[j]);
      else
        p[c * 4 + j] = uniformF64(w[j]);
    }
  }
}

/// Box-Muller on words (2k, 2k+1): u1 = (w0 + 1) * 2^-32 in (0, 1], u2 = w1 * 2^-32;
/// element 2k = r cos(2 pi u2), element 2k+1 = r sin(2 pi u2), computed in double.
template <typename T> void fillNormalT(T *p, int64_t n, const RandomRange &r) {
  for (int64_t c = 0; c < (n + 3) / 4; ++c) {
    auto w = philox4x32(r.start + c, r.key);
    for (int64_t h = 0; h < 2; ++h) {
      double u1 = ((double)w[2 * h] + 1.0) * (1.0 / 4294967296.0);
      double u2 = (double)w[2 * h + 1] * (1.0 / 4294967296.0);
      double rad = std::sqrt(-2.0 * std::log(u1));
      double theta = 2.0 * M_PI * u2;
      int64_t i = c * 4 + 2 * h;
      if (i < n)
        p[i] = (T)(rad * std::cos(theta));
      if (i + 1 < n)
        p[i + 1] = (T)(rad * std::sin(theta));
    }
  }
}
} // namespace

namespace {
/// Reserves the words for `t` and runs the f32 or f64 filler on its data.
template <template <typename> class Fill> void fillFloat(const Tensor &t, const char *op) {
  check(t.isContiguous() && isFloat(t.dtype()),
        std::string(op) + ": contiguous float tensor expected, got " + t.typeString());
  RandomRange r = reserveRandom((uint64_t)t.numel());
  if (t.dtype() == DType::F32)
    Fill<float>()(t.data<float>(), t.numel(), r);
  else
    Fill<double>()(t.data<double>(), t.numel(), r);
}
template <typename T> struct UniformFill {
  void operator()(T *p, int64_t n, const RandomRange &r) { fillUniformT(p, n, r); }
};
template <typename T> struct NormalFill {
  void operator()(T *p, int64_t n, const RandomRange &r) { fillNormalT(p, n, r); }
};
} // namespace

void fillUniform(const Tensor &t) { fillFloat<UniformFill>(t, "rand"); }
void fillNormal(const Tensor &t) { fillFloat<NormalFill>(t, "randn"); }

} // namespace dlm::rt
