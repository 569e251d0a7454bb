//===- bench/peers/FmaPeak.cpp - This core's f32 FMA peak ------------------===//
//
// Measures the f32 multiply-add throughput one core reaches (GFLOP/s, an FMA counted as two
// flops), the ceiling GEMM and convolution efficiency is expressed against (bench/RESULTS.md
// "Peers"). Each variant keeps 12 independent accumulator registers in flight (more than an
// FMA's latency times the FMA ports, so the ports, not the dependency chains, limit it) and runs
// a fixed count of FMAs on them; the best of `reps` timings (CPU time of the process, pinned by
// the caller with taskset) is the peak.
//
//   zmm: AVX-512, 16 floats per FMA (AMD Zen 4 runs it as two 256-bit halves)
//   ymm: AVX2/FMA3, 8 floats per FMA
//
// Usage: fma_peak [reps]; prints `fma_peak_gflops_zmm X`, `fma_peak_gflops_ymm Y` and
// `cpu_mhz Z` (the kernel's current clock of this CPU, from /proc/cpuinfo, for flops per cycle).
//
//===----------------------------------------------------------------------===//
#include <immintrin.h>
#include <sched.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {

constexpr long kOuter = 4000000; // outer iterations; 12 FMAs each

// CPU time, not wall time: on a machine shared with other jobs the wall clock measures their
// share of the core too.
double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

template <typename Fn> double bestSeconds(Fn fn, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    double start = cpuSeconds();
    fn();
    double s = cpuSeconds() - start;
    best = s < best ? s : best;
  }
  return best;
}

// The sum of the accumulators goes into `sink`, so the compiler must run every FMA. The
// accumulators are twelve named variables, not an array, so that they stay in registers (an
// array was spilled to the stack, and the loop then measured store-to-load forwarding).
volatile float sink;

#define DLM_FMA12(fma)                                                                             \
  a0 = fma(a0, m, c);                                                                              \
  a1 = fma(a1, m, c);                                                                              \
  a2 = fma(a2, m, c);                                                                              \
  a3 = fma(a3, m, c);                                                                              \
  a4 = fma(a4, m, c);                                                                              \
  a5 = fma(a5, m, c);                                                                              \
  a6 = fma(a6, m, c);                                                                              \
  a7 = fma(a7, m, c);                                                                              \
  a8 = fma(a8, m, c);                                                                              \
  a9 = fma(a9, m, c);                                                                              \
  a10 = fma(a10, m, c);                                                                            \
  a11 = fma(a11, m, c)

__attribute__((target("avx512f"))) void zmmLoop() {
  __m512 a0 = _mm512_set1_ps(0.0f), a1 = _mm512_set1_ps(0.1f), a2 = _mm512_set1_ps(0.2f),
         a3 = _mm512_set1_ps(0.3f), a4 = _mm512_set1_ps(0.4f), a5 = _mm512_set1_ps(0.5f),
         a6 = _mm512_set1_ps(0.6f), a7 = _mm512_set1_ps(0.7f), a8 = _mm512_set1_ps(0.8f),
         a9 = _mm512_set1_ps(0.9f), a10 = _mm512_set1_ps(1.0f), a11 = _mm512_set1_ps(1.1f);
  const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
  for (long it = 0; it < kOuter; ++it) {
    DLM_FMA12(_mm512_fmadd_ps);
  }
  __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                           _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
  s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
  float out[16];
  _mm512_storeu_ps(out, s);
  sink = out[0] + out[15];
}

__attribute__((target("avx2,fma"))) void ymmLoop() {
  __m256 a0 = _mm256_set1_ps(0.0f), a1 = _mm256_set1_ps(0.1f), a2 = _mm256_set1_ps(0.2f),
         a3 = _mm256_set1_ps(0.3f), a4 = _mm256_set1_ps(0.4f), a5 = _mm256_set1_ps(0.5f),
         a6 = _mm256_set1_ps(0.6f), a7 = _mm256_set1_ps(0.7f), a8 = _mm256_set1_ps(0.8f),
         a9 = _mm256_set1_ps(0.9f), a10 = _mm256_set1_ps(1.0f), a11 = _mm256_set1_ps(1.1f);
  const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
  for (long it = 0; it < kOuter; ++it) {
    DLM_FMA12(_mm256_fmadd_ps);
  }
  __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                           _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
  float out[8];
  _mm256_storeu_ps(out, s);
  sink = out[0] + out[7];
}

double cpuMhz() {
  FILE *f = std::fopen("/proc/cpuinfo", "r");
  if (!f)
    return 0;
  char line[256];
  double mhz = 0;
  int cpu = sched_getcpu(), current = -1;
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "processor", 9) == 0)
      current = std::atoi(std::strchr(line, ':') + 1);
    if (std::strncmp(line, "cpu MHz", 7) == 0 && current == cpu)
      mhz = std::atof(std::strchr(line, ':') + 1);
  }
  std::fclose(f);
  return mhz;
}

} // namespace

int main(int argc, char **argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 7;
  double flops = 2.0 * 12 * (double)kOuter; // per float lane
  if (__builtin_cpu_supports("avx512f"))
    std::printf("fma_peak_gflops_zmm %.1f\n", flops * 16 / bestSeconds(zmmLoop, reps) * 1e-9);
  else
    std::printf("fma_peak_gflops_zmm 0 (this CPU has no AVX-512)\n");
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    std::printf("fma_peak_gflops_ymm %.1f\n", flops * 8 / bestSeconds(ymmLoop, reps) * 1e-9);
  std::printf("cpu_mhz %.0f\n", cpuMhz());
  return 0;
}
