//===- runtime/Dist.cpp - Ranks and collectives over a dlopen'd MPI ---------===//
//
// runtime/Dist.h says what this is. The MPI library is resolved by name at run time, so the
// runtime carries no MPI dependency: a handle type is a pointer (Open MPI's ABI), each function
// is looked up once with dlsym, and the predefined handles (MPI_COMM_WORLD, MPI_FLOAT, MPI_SUM,
// ...) are the addresses of the library's exported globals, as Open MPI's mpi.h defines them.
// MPI counts are ints: longer buffers go in chunks of kMaxCount elements.
//
//===----------------------------------------------------------------------===//
#include "runtime/Dist.h"

#include "runtime/Error.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <vector>

namespace dlm::rt::dist {

namespace {

using Handle = void *; // MPI_Comm, MPI_Datatype, MPI_Op: pointers in Open MPI

/// Open MPI's MPI_THREAD_SERIALIZED: collectives come from any thread, one at a time.
constexpr int kThreadSerialized = 2;
constexpr int64_t kMaxCount = INT_MAX / 2;

/// The MPI library's entry points and handles.
struct Mpi {
  int (*initialized)(int *);
  int (*initThread)(int *, char ***, int, int *);
  int (*finalize)();
  int (*commRank)(Handle, int *);
  int (*commSize)(Handle, int *);
  int (*allreduce)(const void *, void *, int, Handle, Handle, Handle);
  int (*bcast)(void *, int, Handle, int, Handle);
  int (*allgather)(const void *, int, Handle, void *, int, Handle, Handle);
  int (*allgatherv)(const void *, int, Handle, void *, const int *, const int *, Handle, Handle);
  int (*barrier)(Handle);
  int (*abort)(Handle, int);
  Handle world, byte, f32, f64, i32, i64, sum, max, min;
};

/// Where the ranks stand: resolved once, on first use.
struct World {
  bool launched = false;
  bool initialised = false;
  int rank = 0;
  int size = 1;
  Mpi mpi{};
  std::string error;      // why loading or initialising MPI failed
  bool checkCalls = true; // the header check (DLM_DIST_CHECK=0 turns it off)
  int64_t calls = 0;      // collectives so far, in program order
};

/// The launcher's environment: Open MPI's mpirun, or any PMIx launcher.
bool underLauncher() { return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK"); }

/// The collectives, in the header check's numbering.
enum class Collective : int64_t { AllReduce, Broadcast, AllGather, Barrier };

template <typename F> bool resolve(void *lib, const char *name, F &out, std::string &error) {
  out = reinterpret_cast<F>(dlsym(lib, name));
  if (!out && error.empty())
    error = std::string("the MPI library has no '") + name + "'";
  return out != nullptr;
}

Handle global(void *lib, const char *name, std::string &error) {
  void *p = dlsym(lib, name);
  if (!p && error.empty())
    error = std::string("the MPI library has no '") + name + "' (dlm needs Open MPI)";
  return p;
}

/// Loads libmpi and resolves what the collectives use; the reason in `error` on failure.
bool loadMpi(Mpi &m, std::string &error) {
  // RTLD_GLOBAL: Open MPI's own plugins resolve libmpi's symbols through the global scope.
  void *lib = dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char *why = dlerror();
    error = std::string("cannot load the MPI library libmpi.so.40 (Debian: apt-get install "
                        "openmpi-bin): ") +
            (why ? why : "unknown error");
    return false;
  }
  resolve(lib, "MPI_Initialized", m.initialized, error);
  resolve(lib, "MPI_Init_thread", m.initThread, error);
  resolve(lib, "MPI_Finalize", m.finalize, error);
  resolve(lib, "MPI_Comm_rank", m.commRank, error);
  resolve(lib, "MPI_Comm_size", m.commSize, error);
  resolve(lib, "MPI_Allreduce", m.allreduce, error);
  resolve(lib, "MPI_Bcast", m.bcast, error);
  resolve(lib, "MPI_Allgather", m.allgather, error);
  resolve(lib, "MPI_Allgatherv", m.allgatherv, error);
  resolve(lib, "MPI_Barrier", m.barrier, error);
  resolve(lib, "MPI_Abort", m.abort, error);
  m.world = global(lib, "ompi_mpi_comm_world", error);
  m.byte = global(lib, "ompi_mpi_byte", error);
  m.f32 = global(lib, "ompi_mpi_float", error);
  m.f64 = global(lib, "ompi_mpi_double", error);
  m.i32 = global(lib, "ompi_mpi_int32_t", error);
  m.i64 = global(lib, "ompi_mpi_int64_t", error);
  m.sum = global(lib, "ompi_mpi_op_sum", error);
  m.max = global(lib, "ompi_mpi_op_max", error);
  m.min = global(lib, "ompi_mpi_op_min", error);
  return error.empty();
}

void initialise(World &w) {
  if (!loadMpi(w.mpi, w.error))
    return;
  int provided = 0;
  if (w.mpi.initThread(nullptr, nullptr, kThreadSerialized, &provided) != 0) {
    w.error = "MPI_Init_thread failed";
    return;
  }
  if (provided < kThreadSerialized) {
    w.error = "the MPI library does not allow calls from several threads "
              "(MPI_THREAD_SERIALIZED)";
    return;
  }
  w.initialised = true;
  const char *checkEnv = std::getenv("DLM_DIST_CHECK");
  w.checkCalls = !(checkEnv && std::string(checkEnv) == "0");
  w.mpi.commRank(w.mpi.world, &w.rank);
  w.mpi.commSize(w.mpi.world, &w.size);
}

/// Set once world() has run: dlm_dist_finish must not initialise MPI only to finalise it.
std::atomic<bool> started{false};

World &world() {
  static World w;
  static std::once_flag once;
  std::call_once(once, [] {
    w.launched = underLauncher();
    if (w.launched)
      initialise(w);
    started = true;
  });
  return w;
}

/// The world once MPI is up; throws what went wrong otherwise.
World &mpiWorld() {
  World &w = world();
  check(w.error.empty(), w.error);
  return w;
}

void checkMpi(int rc, const char *what) {
  check(rc == 0, std::string(what) + " failed (MPI error " + std::to_string(rc) + ")");
}

Handle mpiType(const Mpi &m, DType t, const char *op) {
  switch (t) {
  case DType::F32:
    return m.f32;
  case DType::F64:
    return m.f64;
  case DType::I32:
    return m.i32;
  case DType::I64:
    return m.i64;
  case DType::Bool:
    break;
  }
  throw Error(std::string(op) + " of a bool tensor");
}

Handle mpiOp(const Mpi &m, ReduceKind k) {
  switch (k) {
  case ReduceKind::Max:
    return m.max;
  case ReduceKind::Min:
    return m.min;
  case ReduceKind::Sum:
  case ReduceKind::Mean:
    break;
  }
  return m.sum;
}

template <typename T> void scale(Tensor &t, double by) {
  T *p = t.data<T>();
  for (int64_t i = 0, n = t.numel(); i < n; ++i)
    p[i] = T(p[i] * by);
}

/// What a rank calls, the same on every rank of a correct program: the collective's number in
/// program order, its name, and its operand's dtype and shape (allgather's dim 0, which may
/// differ, left out). Dims beyond kHeaderDims are only counted (numel).
constexpr int kHeaderDims = 6;
struct Header {
  int64_t call, op, dtype, rank, numel;
  int64_t dims[kHeaderDims];
};
constexpr const char *kCollectiveNames[] = {"allreduce", "broadcast", "allgather", "barrier"};

std::string describe(const Header &h) {
  std::string s = kCollectiveNames[h.op];
  if (h.dtype < 0)
    return s;
  s += " of " + std::string(dtypeName(DType(h.dtype))) + "[";
  for (int64_t d = 0; d < h.rank; ++d) {
    s += d ? ", " : "";
    s += d >= kHeaderDims ? "..." : h.dims[d] < 0 ? "N" : std::to_string(h.dims[d]);
  }
  return s + "]";
}

/// The header check: every rank's header of this call, compared with rank 0's (one
/// MPI_Allgather of 96 bytes per rank). Throws, on every rank, naming the first rank that
/// disagrees with rank 0 and what each calls.
void agree(World &w, Collective op, const Tensor *x) {
  Header mine{};
  mine.call = ++w.calls;
  mine.op = int64_t(op);
  mine.dtype = x ? int64_t(x->dtype()) : -1;
  if (x) {
    mine.rank = x->rank();
    Shape inner(x->shape().begin() + (op == Collective::AllGather ? 1 : 0), x->shape().end());
    mine.numel = numelOf(inner);
    for (int64_t d = 0; d < mine.rank && d < kHeaderDims; ++d)
      mine.dims[d] = op == Collective::AllGather && d == 0 ? -1 : x->shape()[d];
  }
  if (!w.checkCalls)
    return;
  std::vector<Header> all(size_t(w.size));
  checkMpi(w.mpi.allgather(&mine, int(sizeof mine), w.mpi.byte, all.data(), int(sizeof mine),
                           w.mpi.byte, w.mpi.world),
           "the collective header check");
  for (int r = 1; r < w.size; ++r)
    if (std::memcmp(&all[size_t(r)], &all[0], sizeof mine) != 0)
      throw Error("the ranks disagree on collective #" + std::to_string(mine.call) +
                  ": rank 0 calls " + describe(all[0]) + ", rank " + std::to_string(r) + " calls " +
                  describe(all[size_t(r)]) +
                  " (every rank must call the same collectives in the same order, with the "
                  "same dtypes and shapes)");
}

} // namespace

std::optional<ReduceKind> reduceKindNamed(std::string_view name) {
  if (name == "sum")
    return ReduceKind::Sum;
  if (name == "mean")
    return ReduceKind::Mean;
  if (name == "max")
    return ReduceKind::Max;
  if (name == "min")
    return ReduceKind::Min;
  return std::nullopt;
}

int rank() { return mpiWorld().rank; }
int worldSize() { return mpiWorld().size; }
bool launched() { return world().launched; }

Tensor allreduce(const Tensor &x, ReduceKind kind) {
  World &w = mpiWorld();
  if (w.size == 1)
    return x;
  agree(w, Collective::AllReduce, &x);
  // Not in place: MPI reads x and writes the new tensor, which saves a copy.
  Tensor in = x.contiguous();
  Tensor out = Tensor::empty(x.dtype(), x.shape());
  Handle type = mpiType(w.mpi, x.dtype(), "allreduce");
  auto *from = static_cast<const char *>(in.rawData());
  auto *to = static_cast<char *>(out.rawData());
  size_t elem = dtypeSize(x.dtype());
  for (int64_t at = 0, n = out.numel(); at < n; at += kMaxCount) {
    int count = int(std::min(kMaxCount, n - at));
    checkMpi(w.mpi.allreduce(from + at * elem, to + at * elem, count, type, mpiOp(w.mpi, kind),
                             w.mpi.world),
             "allreduce");
  }
  if (kind == ReduceKind::Mean && x.dtype() == DType::F32)
    scale<float>(out, 1.0 / w.size);
  else if (kind == ReduceKind::Mean)
    scale<double>(out, 1.0 / w.size);
  return out;
}

Tensor broadcast(const Tensor &x, int root) {
  World &w = mpiWorld();
  check(root >= 0 && root < w.size,
        "broadcast from rank " + std::to_string(root) + " of " + std::to_string(w.size) + " ranks");
  if (w.size == 1)
    return x;
  agree(w, Collective::Broadcast, &x);
  Tensor out = x.clone();
  auto *p = static_cast<char *>(out.rawData());
  int64_t bytes = out.numel() * int64_t(dtypeSize(x.dtype()));
  for (int64_t at = 0; at < bytes; at += kMaxCount)
    checkMpi(
        w.mpi.bcast(p + at, int(std::min(kMaxCount, bytes - at)), w.mpi.byte, root, w.mpi.world),
        "broadcast");
  return out;
}

Tensor allgather(const Tensor &x) {
  World &w = mpiWorld();
  check(x.rank() >= 1, "allgather of a 0-d tensor");
  if (w.size == 1)
    return x;
  agree(w, Collective::AllGather, &x);
  Tensor in = x.contiguous();
  int64_t rows = x.shape()[0];
  std::vector<int64_t> allRows(size_t(w.size));
  checkMpi(w.mpi.allgather(&rows, 1, w.mpi.i64, allRows.data(), 1, w.mpi.i64, w.mpi.world),
           "allgather");
  Shape inner(x.shape().begin() + 1, x.shape().end());
  int64_t rowBytes = numelOf(inner) * int64_t(dtypeSize(x.dtype()));
  std::vector<int> counts, displs;
  int64_t total = 0;
  for (int64_t r : allRows) {
    check(total + r * rowBytes <= INT_MAX, "allgather of more than 2 GiB");
    counts.push_back(int(r * rowBytes));
    displs.push_back(int(total));
    total += r * rowBytes;
  }
  Shape shape = x.shape();
  shape[0] = 0;
  for (int64_t r : allRows)
    shape[0] += r;
  Tensor out = Tensor::empty(x.dtype(), shape);
  checkMpi(w.mpi.allgatherv(in.rawData(), int(rows * rowBytes), w.mpi.byte, out.rawData(),
                            counts.data(), displs.data(), w.mpi.byte, w.mpi.world),
           "allgather");
  return out;
}

void barrier() {
  World &w = mpiWorld();
  if (w.size == 1)
    return;
  agree(w, Collective::Barrier, nullptr);
  checkMpi(w.mpi.barrier(w.mpi.world), "barrier");
}

} // namespace dlm::rt::dist

int32_t dlm_dist_finish(int32_t status) {
  using namespace dlm::rt::dist;
  if (!underLauncher())
    return status;
  World *w = started.load() ? &world() : nullptr;
  std::fflush(nullptr);
  if (status != 0) {
    const char *rankEnv = std::getenv("OMPI_COMM_WORLD_RANK");
    if (!rankEnv)
      rankEnv = std::getenv("PMIX_RANK");
    std::fprintf(stderr, "dlm: rank %s failed (exit status %d); stopping every rank\n",
                 rankEnv ? rankEnv : "?", int(status));
    std::fflush(stderr);
  }
  if (!w || !w->initialised)
    return status; // the launcher stops the other ranks when this one exits non-zero
  if (status != 0)
    w->mpi.abort(w->mpi.world, status);
  w->mpi.finalize();
  return status;
}
