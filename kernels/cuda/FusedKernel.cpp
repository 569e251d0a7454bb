//===- kernels/cuda/FusedKernel.cpp - `fused` on the GPU: generated PTX kernels ===//
//
// The CUDA kernel of the `fused` op (docs/cuda.md "Generated fused kernels"). The body is
// compiled to PTX by the compiler's NVPTX code generator (compiler/codegen/Nvptx.h), reached
// through the runtime's rt::fusedPtxCompiler() hook, which the tools install; this file only
// loads the PTX with the CUDA driver API and launches it. The driver API is resolved at run
// time through cudaGetDriverEntryPointByVersion, so nothing links libcuda.
//
// Modules are cached per (body, operand dtypes and kinds, rank) for the life of the process:
// the first run of a body compiles and loads it (milliseconds), later runs only launch.
//
//===----------------------------------------------------------------------===//
#include "kernels/cuda/CudaKernels.h"

#include "runtime/Devices.h"
#include "runtime/Error.h"
#include "runtime/cuda/CudaRuntime.h"

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace dlm::cuda {
namespace {

using rt::Device;
using rt::Error;
using rt::Shape;
using rt::Tensor;
using rt::Value;

/// The four driver entry points the generated kernels need.
struct DriverApi {
  decltype(&::cuModuleLoadData) moduleLoadData = nullptr;
  decltype(&::cuModuleGetFunction) moduleGetFunction = nullptr;
  decltype(&::cuLaunchKernel) launchKernel = nullptr;
  decltype(&::cuGetErrorString) getErrorString = nullptr;
};

template <typename F> void resolve(F &fn, const char *symbol) {
  void *p = nullptr;
  cudaDriverEntryPointQueryResult found{};
  cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, &p, 12000, cudaEnableDefault, &found);
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !p)
    throw Error(std::string("fused on cuda: the CUDA driver has no ") + symbol);
  fn = reinterpret_cast<F>(p);
}

const DriverApi &driver() {
  static const DriverApi api = [] {
    DriverApi a;
    resolve(a.moduleLoadData, "cuModuleLoadData");
    resolve(a.moduleGetFunction, "cuModuleGetFunction");
    resolve(a.launchKernel, "cuLaunchKernel");
    resolve(a.getErrorString, "cuGetErrorString");
    return a;
  }();
  return api;
}

void checkDriver(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return;
  const char *text = nullptr;
  if (driver().getErrorString(r, &text) != CUDA_SUCCESS || !text)
    text = "unknown error";
  throw Error(std::string("fused on cuda: ") + what + ": " + text);
}

/// The loaded kernel of one (body, operands, rank), compiled and loaded on first use.
CUfunction kernelFor(const std::string &body, const std::vector<rt::FusedOperand> &operands,
                     size_t rank) {
  static std::mutex mu;
  static std::unordered_map<std::string, CUfunction> cache;
  std::string key = body + "|" + std::to_string(rank);
  for (const rt::FusedOperand &o : operands)
    key += "|" + std::string(dtypeName(o.dtype)) + (o.tensor ? "t" : "s");
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(key); it != cache.end())
    return it->second;
  rt::FusedPtxCompiler compile = rt::fusedPtxCompiler();
  if (!compile)
    throw Error("fused on cuda: no GPU code generator in this program (dlm and dlmc install it)");
  std::string ptx, entry, error;
  if (!compile(body, operands, rank, ptx, entry, error))
    throw Error("fused on cuda: cannot compile the body for the GPU: " + error);
  // Make the runtime API's primary context current on this thread for the driver calls.
  int device = 0;
  rt::cuda::checkCuda(cudaGetDevice(&device), "cudaGetDevice");
  rt::cuda::checkCuda(cudaSetDevice(device), "cudaSetDevice");
  CUmodule module = nullptr;
  checkDriver(driver().moduleLoadData(&module, ptx.c_str()), "cuModuleLoadData");
  CUfunction fn = nullptr;
  checkDriver(driver().moduleGetFunction(&fn, module, entry.c_str()), "cuModuleGetFunction");
  cache.emplace(std::move(key), fn);
  return fn;
}

/// The body's result dtype: the DTYPE after the last statement's " : ".
DType resultDType(const std::string &body) {
  size_t colon = body.rfind(" : ");
  std::optional<DType> dt =
      colon == std::string::npos ? std::nullopt : parseDType(body.substr(colon + 3));
  if (!dt)
    throw Error("fused: malformed body '" + body + "'");
  return *dt;
}

} // namespace

FusedIndexSpace fusedIndexSpace(const Shape &shape, const std::vector<Shape> &operandStrides) {
  FusedIndexSpace r;
  r.strides.resize(operandStrides.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    bool merge = !r.dims.empty();
    for (size_t i = 0; i < operandStrides.size() && merge; ++i)
      merge = operandStrides[i].empty() || r.strides[i].back() == operandStrides[i][d] * shape[d];
    if (merge)
      r.dims.back() *= shape[d];
    else
      r.dims.push_back(shape[d]);
    for (size_t i = 0; i < operandStrides.size(); ++i) {
      if (operandStrides[i].empty())
        continue;
      if (merge)
        r.strides[i].back() = operandStrides[i][d];
      else
        r.strides[i].push_back(operandStrides[i][d]);
    }
  }
  if (r.dims.empty()) { // one element
    r.dims.push_back(1);
    for (size_t i = 0; i < operandStrides.size(); ++i)
      if (!operandStrides[i].empty())
        r.strides[i].push_back(0);
  }
  return r;
}

void fusedKernel(std::span<const Value> in, const rt::Attrs &attrs, std::vector<Value> &out) {
  const std::string &body = attrs.getString("body");
  // Operands: tensors of rank >= 1 on the GPU (a one-element CPU tensor is copied over, as
  // for the other kernels), 0-d values read on the host and passed by value.
  std::vector<Tensor> tensors;
  std::vector<rt::FusedOperand> operands;
  Shape shape;
  for (size_t i = 0; i < in.size(); ++i) {
    Tensor t = in[i].tensor();
    rt::FusedOperand o{t.dtype(), t.rank() > 0};
    if (!o.tensor && t.device() != Device::CPU)
      t = rt::cuda::toHost(t);
    if (o.tensor && t.device() == Device::CPU) {
      if (t.numel() != 1)
        throw Error("fused on cuda: operand " + std::to_string(i) + " (" + t.typeString() +
                    ") is on the CPU");
      t = rt::cuda::toDevice(t);
    }
    if (o.tensor) {
      // NumPy broadcasting of the tensor operands gives the output's shape.
      size_t r = std::max(shape.size(), (size_t)t.rank());
      Shape joined(r);
      for (size_t d = 0; d < r; ++d) {
        int64_t a = d < r - shape.size() ? 1 : shape[d - (r - shape.size())];
        int64_t b = d < r - t.rank() ? 1 : t.dim(d - (r - t.rank()));
        if (a != b && a != 1 && b != 1)
          throw Error("fused: cannot broadcast operand " + std::to_string(i) + " (" +
                      t.typeString() + ")");
        joined[d] = a == 1 ? b : a;
      }
      shape = std::move(joined);
    }
    tensors.push_back(std::move(t));
    operands.push_back(o);
  }
  if (shape.empty())
    throw Error("fused on cuda: no tensor operand (a 0-d result stays on the CPU)");
  Tensor y = Tensor::empty(resultDType(body), shape, Device::CUDA);
  int64_t n = y.numel();
  if (n == 0) {
    out.emplace_back(std::move(y));
    return;
  }
  std::vector<Tensor> views(tensors.size());
  std::vector<Shape> viewStrides(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i)
    if (operands[i].tensor) {
      views[i] = tensors[i].broadcastTo(shape);
      viewStrides[i] = views[i].strides();
    }
  FusedIndexSpace space = fusedIndexSpace(shape, viewStrides);
  const Shape &dims = space.dims;
  const std::vector<Shape> &strides = space.strides;
  CUfunction fn = kernelFor(body, operands, dims.size());
  // One 8-byte slot per parameter (the driver copies each parameter's own size from it).
  std::vector<uint64_t> slots;
  slots.reserve(2 + dims.size() * (1 + in.size()) + in.size());
  auto push = [&](const void *value, size_t bytes) {
    slots.push_back(0);
    std::memcpy(&slots.back(), value, bytes);
  };
  void *outPtr = y.rawData();
  push(&outPtr, sizeof outPtr);
  push(&n, sizeof n);
  for (int64_t d : dims)
    push(&d, sizeof d);
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!operands[i].tensor) {
      push(tensors[i].contiguous().rawData(), tensors[i].elementSize());
      continue;
    }
    void *data = views[i].rawData();
    push(&data, sizeof data);
    for (int64_t s : strides[i])
      push(&s, sizeof s);
  }
  std::vector<void *> params;
  for (uint64_t &s : slots)
    params.push_back(&s);
  constexpr int64_t kThreads = 256, kMaxBlocks = 65535;
  unsigned blocks = (unsigned)std::min((n + kThreads - 1) / kThreads, kMaxBlocks);
  checkDriver(
      driver().launchKernel(fn, blocks, 1, 1, kThreads, 1, 1, 0, nullptr, params.data(), nullptr),
      "cuLaunchKernel");
  out.emplace_back(std::move(y));
}

} // namespace dlm::cuda
