//===- tests/runtime/BlasThreadsTool.cpp - OpenBLAS's threads, for blas-threads.test ---===//
//
// An executable linked like an AOT one (the runtime library and the shared OpenBLAS, whose
// constructor runs before the executable's). Prints the core OpenBLAS chose (it must see the
// environment: OPENBLAS_CORETYPE), then the process's threads, what OpenBLAS is set to and
// whether OPENBLAS_NUM_THREADS reads as it did at exec (/proc/self/environ), at start and after
// an f32 [n, n] x [n, n] matmul of ones through the kernel table for each size n on the
// command line.
//
//===----------------------------------------------------------------------===//
#include "runtime/CApi.h"
#include "runtime/Threads.h"

#include <cblas.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace {

/// OPENBLAS_NUM_THREADS as the process was started with it.
std::optional<std::string> variableAtExec(const std::string &name) {
  std::ifstream in("/proc/self/environ", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string prefix = name + "=";
  for (size_t at = 0; at < all.size(); at = all.find('\0', at) + 1) {
    if (all.compare(at, prefix.size(), prefix) == 0)
      return all.substr(at + prefix.size(), all.find('\0', at) - at - prefix.size());
    if (all.find('\0', at) == std::string::npos)
      break;
  }
  return std::nullopt;
}

void report(const char *when) {
  const char *name = "OPENBLAS_NUM_THREADS";
  const char *now = std::getenv(name);
  std::optional<std::string> atExec = variableAtExec(name);
  bool same = now ? atExec && *atExec == now : !atExec;
  std::printf("%s: threads %d, OpenBLAS set to %d, %s %s\n", when, dlm::rt::processThreads(),
              dlm::rt::openBlasThreads(), name, same ? "as at exec" : "CHANGED");
}

} // namespace

int main(int argc, char **argv) {
  std::printf("OpenBLAS core: %s\n", openblas_get_corename());
  report("start");
  for (int i = 1; i < argc; ++i) {
    int64_t n = std::atoll(argv[i]);
    int64_t shape[2] = {n, n};
    std::vector<float> ones((size_t)(n * n), 1.0f);
    dlm_tensor *a = dlm_tensor_from_data(DLM_F32, 2, shape, ones.data());
    dlm_tensor *ins[2] = {a, a};
    dlm_tensor *out = nullptr;
    int32_t nout = 0;
    if (dlm_kernel_call(dlm_kernel_id("matmul"), ins, 2, nullptr, &out, 1, &nout) != 0) {
      std::printf("matmul %s: %s\n", argv[i], dlm_last_error());
      return 1;
    }
    char when[64];
    std::snprintf(when, sizeof when, "matmul %s (elements %g)", argv[i],
                  ((const float *)dlm_tensor_data(out))[0]);
    report(when);
    dlm_tensor_release(out);
    dlm_tensor_release(a);
  }
  return 0;
}
