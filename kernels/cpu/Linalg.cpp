//===- kernels/cpu/Linalg.cpp - matmul and dot ---------------------------===//
//
// matmul follows NumPy: 1-D operands gain (and then lose) a unit dimension, leading (batch)
// dimensions broadcast. Float matrices go to OpenBLAS sgemm/dgemm. Views whose last two axes
// are row-major or column-major (a transpose) are passed as they are, with the BLAS transpose
// flag and leading dimension, so `x @ w.T` never copies; other layouts are made contiguous.
// When only the left operand has batch dimensions and is contiguous, the whole batch is one
// GEMM. Small products (SmallGemm.h's smallGemmFits: 1-3 rows or k = 1, m * n * k <= 65536)
// skip OpenBLAS: `gemm()` sends them to smallGemm, and a float matrix times a matrix of its
// dtype goes there straight from the kernel, with any strides (no copies) and matmul_bias's
// addend and relu folded into the same pass. An engine that holds matmul_bias's addend alone
// (a gradient accumulator, acc' = acc + h.T @ dz) calls matmulBiasAccumulate, which writes the
// small product's sum over the addend itself (smallGemm's accumulate form, same bits, no new
// tensor). Integer (and bool, computed as i64) matmul is a plain i-k-j loop.
//
//===----------------------------------------------------------------------===//
#include "kernels/cpu/CpuKernels.h"
#include "kernels/cpu/SmallGemm.h"
#include "runtime/Strided.h"
#include "runtime/Threads.h"

#include <cblas.h>

#include <algorithm>
#include <cstring>

namespace dlm::rt::cpu {
namespace {

/// How BLAS sees a rows x cols matrix with element strides (rs, cs).
struct GemmOperand {
  bool trans = false;
  int64_t ld = 1;
};

bool gemmLayout(int64_t rs, int64_t cs, int64_t rows, int64_t cols, GemmOperand &g) {
  if (cs == 1 && (rows <= 1 || rs >= std::max<int64_t>(1, cols))) {
    g = {false, rows <= 1 ? std::max<int64_t>(1, cols) : rs};
    return true;
  }
  if (rs == 1 && (cols <= 1 || cs >= std::max<int64_t>(1, rows))) {
    g = {true, cols <= 1 ? std::max<int64_t>(1, rows) : cs};
    return true;
  }
  return false;
}

/// x itself if its last two axes suit BLAS, else a contiguous copy.
Tensor gemmReady(const Tensor &x) {
  GemmOperand g;
  int64_t r = x.rank();
  if (gemmLayout(x.strides()[r - 2], x.strides()[r - 1], x.dim(r - 2), x.dim(r - 1), g))
    return x;
  return x.contiguous();
}

template <typename T>
void gemmOp(int64_t m, int64_t n, int64_t k, const T *a, GemmOperand ga, const T *b, GemmOperand gb,
            T *c) {
  if (m == 0 || n == 0)
    return;
  if (k == 0) {
    std::memset(c, 0, sizeof(T) * m * n);
    return;
  }
  gemm(ga.trans, gb.trans, m, n, k, a, ga.ld, b, gb.ld, T(0), c, n);
}

/// Integer matmul on arbitrary strides (element units).
template <typename T>
void intGemm(int64_t m, int64_t n, int64_t k, const T *a, int64_t ars, int64_t acs, const T *b,
             int64_t brs, int64_t bcs, T *c) {
  std::fill(c, c + m * n, T(0));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      T av = a[i * ars + p * acs];
      for (int64_t j = 0; j < n; ++j)
        c[i * n + j] += av * b[p * brs + j * bcs];
    }
}

/// matmul_bias's addend viewed as an [m, n] operand (zero strides where it broadcasts), if it
/// broadcasts to [m, n] without growing it.
bool addendRef(const Tensor &add, int64_t m, int64_t n, int64_t &rs, int64_t &cs) {
  int64_t r = add.rank();
  if (r > 2)
    return false;
  int64_t rows = r == 2 ? add.dim(0) : 1, cols = r >= 1 ? add.dim(r - 1) : 1;
  if ((rows != m && rows != 1) || (cols != n && cols != 1))
    return false;
  rs = r == 2 && rows != 1 ? add.strides()[0] : 0;
  cs = r >= 1 && cols != 1 ? add.strides()[r - 1] : 0;
  return true;
}

/// The sizes of a @ b when a and b are float matrices of one dtype whose product takes
/// smallGemm; false otherwise.
bool smallProduct(const Tensor &a, const Tensor &b, int64_t &m, int64_t &n, int64_t &k) {
  if (a.rank() != 2 || b.rank() != 2 || a.dtype() != b.dtype() || !isFloat(a.dtype()))
    return false;
  m = a.dim(0), k = a.dim(1), n = b.dim(1);
  return b.dim(0) == k && smallGemmFits(m, n, k);
}

/// smallGemm of a and b (smallProduct's sizes) through their own strides into the dense [m, n]
/// `out`, adding the addend at `add` (element strides rs, cs; null for none, out's own data to
/// accumulate into out).
void runSmall(const Tensor &a, const Tensor &b, int64_t m, int64_t n, int64_t k, const Tensor &out,
              const void *add, int64_t addRs, int64_t addCs, bool relu) {
  dispatchDType(a.dtype(), [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>)
      smallGemm(m, n, k, {a.data<T>(), a.strides()[0], a.strides()[1]},
                {b.data<T>(), b.strides()[0], b.strides()[1]}, out.data<T>(), n,
                {static_cast<const T *>(add), addRs, addCs}, relu);
  });
}

/// relu?(a @ b [+ addend]) for two float matrices of one dtype, if the product is small enough
/// for smallGemm (and the addend, if any, has their dtype and broadcasts to [m, n]); an
/// undefined tensor otherwise, and the caller takes the general path (which also reports errors).
Tensor smallMatmul(const Tensor &a, const Tensor &b, const Tensor *addend, bool relu) {
  int64_t m, n, k;
  if (!smallProduct(a, b, m, n, k))
    return {};
  int64_t addRs = 0, addCs = 0;
  if (addend && (addend->dtype() != a.dtype() || !addendRef(*addend, m, n, addRs, addCs)))
    return {};
  Tensor out = Tensor::empty(a.dtype(), {m, n});
  runSmall(a, b, m, n, k, out, addend ? addend->rawData() : nullptr, addRs, addCs, relu);
  return out;
}

Tensor matmul(Tensor a, Tensor b, const char *op) {
  // (Messages are built only on failure: a small matmul in a loop must not format strings.)
  if (Tensor small = smallMatmul(a, b, nullptr, false); small)
    return small;
  if (a.rank() < 1 || b.rank() < 1)
    throw Error(std::string("'") + op + "' needs operands of rank >= 1, got " + a.typeString() +
                " and " + b.typeString());
  bool aVec = a.rank() == 1, bVec = b.rank() == 1;
  if (aVec)
    a = a.reshape({1, a.dim(0)});
  if (bVec)
    b = b.reshape({b.dim(0), 1});
  int64_t ra = a.rank(), rb = b.rank();
  int64_t m = a.dim(ra - 2), k = a.dim(ra - 1), k2 = b.dim(rb - 2), n = b.dim(rb - 1);
  if (k != k2)
    throw Error("cannot multiply " + a.typeString() + " by " + b.typeString() +
                ": inner dimensions " + std::to_string(k) + " and " + std::to_string(k2) +
                " differ");
  Shape batch;
  if (ra > 2 || rb > 2)
    batch = broadcastShapes(Shape(a.shape().begin(), a.shape().end() - 2),
                            Shape(b.shape().begin(), b.shape().end() - 2),
                            "cannot broadcast the batch dimensions of " + a.typeString() + " and " +
                                b.typeString());
  DType dt = widerDType(a.dtype(), b.dtype());
  if (dt == DType::Bool)
    dt = DType::I64;
  if (a.dtype() != dt)
    a = a.to(dt);
  if (b.dtype() != dt)
    b = b.to(dt);

  Shape outShape = batch;
  outShape.push_back(m);
  outShape.push_back(n);
  Tensor out = Tensor::empty(dt, outShape);
  int64_t nb = numelOf(batch);

  // One GEMM for a contiguous batched left operand times a single matrix.
  if (isFloat(dt) && rb == 2 && a.isContiguous() && nb > 0) {
    Tensor bb = gemmReady(b);
    GemmOperand ga{false, std::max<int64_t>(1, k)}, gb;
    gemmLayout(bb.strides()[0], bb.strides()[1], k, n, gb);
    dispatchDType(dt, [&]<typename T>() {
      if constexpr (std::is_floating_point_v<T>)
        gemmOp<T>(nb * m, n, k, a.data<T>(), ga, bb.data<T>(), gb, out.data<T>());
    });
  } else {
    if (isFloat(dt)) {
      a = gemmReady(a);
      b = gemmReady(b);
    }
    Shape aShape = batch, bShape = batch;
    aShape.insert(aShape.end(), {m, k});
    bShape.insert(bShape.end(), {k, n});
    Tensor av = a.broadcastTo(aShape), bv = b.broadcastTo(bShape);
    int64_t r = (int64_t)aShape.size();
    Shape idx(batch.size(), 0);
    for (int64_t bi = 0; bi < nb; ++bi) {
      int64_t offA = 0, offB = 0;
      for (size_t d = 0; d < batch.size(); ++d) {
        offA += idx[d] * av.strides()[d];
        offB += idx[d] * bv.strides()[d];
      }
      int64_t ars = av.strides()[r - 2], acs = av.strides()[r - 1];
      int64_t brs = bv.strides()[r - 2], bcs = bv.strides()[r - 1];
      dispatchDType(dt, [&]<typename T>() {
        const T *pa = av.data<T>() + offA;
        const T *pb = bv.data<T>() + offB;
        T *pc = out.data<T>() + bi * m * n;
        if constexpr (std::is_floating_point_v<T>) {
          GemmOperand ga, gb;
          gemmLayout(ars, acs, m, k, ga);
          gemmLayout(brs, bcs, k, n, gb);
          gemmOp<T>(m, n, k, pa, ga, pb, gb, pc);
        } else if constexpr (!std::is_same_v<T, bool>) {
          intGemm<T>(m, n, k, pa, ars, acs, pb, brs, bcs, pc);
        }
      });
      for (size_t d = batch.size(); d-- > 0;) {
        if (++idx[d] < batch[d])
          break;
        idx[d] = 0;
      }
    }
  }
  Shape finalShape = batch;
  if (!aVec)
    finalShape.push_back(m);
  if (!bVec)
    finalShape.push_back(n);
  return finalShape == outShape ? out : out.reshape(finalShape);
}

void matmulKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 2, "matmul");
  const Tensor &a = tensorArg(ins, 0, "matmul"), &b = tensorArg(ins, 1, "matmul");
  // (The small path first, on the operands themselves: matmul() takes copies of the handles.)
  if (Tensor small = smallMatmul(a, b, nullptr, false); small) {
    outs.emplace_back(std::move(small));
    return;
  }
  outs.emplace_back(matmul(a, b, "matmul"));
}

/// dot(a, b): the inner product of two vectors (a 0-d result); higher ranks act as matmul.
void dotKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 2, "dot");
  const Tensor &a = tensorArg(ins, 0, "dot"), &b = tensorArg(ins, 1, "dot");
  if (a.rank() == 1 && b.rank() == 1)
    check(a.dim(0) == b.dim(0),
          "cannot take the dot product of " + a.typeString() + " and " + b.typeString());
  outs.emplace_back(matmul(a, b, "dot"));
}

/// matmul_bias(a, b, bias) {relu}: relu?(a @ b + bias), the optimizer's rewrite of that
/// subgraph (compiler/opt/LibraryFusion.cpp): the GEMM's product, then addBiasInPlace.
void matmulBiasKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 3, "matmul_bias");
  const Tensor &a = tensorArg(ins, 0, "matmul_bias"), &b = tensorArg(ins, 1, "matmul_bias");
  bool relu = attrs.getBool("relu", false);
  if (Tensor small = smallMatmul(a, b, &tensorArg(ins, 2, "matmul_bias"), relu); small) {
    outs.emplace_back(std::move(small));
    return;
  }
  Tensor out = matmul(a, b, "matmul_bias");
  addBiasInPlace(out, tensorArg(ins, 2, "matmul_bias"), relu, "matmul_bias");
  outs.emplace_back(std::move(out));
}

} // namespace

bool matmulBiasAccumulate(const Tensor &a, const Tensor &b, const Tensor &acc, bool relu) {
  int64_t m, n, k;
  if (!smallProduct(a, b, m, n, k) || acc.dtype() != a.dtype() || acc.rank() != 2 ||
      acc.dim(0) != m || acc.dim(1) != n || !acc.isContiguous() || a.device() != Device::CPU ||
      b.device() != Device::CPU || acc.device() != Device::CPU)
    return false;
  runSmall(a, b, m, n, k, acc, acc.rawData(), n, 1, relu);
  return true;
}

namespace {

/// Whether `bias` is one contiguous row of `out`'s last dimension (a [n] or [1, n] bias of a
/// [.., n] product): then addBiasInPlace runs over plain rows.
bool isBiasRow(const Tensor &out, const Tensor &bias) {
  if (out.rank() == 0 || bias.rank() == 0 || !out.isContiguous() || !bias.isContiguous())
    return false;
  int64_t n = out.dim(out.rank() - 1);
  return bias.dim(bias.rank() - 1) == n && bias.numel() == n;
}

/// out[r, j] = relu?(out[r, j] + bias[j]) over rows of n, as the strided loop computes it.
template <typename T> void addBiasRows(T *out, const T *bias, int64_t rows, int64_t n, bool relu) {
  for (int64_t r = 0; r < rows; ++r) {
    T *o = out + r * n;
    if (relu)
      for (int64_t j = 0; j < n; ++j) {
        o[j] = reluOf(T(o[j] + bias[j]));
      }
    else
      for (int64_t j = 0; j < n; ++j)
        o[j] = o[j] + bias[j];
  }
}

} // namespace

void addBiasInPlace(Tensor &out, const Tensor &bias, bool relu, const char *op) {
  if (!isFloat(out.dtype()) || bias.dtype() != out.dtype() ||
      broadcastShapes(out, bias) != out.shape())
    throw Error(std::string("'") + op + "' needs a float product and a bias of its dtype that " +
                "broadcasts to it, got " + out.typeString() + " and " + bias.typeString());
  bool sameShape = bias.shape() == out.shape() && out.isContiguous() && bias.isContiguous();
  if (sameShape || isBiasRow(out, bias)) { // (a same-shape addend: a gradient accumulator, one row)
    int64_t n = sameShape ? out.numel() : out.dim(out.rank() - 1), rows = n ? out.numel() / n : 0;
    dispatchDType(out.dtype(), [&]<typename T>() {
      if constexpr (std::is_floating_point_v<T>)
        addBiasRows(out.data<T>(), bias.data<T>(), rows, n, relu);
    });
    return;
  }
  std::array<Shape, 2> strides = {broadcastByteStrides(out, out.shape()),
                                  broadcastByteStrides(bias, out.shape())};
  dispatchDType(out.dtype(), [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>)
      forEachStrided<2>(out.shape(), {bytePtr(out), bytePtr(bias)}, strides,
                        [&](std::array<char *, 2> p, std::array<int64_t, 2> st, int64_t n) {
                          for (int64_t i = 0; i < n; ++i) {
                            T &o = *reinterpret_cast<T *>(p[0] + i * st[0]);
                            o = o + *reinterpret_cast<const T *>(p[1] + i * st[1]);
                            if (relu)
                              o = reluOf(o);
                          }
                        });
  });
}

namespace {

/// smallGemm for the BLAS-style call when it fits and beta is 0 or 1 (every caller's); false
/// otherwise.
template <typename T>
bool smallBlasGemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const T *a,
                   int64_t lda, const T *b, int64_t ldb, T beta, T *c, int64_t ldc) {
  if ((beta != T(0) && beta != T(1)) || !smallGemmFits(m, n, k))
    return false;
  smallGemm(m, n, k, MatrixRef<T>{a, transA ? 1 : lda, transA ? lda : 1},
            MatrixRef<T>{b, transB ? 1 : ldb, transB ? ldb : 1}, c, ldc,
            MatrixRef<T>{beta == T(1) ? c : nullptr, ldc, 1}, false);
  return true;
}

} // namespace

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
          const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  if (smallBlasGemm(transA, transB, m, n, k, a, lda, b, ldb, beta, c, ldc))
    return;
  beforeBlasProduct(m, n, k);
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
}

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
          const double *b, int64_t ldb, double beta, double *c, int64_t ldc) {
  if (smallBlasGemm(transA, transB, m, n, k, a, lda, b, ldb, beta, c, ldc))
    return;
  beforeBlasProduct(m, n, k);
  cblas_dgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              m, n, k, 1.0, a, lda, b, ldb, beta, c, ldc);
}

void registerLinalgKernels() {
  registerKernel(OpKind::Matmul, Device::CPU, matmulKernel);
  registerKernel(OpKind::Dot, Device::CPU, dotKernel);
  registerKernel(OpKind::MatmulBias, Device::CPU, matmulBiasKernel);
}

} // namespace dlm::rt::cpu
