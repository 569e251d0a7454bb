//===- runtime/DeviceSelect.cpp - Resolving --device to the device to place for ===//
#include "runtime/DeviceSelect.h"

#ifdef DLM_HAVE_CUDA
#include "kernels/cuda/CudaKernels.h"
#include "runtime/cuda/CudaRuntime.h"
#endif

namespace dlm::rt {

bool cudaBuild() {
#ifdef DLM_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

namespace {

/// Why there is no usable GPU, or "" when enableCuda() found one and registered its kernels.
std::string cudaUnavailableReason() {
#ifdef DLM_HAVE_CUDA
  if (dlm::cuda::enableCuda()) return "";
  return cuda::discover().reason;
#else
  return "this dlm was built without the CUDA backend";
#endif
}

} // namespace

Status selectDevice(DeviceRequest request, std::string &device) {
  switch (request) {
  case DeviceRequest::Cpu: device = kCpuDevice; return Status();
  case DeviceRequest::Fake: device = kFakeDevice; return Status();
  case DeviceRequest::Auto: device = cudaUnavailableReason().empty() ? kCudaDevice : kCpuDevice; return Status();
  case DeviceRequest::Cuda: break;
  }
  std::string reason = cudaUnavailableReason();
  if (!reason.empty()) return Status::error("no CUDA device available (" + reason + ")");
  device = kCudaDevice;
  return Status();
}

} // namespace dlm::rt
