//===- compiler/codegen/SplitCompile.h - A large program on two threads ---===//
//
// Internal to compiler/codegen. The JIT compiles a large program (Pipeline.h, largeProgram) the
// cheap way — identical functions merged, the loop vectoriser alone, machine-code level 0 — and,
// when there is enough work to share, on two threads: the functions other than @dlm_main are
// split off into a module of their own and compiled on a second thread while this one compiles
// @dlm_main, into two objects (docs/codegen.md "Compiling on two threads").
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_CODEGEN_SPLITCOMPILE_H
#define DLM_COMPILER_CODEGEN_SPLITCOMPILE_H

#include "compiler/codegen/StageTimer.h"
#include "compiler/codegen/Targets.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace dlm::codegen {

/// How many threads the JIT may compile a large program on: $DLM_JIT_THREADS when set (1 forces
/// one; any larger number means two, the most a compile uses), else 2 when the process may run on
/// two or more CPUs (its affinity mask) and one of them is free — the load average over the last
/// minute is under the CPU count less one half, as `make -l` judges it — else 1. Decided once per
/// process. `warning` says why a malformed value was ignored ("" when none was).
unsigned jitThreads(std::string &warning);

struct LargeCompileOptions {
  unsigned optLevel = 2;    ///< the requested -O level: the loops are vectorised from -O2
  unsigned threads = 1;     ///< jitThreads()
  bool verbose = false;     ///< --time-passes: say what each thread spent
  bool crashWorker = false; ///< `--debug-crash=jit-worker`: the second thread aborts on purpose
};

/// Compiles a large program's `module` on up to `options.threads` threads into its objects, one
/// per thread. Identical functions are merged on the whole module first, so that calls to them
/// are rewritten once; then, when there is enough to share, about half of the work — outlined
/// loops, @dlm_init, ... — is split off and vectorised and compiled on a second thread with
/// `workerMachines` while this one does @dlm_main and the rest with `machines`. Fails with either
/// thread's error; no thread outlives the call. A crash on the second thread is an internal
/// error, and `workerMachines` are made anew from `machines`' builder.
llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
compileLarge(llvm::Module &module, HostMachines &machines,
             std::unique_ptr<HostMachines> &workerMachines, const LargeCompileOptions &options,
             StageTimer &timer);

} // namespace dlm::codegen

#endif // DLM_COMPILER_CODEGEN_SPLITCOMPILE_H
