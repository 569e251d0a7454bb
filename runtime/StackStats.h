//===- runtime/StackStats.h - What autodiff's stacks hold -----------------===//
//
// The forward pass of a differentiated loop pushes the values its backward pass needs onto
// stacks (`stack_push`, docs/autodiff.md). These counters make that memory observable without
// timing: bytes pushed since the last reset, and the largest stack seen. Kernels update them
// atomically; tests and `--stack-stats` read them.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_STACKSTATS_H
#define DLM_RUNTIME_STACKSTATS_H

#include <cstdint>

namespace dlm::rt {

struct StackStats {
  int64_t pushes = 0;         ///< stack_push calls.
  int64_t bytesPushed = 0;    ///< bytes of the entries pushed.
  int64_t peakStackBytes = 0; ///< bytes of the largest stack built by a push.
  /// Bytes of the largest buffer a stack grew in (at most twice its entries: a stack grows in
  /// place into room it doubles when full, so a push costs O(entry) amortised).
  int64_t peakReservedBytes = 0;
};

/// The counters since the last reset.
StackStats stackStats();
void resetStackStats();
/// Called by the stack_push and stack_extend kernels.
void recordStackPush(int64_t entryBytes, int64_t stackBytes, int64_t reservedBytes);

} // namespace dlm::rt

#endif // DLM_RUNTIME_STACKSTATS_H
