//===- kernels/cuda/Launch.h - Host-callable launchers of the CUDA kernels -===//
//
// The .cu files see only this plain interface (raw device pointers, shapes and strides packed in
// a fixed-size struct), so nvcc never compiles the runtime's headers and the Tensor-facing code
// (CudaKernels.cpp) stays ordinary C++ under -Wall -Wextra -Werror. Every launcher runs on the
// current device's default stream and returns the cudaError_t of the launch as an int (0 = ok).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_KERNELS_CUDA_LAUNCH_H
#define DLM_KERNELS_CUDA_LAUNCH_H

#include <cstdint>

namespace dlm::cuda {

/// Kernels handle up to this many dimensions (larger ranks are rejected by the host side).
constexpr int kMaxDims = 8;

/// The layout of one operand viewed in the output's index space: `rank` dims of `shape`, with
/// per-operand strides in elements (0 on broadcast dims).
struct Layout {
  int rank = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
};

enum class BinaryOp : int { Add, Sub, Mul, Div, Maximum, Minimum };
enum class UnaryOp : int { Neg, Abs, Exp, Log, Sqrt, Tanh, Sigmoid, Relu };
enum class ReduceOp : int { Sum, Mean, Max, Min };

/// out[i] = op(a[idx_a(i)], b[idx_b(i)]) for the n elements of the contiguous output whose
/// multi-index space is `la.shape` (both layouts share the output's shape).
int launchBinaryF32(BinaryOp op, const float *a, Layout la, const float *b, Layout lb, float *out,
                    int64_t n);
/// out[i] = op(x[idx(i)]).
int launchUnaryF32(UnaryOp op, const float *x, Layout lx, float *out, int64_t n);
/// Strided gather into a contiguous output (transpose, slice, broadcast materialisation).
int launchCopyF32(const float *x, Layout lx, float *out, int64_t n);
/// gather{axis}: the n elements of the contiguous output whose multi-index space is `l.shape`
/// (x's shape with the axis' extent replaced by the number of indices; `l.strides` are x's),
/// reading x with the axis coordinate c replaced by idx[c] (device i64, already normalised).
int launchGatherF32(const float *x, Layout l, int axis, const int64_t *idx, float *out, int64_t n);
/// Reduces `x` viewed as [outer..., inner...]: `lo` describes the kept dims (strides in x),
/// `li` the reduced dims; one thread per output element.
int launchReduceF32(ReduceOp op, const float *x, Layout lo, Layout li, float *out, int64_t nOut,
                    int64_t nInner);
/// Index (in the reduced dim) of the first maximum along one axis, as i64.
int launchArgmaxF32(const float *x, Layout lo, int64_t axisSize, int64_t axisStride, int64_t *out,
                    int64_t nOut);
/// softmax / log_softmax over rows of a contiguous [rows, cols] matrix.
int launchSoftmaxF32(const float *x, float *out, int64_t rows, int64_t cols, bool log);
/// Per-row cross entropy of contiguous logits [n, c] and i64 labels; writes the mean into
/// `out[0]` and sets `*badLabel` (device int, zeroed by the caller) to 1 + the first bad row.
int launchCrossEntropyF32(const float *logits, const int64_t *labels, float *rowLoss, float *out,
                          int64_t n, int64_t c, int *badLabel);
/// Philox4x32-10 uniform floats: element i uses word i % 4 of counter start + i / 4 (the CPU
/// stream, runtime/Random.h).
int launchUniformF32(float *out, int64_t n, uint64_t key, uint64_t start);
/// Box-Muller normals on word pairs, computed in double and rounded to f32 (the CPU formula).
int launchNormalF32(float *out, int64_t n, uint64_t key, uint64_t start);
/// The raw Philox words (tests compare them with runtime/Random.cpp bit for bit).
int launchPhiloxWords(uint32_t *out, int64_t n, uint64_t key, uint64_t start);

} // namespace dlm::cuda

#endif // DLM_KERNELS_CUDA_LAUNCH_H
