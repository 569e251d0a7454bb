//===- bench/jit/MlpGemmRef.cpp - The GEMM floor of the MLP training step -===//
//
// The reference time bench/jit/bench.py compares mlp_train.dlm against: exactly the five
// OpenBLAS sgemm calls one training step of that script makes, with the shapes, transpose
// flags and leading dimensions dlm's matmul kernel passes (kernels/cpu/Linalg.cpp hands
// transposed views to BLAS as transpose flags), on the same library, timed the same way (CPU
// time of the process, best of `reps` runs of `iters` steps). Output buffers are allocated
// once, so the figure is the GEMMs alone: what a step would cost if everything else were free.
//
//   forward   h = x @ w1            [128,784] x [784,256]   NN
//             z = h @ w2            [128,256] x [256,10]    NN
//   backward  dh = dz @ w2^T        [128,10]  x [10,256]    NT (w2 is [256,10])
//             dw2 = h^T @ dz        [256,128] x [128,10]    TN
//             dw1 = x^T @ dh        [784,128] x [128,256]   TN
//
// Usage: mlp_gemm_ref [iters] [reps]; prints `gemm_cpu_ms_per_step X` and
// `gemm_wall_ms_per_step Y`. Threads follow OPENBLAS_NUM_THREADS like dlm's.
//
//===----------------------------------------------------------------------===//
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <vector>

namespace {

constexpr int kBatch = 128, kIn = 784, kHidden = 256, kOut = 10;

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

std::vector<float> randomMatrix(int rows, int cols, std::mt19937 &rng) {
  std::normal_distribution<float> normal(0.0f, 0.05f);
  std::vector<float> m((size_t)rows * cols);
  for (float &v : m)
    v = normal(rng);
  return m;
}

struct Step {
  std::mt19937 rng{0};
  std::vector<float> x = randomMatrix(kBatch, kIn, rng), w1 = randomMatrix(kIn, kHidden, rng),
                     w2 = randomMatrix(kHidden, kOut, rng), dz = randomMatrix(kBatch, kOut, rng);
  std::vector<float> h = std::vector<float>((size_t)kBatch * kHidden),
                     z = std::vector<float>((size_t)kBatch * kOut),
                     dh = std::vector<float>((size_t)kBatch * kHidden),
                     dw2 = std::vector<float>((size_t)kHidden * kOut),
                     dw1 = std::vector<float>((size_t)kIn * kHidden);

  void run() {
    auto gemm = [](CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, const float *a,
                   int lda, const float *b, int ldb, float *c) {
      cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, n);
    };
    gemm(CblasNoTrans, CblasNoTrans, kBatch, kHidden, kIn, x.data(), kIn, w1.data(), kHidden,
         h.data());
    gemm(CblasNoTrans, CblasNoTrans, kBatch, kOut, kHidden, h.data(), kHidden, w2.data(), kOut,
         z.data());
    gemm(CblasNoTrans, CblasTrans, kBatch, kHidden, kOut, dz.data(), kOut, w2.data(), kOut,
         dh.data());
    gemm(CblasTrans, CblasNoTrans, kHidden, kOut, kBatch, h.data(), kHidden, dz.data(), kOut,
         dw2.data());
    gemm(CblasTrans, CblasNoTrans, kIn, kHidden, kBatch, x.data(), kIn, dh.data(), kHidden,
         dw1.data());
  }
};

} // namespace

int main(int argc, char **argv) {
  int iters = argc > 1 ? std::atoi(argv[1]) : 50;
  int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  if (iters <= 0 || reps <= 0) {
    std::fprintf(stderr, "usage: mlp_gemm_ref [iters > 0] [reps > 0]\n");
    return 2;
  }
  Step step;
  step.run(); // warm up: BLAS buffers, page faults
  double bestCpu = 1e30, bestWall = 1e30;
  for (int r = 0; r < reps; ++r) {
    double cpu0 = cpuSeconds();
    auto wall0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i)
      step.run();
    std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall0;
    bestCpu = std::min(bestCpu, (cpuSeconds() - cpu0) / iters);
    bestWall = std::min(bestWall, wall.count() / iters);
  }
  std::printf("gemm_cpu_ms_per_step %.4f\ngemm_wall_ms_per_step %.4f\n", bestCpu * 1e3,
              bestWall * 1e3);
  return 0;
}
