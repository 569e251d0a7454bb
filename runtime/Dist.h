//===- runtime/Dist.h - The ranks of a data-parallel run and their collectives ===//
//
// A dlm program runs as one rank of `world_size()` (docs/dist.md). A plain run is rank 0 of 1
// and every collective is the identity, with nothing loaded. Under a launcher (`mpirun -np N`:
// Open MPI's OMPI_COMM_WORLD_SIZE, or PMIx's PMIX_RANK, in the environment) the first call here
// loads the MPI library with dlopen (libmpi.so.40, Debian's Open MPI 4.1) and initialises it,
// so a program that uses no collective, or runs alone, pays nothing: the runtime neither links
// MPI nor needs its headers to build. The handles come from the library's exported globals
// (Open MPI's ABI: MPI_COMM_WORLD is &ompi_mpi_comm_world, ...).
//
// Collectives run in program order on every rank: the ops are side effects, which lowering
// chains in program order (docs/ir.md "Program order"), so at most one runs at a time; the
// graph executor may run them on any of its threads (MPI_THREAD_SERIALIZED).
//
// Before each collective the ranks compare what they are about to call (the header check: the
// collective's number in program order, its kind, dtype and shape; one small MPI_Allgather),
// so ranks that disagree get an error naming both sides instead of exchanging garbage or
// waiting forever. DLM_DIST_CHECK=0 turns it off (to measure what it costs).
//
// Errors are rt::Error: a failed load or initialisation, a dtype MPI cannot carry, ranks that
// disagree on a collective.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_DIST_H
#define DLM_RUNTIME_DIST_H

#include <stdint.h>

#ifdef __cplusplus
#include "runtime/Tensor.h"

#include <string_view>

namespace dlm::rt::dist {

/// How allreduce combines the ranks' values.
enum class ReduceKind { Sum, Mean, Max, Min };
/// "sum", "mean", "max", "min"; nullopt for anything else.
std::optional<ReduceKind> reduceKindNamed(std::string_view name);

/// This process's rank, 0 when not launched by a launcher.
int rank();
/// The number of ranks, 1 when not launched by a launcher.
int worldSize();
/// Whether a launcher started this process (MPI is then loaded on first use).
bool launched();

/// x combined over all ranks, elementwise (a new contiguous tensor; x itself at one rank).
Tensor allreduce(const Tensor &x, ReduceKind kind);
/// Rank `root`'s x on every rank (x itself at one rank). Every rank's x must have the same
/// dtype and shape.
Tensor broadcast(const Tensor &x, int root);
/// The ranks' x concatenated along dim 0 in rank order; their dim 0 may differ.
Tensor allgather(const Tensor &x);
/// Returns once every rank has called it.
void barrier();

} // namespace dlm::rt::dist

extern "C" {
#endif

/* Ends this rank's part of the run with exit status `status` and returns it: when MPI was
 * initialised, status 0 finalises it; any other status names this rank on stderr and aborts
 * every rank (MPI_Abort), so the others end rather than wait in a collective for this one.
 * `dlm run` calls it before it exits, an AOT executable's main before it returns. */
int32_t dlm_dist_finish(int32_t status);

#ifdef __cplusplus
}
#endif

#endif // DLM_RUNTIME_DIST_H
