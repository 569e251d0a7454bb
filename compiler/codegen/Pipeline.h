//===- compiler/codegen/Pipeline.h - Graph to optimised module ------------===//
//
// Internal to compiler/codegen. The stages from a lowered graph to machine code, shared by the
// JIT, AOT and --emit=llvm: structuring and emitting the module (Structure.h, Emitter.h), the
// -O levels mapped to the new pass manager's default pipelines, the JIT's cheaper way for large
// programs (identical functions merged, the loop vectoriser alone, machine-code level 0:
// docs/codegen.md "Large programs") and the object code of a module in memory.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_CODEGEN_PIPELINE_H
#define DLM_COMPILER_CODEGEN_PIPELINE_H

#include "compiler/ir/Graph.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"

#include <functional>
#include <memory>
#include <string>

namespace dlm::codegen {

/// Whether LLVM's verifier checks every module the emitter builds: when DLM_VERIFY_IR is set to
/// anything but "" or "0" (the test suite sets it: tests/lit.cfg.py). Otherwise only AOT
/// modules are verified (docs/codegen.md "Error exits" says what it costs the JIT).
bool verifyEveryModule();

/// Structures `graph` and emits it into a module of `ctx` for `tm` (with the C `main` of an AOT
/// executable when `withMain`, or an entry graph's functions when `entry`: Emitter.h);
/// `sourceLine` gives the source lines of run-time errors' carets.
/// A graph codegen cannot structure is an internal error at the offending node.
llvm::Expected<std::unique_ptr<llvm::Module>>
buildModule(const graph::Graph &graph, llvm::LLVMContext &ctx, llvm::TargetMachine &tm,
            bool withMain, std::function<std::string(const graph::Location &)> sourceLine,
            bool entry = false);

/// The new pass manager's analysis managers, registered for `tm` and cross-linked.
struct Analyses {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;

  Analyses(llvm::TargetMachine &tm, llvm::PipelineTuningOptions tuning);
};

/// Runs LLVM's default new-pass-manager pipeline for -O<level>, with loop and SLP vectorisation
/// from -O2.
void optimize(llvm::Module &module, llvm::TargetMachine &tm, unsigned level);

/// Whether the JIT compiles `module` (emitted from `graph`) the large-program way: no IR pass on
/// @dlm_main, mergeIdenticalFunctions and vectorizeLoops, then machine-code level 0.
bool largeProgram(const llvm::Module &module, const graph::Graph &graph);

/// The large-program way's first step at -O2 and above: identical functions (outlined loops
/// that compute the same) become one, which halves what the vectoriser and instruction selection
/// see in a training script.
void mergeIdenticalFunctions(llvm::Module &module);

/// The loop vectoriser, with the width pinned to one vector register of each loop's widest
/// element and no interleaving, on every function of `module` but @dlm_main (the outlined
/// elementwise loops, where a large program's arithmetic is). `analyses` are made for `tm`.
void vectorizeLoops(llvm::Module &module, llvm::TargetMachine &tm, Analyses &analyses);
void vectorizeLoops(llvm::Module &module, llvm::TargetMachine &tm);

/// Machine code for `module` at `tm`'s level, as an object file in memory.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> objectCode(llvm::Module &module,
                                                               llvm::TargetMachine &tm);

} // namespace dlm::codegen

#endif // DLM_COMPILER_CODEGEN_PIPELINE_H
