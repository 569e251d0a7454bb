//===- kernels/cuda/Backend.cpp - The CUDA backend as a loadable module ----===//
//
// The tools (dlm, dlmc) do not link the CUDA libraries: loading cuBLAS costs every start about
// 80 ms of CPU (measured on the development machine, docs/cuda.md), which no CPU-only run should
// pay. They load this module with dlopen (runtime/DeviceSelect.cpp) when a GPU may be present;
// it holds the CUDA runtime side and the kernels and resolves the runtime's own symbols (the
// kernel table, tensors, allocators) against the executable, which exports them.
//
//===----------------------------------------------------------------------===//
#include "kernels/cuda/CudaKernels.h"
#include "runtime/cuda/CudaRuntime.h"

#include <cstring>
#include <string>

/// Enables the backend (allocator + kernels, enableCuda); returns 1 when a GPU answered, else 0
/// with discovery's reason copied into `reason` (NUL-terminated, at most `size` bytes).
extern "C" __attribute__((visibility("default"))) int dlm_cuda_backend_enable(char *reason,
                                                                              size_t size) {
  if (dlm::cuda::enableCuda())
    return 1;
  std::string why = dlm::rt::cuda::discover().reason;
  if (size) {
    std::strncpy(reason, why.c_str(), size - 1);
    reason[size - 1] = '\0';
  }
  return 0;
}
