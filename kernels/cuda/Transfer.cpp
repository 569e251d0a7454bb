//===- kernels/cuda/Transfer.cpp - Send/Recv across the host/GPU boundary --===//
//
// Asynchronous transfers (docs/cuda.md "Send and Recv"). Kernels run on the legacy default
// stream; every copy runs on the dedicated copy stream (rt::cuda::copyStream) through a pinned
// staging buffer (rt::cuda::pinnedPool), ordered with events only, so neither side waits for
// the whole device:
//   Send host->GPU  packs the host tensor into a staging buffer, makes the copy stream wait for
//                   the work queued so far on the default stream (the destination block may
//                   have been freed by a kernel still running), copies, records `done`.
//   Recv on the GPU makes the default stream wait for `done` (the host does not block) and
//                   hands the tensor on.
//   Send GPU->host  makes the copy stream wait for the producer (queued on the default stream),
//                   copies into a staging buffer, records `done`; the device tensor is kept
//                   alive until then.
//   Recv on the CPU waits for that one event (not the device), copies the staging buffer into
//                   the host tensor Send returned, and hands it on.
// Send keeps the in-flight copy in a table keyed by the destination tensor's data, which its
// Recv (the verifier pairs them) takes out. Between host-memory devices Send is a host copy.
//
//===----------------------------------------------------------------------===//
#include "kernels/cuda/CudaKernels.h"

#include "runtime/Devices.h"
#include "runtime/Error.h"
#include "runtime/cuda/CudaRuntime.h"

#include <cuda_runtime.h>

#include <cstring>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace dlm::cuda {
namespace {

using rt::Device;
using rt::Error;
using rt::Tensor;
using rt::Value;
using rt::cuda::checkCuda;

struct InFlight {
  cudaEvent_t done = nullptr;
  bool toHost = false;
  void *staging = nullptr; ///< GPU->host: the pinned buffer the copy writes
  size_t bytes = 0;
  Tensor source; ///< GPU->host: the device tensor the copy reads, alive until `done`
};

std::mutex inFlightMu;
std::unordered_map<const void *, InFlight> inFlight;

cudaEvent_t newEvent() {
  cudaEvent_t e = nullptr;
  checkCuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate (transfer)");
  return e;
}

cudaStream_t copies() { return static_cast<cudaStream_t>(rt::cuda::copyStream()); }

/// Makes the copy stream wait for everything queued on the default stream so far.
void copiesAfterQueuedKernels() {
  cudaEvent_t queued = newEvent();
  checkCuda(cudaEventRecord(queued, cudaStreamLegacy), "cudaEventRecord (transfer)");
  checkCuda(cudaStreamWaitEvent(copies(), queued, 0), "cudaStreamWaitEvent (transfer)");
  (void)cudaEventDestroy(queued); // released once it has completed
}

void remember(const void *key, InFlight f) {
  std::lock_guard<std::mutex> lock(inFlightMu);
  inFlight[key] = std::move(f);
}

std::optional<InFlight> takeInFlight(const void *key) {
  std::lock_guard<std::mutex> lock(inFlightMu);
  auto it = inFlight.find(key);
  if (it == inFlight.end())
    return std::nullopt;
  InFlight f = std::move(it->second);
  inFlight.erase(it);
  return f;
}

Tensor sendToDevice(const Tensor &x) {
  rt::cuda::requireDevice();
  Tensor src = x.contiguous();
  Tensor dst = Tensor::empty(src.dtype(), src.shape(), Device::CUDA);
  size_t bytes = (size_t)src.numel() * src.elementSize();
  if (bytes == 0)
    return dst;
  void *staging = rt::cuda::pinnedPool().take(bytes);
  std::memcpy(staging, src.rawData(), bytes);
  copiesAfterQueuedKernels();
  checkCuda(cudaMemcpyAsync(dst.rawData(), staging, bytes, cudaMemcpyHostToDevice, copies()),
            "Send (to cuda)");
  cudaEvent_t done = newEvent(), staged = newEvent();
  checkCuda(cudaEventRecord(done, copies()), "cudaEventRecord (transfer)");
  checkCuda(cudaEventRecord(staged, copies()), "cudaEventRecord (transfer)");
  rt::cuda::pinnedPool().releaseAfter(staging, bytes, staged);
  remember(dst.rawData(), InFlight{done, false, nullptr, 0, Tensor()});
  return dst;
}

Tensor sendToHost(const Tensor &x) {
  Tensor src = x.isContiguous() ? x : contiguousCuda(x);
  Tensor dst = Tensor::empty(src.dtype(), src.shape(), Device::CPU);
  size_t bytes = (size_t)src.numel() * src.elementSize();
  if (bytes == 0)
    return dst;
  void *staging = rt::cuda::pinnedPool().take(bytes);
  copiesAfterQueuedKernels();
  checkCuda(cudaMemcpyAsync(staging, src.rawData(), bytes, cudaMemcpyDeviceToHost, copies()),
            "Send (to cpu)");
  cudaEvent_t done = newEvent();
  checkCuda(cudaEventRecord(done, copies()), "cudaEventRecord (transfer)");
  remember(dst.rawData(), InFlight{done, true, staging, bytes, src});
  return dst;
}

} // namespace

void sendKernel(std::span<const Value> in, const rt::Attrs &attrs, std::vector<Value> &out) {
  if (in.size() != 1)
    throw Error("'Send' expects one operand");
  const std::string &to = attrs.getString("to");
  Tensor x = in[0].tensor();
  Device dst = rt::runtimeDevice(to);
  if (x.device() == Device::CPU && dst == Device::CPU)
    out.emplace_back(x.clone());
  else if (x.device() == Device::CPU)
    out.emplace_back(sendToDevice(x));
  else if (dst == Device::CPU)
    out.emplace_back(sendToHost(x));
  else
    throw Error("Send: the tensor is already on '" + to + "'");
}

void recvKernel(std::span<const Value> in, const rt::Attrs &, std::vector<Value> &out) {
  if (in.size() != 1)
    throw Error("'Recv' expects one operand");
  const Tensor &t = in[0].tensor();
  if (std::optional<InFlight> f = takeInFlight(t.rawData())) {
    if (f->toHost) {
      checkCuda(cudaEventSynchronize(f->done), "Recv (waiting for the copy)");
      std::memcpy(t.rawData(), f->staging, f->bytes);
      rt::cuda::pinnedPool().releaseAfter(f->staging, f->bytes, f->done); // already complete
    } else {
      checkCuda(cudaStreamWaitEvent(cudaStreamLegacy, f->done, 0), "Recv (ordering the copy)");
      (void)cudaEventDestroy(f->done);
    }
  }
  out.push_back(in[0]);
}

} // namespace dlm::cuda
