//===- compiler/codegen/Aot.cpp - Object files and executables ------------===//
//
// `dlmc FILE.dlm -o EXE`: the module (with a C `main`) emitted as an object file for the AOT
// target — generic x86-64 by default, this CPU with --aot-cpu=native — and linked with the static
// runtime (its portable build for a generic target), OpenBLAS, zlib and pthread by the system's
// c++ driver (docs/codegen.md "AOT").
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Codegen.h"

#include "compiler/codegen/CodegenError.h"
#include "compiler/codegen/Pipeline.h"
#include "compiler/codegen/Targets.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstdlib>
#include <optional>
#include <vector>

#ifndef DLM_AOT_LINK_LIBS
#define DLM_AOT_LINK_LIBS ""
#endif

namespace dlm::codegen {

namespace {

/// The AOT target: the default triple, generic x86-64 (or this CPU for aotCpu == "native").
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> aotMachine(const CodegenOptions &options) {
  initializeLLVM();
  std::string triple = llvm::sys::getDefaultTargetTriple(), error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return internalError("no target machine for AOT: " + error);
  std::string cpu = "x86-64", features;
  if (options.aotCpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures f;
    for (const auto &[name, on] : llvm::sys::getHostCPUFeatures())
      f.AddFeature(name, on);
    features = f.getString();
  } else if (!llvm::Triple(triple).isX86()) {
    cpu = "generic";
  }
  llvm::CodeGenOptLevel level =
      options.optLevel == 0 ? llvm::CodeGenOptLevel::None : llvm::CodeGenOptLevel::Default;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm)
    return internalError("no target machine for AOT: " + triple + " " + cpu);
  return tm;
}

/// The suffix of a function's FMA copy in a generic x86-64 module (addFmaCopies).
constexpr llvm::StringLiteral kFmaSuffix = ".fma";

/// Adds `feature` to the target features `f` is compiled with.
void addTargetFeature(llvm::Function &f, llvm::StringRef feature) {
  llvm::Attribute old = f.getFnAttribute("target-features");
  std::string features = old.isValid() ? old.getValueAsString().str() + "," : "";
  f.addFnAttr("target-features", features + feature.str());
}

/// For a generic x86-64 target: gives every function of `module` but `main` a copy compiled with
/// FMA (named with kFmaSuffix; its calls to the module's functions go to their copies), and makes
/// `main` run @dlm_main's copy when `dlm_use_fma()` says so at start-up (runtime/CpuDispatch.h).
/// llvm.fmuladd — the spots of f32 exp, tanh, sigmoid and tanh_grad where the runtime's kernels
/// contract (ElementCode.cpp) — is then one FMA in the copy, as in the JIT's code on a CPU with
/// FMA, and a product and a sum in the baseline functions, which run on CPUs without FMA (as the
/// JIT's code does there) or under DLM_AOT_PORTABLE. The module's globals are shared: only one
/// copy runs.
void addFmaCopies(llvm::Module &module) {
  llvm::Function *main = module.getFunction("main");
  llvm::Function *program = module.getFunction("dlm_main");
  if (!main || !program)
    return;
  std::vector<llvm::Function *> originals;
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && &f != main)
      originals.push_back(&f);
  llvm::ValueToValueMapTy map;
  for (llvm::Function *f : originals) {
    auto *copy = llvm::Function::Create(f->getFunctionType(), llvm::GlobalValue::InternalLinkage,
                                        f->getAddressSpace(), f->getName() + kFmaSuffix, &module);
    map[f] = copy;
  }
  for (llvm::Function *f : originals) {
    auto *copy = llvm::cast<llvm::Function>(map[f]);
    auto arg = copy->arg_begin();
    for (const llvm::Argument &a : f->args()) {
      arg->setName(a.getName());
      map[&a] = &*arg++;
    }
    llvm::SmallVector<llvm::ReturnInst *, 4> returns;
    // (CloneFunctionInto gives the copy the original's attributes: the feature comes after.)
    llvm::CloneFunctionInto(copy, f, map, llvm::CloneFunctionChangeType::LocalChangesOnly, returns);
    addTargetFeature(*copy, "+fma");
  }
  llvm::CallInst *run = nullptr;
  for (llvm::Instruction &i : llvm::instructions(*main))
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(&i);
        call && call->getCalledFunction() == program)
      run = call;
  if (!run)
    return;
  llvm::IRBuilder<> b(run);
  llvm::FunctionCallee useFma =
      module.getOrInsertFunction("dlm_use_fma", llvm::FunctionType::get(b.getInt32Ty(), false));
  llvm::Value *fma = b.CreateICmpNE(b.CreateCall(useFma), b.getInt32(0), "fma");
  llvm::Value *callee = b.CreateSelect(fma, map[program], program, "program");
  llvm::CallInst *dispatched = b.CreateCall(program->getFunctionType(), callee, {}, "status");
  run->replaceAllUsesWith(dispatched);
  run->eraseFromParent();
}

/// Writes `graph`'s module, with its C `main`, as an object file at `objectPath`.
llvm::Error writeObject(const graph::Graph &graph, const CodegenOptions &options,
                        llvm::StringRef objectPath,
                        std::function<std::string(const graph::Location &)> sourceLine) {
  auto tm = aotMachine(options);
  if (!tm)
    return tm.takeError();
  llvm::LLVMContext ctx;
  auto module = buildModule(graph, ctx, **tm, true, std::move(sourceLine));
  if (!module)
    return module.takeError();
  if (options.aotCpu != "native" && (*tm)->getTargetTriple().isX86())
    addFmaCopies(**module);
  optimize(**module, **tm, options.optLevel);
  std::error_code ec;
  llvm::raw_fd_ostream out(objectPath, ec, llvm::sys::fs::OF_None);
  if (ec)
    return environmentError("cannot write '" + objectPath + "': " + ec.message());
  llvm::legacy::PassManager pm;
  if ((*tm)->addPassesToEmitFile(pm, out, nullptr, llvm::CodeGenFileType::ObjectFile))
    return internalError("the target cannot emit object files");
  pm.run(**module);
  out.close();
  if (out.has_error()) {
    std::error_code written = out.error();
    out.clear_error();
    return environmentError("cannot write '" + objectPath + "': " + written.message());
  }
  return llvm::Error::success();
}

/// The static runtime an executable for `options.aotCpu` links: the portable build of the
/// kernels for a generic target when this build has one (compiler/codegen/CMakeLists.txt).
const char *runtimeLibraryName(const CodegenOptions &options) {
#ifdef DLM_AOT_PORTABLE_RUNTIME
  if (options.aotCpu != "native")
    return DLM_AOT_PORTABLE_RUNTIME;
#endif
  return "libdlm_runtime.a";
}

/// The runtime library's path: $DLM_RUNTIME_LIB, else runtimeLibraryName in `../lib` next to the
/// directory of the running dlmc (`toolPath`, its argv[0]).
llvm::Expected<std::string> runtimeLibrary(const CodegenOptions &options,
                                           llvm::StringRef toolPath) {
  std::string runtimeLib;
  if (const char *env = std::getenv("DLM_RUNTIME_LIB"); env && *env) {
    runtimeLib = env;
  } else {
    static int anchor;
    std::string self = llvm::sys::fs::getMainExecutable(toolPath.str().c_str(), &anchor);
    llvm::SmallString<256> path(llvm::sys::path::parent_path(llvm::sys::path::parent_path(self)));
    llvm::sys::path::append(path, "lib", runtimeLibraryName(options));
    runtimeLib = path.str().str();
  }
  if (!llvm::sys::fs::exists(runtimeLib))
    return environmentError(
        "cannot find the runtime library '" + runtimeLib +
        "' (dlmc looks in ../lib next to its own directory; set DLM_RUNTIME_LIB to override)");
  return runtimeLib;
}

/// Links `object` with `runtimeLib` and the runtime's own dependencies into `exePath`.
llvm::Error linkExecutable(llvm::StringRef linker, llvm::StringRef object,
                           llvm::StringRef runtimeLib, llvm::StringRef exePath) {
  std::vector<std::string> args = {linker.str(), object.str(), "-o", exePath.str(),
                                   runtimeLib.str()};
  llvm::SmallVector<llvm::StringRef, 8> libs;
  llvm::StringRef(DLM_AOT_LINK_LIBS).split(libs, '|', -1, false);
  for (llvm::StringRef lib : libs)
    args.push_back(lib.str());
  std::vector<llvm::StringRef> argv(args.begin(), args.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(linker, argv, std::nullopt, {}, 0, 0, &message);
  if (rc == 0)
    return llvm::Error::success();
  std::string line;
  for (const std::string &a : args)
    line += (line.empty() ? "" : " ") + a;
  return environmentError("linking failed (" +
                          (message.empty() ? "exit status " + std::to_string(rc) : message) +
                          "): " + line);
}

/// The executable: a temporary object file (writeObject) linked (linkExecutable).
llvm::Error writeExecutable(const graph::Graph &graph, const CodegenOptions &options,
                            llvm::StringRef exePath, llvm::StringRef toolPath,
                            std::function<std::string(const graph::Location &)> sourceLine) {
  auto runtimeLib = runtimeLibrary(options, toolPath);
  if (!runtimeLib)
    return runtimeLib.takeError();
  auto linker = llvm::sys::findProgramByName("c++");
  if (!linker)
    return environmentError("cannot find the system linker driver 'c++' on PATH");
  llvm::SmallString<128> object;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("dlm", "o", object))
    return environmentError("cannot create a temporary object file: " + ec.message());
  llvm::Error error = writeObject(graph, options, object, std::move(sourceLine));
  if (!error)
    error = linkExecutable(*linker, object, *runtimeLib, exePath);
  llvm::sys::fs::remove(object);
  return error;
}

} // namespace

int emitObject(const graph::Graph &graph, DiagnosticEngine &diags, const CodegenOptions &options,
               llvm::StringRef objectPath) {
  return reportFailure(writeObject(graph, options, objectPath, sourceLines(diags)), diags);
}

int buildExecutable(const graph::Graph &graph, DiagnosticEngine &diags,
                    const CodegenOptions &options, llvm::StringRef exePath,
                    llvm::StringRef toolPath) {
  return reportFailure(writeExecutable(graph, options, exePath, toolPath, sourceLines(diags)),
                       diags);
}

} // namespace dlm::codegen
