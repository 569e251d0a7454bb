//===- compiler/codegen/Emitter.h - Structured graph -> LLVM IR -----------===//
//
// Internal to compiler/codegen. Emits one module for a structured graph:
//   i32 @dlm_init()   kernel ids, attribute objects and constant tensors (run once)
//   i32 @dlm_main()   the program: calls @dlm_init, then the code; 0 ok, 1 run-time error
//   i32 @main()       (AOT only) runs @dlm_main and prints the error it reports
// or, for an entry graph (EmitOptions::entry, docs/embedding.md), a function a host calls many
// times, from several threads at once:
//   i32 @dlm_init()   run once before the first call
//   i32 @dlm_main(ptr args, ptr results)   reads `arg` i from args[i] (borrowed dlm_tensor*),
//                     writes a new reference for `retval` i to results[i]; 0 ok, 1 error
//   void @dlm_fini()  run once after the last call
// Calling convention with the runtime and error exits: docs/codegen.md.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_CODEGEN_EMITTER_H
#define DLM_COMPILER_CODEGEN_EMITTER_H

#include "compiler/codegen/Structure.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>

namespace dlm::codegen {

struct EmitOptions {
  bool withMain = false; ///< also define the C `main` of an AOT executable
  /// An entry graph (`arg`/`retval` nodes): @dlm_main takes the argument and result arrays and
  /// neither runs @dlm_init nor @dlm_fini, which are external for the host to run once.
  bool entry = false;
  bool verify = true; ///< run LLVM's module verifier on the result (an invalid module is an error)
  /// The text of a source line (for the caret of run-time errors), "" when unknown.
  std::function<std::string(const graph::Location &)> sourceLine;
};

/// Emits `g` (structured as `s`) into a new module of `ctx`. Fails with an internal error for an
/// op or a type codegen does not handle, or a module LLVM's verifier rejects.
llvm::Expected<std::unique_ptr<llvm::Module>> emitModule(const graph::Graph &g, const Structure &s,
                                                         llvm::LLVMContext &ctx,
                                                         const EmitOptions &options);

} // namespace dlm::codegen

#endif // DLM_COMPILER_CODEGEN_EMITTER_H
