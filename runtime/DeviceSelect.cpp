//===- runtime/DeviceSelect.cpp - Resolving --device to the device to place for ===//
//
// In a CUDA build the backend is a module, lib/libdlm_cuda_backend.so next to the tool's bin/
// (or $DLM_CUDA_BACKEND), loaded with dlopen only when it may find a GPU: for auto, when the
// CUDA driver library (libcuda.so.1) is installed at all; for cuda, always (its discovery then
// says why there is no GPU). So a CPU-only run never loads cuBLAS and the CUDA runtime.
//
//===----------------------------------------------------------------------===//
#include "runtime/DeviceSelect.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <mutex>

namespace dlm::rt {

bool cudaBuild() {
#ifdef DLM_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

namespace {

#ifdef DLM_HAVE_CUDA
std::string backendPath() {
  if (const char *p = getenv("DLM_CUDA_BACKEND"))
    return p;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return "libdlm_cuda_backend.so";
  std::string dir(exe, (size_t)n);
  dir = dir.substr(0, dir.rfind('/'));
  return dir.substr(0, dir.rfind('/')) + "/lib/libdlm_cuda_backend.so";
}

/// Loads the backend once and enables it; "" when a GPU answered (its kernels are registered),
/// else why not.
const std::string &enableBackend() {
  static std::once_flag once;
  static std::string reason;
  std::call_once(once, [] {
    std::string path = backendPath();
    void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *err = dlerror();
      reason = "cannot load the CUDA backend: " + std::string(err ? err : path);
      return;
    }
    using EnableFn = int (*)(char *, size_t);
    auto enable = reinterpret_cast<EnableFn>(dlsym(lib, "dlm_cuda_backend_enable"));
    if (!enable) {
      reason = "the CUDA backend " + path + " has no dlm_cuda_backend_enable";
      return;
    }
    char why[512] = "";
    if (!enable(why, sizeof why))
      reason = why[0] ? why : "no GPU";
  });
  return reason;
}

/// Whether the CUDA driver library is installed (without it there is no GPU to find).
bool driverInstalled() {
  static const bool installed = [] {
    void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (driver)
      dlclose(driver);
    return driver != nullptr;
  }();
  return installed;
}
#endif

/// Why there is no usable GPU, or "" when the backend found one and registered its kernels.
/// `probe` (auto): give up without loading the backend when no CUDA driver is installed.
std::string cudaUnavailableReason(bool probe) {
#ifdef DLM_HAVE_CUDA
  if (probe && !driverInstalled())
    return "no CUDA driver (libcuda.so.1) is installed";
  return enableBackend();
#else
  (void)probe;
  return "this dlm was built without the CUDA backend";
#endif
}

} // namespace

Status selectDevice(DeviceRequest request, std::string &device) {
  switch (request) {
  case DeviceRequest::Cpu:
    device = kCpuDevice;
    return Status();
  case DeviceRequest::Fake:
    device = kFakeDevice;
    return Status();
  case DeviceRequest::Auto:
    device = cudaUnavailableReason(true).empty() ? kCudaDevice : kCpuDevice;
    return Status();
  case DeviceRequest::Cuda:
    break;
  }
  std::string reason = cudaUnavailableReason(false);
  if (!reason.empty())
    return Status::error("no CUDA device available (" + reason + ")");
  device = kCudaDevice;
  return Status();
}

} // namespace dlm::rt
