//===- tests/frontend/unit/CrashGuardTest.cpp - What runGuarded leaves to the program ---===//
//
// Every tool runs its compilation, and `dlm run` the program, inside runGuarded: whatever it
// sets for the process holds while the program's kernels run. glibc's malloc maps a buffer above
// its mmap threshold (128 KiB at first) and, once such a buffer is freed, raises the threshold
// to its size, so that the tensors a training step allocates again and again come from the heap
// instead of being mapped and unmapped (and faulted in) each time. Any mallopt of M_TOP_PAD,
// M_TRIM_THRESHOLD, M_MMAP_THRESHOLD or M_MMAP_MAX freezes the threshold for the process.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/CrashGuard.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

void *volatile sink; // the buffers escape, so the compiler keeps every malloc and free

/// Whether a 16 MiB buffer allocated after one of the same size was freed is mapped on its own.
/// (Larger than what an arena keeps free at its top, 4 MiB even with a padded M_TOP_PAD, and
/// under the 32 MiB the threshold may rise to.)
bool secondLargeBufferIsMapped() {
#if defined(__GLIBC__)
  constexpr size_t kBig = 16 << 20;
  void *first = std::malloc(kBig);
  std::memset(first, 1, kBig);
  sink = first;
  std::free(first);
  size_t before = mallinfo2().hblks;
  void *second = std::malloc(kBig);
  sink = second;
  bool mapped = mallinfo2().hblks > before;
  std::free(second);
  return mapped;
#else
  return false;
#endif
}

TEST(CrashGuard, LargeBuffersComeFromTheHeapAgain) {
#if !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "glibc's malloc only";
#endif
  bool mapped = true;
  EXPECT_EQ(dlm::runGuarded("crash-guard-test", "",
                            [&] {
                              mapped = secondLargeBufferIsMapped();
                              return 0;
                            }),
            0);
  EXPECT_FALSE(mapped)
      << "malloc's mmap threshold no longer follows freed buffers (a mallopt in runGuarded?)";
}

} // namespace
