//===- bench/peers/GemmLibs.cpp - GEMM libraries on the workloads' shapes --===//
//
// One f32 GEMM library timed on the matrix products the peers' workloads make (bench/peers/
// peers.py, bench/RESULTS.md "Peers"): the MLP step's five products at batch 32/128/512, the
// LSTM's per-timestep products at hidden 32/128/512 (batch 1) and the attention block's
// projections and score products. Built once per library, with GEMM_LIB set to one of
// OPENBLAS, DNNL, BLIS, XSMM (bench/peers/CMakeLists.txt), so that no two BLAS-like libraries
// share a process. All operands are row-major; "NT" means C = A @ B^T with B stored [n, k], as a
// transposed view reaches the library.
//
// One thread (each library's own setting, and the caller pins the process with taskset).
// Per shape: calls are repeated until a timing lasts >= 20 ms, best and median of 7 such
// timings, CPU time. Prints one line per shape:
//   gemm LIB NAME M N K TRANS best_ns median_ns gflops_best
// A library with no kernel for a shape (libxsmm's JIT: no transposed A) prints `na` instead.
//
//===----------------------------------------------------------------------===//
#if defined(GEMM_LIB_OPENBLAS)
#include <cblas.h>
#define GEMM_LIB_NAME "openblas"
#elif defined(GEMM_LIB_DNNL)
#include <oneapi/dnnl/dnnl.h>
#define GEMM_LIB_NAME "onednn"
#elif defined(GEMM_LIB_BLIS)
#include <blis.h>
#define GEMM_LIB_NAME "blis"
#elif defined(GEMM_LIB_XSMM)
#include <libxsmm.h>
#define GEMM_LIB_NAME "libxsmm"
#else
#error "GEMM_LIB_OPENBLAS, GEMM_LIB_DNNL, GEMM_LIB_BLIS or GEMM_LIB_XSMM must be defined"
#endif

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <vector>

namespace {

struct Shape {
  std::string name;
  int m, n, k;
  bool transA, transB;
};

std::vector<Shape> workloadShapes() {
  std::vector<Shape> shapes;
  for (int b : {32, 128, 512}) {
    std::string s = "mlp-b" + std::to_string(b) + "-";
    shapes.push_back({s + "fwd1", b, 256, 784, false, false});
    shapes.push_back({s + "fwd2", b, 10, 256, false, false});
    shapes.push_back({s + "bwd-dh", b, 256, 10, false, true});
    shapes.push_back({s + "bwd-dw2", 256, 10, b, true, false});
    shapes.push_back({s + "bwd-dw1", 784, 256, b, true, false});
  }
  for (int h : {32, 128, 512}) {
    std::string s = "lstm-h" + std::to_string(h) + "-";
    shapes.push_back({s + "x@wx(in32)", 1, 4 * h, 32, false, false});
    shapes.push_back({s + "h@wh", 1, 4 * h, h, false, false});
    shapes.push_back({s + "h@whT(stored[4H,H])", 1, 4 * h, h, false, true});
    shapes.push_back({s + "bwd-dz@whT", 1, h, 4 * h, false, true});
    shapes.push_back({s + "bwd-dwh(outer)", h, 4 * h, 1, true, false});
  }
  for (int t : {64, 256}) {
    std::string s = "attn-t" + std::to_string(t) + "-";
    shapes.push_back({s + "proj", 8 * t, 64, 64, false, false});
    shapes.push_back({s + "q@kT(per-batch)", t, t, 64, false, true});
    shapes.push_back({s + "p@v(per-batch)", t, 64, t, false, false});
  }
  return shapes;
}

// C[m,n] = op(A) @ op(B), row-major, A stored [m,k] (or [k,m] when transA), B [k,n] (or [n,k]).
// Returns false when the library has no kernel for the shape.
class Gemm {
public:
  bool prepare(const Shape &s) {
    shape = s;
#if defined(GEMM_LIB_XSMM)
    // Row-major C = A B is column-major C^T = B^T A^T: swap the operands and m, n.
    if (s.transA)
      return false;
    int flags = s.transB ? LIBXSMM_GEMM_FLAG_TRANS_A : LIBXSMM_GEMM_FLAG_NONE;
    libxsmm_blasint lda = s.transB ? s.k : s.n, ldb = s.k, ldc = s.n;
    float alpha = 1, beta = 0;
    kernel = libxsmm_smmdispatch(s.n, s.m, s.k, &lda, &ldb, &ldc, &alpha, &beta, &flags, nullptr);
    return kernel != nullptr;
#else
    return true;
#endif
  }

  void run(const float *a, const float *b, float *c) const {
    const Shape &s = shape;
    int lda = s.transA ? s.m : s.k, ldb = s.transB ? s.k : s.n;
#if defined(GEMM_LIB_OPENBLAS)
    cblas_sgemm(CblasRowMajor, s.transA ? CblasTrans : CblasNoTrans,
                s.transB ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, 1.0f, a, lda, b, ldb, 0.0f, c,
                s.n);
#elif defined(GEMM_LIB_DNNL)
    dnnl_sgemm(s.transA ? 'T' : 'N', s.transB ? 'T' : 'N', s.m, s.n, s.k, 1.0f, a, lda, b, ldb,
               0.0f, c, s.n);
#elif defined(GEMM_LIB_BLIS)
    float alpha = 1, beta = 0;
    // Row-major: row stride = leading dimension, column stride 1 (BLIS takes both).
    bli_sgemm(s.transA ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE,
              s.transB ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE, s.m, s.n, s.k, &alpha,
              const_cast<float *>(a), lda, 1, const_cast<float *>(b), ldb, 1, &beta, c, s.n, 1);
#elif defined(GEMM_LIB_XSMM)
    (void)lda;
    (void)ldb;
    kernel(b, a, c);
#endif
  }

private:
  Shape shape{};
#if defined(GEMM_LIB_XSMM)
  libxsmm_smmfunction kernel = nullptr;
#endif
};

void setOneThread() {
#if defined(GEMM_LIB_OPENBLAS)
  openblas_set_num_threads(1);
#elif defined(GEMM_LIB_BLIS)
  bli_thread_set_num_threads(1);
#elif defined(GEMM_LIB_XSMM)
  libxsmm_init();
#endif
  // oneDNN's sgemm follows OMP_NUM_THREADS, which bench/peers/peers.py sets to 1.
}

// CPU time of the process (one thread): on a shared machine the wall clock also counts the
// other jobs' share of the core.
double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

std::vector<float> randomVector(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

void measure(const Shape &s, std::mt19937 &rng) {
  Gemm gemm;
  if (!gemm.prepare(s)) {
    std::printf("gemm %s %s %d %d %d %s%s na na na\n", GEMM_LIB_NAME, s.name.c_str(), s.m, s.n, s.k,
                s.transA ? "T" : "N", s.transB ? "T" : "N");
    return;
  }
  std::vector<float> a = randomVector((size_t)s.m * s.k, rng),
                     b = randomVector((size_t)s.k * s.n, rng), c((size_t)s.m * s.n);
  long calls = 1;
  for (;;) { // calibrate: enough calls for 20 ms
    double start = cpuSeconds();
    for (long i = 0; i < calls; ++i)
      gemm.run(a.data(), b.data(), c.data());
    if (cpuSeconds() - start >= 0.02)
      break;
    calls *= 2;
  }
  std::vector<double> perCall;
  for (int r = 0; r < 7; ++r) {
    double start = cpuSeconds();
    for (long i = 0; i < calls; ++i)
      gemm.run(a.data(), b.data(), c.data());
    perCall.push_back((cpuSeconds() - start) / (double)calls);
  }
  std::sort(perCall.begin(), perCall.end());
  double flops = 2.0 * s.m * s.n * s.k;
  std::printf("gemm %s %s %d %d %d %s%s %.0f %.0f %.2f\n", GEMM_LIB_NAME, s.name.c_str(), s.m, s.n,
              s.k, s.transA ? "T" : "N", s.transB ? "T" : "N", perCall[0] * 1e9, perCall[3] * 1e9,
              flops / perCall[0] * 1e-9);
}

} // namespace

int main() {
  setOneThread();
  std::mt19937 rng(0);
  for (const Shape &s : workloadShapes())
    measure(s, rng);
  return 0;
}
