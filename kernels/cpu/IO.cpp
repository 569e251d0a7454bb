//===- kernels/cpu/IO.cpp - Side-effecting ops: print, save, load, assert, data ---===//
//
// The runtime halves of print/save/load/assert and the dataset readers behind the stdlib's
// `data` module (runtime/Print.h, Checkpoint.h, Data.h). They run on the CPU; the graph
// orders them with control edges.
//
//===----------------------------------------------------------------------===//
#include "kernels/cpu/CpuKernels.h"
#include "runtime/Checkpoint.h"
#include "runtime/Data.h"
#include "runtime/MemoryStats.h"
#include "runtime/Print.h"

#include <chrono>
#include <cstdio>
#include <unistd.h>

namespace dlm::rt::cpu {
namespace {

/// print(values...){scalars}: one line, values separated by spaces. `scalars` (optional int
/// list, one per operand) marks language scalars; see formatPrintLine.
void printKernel(Inputs ins, const Attrs &attrs, Outputs &) {
  writeOutput(formatPrintLine(ins, attrs.getInts("scalars", {})) + "\n");
}

/// "mm:ss" (or "h:mm:ss") for a number of seconds.
std::string clockText(double seconds) {
  auto total = int64_t(seconds < 0 ? 0 : seconds + 0.5);
  char buf[32];
  if (total >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", (long long)(total / 3600),
                  (long long)(total / 60 % 60), (long long)(total % 60));
  else
    std::snprintf(buf, sizeof buf, "%02lld:%02lld", (long long)(total / 60),
                  (long long)(total % 60));
  return buf;
}

/// progress(done, total): a tqdm-style line on stderr, "done/total [elapsed<remaining,
/// rate it/s]". On a terminal it is redrawn in place (at most ten times a second) and ends with
/// a newline when done == total; otherwise only the finished line is written, once per run up
/// to total. The clock restarts whenever `done` does not grow (a new epoch).
void progressKernel(Inputs ins, const Attrs &, Outputs &) {
  expectArity(ins, 2, "progress");
  int64_t done = tensorArg(ins, 0, "progress").itemI64();
  int64_t total = tensorArg(ins, 1, "progress").itemI64();
  using Clock = std::chrono::steady_clock;
  static Clock::time_point start, lastDraw;
  static int64_t startDone = 0, lastDone = -1;
  Clock::time_point now = Clock::now();
  if (done <= lastDone || lastDone < 0) {
    start = now;
    startDone = done > 0 ? done - 1 : 0;
    lastDraw = Clock::time_point{};
  }
  lastDone = done >= total ? -1 : done;
  bool finished = done >= total;
  static const bool tty = isatty(STDERR_FILENO) != 0;
  if (!finished && (!tty || now - lastDraw < std::chrono::milliseconds(100)))
    return;
  lastDraw = now;
  double elapsed = std::chrono::duration<double>(now - start).count();
  double rate = elapsed > 0 ? double(done - startDone) / elapsed : 0.0;
  double remaining = rate > 0 ? double(total - done) / rate : 0.0;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s%lld/%lld [%s<%s, %.2fit/s]%s", tty ? "\r" : "",
                (long long)done, (long long)total, clockText(elapsed).c_str(),
                clockText(remaining).c_str(), rate, finished ? "\n" : "");
  std::fputs(buf, stderr);
  std::fflush(stderr);
}

/// The tensor names of save{names = N} and load{names = N}: inputs 1 .. N.
std::vector<std::string> tensorNames(Inputs ins, const Attrs &attrs) {
  std::vector<std::string> names;
  int64_t n = attrs.getInt("names", 0);
  for (int64_t i = 1; i <= n && size_t(i) < ins.size(); ++i)
    names.push_back(ins[size_t(i)].str());
  return names;
}

/// save(path, tensors...), or save{names = N}(path, N names, N tensors).
void saveKernel(Inputs ins, const Attrs &attrs, Outputs &) {
  expectArity(ins, 1, "save", true);
  std::vector<std::string> names = tensorNames(ins, attrs);
  std::vector<Tensor> tensors;
  for (size_t i = 1 + names.size(); i < ins.size(); ++i)
    tensors.push_back(tensorArg(ins, i, "save"));
  saveCheckpoint(ins[0].str(), tensors, names);
}

/// load(path){dtypes, shapes}: the saved tensors, checked against the expected dtypes and
/// shapes when given (a negative dimension matches any size).
void loadKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "load", true);
  std::vector<std::string> names = tensorNames(ins, attrs);
  std::optional<CheckpointSpec> spec;
  if (attrs.has("dtypes")) {
    spec = CheckpointSpec{attrs.getDTypes("dtypes"), {}};
    if (attrs.has("shapes"))
      spec->shapes = attrs.getShapes("shapes");
  }
  for (Tensor &t : loadCheckpoint(ins[0].str(), spec, names))
    outs.emplace_back(std::move(t));
}

/// assert(cond){message}: fails with "assertion failed: message"; the caller adds the location.
void assertKernel(Inputs ins, const Attrs &attrs, Outputs &) {
  expectArity(ins, 1, "assert");
  const Tensor &c = tensorArg(ins, 0, "assert");
  check(c.numel() == 1, "assert condition must be a single bool, got " + c.typeString());
  if (c.itemBool())
    return;
  std::string msg = attrs.has("message") ? attrs.getString("message") : "";
  throw Error(msg.empty() ? "assertion failed" : "assertion failed: " + msg);
}

/// fashion_mnist(split) or fashion_mnist{split} -> (images f32 [N, 784], labels i64 [N]).
void fashionMnistKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  std::string split = attrs.has("split") ? attrs.getString("split")
                                         : (expectArity(ins, 1, "fashion_mnist"), ins[0].str());
  auto [x, y] = fashionMnist(split);
  outs.emplace_back(x);
  outs.emplace_back(y);
}

/// load_idx(path){rank} -> i32 with `rank` dims: the file must hold what the program was
/// type-checked for (an integer IDX file of that rank), not just any IDX file.
void loadIdxKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "load_idx");
  std::string path = ins[0].str();
  Tensor t = readIdx(path);
  int64_t rank = attrs.getInt("rank", t.rank());
  check(t.rank() == rank, "IDX file '" + path + "' has " + std::to_string(t.rank()) +
                              " dimensions " + shapeString(t.shape()) +
                              " but is read with rank=" + std::to_string(rank));
  check(t.dtype() == DType::I32, "IDX file '" + path + "' holds " +
                                     std::string(dtypeName(t.dtype())) +
                                     " elements; load_idx reads integer IDX files (as i32)");
  outs.emplace_back(t);
}

void loadCsvKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "load_csv");
  outs.emplace_back(readCsv(ins[0].str(), attrs.getDType("dtype", DType::F32)));
}

/// memory_stats(after...) -> (live bytes, peak bytes): runtime/Tensor.h's counters, read once
/// the operands exist (they only order the read), then a new peak window starts.
void memoryStatsKernel(Inputs, const Attrs &, Outputs &outs) {
  MemoryStats m = memoryStats();
  resetPeakMemory();
  outs.emplace_back(Tensor::scalarI64(m.liveBytes));
  outs.emplace_back(Tensor::scalarI64(m.peakBytes));
}

} // namespace

void registerIOKernels() {
  registerKernel(OpKind::Print, Device::CPU, printKernel);
  registerKernel(OpKind::Save, Device::CPU, saveKernel);
  registerKernel(OpKind::Load, Device::CPU, loadKernel);
  registerKernel(OpKind::Assert, Device::CPU, assertKernel);
  registerKernel(OpKind::Progress, Device::CPU, progressKernel);
  registerKernel(OpKind::FashionMnist, Device::CPU, fashionMnistKernel);
  registerKernel(OpKind::LoadIdx, Device::CPU, loadIdxKernel);
  registerKernel(OpKind::LoadCsv, Device::CPU, loadCsvKernel);
  registerKernel(OpKind::MemoryStats, Device::CPU, memoryStatsKernel);
}

} // namespace dlm::rt::cpu
