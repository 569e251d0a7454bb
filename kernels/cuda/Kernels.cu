//===- kernels/cuda/Kernels.cu - CUDA kernels behind kernels/cuda/Launch.h -===//
//
// Layout-generic (strided, broadcasting) float32 kernels. They favour being obviously correct
// over speed: one thread per output element, index arithmetic from the Layout. Faster versions
// (vectorised contiguous paths, block reductions) replace them once a GPU can measure them.
//
//===----------------------------------------------------------------------===//
#include "kernels/cuda/Launch.h"

#include <cuda_runtime.h>

namespace dlm::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  // Grid-stride loops cover the rest when n is huge.
  return (unsigned)(b < 65535 ? (b > 0 ? b : 1) : 65535);
}

/// Offset (in elements) of linear output index i in an operand of layout l.
__device__ int64_t offsetOf(int64_t i, const Layout &l) {
  int64_t off = 0;
  for (int d = l.rank - 1; d >= 0; --d) {
    int64_t q = i / l.shape[d];
    off += (i - q * l.shape[d]) * l.strides[d];
    i = q;
  }
  return off;
}

__device__ float applyBinary(BinaryOp op, float a, float b) {
  switch (op) {
  case BinaryOp::Add:
    return a + b;
  case BinaryOp::Sub:
    return a - b;
  case BinaryOp::Mul:
    return a * b;
  case BinaryOp::Div:
    return a / b;
  case BinaryOp::Maximum:
    return (a != a || a > b) ? a : b; // NaN propagates like torch.maximum
  case BinaryOp::Minimum:
    return (a != a || a < b) ? a : b;
  }
  return 0.0f;
}

__device__ float applyUnary(UnaryOp op, float x) {
  switch (op) {
  case UnaryOp::Neg:
    return -x;
  case UnaryOp::Abs:
    return fabsf(x);
  case UnaryOp::Exp:
    return expf(x);
  case UnaryOp::Log:
    return logf(x);
  case UnaryOp::Sqrt:
    return sqrtf(x);
  case UnaryOp::Tanh:
    return tanhf(x);
  case UnaryOp::Sigmoid:
    return 1.0f / (1.0f + expf(-x));
  case UnaryOp::Relu:
    return x < 0.0f ? 0.0f : x; // NaN and -0.0 pass, like the CPU kernels
  }
  return 0.0f;
}

__global__ void binaryKernel(BinaryOp op, const float *a, Layout la, const float *b, Layout lb,
                             float *out, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    out[i] = applyBinary(op, a[offsetOf(i, la)], b[offsetOf(i, lb)]);
}

__global__ void unaryKernel(UnaryOp op, const float *x, Layout lx, float *out, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    out[i] = applyUnary(op, x[offsetOf(i, lx)]);
}

__global__ void copyKernel(const float *x, Layout lx, float *out, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    out[i] = x[offsetOf(i, lx)];
}

/// out[i] = x at the output's multi-index in `l` (x's strides), the axis coordinate c replaced
/// by idx[c] (normalised, bounds-checked on the host).
__global__ void gatherKernel(const float *x, Layout l, int axis, const int64_t *idx, float *out,
                             int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t off = 0, rest = i;
    for (int d = l.rank - 1; d >= 0; --d) {
      int64_t q = rest / l.shape[d], c = rest - q * l.shape[d];
      off += (d == axis ? idx[c] : c) * l.strides[d];
      rest = q;
    }
    out[i] = x[off];
  }
}

__global__ void reduceKernel(ReduceOp op, const float *x, Layout lo, Layout li, float *out,
                             int64_t nOut, int64_t nInner) {
  for (int64_t o = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; o < nOut;
       o += (int64_t)gridDim.x * blockDim.x) {
    const float *base = x + offsetOf(o, lo);
    // Sums accumulate in double so long reductions stay close to the CPU's pairwise sums.
    double acc = 0.0;
    // Max/min of an empty axis is rejected on the host; sums of one must not read base[0].
    float best = nInner > 0 ? base[offsetOf(0, li)] : 0.0f;
    for (int64_t r = 0; r < nInner; ++r) {
      float v = base[offsetOf(r, li)];
      if (op == ReduceOp::Sum || op == ReduceOp::Mean)
        acc += v;
      else if (v != v || (op == ReduceOp::Max ? v > best : v < best))
        best = (best != best) ? best : v;
    }
    if (op == ReduceOp::Sum)
      out[o] = (float)acc;
    else if (op == ReduceOp::Mean)
      out[o] = (float)(acc / (double)nInner);
    else
      out[o] = best;
  }
}

__global__ void argmaxKernel(const float *x, Layout lo, int64_t axisSize, int64_t axisStride,
                             int64_t *out, int64_t nOut) {
  for (int64_t o = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; o < nOut;
       o += (int64_t)gridDim.x * blockDim.x) {
    const float *base = x + offsetOf(o, lo);
    int64_t arg = 0;
    float best = base[0];
    for (int64_t r = 1; r < axisSize && best == best; ++r) {
      float v = base[r * axisStride];
      if (v > best || v != v)
        best = v, arg = r;
    }
    out[o] = arg;
  }
}

/// One block per row: max, then sum of exp, both reduced in shared memory.
__global__ void softmaxKernel(const float *x, float *out, int64_t cols, bool log) {
  __shared__ float red[kThreads];
  const float *row = x + blockIdx.x * cols;
  float *orow = out + blockIdx.x * cols;
  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
    m = fmaxf(m, row[j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if ((int)threadIdx.x < s)
      red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
    sum += expf(row[j] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if ((int)threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  sum = red[0];
  float lse = logf(sum);
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
    orow[j] = log ? row[j] - m - lse : expf(row[j] - m) / sum;
}

__global__ void crossEntropyRowKernel(const float *logits, const int64_t *labels, float *rowLoss,
                                      int64_t n, int64_t c, int *badLabel) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const float *row = logits + i * c;
    int64_t label = labels[i];
    if (label < 0 || label >= c) {
      atomicCAS(badLabel, 0, (int)(i + 1));
      rowLoss[i] = 0.0f;
      continue;
    }
    float m = -INFINITY;
    for (int64_t j = 0; j < c; ++j)
      m = fmaxf(m, row[j]);
    double s = 0.0;
    for (int64_t j = 0; j < c; ++j)
      s += exp((double)(row[j] - m));
    rowLoss[i] = (float)(log(s) + m - row[label]);
  }
}

__global__ void meanKernel(const float *v, int64_t n, float *out) {
  __shared__ double red[kThreads];
  double s = 0.0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
    s += v[i];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if ((int)threadIdx.x < k)
      red[threadIdx.x] += red[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[0] = n > 0 ? (float)(red[0] / (double)n) : NAN;
}

/// Philox4x32-10 exactly as runtime/Random.cpp computes it.
__device__ uint4 philox(uint64_t counter, uint64_t key) {
  const uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  uint32_t c0 = (uint32_t)counter, c1 = (uint32_t)(counter >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0 = __umulhi(M0, c0), lo0 = M0 * c0;
    uint32_t hi1 = __umulhi(M1, c2), lo1 = M1 * c2;
    uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0, c1 = n1, c2 = n2, c3 = n3;
    k0 += W0;
    k1 += W1;
  }
  return make_uint4(c0, c1, c2, c3);
}

__device__ uint32_t word(uint4 w, int j) {
  return j == 0 ? w.x : j == 1 ? w.y : j == 2 ? w.z : w.w;
}

/// One thread per counter (four elements).
__global__ void philoxKernel(int mode, void *out, int64_t n, uint64_t key, uint64_t start) {
  int64_t counters = (n + 3) / 4;
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < counters;
       c += (int64_t)gridDim.x * blockDim.x) {
    uint4 w = philox(start + (uint64_t)c, key);
    for (int j = 0; j < 4; ++j) {
      int64_t i = c * 4 + j;
      if (i >= n)
        break;
      uint32_t x = word(w, j);
      if (mode == 0)
        static_cast<uint32_t *>(out)[i] = x;
      else if (mode == 1)
        static_cast<float *>(out)[i] = (float)(x >> 8) * (1.0f / 16777216.0f);
    }
    if (mode == 2) {
      float *p = static_cast<float *>(out);
      for (int h = 0; h < 2; ++h) {
        double u1 = ((double)word(w, 2 * h) + 1.0) * (1.0 / 4294967296.0);
        double u2 = (double)word(w, 2 * h + 1) * (1.0 / 4294967296.0);
        double rad = sqrt(-2.0 * log(u1));
        double theta = 2.0 * 3.14159265358979323846 * u2;
        int64_t i = c * 4 + 2 * h;
        if (i < n)
          p[i] = (float)(rad * cos(theta));
        if (i + 1 < n)
          p[i + 1] = (float)(rad * sin(theta));
      }
    }
  }
}

int lastError() { return (int)cudaGetLastError(); }

} // namespace

int launchBinaryF32(BinaryOp op, const float *a, Layout la, const float *b, Layout lb, float *out,
                    int64_t n) {
  if (n > 0)
    binaryKernel<<<blocksFor(n), kThreads>>>(op, a, la, b, lb, out, n);
  return lastError();
}

int launchUnaryF32(UnaryOp op, const float *x, Layout lx, float *out, int64_t n) {
  if (n > 0)
    unaryKernel<<<blocksFor(n), kThreads>>>(op, x, lx, out, n);
  return lastError();
}

int launchCopyF32(const float *x, Layout lx, float *out, int64_t n) {
  if (n > 0)
    copyKernel<<<blocksFor(n), kThreads>>>(x, lx, out, n);
  return lastError();
}

int launchGatherF32(const float *x, Layout l, int axis, const int64_t *idx, float *out, int64_t n) {
  gatherKernel<<<blocksFor(n), kThreads>>>(x, l, axis, idx, out, n);
  return (int)cudaGetLastError();
}

int launchReduceF32(ReduceOp op, const float *x, Layout lo, Layout li, float *out, int64_t nOut,
                    int64_t nInner) {
  if (nOut > 0)
    reduceKernel<<<blocksFor(nOut), kThreads>>>(op, x, lo, li, out, nOut, nInner);
  return lastError();
}

int launchArgmaxF32(const float *x, Layout lo, int64_t axisSize, int64_t axisStride, int64_t *out,
                    int64_t nOut) {
  if (nOut > 0)
    argmaxKernel<<<blocksFor(nOut), kThreads>>>(x, lo, axisSize, axisStride, out, nOut);
  return lastError();
}

int launchSoftmaxF32(const float *x, float *out, int64_t rows, int64_t cols, bool log) {
  if (rows > 0 && cols > 0)
    softmaxKernel<<<(unsigned)rows, kThreads>>>(x, out, cols, log);
  return lastError();
}

int launchCrossEntropyF32(const float *logits, const int64_t *labels, float *rowLoss, float *out,
                          int64_t n, int64_t c, int *badLabel) {
  if (n > 0)
    crossEntropyRowKernel<<<blocksFor(n), kThreads>>>(logits, labels, rowLoss, n, c, badLabel);
  meanKernel<<<1, kThreads>>>(rowLoss, n, out);
  return lastError();
}

int launchPhiloxWords(uint32_t *out, int64_t n, uint64_t key, uint64_t start) {
  if (n > 0)
    philoxKernel<<<blocksFor((n + 3) / 4), kThreads>>>(0, out, n, key, start);
  return lastError();
}

int launchUniformF32(float *out, int64_t n, uint64_t key, uint64_t start) {
  if (n > 0)
    philoxKernel<<<blocksFor((n + 3) / 4), kThreads>>>(1, out, n, key, start);
  return lastError();
}

int launchNormalF32(float *out, int64_t n, uint64_t key, uint64_t start) {
  if (n > 0)
    philoxKernel<<<blocksFor((n + 3) / 4), kThreads>>>(2, out, n, key, start);
  return lastError();
}

} // namespace dlm::cuda
