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

#include <array>

namespace dlm::rt {

/// Runs `inner(ptrs, steps, n)` over every innermost run of `shape`: `ptrs[k]` points at the
/// run's first element of operand k, `steps[k]` is its byte stride along the run, `n` its length.
/// `strides[k]` are operand k's byte strides over `shape`.
template <size_t N, typename F>
void forEachStrided(const Shape &shape, std::array<char *, N> base,
                    const std::array<Shape, N> &strides, F &&inner) {
  for (int64_t d : shape)
    if (d == 0) return;
  // Coalesce: drop size-1 dims, merge (outer, inner) pairs contiguous for all operands.
  std::vector<int64_t> dims;
  std::array<std::vector<int64_t>, N> st;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    bool merge = !dims.empty();
    for (size_t k = 0; k < N && merge; ++k)
      merge = st[k].back() == strides[k][i] * shape[i];
    if (merge) {
      dims.back() *= shape[i];
      for (size_t k = 0; k < N; ++k) st[k].back() = strides[k][i];
      continue;
    }
    dims.push_back(shape[i]);
    for (size_t k = 0; k < N; ++k) st[k].push_back(strides[k][i]);
  }
  std::array<int64_t, N> steps{};
  if (dims.empty()) {
    inner(base, steps, int64_t(1));
    return;
  }
  size_t r = dims.size();
  for (size_t k = 0; k < N; ++k) steps[k] = st[k][r - 1];
  int64_t n = dims[r - 1];
  std::vector<int64_t> counter(r - 1, 0);
  std::array<char *, N> ptrs = base;
  for (;;) {
    inner(ptrs, steps, n);
    // Advance the outer counter (odometer), adjusting pointers incrementally.
    size_t d = r - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++counter[d] < dims[d]) {
        for (size_t k = 0; k < N; ++k) ptrs[k] += st[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) ptrs[k] -= st[k][d] * (dims[d] - 1);
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
