//===- runtime/Devices.h - Device names, requests and what each device runs -===//
//
// The vocabulary placement and the engines share about devices (docs/cuda.md "Devices"):
//   cpu   host memory, the CPU kernels; where every unplaced graph runs.
//   cuda  a GPU through kernels/cuda (CUDA builds with a device only).
//   fake  a testing device: host memory and the CPU kernels under another name, with exactly
//         the CUDA backend's op coverage. Placing for it partitions a graph the way a GPU run
//         would, with Send/Recv copying tensors between "cpu" and "fake", so placement and
//         the transfers are tested on machines without a GPU.
// `deviceRuns` is the table placement consults: which ops have a kernel on a device for given
// operand and result types. Host values — 0-d tensors (language scalars, full reductions) and
// strings — live in host memory whatever the device, so no node producing one runs off the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_DEVICES_H
#define DLM_RUNTIME_DEVICES_H

#include "runtime/Kernel.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dlm::rt {

inline constexpr std::string_view kCpuDevice = "cpu";
inline constexpr std::string_view kCudaDevice = "cuda";
inline constexpr std::string_view kFakeDevice = "fake";

/// What `--device=` asked for: auto (the default: a GPU when one answers, else the CPU), cpu,
/// cuda (an error without a GPU) or fake (testing; see the file comment).
enum class DeviceRequest : uint8_t { Auto, Cpu, Cuda, Fake };
/// "auto", "cpu", "cuda", "fake"; nullopt for anything else.
std::optional<DeviceRequest> parseDeviceRequest(std::string_view name);

/// Where a device's tensors live: CUDA memory for "cuda", host memory for "cpu" and "fake".
Device runtimeDevice(std::string_view device);

/// An operand or result as the capability table sees it: a tensor's dtype and dims (-1: only
/// known at run time), or a string (`isTensor` false).
struct TensorSig {
  bool isTensor = true;
  DType dtype = DType::F32;
  std::vector<int64_t> dims;
  bool isHostValue() const { return !isTensor || dims.empty(); }
};

/// The ops the CUDA backend has kernels for: ops/Ops.def's `Cuda` rows (kernels/cuda registers
/// exactly these, plus the transfer pair Send/Recv; tests/gpu checks the two agree).
std::span<const std::string_view> cudaOps();

/// True when `device` has a kernel for `op` with these operands and results. The CPU runs
/// everything. "cuda" and "fake": an op of cudaOps() whose results are non-0-d tensors (f32;
/// argmax gives i64) and whose tensor operands are f32 (0-d operands of any number type are
/// converted; cross_entropy's labels are i64), matmul with both operands of rank >= 2 and equal
/// batch dims unless one is 2-D.
bool deviceRuns(std::string_view device, std::string_view op, std::span<const TensorSig> operands,
                std::span<const TensorSig> results);

/// The statement ops a `fused` body may use for its generated GPU kernel (compiler/codegen/
/// Nvptx.h), ops/Ops.def's `CudaFused` rows: the elementwise ops whose code needs no C library
/// function (log, sin, cos, pow and
/// f64 exp/tanh/sigmoid call libm, which PTX does not have). Placement keeps a `fused` node whose
/// body uses anything else, or computes in f64, on the CPU; tests/gpu checks that the code
/// generator compiles every op listed here.
std::span<const std::string_view> cudaFusedOps();

/// One operand of a generated `fused` kernel: its dtype, and whether it is a tensor (its data
/// and strides are passed) or a 0-d host value (passed by value; bool as one byte).
struct FusedOperand {
  DType dtype = DType::F32;
  bool tensor = true;
};

/// Compiles a `fused` body (FusedOp.h syntax) over `operands` into a PTX kernel for outputs of
/// `rank` dims (the parameter list is in compiler/codegen/Nvptx.h); on success `ptx` is the
/// module text and `entry` the kernel's name, else `error` says why. The CUDA backend calls it
/// the first time it runs a body on the GPU; tools that link the code generator install it.
using FusedPtxCompiler = bool (*)(std::string_view body, std::span<const FusedOperand> operands,
                                  size_t rank, std::string &ptx, std::string &entry,
                                  std::string &error);
void setFusedPtxCompiler(FusedPtxCompiler compiler);
/// The installed compiler, or null (then the CUDA `fused` kernel reports that it has none).
FusedPtxCompiler fusedPtxCompiler();

/// Registers the CPU kernels of Send {to} (a copy of its operand for device `to`: a fresh host
/// tensor for "cpu" and "fake") and Recv (its operand). A CUDA build replaces Send with one that
/// also copies to and from the GPU (kernels/cuda). Called by registerCpuKernels.
void registerTransferKernels();

} // namespace dlm::rt

#endif // DLM_RUNTIME_DEVICES_H
