//===- runtime/Strided.h - Loops over N strided operands -----------------===//
//
// The one loop nest every layout-generic kernel uses (copies, casts, broadcasting elementwise
// ops): operands share an iteration shape and each has its own byte strides (0 where it is
// broadcast). Dimensions of size 1 are dropped and adjacent dimensions that are contiguous for
// every operand are merged, so the innermost callback sees runs as long as the layouts allow
// (the whole tensor when everything is contiguous) and can be a tight, vectorisable loop.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_STRIDED_H
#define DLM_RUNTIME_STRIDED_H

#include "runtime/Tensor.h"

#include <algorithm>
#include <array>
#include <vector>

namespace dlm::rt {

/// Runs `inner(ptrs, steps, n)` over every innermost run of `shape`: `ptrs[k]` points at the
/// run's first element of operand k, `steps[k]` is its byte stride along the run, `n` its length.
/// `strides[k]` are operand k's byte strides over `shape`.
template <size_t N, typename F>
void forEachStrided(const Shape &shape, std::array<char *, N> base,
                    const std::array<Shape, N> &strides, F &&inner) {
  for (int64_t d : shape)
    if (d == 0)
      return;
  // Scratch for the coalesced dims, each operand's strides and the odometer: on the stack up
  // to rank 8 (small-tensor loops call this per op), on the heap beyond.
  size_t rank = shape.size();
  constexpr size_t kInlineRank = 8;
  int64_t local[(N + 2) * kInlineRank];
  std::vector<int64_t> heap(rank > kInlineRank ? (N + 2) * rank : 0);
  int64_t *dims = rank > kInlineRank ? heap.data() : local;
  size_t cap = rank > kInlineRank ? rank : kInlineRank;
  auto st = [&](size_t k) { return dims + (k + 1) * cap; };
  int64_t *counter = dims + (N + 1) * cap;
  // Coalesce: drop size-1 dims, merge (outer, inner) pairs contiguous for all operands.
  size_t r = 0;
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] == 1)
      continue;
    bool merge = r > 0;
    for (size_t k = 0; k < N && merge; ++k)
      merge = st(k)[r - 1] == strides[k][i] * shape[i];
    if (merge) {
      dims[r - 1] *= shape[i];
      for (size_t k = 0; k < N; ++k)
        st(k)[r - 1] = strides[k][i];
      continue;
    }
    dims[r] = shape[i];
    for (size_t k = 0; k < N; ++k)
      st(k)[r] = strides[k][i];
    ++r;
  }
  std::array<int64_t, N> steps{};
  if (r == 0) {
    inner(base, steps, int64_t(1));
    return;
  }
  for (size_t k = 0; k < N; ++k)
    steps[k] = st(k)[r - 1];
  int64_t n = dims[r - 1];
  std::fill(counter, counter + (r - 1), int64_t(0));
  std::array<char *, N> ptrs = base;
  for (;;) {
    inner(ptrs, steps, n);
    // Advance the outer counter (odometer), adjusting pointers incrementally.
    size_t d = r - 1;
    for (;;) {
      if (d == 0)
        return;
      --d;
      if (++counter[d] < dims[d]) {
        for (size_t k = 0; k < N; ++k)
          ptrs[k] += st(k)[d];
        break;
      }
      for (size_t k = 0; k < N; ++k)
        ptrs[k] -= st(k)[d] * (dims[d] - 1);
      counter[d] = 0;
    }
  }
}

/// Byte strides of `t` viewed at `shape` (t's shape must broadcast to `shape`).
Shape broadcastByteStrides(const Tensor &t, const Shape &shape);

/// Base pointer of a tensor as char* (for forEachStrided).
inline char *bytePtr(const Tensor &t) { return static_cast<char *>(t.rawData()); }

} // namespace dlm::rt

#endif // DLM_RUNTIME_STRIDED_H
