//===- runtime/Devices.cpp - Device names, requests and what each device runs ===//
#include "runtime/Devices.h"

#include "ops/OpKind.h"
#include "runtime/Error.h"

#include <algorithm>

namespace dlm::rt {

std::optional<DeviceRequest> parseDeviceRequest(std::string_view name) {
  if (name == "auto")
    return DeviceRequest::Auto;
  if (name == kCpuDevice)
    return DeviceRequest::Cpu;
  if (name == kCudaDevice)
    return DeviceRequest::Cuda;
  if (name == kFakeDevice)
    return DeviceRequest::Fake;
  return std::nullopt;
}

Device runtimeDevice(std::string_view device) {
  return device == kCudaDevice ? Device::CUDA : Device::CPU;
}

namespace {

/// The names of the ops with flag `f` (ops/Ops.def), in table order.
std::vector<std::string_view> opsFlagged(OpFlags f) {
  std::vector<std::string_view> names;
  for (OpKind k : allOpKinds())
    if (opHas(k, f))
      names.push_back(opName(k));
  return names;
}

FusedPtxCompiler installedPtxCompiler = nullptr;

bool isF32Tensor(const TensorSig &t) { return t.isTensor && t.dtype == DType::F32; }

/// A 0-d number operand: the CUDA kernels copy it over and convert it to f32.
bool isScalarNumber(const TensorSig &t) { return t.isTensor && t.dims.empty(); }

/// The batch dims of a matmul operand (all but the last two).
std::vector<int64_t> batchDims(const TensorSig &t) {
  return std::vector<int64_t>(t.dims.begin(), t.dims.end() - 2);
}

/// cuBLAS matmul: ranks >= 2; batch dims equal (and known) unless one operand is 2-D.
bool cudaMatmulRuns(std::span<const TensorSig> operands) {
  const TensorSig &a = operands[0], &b = operands[1];
  if (a.dims.size() < 2 || b.dims.size() < 2)
    return false;
  if (a.dims.size() == 2 || b.dims.size() == 2)
    return true;
  std::vector<int64_t> ba = batchDims(a), bb = batchDims(b);
  return ba == bb && std::none_of(ba.begin(), ba.end(), [](int64_t d) { return d < 0; });
}

bool cudaOperandOk(std::string_view op, size_t i, const TensorSig &t) {
  if (op == "cross_entropy" && i == 1)
    return t.isTensor && t.dtype == DType::I64 && t.dims.size() == 1;
  if (op == "gather" && i == 1)
    return t.isTensor && isInteger(t.dtype); // indices, checked on the host
  return isF32Tensor(t) || isScalarNumber(t);
}

bool cudaResultOk(std::string_view op, const TensorSig &t) {
  if (t.isHostValue())
    return false;
  return op == "argmax" ? t.dtype == DType::I64 : t.dtype == DType::F32;
}

bool cudaRuns(std::string_view op, std::span<const TensorSig> operands,
              std::span<const TensorSig> results) {
  std::optional<OpKind> kind = opKindNamed(op);
  if (!kind || !opHas(*kind, opflag::Cuda))
    return false;
  if (results.empty())
    return false;
  for (const TensorSig &r : results)
    if (!cudaResultOk(op, r))
      return false;
  for (size_t i = 0; i < operands.size(); ++i)
    if (!cudaOperandOk(op, i, operands[i]))
      return false;
  // Every kernel needs at least one GPU tensor operand: the kernel table dispatches on it.
  if (std::all_of(operands.begin(), operands.end(),
                  [](const TensorSig &t) { return t.isHostValue(); }))
    return false;
  return op != "matmul" || (operands.size() == 2 && cudaMatmulRuns(operands));
}

/// Send {to}: a copy of the operand for device `to`. Between host-memory devices ("cpu",
/// "fake") that is a fresh contiguous tensor, so the receiving side never shares a buffer with
/// the sending side, as with a real device. CUDA builds register a Send that also reaches the GPU.
void sendKernel(std::span<const Value> inputs, const Attrs &attrs, std::vector<Value> &outputs) {
  check(inputs.size() == 1, "'Send' expects one operand");
  const std::string &to = attrs.getString("to");
  const Tensor &x = inputs[0].tensor();
  if (runtimeDevice(to) != x.device())
    throw Error("Send to '" + to + "': no CUDA support in this build or no GPU enabled");
  outputs.emplace_back(x.clone());
}

/// Recv: the transferred tensor, for the nodes of the receiving device.
void recvKernel(std::span<const Value> inputs, const Attrs &, std::vector<Value> &outputs) {
  check(inputs.size() == 1, "'Recv' expects one operand");
  outputs.push_back(inputs[0]);
}

} // namespace

std::span<const std::string_view> cudaOps() {
  static const std::vector<std::string_view> names = opsFlagged(opflag::Cuda);
  return names;
}

std::span<const std::string_view> cudaFusedOps() {
  static const std::vector<std::string_view> names = opsFlagged(opflag::CudaFused);
  return names;
}

void setFusedPtxCompiler(FusedPtxCompiler compiler) { installedPtxCompiler = compiler; }
FusedPtxCompiler fusedPtxCompiler() { return installedPtxCompiler; }

bool deviceRuns(std::string_view device, std::string_view op, std::span<const TensorSig> operands,
                std::span<const TensorSig> results) {
  if (device == kCpuDevice)
    return true;
  if (device == kCudaDevice || device == kFakeDevice)
    return cudaRuns(op, operands, results);
  return false;
}

void registerTransferKernels() {
  registerKernel(OpKind::Send, Device::CPU, sendKernel);
  registerKernel(OpKind::Recv, Device::CPU, recvKernel);
}

} // namespace dlm::rt
