//===- kernels/cuda/CudaKernels.cpp - Tensor-facing CUDA kernels ----------===//
//
// Each kernel checks its operands (f32 tensors on the GPU; a one-element CPU operand such as a
// language scalar is copied over), computes the output shape exactly like the CPU kernel, and
// launches the device code of Kernels.cu (or cuBLAS for matmul). Launch errors become rt::Error,
// which callKernel turns into a failed Status like any other run-time error.
//
//===----------------------------------------------------------------------===//
#include "kernels/cuda/CudaKernels.h"

#include "kernels/cuda/Launch.h"
#include "runtime/Devices.h"
#include "runtime/Error.h"
#include "runtime/Kernel.h"
#include "runtime/Random.h"
#include "runtime/cuda/CudaRuntime.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>

namespace dlm::cuda {
namespace {

using rt::Attrs;
using rt::Device;
using rt::Error;
using rt::Shape;
using rt::Tensor;
using rt::Value;

void launched(int code, const char *op) { rt::cuda::checkCuda(code, op); }

/// Operand i as an f32 tensor on the GPU.
Tensor operand(std::span<const Value> inputs, size_t i, const char *op) {
  if (i >= inputs.size())
    throw Error(std::string(op) + ": expected at least " + std::to_string(i + 1) + " operands");
  Tensor t = inputs[i].tensor();
  if (t.device() == Device::CPU) {
    if (t.numel() != 1 && t.rank() != 0)
      throw Error(std::string(op) + " on cuda: operand " + std::to_string(i) + " (" +
                  t.typeString() + ") is on the CPU");
    t = rt::cuda::toDevice(t.to(DType::F32));
  }
  if (t.dtype() != DType::F32)
    throw Error(std::string(op) + " on cuda: only f32 is supported yet, got " + t.typeString());
  return t;
}

Layout layoutOf(const Shape &shape, const Shape &strides, const char *op) {
  if (shape.size() > (size_t)kMaxDims)
    throw Error(std::string(op) + " on cuda: rank " + std::to_string(shape.size()) + " exceeds " +
                std::to_string(kMaxDims));
  Layout l;
  l.rank = (int)shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    l.shape[d] = shape[d], l.strides[d] = strides[d];
  return l;
}
Layout layoutOf(const Tensor &t, const char *op) { return layoutOf(t.shape(), t.strides(), op); }

Shape broadcastShapes(const Tensor &a, const Tensor &b, const char *op) {
  size_t r = std::max(a.shape().size(), b.shape().size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.shape().size() ? 1 : a.shape()[i - (r - a.shape().size())];
    int64_t db = i < r - b.shape().size() ? 1 : b.shape()[i - (r - b.shape().size())];
    if (da != db && da != 1 && db != 1)
      throw Error(std::string(op) + ": cannot broadcast " + a.typeString() + " with " +
                  b.typeString());
    out[i] = da == 1 ? db : da;
  }
  return out;
}

/// A contiguous copy of a (possibly strided) GPU tensor, or the tensor itself.
Tensor contiguousCuda(const Tensor &t, const char *op) {
  if (t.isContiguous())
    return t;
  Tensor out = Tensor::empty(t.dtype(), t.shape(), Device::CUDA);
  if (t.dtype() != DType::F32)
    throw Error(std::string(op) + " on cuda: only f32 is supported yet, got " + t.typeString());
  launched(launchCopyF32(t.data<float>(), layoutOf(t, op), out.data<float>(), t.numel()), op);
  return out;
}

template <BinaryOp Op>
void binary(std::span<const Value> in, const Attrs &, std::vector<Value> &out) {
  const char *op = "binary";
  Tensor a = operand(in, 0, op), b = operand(in, 1, op);
  Shape shape = broadcastShapes(a, b, op);
  Tensor y = Tensor::empty(DType::F32, shape, Device::CUDA);
  Tensor av = a.broadcastTo(shape), bv = b.broadcastTo(shape);
  launched(launchBinaryF32(Op, av.data<float>(), layoutOf(av, op), bv.data<float>(),
                           layoutOf(bv, op), y.data<float>(), y.numel()),
           op);
  out.emplace_back(std::move(y));
}

template <UnaryOp Op>
void unary(std::span<const Value> in, const Attrs &, std::vector<Value> &out) {
  const char *op = "unary";
  Tensor x = operand(in, 0, op);
  Tensor y = Tensor::empty(DType::F32, x.shape(), Device::CUDA);
  launched(launchUnaryF32(Op, x.data<float>(), layoutOf(x, op), y.data<float>(), y.numel()), op);
  out.emplace_back(std::move(y));
}

/// Which axes `axes` reduces (empty = all), normalised; the output shape honours keepdims.
std::vector<bool> reducedAxes(const Tensor &x, const std::vector<int64_t> &axes, const char *op) {
  std::vector<bool> red(x.rank(), axes.empty());
  for (int64_t a : axes) {
    int64_t n = rt::normalizeAxis(a, x.rank(), op);
    if (red[n])
      throw Error(std::string(op) + ": axis " + std::to_string(a) + " repeated");
    red[n] = true;
  }
  return red;
}

template <ReduceOp Op>
void reduce(std::span<const Value> in, const Attrs &attrs, std::vector<Value> &out) {
  const char *op = Op == ReduceOp::Sum    ? "sum"
                   : Op == ReduceOp::Mean ? "mean"
                   : Op == ReduceOp::Max  ? "max"
                                          : "min";
  Tensor x = operand(in, 0, op);
  bool keepdims = attrs.getBool("keepdims", false);
  std::vector<bool> red = reducedAxes(x, attrs.getInts("axes", {}), op);
  Shape keptShape, keptStrides, innerShape, innerStrides, outShape;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (red[d]) {
      innerShape.push_back(x.dim(d)), innerStrides.push_back(x.strides()[d]);
      if (keepdims)
        outShape.push_back(1);
    } else {
      keptShape.push_back(x.dim(d)), keptStrides.push_back(x.strides()[d]);
      outShape.push_back(x.dim(d));
    }
  }
  int64_t nInner = rt::numelOf(innerShape);
  if (nInner == 0 && (Op == ReduceOp::Max || Op == ReduceOp::Min))
    throw Error(std::string(op) + ": cannot reduce an empty axis of " + x.typeString());
  Tensor y = Tensor::empty(DType::F32, outShape, Device::CUDA);
  launched(launchReduceF32(Op, x.data<float>(), layoutOf(keptShape, keptStrides, op),
                           layoutOf(innerShape, innerStrides, op), y.data<float>(), y.numel(),
                           nInner),
           op);
  out.emplace_back(std::move(y));
}

void argmax(std::span<const Value> in, const Attrs &attrs, std::vector<Value> &out) {
  const char *op = "argmax";
  Tensor x = operand(in, 0, op);
  bool keepdims = attrs.getBool("keepdims", false);
  if (x.numel() == 0)
    throw Error("argmax: empty operand " + x.typeString());
  Tensor y;
  if (!attrs.has("axis")) {
    Tensor c = contiguousCuda(x, op);
    y = Tensor::empty(DType::I64, keepdims ? Shape(x.rank(), 1) : Shape{}, Device::CUDA);
    launched(launchArgmaxF32(c.data<float>(), Layout{}, c.numel(), 1, y.data<int64_t>(), 1), op);
  } else {
    int64_t axis = rt::normalizeAxis(attrs.getInt("axis"), x.rank(), op);
    Shape keptShape, keptStrides, outShape;
    for (int64_t d = 0; d < x.rank(); ++d) {
      if (d == axis) {
        if (keepdims)
          outShape.push_back(1);
        continue;
      }
      keptShape.push_back(x.dim(d)), keptStrides.push_back(x.strides()[d]);
      outShape.push_back(x.dim(d));
    }
    y = Tensor::empty(DType::I64, outShape, Device::CUDA);
    launched(launchArgmaxF32(x.data<float>(), layoutOf(keptShape, keptStrides, op), x.dim(axis),
                             x.strides()[axis], y.data<int64_t>(), y.numel()),
             op);
  }
  out.emplace_back(std::move(y));
}

/// softmax / log_softmax along any axis: the axis is moved last, rows are normalised in a
/// contiguous buffer, and the result is that buffer viewed back in the operand's axis order.
template <bool Log>
void softmax(std::span<const Value> in, const Attrs &attrs, std::vector<Value> &out) {
  const char *op = Log ? "log_softmax" : "softmax";
  Tensor x = operand(in, 0, op);
  if (x.rank() == 0)
    throw Error(std::string(op) + ": 0-d operand");
  int64_t axis = rt::normalizeAxis(attrs.getInt("axis", -1), x.rank(), op);
  std::vector<int64_t> perm, inverse(x.rank());
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  for (int64_t d = 0; d < x.rank(); ++d)
    inverse[perm[d]] = d;
  Tensor moved = contiguousCuda(x.transpose(perm), op);
  Tensor y = Tensor::empty(DType::F32, moved.shape(), Device::CUDA);
  int64_t cols = x.dim(axis), rows = cols ? x.numel() / cols : 0;
  launched(launchSoftmaxF32(moved.data<float>(), y.data<float>(), rows, cols, Log), op);
  out.emplace_back(y.transpose(inverse));
}

void crossEntropy(std::span<const Value> in, const Attrs &, std::vector<Value> &out) {
  const char *op = "cross_entropy";
  Tensor logits = contiguousCuda(operand(in, 0, op), op);
  if (in.size() < 2)
    throw Error("cross_entropy: expected logits and labels");
  Tensor labels = in[1].tensor();
  if (logits.rank() != 2 || labels.rank() != 1 || labels.dim(0) != logits.dim(0) ||
      labels.dtype() != DType::I64)
    throw Error("cross_entropy: expected logits [N, C] and i64 labels [N], got " +
                logits.typeString() + " and " + labels.typeString());
  if (labels.device() == Device::CPU)
    labels = rt::cuda::toDevice(labels);
  if (!labels.isContiguous())
    throw Error("cross_entropy on cuda: labels must be contiguous");
  int64_t n = logits.dim(0), c = logits.dim(1);
  Tensor rowLoss = Tensor::empty(DType::F32, {n}, Device::CUDA);
  Tensor bad = Tensor::empty(DType::I32, {1}, Device::CUDA);
  rt::cuda::checkCuda(cudaMemset(bad.rawData(), 0, sizeof(int32_t)), "cudaMemset");
  Tensor y = Tensor::empty(DType::F32, {}, Device::CUDA);
  launched(launchCrossEntropyF32(logits.data<float>(), labels.data<int64_t>(),
                                 rowLoss.data<float>(), y.data<float>(), n, c, bad.data<int32_t>()),
           op);
  int32_t badRow = 0;
  rt::cuda::checkCuda(cudaMemcpy(&badRow, bad.rawData(), sizeof badRow, cudaMemcpyDeviceToHost),
                      op);
  if (badRow) {
    int64_t label = 0;
    rt::cuda::checkCuda(cudaMemcpy(&label, labels.data<int64_t>() + (badRow - 1), sizeof label,
                                   cudaMemcpyDeviceToHost),
                        op);
    // The CPU kernel's wording, so a program fails the same way on either device.
    throw Error("label " + std::to_string(label) + " at row " + std::to_string(badRow - 1) +
                " is out of range for " + std::to_string(c) + " classes");
  }
  out.emplace_back(std::move(y));
}

cublasHandle_t cublas() {
  static cublasHandle_t h = [] {
    cublasHandle_t r = nullptr;
    if (cublasCreate(&r) != CUBLAS_STATUS_SUCCESS)
      throw Error("cuBLAS: cublasCreate failed");
    return r;
  }();
  return h;
}

/// matmul of [..., M, K] and [..., K, N] (ranks >= 2; the leading dims equal, or one operand
/// 2-D and shared by every batch) through cublasSgemmStridedBatched. Row-major C = A B is
/// computed as the column-major C^T = B^T A^T, so no transposes are materialised.
void matmul(std::span<const Value> in, const Attrs &, std::vector<Value> &out) {
  const char *op = "matmul";
  Tensor a = contiguousCuda(operand(in, 0, op), op), b = contiguousCuda(operand(in, 1, op), op);
  if (a.rank() < 2 || b.rank() < 2)
    throw Error("matmul on cuda: operands of rank >= 2 expected, got " + a.typeString() + " and " +
                b.typeString());
  int64_t m = a.dim(a.rank() - 2), k = a.dim(a.rank() - 1), n = b.dim(b.rank() - 1);
  if (b.dim(b.rank() - 2) != k)
    throw Error("matmul: inner dimensions differ: " + a.typeString() + " @ " + b.typeString());
  Shape batchA(a.shape().begin(), a.shape().end() - 2),
      batchB(b.shape().begin(), b.shape().end() - 2);
  if (!batchA.empty() && !batchB.empty() && batchA != batchB)
    throw Error("matmul on cuda: broadcasting batch dims " + a.typeString() + " @ " +
                b.typeString() + " is not supported yet");
  Shape batch = batchA.empty() ? batchB : batchA;
  int64_t count = rt::numelOf(batch);
  Shape shape = batch;
  shape.push_back(m), shape.push_back(n);
  Tensor y = Tensor::empty(DType::F32, shape, Device::CUDA);
  if (y.numel() == 0) {
    out.emplace_back(std::move(y));
    return;
  }
  if (k == 0) {
    rt::cuda::checkCuda(cudaMemset(y.rawData(), 0, (size_t)y.numel() * sizeof(float)),
                        "cudaMemset");
    out.emplace_back(std::move(y));
    return;
  }
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t s = cublasSgemmStridedBatched(
      cublas(), CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, b.data<float>(), (int)n,
      batchB.empty() ? 0 : k * n, a.data<float>(), (int)k, batchA.empty() ? 0 : m * k, &zero,
      y.data<float>(), (int)n, m * n, (int)count);
  if (s != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("matmul: cuBLAS failed: ") + cublasGetStatusString(s));
  out.emplace_back(std::move(y));
}

/// gather{axis}(x, indices) like the CPU's take: the axis is replaced by the indices' shape
/// (a 0-d index removes it and gives a view). Indices (any integer dtype, on either device)
/// are checked on the host with the CPU kernel's words, then copied over as i64.
void gather(std::span<const Value> in, const Attrs &attrs, std::vector<Value> &out) {
  const char *op = "gather";
  Tensor x = operand(in, 0, op);
  if (in.size() != 2)
    throw Error("gather: expected x and indices");
  if (x.rank() == 0)
    throw Error("gather: cannot index a 0-d tensor");
  int64_t axis = rt::normalizeAxis(attrs.getInt("axis", 0), x.rank(), "index axis");
  Tensor i = in[1].tensor();
  if (!isInteger(i.dtype()))
    throw Error("index must be an integer tensor, got " + i.typeString());
  if (i.device() != Device::CPU) {
    if (!i.isContiguous())
      throw Error("gather on cuda: strided GPU indices are not supported");
    i = rt::cuda::toHost(i);
  }
  Tensor idx = i.to(DType::I64).contiguous();
  int64_t size = x.dim(axis);
  for (int64_t k = 0; k < idx.numel(); ++k) {
    int64_t &v = idx.data<int64_t>()[k];
    if (v < -size || v >= size)
      throw Error("index " + std::to_string(v) + " is out of range for axis " +
                  std::to_string(axis) + " with size " + std::to_string(size));
    if (v < 0)
      v += size;
  }
  if (idx.rank() == 0) {
    out.emplace_back(x.select(axis, idx.data<int64_t>()[0]));
    return;
  }
  Shape outShape = rt::takeShape(x.shape(), idx.shape(), axis);
  Tensor y = Tensor::empty(DType::F32, outShape, Device::CUDA);
  if (y.numel() == 0) {
    out.emplace_back(std::move(y));
    return;
  }
  Shape space = x.shape();
  space[axis] = idx.numel();
  Tensor deviceIdx = rt::cuda::toDevice(idx);
  launched(launchGatherF32(x.data<float>(), layoutOf(space, x.strides(), op), (int)axis,
                           deviceIdx.data<int64_t>(), y.data<float>(), y.numel()),
           op);
  out.emplace_back(std::move(y));
}

void transpose(std::span<const Value> in, const Attrs &attrs, std::vector<Value> &out) {
  if (in.empty())
    throw Error("transpose: expected one operand");
  Tensor x = in[0].tensor();
  out.emplace_back(x.transpose(attrs.getInts("perm", {})));
}

/// The CUDA kernels, by op; ops/Ops.def marks these `Cuda` (runtime/Devices.h cudaOps; tests/gpu
/// checks the two agree).
struct Entry {
  OpKind op;
  rt::KernelFn fn;
};
const Entry kEntries[] = {
    {OpKind::Add, binary<BinaryOp::Add>},
    {OpKind::Sub, binary<BinaryOp::Sub>},
    {OpKind::Mul, binary<BinaryOp::Mul>},
    {OpKind::Div, binary<BinaryOp::Div>},
    {OpKind::Maximum, binary<BinaryOp::Maximum>},
    {OpKind::Minimum, binary<BinaryOp::Minimum>},
    {OpKind::Neg, unary<UnaryOp::Neg>},
    {OpKind::Abs, unary<UnaryOp::Abs>},
    {OpKind::Exp, unary<UnaryOp::Exp>},
    {OpKind::Log, unary<UnaryOp::Log>},
    {OpKind::Sqrt, unary<UnaryOp::Sqrt>},
    {OpKind::Tanh, unary<UnaryOp::Tanh>},
    {OpKind::Sigmoid, unary<UnaryOp::Sigmoid>},
    {OpKind::Relu, unary<UnaryOp::Relu>},
    {OpKind::Sum, reduce<ReduceOp::Sum>},
    {OpKind::Mean, reduce<ReduceOp::Mean>},
    {OpKind::Max, reduce<ReduceOp::Max>},
    {OpKind::Min, reduce<ReduceOp::Min>},
    {OpKind::Argmax, argmax},
    {OpKind::Softmax, softmax<false>},
    {OpKind::LogSoftmax, softmax<true>},
    {OpKind::CrossEntropy, crossEntropy},
    {OpKind::Matmul, matmul},
    {OpKind::Transpose, transpose},
    {OpKind::Fused, fusedKernel},
    {OpKind::Gather, gather},
};

void fillFromStream(const Tensor &t, bool normal) {
  if (t.device() != Device::CUDA || t.dtype() != DType::F32 || !t.isContiguous())
    throw Error("random fill on cuda: contiguous f32 GPU tensor expected, got " + t.typeString());
  rt::RandomRange r = rt::reserveRandom((uint64_t)t.numel());
  int code = normal ? launchNormalF32(t.data<float>(), t.numel(), r.key, r.start)
                    : launchUniformF32(t.data<float>(), t.numel(), r.key, r.start);
  launched(code, normal ? "randn" : "rand");
}

} // namespace

bool enableCuda() {
  if (!rt::cuda::installAllocator())
    return false;
  static std::once_flag once;
  std::call_once(once, [] {
    for (const Entry &e : kEntries)
      rt::registerKernel(e.op, Device::CUDA, e.fn);
    // The transfer pair on both sides; the CPU's built-in Send and Recv (host copies only) are
    // replaced after the built-in kernels are in the table, so they cannot overwrite them later.
    (void)rt::findKernel("Send", Device::CPU);
    rt::registerKernel(OpKind::Send, Device::CPU, sendKernel);
    rt::registerKernel(OpKind::Send, Device::CUDA, sendKernel);
    rt::registerKernel(OpKind::Recv, Device::CPU, recvKernel);
    rt::registerKernel(OpKind::Recv, Device::CUDA, recvKernel);
  });
  return true;
}

const std::vector<std::string> &cudaKernelNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> r;
    for (const Entry &e : kEntries)
      r.emplace_back(opName(e.op));
    return r;
  }();
  return names;
}

Tensor contiguousCuda(const Tensor &t) { return contiguousCuda(t, "contiguous"); }

void fillUniformCuda(const Tensor &t) { fillFromStream(t, false); }
void fillNormalCuda(const Tensor &t) { fillFromStream(t, true); }

} // namespace dlm::cuda
