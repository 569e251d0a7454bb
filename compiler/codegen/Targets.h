//===- compiler/codegen/Targets.h - Target machines for the JIT and AOT ---===//
//
// Internal to compiler/codegen. LLVM's native target, the host's target machine builder (this
// CPU and its features, AVX-512 where present) and the per-level target machines a compile thread
// keeps (HostMachines). The AOT target (generic x86-64 or this CPU) is Aot.cpp's.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_CODEGEN_TARGETS_H
#define DLM_COMPILER_CODEGEN_TARGETS_H

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>

namespace dlm::codegen {

/// Registers LLVM's native target, its assembly printer and parser (once per process).
void initializeLLVM();

/// The machine-code generator's level for -O<level>.
llvm::CodeGenOptLevel codegenLevel(unsigned level);

/// The host's target machine builder: this CPU and its features, at -O<optLevel>'s
/// machine-code level, position-independent code.
llvm::orc::JITTargetMachineBuilder hostMachine(unsigned optLevel);

/// One compile thread's target machines for the host, one per machine-code level, created on
/// first use and kept for the session's later programs. A TargetMachine may not be used by two
/// threads at once, so each thread of a split compile has its own set.
class HostMachines {
public:
  explicit HostMachines(llvm::orc::JITTargetMachineBuilder jtmb) : jtmb(std::move(jtmb)) {}

  /// What the machines are made from.
  const llvm::orc::JITTargetMachineBuilder &builder() const { return jtmb; }

  /// The machine for -O<level> (levels above 3 are 3).
  llvm::Expected<llvm::TargetMachine &> get(unsigned level);

private:
  llvm::orc::JITTargetMachineBuilder jtmb;
  std::unique_ptr<llvm::TargetMachine> machines[4];
};

} // namespace dlm::codegen

#endif // DLM_COMPILER_CODEGEN_TARGETS_H
