//===- bench/dist/AllreduceBench.cpp - dlm's allreduce against raw MPI ------===//
//
// Under `mpirun -np N`: for f32 buffers of 4 KiB to 64 MiB, the time of one allreduce (sum)
// through dlm's runtime (rt::dist::allreduce: the header check, a new result tensor,
// MPI_Allreduce from the operand into it) and through a raw in-place MPI_Allreduce of the same
// library (resolved from the process, which dlm's runtime loaded). Rounds alternate between
// the two; each takes the best of its rounds. Rank 0 prints bytes, microseconds and bus
// bandwidth (2 (N-1)/N bytes / time, as nccl-tests count it) for both, and dlm's share of raw.
//
//===----------------------------------------------------------------------===//
#include "runtime/Dist.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <dlfcn.h>

using namespace dlm::rt;
using dlm::DType;

namespace {

using AllreduceFn = int (*)(const void *, void *, int, void *, void *, void *);
using BarrierFn = int (*)(void *);

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

int main() {
  int rank = dist::rank(), ranks = dist::worldSize();
  if (ranks < 2) {
    std::fprintf(stderr, "run under mpirun -np 2 (or more)\n");
    return 2;
  }
  auto raw = reinterpret_cast<AllreduceFn>(dlsym(RTLD_DEFAULT, "MPI_Allreduce"));
  auto barrier = reinterpret_cast<BarrierFn>(dlsym(RTLD_DEFAULT, "MPI_Barrier"));
  void *world = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world");
  void *f32 = dlsym(RTLD_DEFAULT, "ompi_mpi_float");
  void *sum = dlsym(RTLD_DEFAULT, "ompi_mpi_op_sum");
  void *inPlace = reinterpret_cast<void *>(1);
  if (rank == 0)
    std::printf("%10s %10s %10s %10s %10s %7s\n", "bytes", "raw_us", "dlm_us", "raw_GB/s",
                "dlm_GB/s", "dlm/raw");
  for (int64_t bytes = 4096; bytes <= (int64_t(64) << 20); bytes *= 4) {
    int64_t count = bytes / 4;
    Tensor x = Tensor::zeros(DType::F32, {count});
    Tensor buf = Tensor::zeros(DType::F32, {count});
    int reps = int(std::clamp<int64_t>((int64_t(256) << 20) / bytes, 3, 200));
    double bestRaw = 1e30, bestDlm = 1e30;
    for (int round = 0; round < 5; ++round) {
      barrier(world);
      double t0 = seconds();
      for (int i = 0; i < reps; ++i)
        raw(inPlace, buf.rawData(), int(count), f32, sum, world);
      barrier(world);
      double t1 = seconds();
      for (int i = 0; i < reps; ++i)
        Tensor y = dist::allreduce(x, dist::ReduceKind::Sum);
      barrier(world);
      double t2 = seconds();
      bestRaw = std::min(bestRaw, (t1 - t0) / reps);
      bestDlm = std::min(bestDlm, (t2 - t1) / reps);
    }
    double bus = 2.0 * (ranks - 1) / ranks * double(bytes) / 1e9;
    if (rank == 0)
      std::printf("%10lld %10.1f %10.1f %10.2f %10.2f %6.1f%%\n", (long long)bytes, bestRaw * 1e6,
                  bestDlm * 1e6, bus / bestRaw, bus / bestDlm, 100.0 * bestRaw / bestDlm);
  }
  return dlm_dist_finish(0);
}
