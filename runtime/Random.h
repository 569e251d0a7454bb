//===- runtime/Random.h - Counter-based random numbers (Philox 4x32-10) ---===//
//
// One process-wide stream: a 64-bit key (the seed) and a 64-bit counter offset. Philox4x32-10
// maps (counter, key) to four 32-bit words, so a kernel that needs n numbers reserves
// ceil(n / 4) consecutive counters and element i uses word i % 4 of counter (start + i / 4).
// The numbers depend only on the seed and on the order of reservations, never on threads or
// the engine; the CUDA backend reproduces them bit for bit from the same formulas
// (docs/runtime.md, "RNG", spells out the layout and the float conversions).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_RANDOM_H
#define DLM_RUNTIME_RANDOM_H

#include "runtime/Tensor.h"

#include <array>
#include <cstdint>

namespace dlm::rt {

/// Philox4x32 with 10 rounds. The 128-bit counter is (lo = counter, hi = 0); the key is the
/// seed's low and high 32-bit halves.
std::array<uint32_t, 4> philox4x32(uint64_t counter, uint64_t key);

/// Restarts the stream: key = seed, counter offset = 0. The initial state is seed 0.
void seed(uint64_t seed);

/// A reserved range of counters.
struct RandomRange {
  uint64_t key;
  uint64_t start;
  /// Word i of the range (element i of the requesting kernel).
  uint32_t word(uint64_t i) const { return philox4x32(start + i / 4, key)[i % 4]; }
};

/// Reserves counters for `n` 32-bit words (ceil(n/4) counters).
RandomRange reserveRandom(uint64_t n);

/// Uniform in [0, 1) from one word: f32 uses the top 24 bits, f64 all 32 (x * 2^-32).
inline float uniformF32(uint32_t x) { return (float)(x >> 8) * (1.0f / 16777216.0f); }
inline double uniformF64(uint32_t x) { return (double)x * (1.0 / 4294967296.0); }

/// Fills a contiguous float tensor with uniform [0, 1) values.
void fillUniform(const Tensor &t);
/// Fills a contiguous float tensor with standard normal values (Box-Muller on word pairs).
void fillNormal(const Tensor &t);

} // namespace dlm::rt

#endif // DLM_RUNTIME_RANDOM_H
