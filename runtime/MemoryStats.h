//===- runtime/MemoryStats.h - How much tensor memory is in use -----------===//
//
// Tensor memory held by buffers, all devices together: the bytes held now and the most held at
// once since the last resetPeakMemory() (or since the start). Buffers count their requested
// size (not the allocator's rounding to 64 bytes); a view costs nothing. Buffer::create and
// Buffer::release update the counters atomically (runtime/Tensor.cpp); the `memory_stats` op
// reads them (docs/ops.md "Memory statistics").
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_MEMORYSTATS_H
#define DLM_RUNTIME_MEMORYSTATS_H

#include <cstdint>

namespace dlm::rt {

struct MemoryStats {
  int64_t liveBytes = 0;
  int64_t peakBytes = 0;
};

/// The counters now.
MemoryStats memoryStats();
/// Starts a new peak window: the peak becomes the bytes live now.
void resetPeakMemory();

} // namespace dlm::rt

#endif // DLM_RUNTIME_MEMORYSTATS_H
