//===- kernels/cpu/FastMath.h - Vectorisable f32 exp, tanh, sigmoid -------===//
//
// glibc's expf/tanhf are scalar calls, so loops over them do not vectorise. These are branch-
// free Cephes-style approximations written so GCC vectorises them at -O3: exp by range
// reduction (x = n ln2 + r) and a degree-6 polynomial, tanh by an odd polynomial below 0.625
// and 1 - 2 / (exp(2|x|) + 1) above. Both are within a few ulp of the correctly rounded
// result over the whole range (tests compare with float64 references); NaN propagates and
// the infinities give the right limits.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_KERNELS_CPU_FASTMATH_H
#define DLM_KERNELS_CPU_FASTMATH_H

#include <bit>
#include <cmath>
#include <cstdint>

namespace dlm::rt::cpu {

inline float fastExp(float x) {
  const float hi = 88.72283905206835f, lo = -103.9720840454f;
  float xc = std::min(std::max(x, lo), hi);
  // n = round(x / ln2) with the 1.5 * 2^23 trick: adding it leaves n in the low mantissa bits.
  // (std::floor or a float->int conversion after the clamp would keep GCC from vectorising.)
  const float magic = 12582912.0f;
  float shifted = xc * 1.44269504088896341f + magic;
  float fx = shifted - magic;
  float r = xc - fx * 0.693359375f + fx * 2.12194440e-4f;
  float z = r * r;
  float y =
      ((((1.9875691500E-4f * r + 1.3981999507E-3f) * r + 8.3334519073E-3f) * r + 4.1665795894E-2f) *
           r +
       1.6666665459E-1f) *
          r +
      5.0000001201E-1f;
  y = y * z + r + 1.0f;
  // 2^n split in two factors so n down to -150 (subnormal results) stays representable.
  int32_t n = std::bit_cast<int32_t>(shifted) - std::bit_cast<int32_t>(magic);
  int32_t n1 = n >> 1, n2 = n - n1;
  float s1 = std::bit_cast<float>((n1 + 127) << 23), s2 = std::bit_cast<float>((n2 + 127) << 23);
  float out = y * s1 * s2;
  out = x > hi ? INFINITY : out;
  out = x < lo ? 0.0f : out;
  return x != x ? x : out;
}

inline float fastTanh(float x) {
  float a = std::fabs(x);
  float s = x * x;
  float small = ((((-5.70498872745E-3f * s + 2.06390887954E-2f) * s - 5.37397155531E-2f) * s +
                  1.33314422036E-1f) *
                     s -
                 3.33332819422E-1f) *
                    s * x +
                x;
  float e = fastExp(2.0f * (a > 9.0f ? 9.0f : a));
  float big = 1.0f - 2.0f / (e + 1.0f);
  big = a > 9.0f ? 1.0f : big;
  big = std::copysign(big, x);
  float out = a < 0.625f ? small : big;
  return x != x ? x : out;
}

inline float fastSigmoid(float x) {
  // With e = e^-|x| in (0, 1]: 1 / (1 + e) for x >= 0, e / (1 + e) for x < 0 — never an
  // overflowing exponential, and accurate for tiny results.
  float e = fastExp(-std::fabs(x));
  float inv = 1.0f / (1.0f + e);
  return x >= 0.0f ? inv : (x != x ? x : e * inv);
}

} // namespace dlm::rt::cpu

#endif // DLM_KERNELS_CPU_FASTMATH_H
