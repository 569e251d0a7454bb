//===- compiler/codegen/Targets.cpp - Target machines for the JIT and AOT -===//
//
// The host target: what the JIT compiles for and what --emit=llvm prints the module for.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Targets.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <algorithm>
#include <mutex>

namespace dlm::codegen {

void initializeLLVM() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

llvm::CodeGenOptLevel codegenLevel(unsigned level) {
  return level == 0   ? llvm::CodeGenOptLevel::None
         : level == 1 ? llvm::CodeGenOptLevel::Less
         : level == 2 ? llvm::CodeGenOptLevel::Default
                      : llvm::CodeGenOptLevel::Aggressive;
}

llvm::orc::JITTargetMachineBuilder hostMachine(unsigned optLevel) {
  llvm::orc::JITTargetMachineBuilder jtmb((llvm::Triple(llvm::sys::getProcessTriple())));
  jtmb.setCPU(llvm::sys::getHostCPUName().str());
  llvm::SubtargetFeatures features;
  for (const auto &[name, on] : llvm::sys::getHostCPUFeatures())
    features.AddFeature(name, on);
  jtmb.addFeatures(features.getFeatures());
  jtmb.setCodeGenOptLevel(codegenLevel(optLevel));
  jtmb.setRelocationModel(llvm::Reloc::PIC_);
  return jtmb;
}

llvm::Expected<llvm::TargetMachine &> HostMachines::get(unsigned level) {
  level = std::min(level, 3u);
  if (!machines[level]) {
    llvm::orc::JITTargetMachineBuilder builder = jtmb;
    builder.setCodeGenOptLevel(codegenLevel(level));
    auto tm = builder.createTargetMachine();
    if (!tm)
      return tm.takeError();
    machines[level] = std::move(*tm);
  }
  return *machines[level];
}

} // namespace dlm::codegen
