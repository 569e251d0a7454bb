//===- kernels/cuda/CudaKernels.h - The CUDA kernel table entries ---------===//
//
// enableCuda() is the one call a driver makes: when a GPU answers it installs the caching
// allocator for Device::CUDA and registers every CUDA kernel under its docs/ops.md name
// (registerKernel(name, Device::CUDA, fn)); without a GPU it does nothing and returns false.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_KERNELS_CUDA_CUDAKERNELS_H
#define DLM_KERNELS_CUDA_CUDAKERNELS_H

#include "runtime/Kernel.h"
#include "runtime/Tensor.h"

#include <string>
#include <vector>

namespace dlm::cuda {

/// Installs the allocator and registers the kernels when a GPU is present; returns whether one is.
bool enableCuda();

/// The op names enableCuda registers (for tests and docs/cuda.md).
const std::vector<std::string> &cudaKernelNames();

/// The `fused` op on the GPU: the body compiled to PTX through rt::fusedPtxCompiler() (the
/// tools install the NVPTX code generator), loaded with the driver API, cached, launched
/// (FusedKernel.cpp).
void fusedKernel(std::span<const rt::Value> in, const rt::Attrs &attrs,
                 std::vector<rt::Value> &out);

/// The index space a generated `fused` kernel runs over: the output's dims without those of
/// size 1, adjacent dims merged where every tensor operand runs along them alike (its stride
/// over the outer dim is the inner one's times the inner extent), with each tensor operand's
/// strides over the result. `operandStrides[i]` is operand i's strides broadcast to `shape`,
/// empty for a 0-d operand (passed by value; its entry stays empty). Same-shape dense operands
/// give one dim, so the kernel does no division; a row broadcast gives two.
struct FusedIndexSpace {
  rt::Shape dims;
  std::vector<rt::Shape> strides;
};
FusedIndexSpace fusedIndexSpace(const rt::Shape &shape,
                                const std::vector<rt::Shape> &operandStrides);

/// Send {to} and Recv across the host/GPU boundary, asynchronous on the copy stream with
/// events and pinned staging buffers (Transfer.cpp); registered on both devices.
void sendKernel(std::span<const rt::Value> in, const rt::Attrs &attrs, std::vector<rt::Value> &out);
void recvKernel(std::span<const rt::Value> in, const rt::Attrs &attrs, std::vector<rt::Value> &out);

/// A contiguous copy of a strided f32 GPU tensor (the tensor itself when already contiguous).
rt::Tensor contiguousCuda(const rt::Tensor &t);

/// Fills a contiguous f32 CUDA tensor from the process-wide Philox stream exactly like
/// rt::fillUniform / rt::fillNormal (the same reservation, the same words per element).
void fillUniformCuda(const rt::Tensor &t);
void fillNormalCuda(const rt::Tensor &t);

} // namespace dlm::cuda

#endif // DLM_KERNELS_CUDA_CUDAKERNELS_H
