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

/// Gives every function `module` defines but `skip` a copy compiled with FMA, named with
/// kFmaSuffix and internal; the copies' calls to the module's functions go to their copies.
/// `map` maps each original to its copy. llvm.fmuladd — the spots of f32 exp, tanh, sigmoid and
/// tanh_grad where the runtime's kernels contract (ElementCode.cpp) — is then one FMA in the
/// copy, as in the JIT's code on a CPU with FMA, and a product and a sum in the baseline
/// functions, which run on CPUs without FMA (as the JIT's code does there) or under
/// DLM_AOT_PORTABLE. The module's globals are shared: only one copy runs.
void cloneWithFma(llvm::Module &module, const llvm::Function *skip, llvm::ValueToValueMapTy &map) {
  std::vector<llvm::Function *> originals;
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && &f != skip)
      originals.push_back(&f);
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
}

/// For a generic x86-64 target: gives every function of an executable's `module` but `main` its
/// FMA copy (cloneWithFma), and makes `main` run @dlm_main's copy when `dlm_use_fma()` says so
/// at start-up (runtime/CpuDispatch.h).
void addFmaCopies(llvm::Module &module) {
  llvm::Function *main = module.getFunction("main");
  llvm::Function *program = module.getFunction("dlm_main");
  if (!main || !program)
    return;
  llvm::ValueToValueMapTy map;
  cloneWithFma(module, main, map);
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

/// Turns an entry graph's module into one export of an AOT library: @dlm_main and @dlm_init
/// become `<prefix>_main` and `<prefix>_init` (with `fma`, their copies `<prefix>_main_fma` and
/// `<prefix>_init_fma` too: cloneWithFma), hidden, so that the library's generated C calls them
/// and nothing outside it sees them; everything else the module defines becomes internal, so
/// that several exports link into one library.
void exportEntry(llvm::Module &module, llvm::StringRef prefix, bool fma) {
  llvm::Function *main = module.getFunction("dlm_main");
  llvm::Function *init = module.getFunction("dlm_init");
  llvm::ValueToValueMapTy map;
  if (fma)
    cloneWithFma(module, nullptr, map);
  for (llvm::GlobalValue &g : module.global_values())
    if (!g.isDeclaration() && !g.hasLocalLinkage())
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
  auto publish = [&](llvm::Function *f, const std::string &name) {
    f->setLinkage(llvm::GlobalValue::ExternalLinkage);
    f->setVisibility(llvm::GlobalValue::HiddenVisibility);
    f->setName(name);
  };
  for (auto [f, suffix] : {std::pair{main, "_main"}, std::pair{init, "_init"}}) {
    publish(f, prefix.str() + suffix);
    if (fma)
      publish(llvm::cast<llvm::Function>(map[f]), prefix.str() + suffix + "_fma");
  }
}

/// Writes `graph`'s module as an object file at `objectPath`: with its C `main` when
/// `entryPrefix` is empty, else an entry graph's as one export of an AOT library (exportEntry).
llvm::Error writeObject(const graph::Graph &graph, const CodegenOptions &options,
                        llvm::StringRef objectPath,
                        std::function<std::string(const graph::Location &)> sourceLine,
                        llvm::StringRef entryPrefix = "") {
  auto tm = aotMachine(options);
  if (!tm)
    return tm.takeError();
  llvm::LLVMContext ctx;
  bool entry = !entryPrefix.empty();
  auto module = buildModule(graph, ctx, **tm, !entry, std::move(sourceLine), entry);
  if (!module)
    return module.takeError();
  bool fma = hasFmaCopies(options);
  if (entry)
    exportEntry(**module, entryPrefix, fma);
  else if (fma)
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
/// kernels for a generic target when this build has one (compiler/codegen/CMakeLists.txt); for
/// a shared library (`dso`) its copy without .preinit_array, `..._dso.a`.
std::string runtimeLibraryName(const CodegenOptions &options, bool dso) {
  std::string name = "libdlm_runtime.a";
#ifdef DLM_AOT_PORTABLE_RUNTIME
  if (options.aotCpu != "native")
    name = DLM_AOT_PORTABLE_RUNTIME;
#endif
  if (dso)
    name.insert(name.size() - 2, "_dso");
  return name;
}

/// The runtime library's path: $DLM_RUNTIME_LIB, else runtimeLibraryName in `../lib` next to the
/// directory of the running dlmc (`toolPath`, its argv[0]).
llvm::Expected<std::string> runtimeLibrary(const CodegenOptions &options, llvm::StringRef toolPath,
                                           bool dso = false) {
  std::string runtimeLib;
  if (const char *env = std::getenv("DLM_RUNTIME_LIB"); env && *env) {
    runtimeLib = env;
  } else {
    static int anchor;
    std::string self = llvm::sys::fs::getMainExecutable(toolPath.str().c_str(), &anchor);
    llvm::SmallString<256> path(llvm::sys::path::parent_path(llvm::sys::path::parent_path(self)));
    llvm::sys::path::append(path, "lib", runtimeLibraryName(options, dso));
    runtimeLib = path.str().str();
  }
  if (!llvm::sys::fs::exists(runtimeLib))
    return environmentError(
        "cannot find the runtime library '" + runtimeLib +
        "' (dlmc looks in ../lib next to its own directory; set DLM_RUNTIME_LIB to override)");
  return runtimeLib;
}

/// Runs the program `args[0]` (a path) with `args`, its standard input from `input` when given;
/// an error naming the command line when it fails.
llvm::Error runTool(const std::vector<std::string> &args,
                    std::optional<llvm::StringRef> input = std::nullopt) {
  std::vector<llvm::StringRef> argv(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {input, std::nullopt, std::nullopt};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(args[0], argv, std::nullopt, redirects, 0, 0, &message);
  if (rc == 0)
    return llvm::Error::success();
  std::string line;
  for (const std::string &a : args)
    line += (line.empty() ? "" : " ") + a;
  return environmentError(llvm::sys::path::filename(args[0]).str() + " failed (" +
                          (message.empty() ? "exit status " + std::to_string(rc) : message) +
                          "): " + line);
}

/// The path of the program `name` on PATH.
llvm::Expected<std::string> findTool(llvm::StringRef name, llvm::StringRef role) {
  auto path = llvm::sys::findProgramByName(name);
  if (!path)
    return environmentError("cannot find " + role.str() + " '" + name.str() + "' on PATH");
  return *path;
}

/// The runtime's own dependencies, as link arguments (those CMake found, compiled into dlmc).
std::vector<std::string> runtimeDependencies() {
  llvm::SmallVector<llvm::StringRef, 8> libs;
  llvm::StringRef(DLM_AOT_LINK_LIBS).split(libs, '|', -1, false);
  return std::vector<std::string>(libs.begin(), libs.end());
}

/// Links `object` with `runtimeLib` and the runtime's own dependencies into `exePath`.
llvm::Error linkExecutable(llvm::StringRef linker, llvm::StringRef object,
                           llvm::StringRef runtimeLib, llvm::StringRef exePath) {
  std::vector<std::string> args = {linker.str(), object.str(), "-o", exePath.str(),
                                   runtimeLib.str()};
  for (std::string &lib : runtimeDependencies())
    args.push_back(std::move(lib));
  return runTool(args);
}

/// The executable: a temporary object file (writeObject) linked (linkExecutable).
llvm::Error writeExecutable(const graph::Graph &graph, const CodegenOptions &options,
                            llvm::StringRef exePath, llvm::StringRef toolPath,
                            std::function<std::string(const graph::Location &)> sourceLine) {
  auto runtimeLib = runtimeLibrary(options, toolPath);
  if (!runtimeLib)
    return runtimeLib.takeError();
  auto linker = findTool("c++", "the system linker driver");
  if (!linker)
    return linker.takeError();
  llvm::SmallString<128> object;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("dlm", "o", object))
    return environmentError("cannot create a temporary object file: " + ec.message());
  llvm::Error error = writeObject(graph, options, object, std::move(sourceLine));
  if (!error)
    error = linkExecutable(*linker, object, *runtimeLib, exePath);
  llvm::sys::fs::remove(object);
  return error;
}

/// An AOT library at `libPath` from the exports' `objects` and the generated C file `wrapperC`
/// (compiled here with the system's `cc`): a shared library linked with the static runtime,
/// whose symbols it keeps to itself (--exclude-libs), or for a `.a` path an archive holding the
/// objects and every member of the runtime library (made by `ar`'s MRI script).
llvm::Error writeLibrary(const std::vector<std::string> &objects, llvm::StringRef wrapperC,
                         const CodegenOptions &options, llvm::StringRef libPath,
                         llvm::StringRef toolPath) {
  bool archive = libPath.ends_with(".a");
  auto runtimeLib = runtimeLibrary(options, toolPath, !archive);
  if (!runtimeLib)
    return runtimeLib.takeError();
  auto cc = findTool("cc", "the system C compiler");
  if (!cc)
    return cc.takeError();
  std::string wrapperObject = (wrapperC + ".o").str();
  if (llvm::Error e =
          runTool({*cc, "-c", "-O2", "-fPIC", "-std=c11", wrapperC.str(), "-o", wrapperObject}))
    return e;
  if (archive) {
    auto ar = findTool("ar", "the archiver");
    if (!ar)
      return ar.takeError();
    std::string script = "CREATE " + libPath.str() + "\nADDMOD " + wrapperObject + "\n";
    for (const std::string &object : objects)
      script += "ADDMOD " + object + "\n";
    script += "ADDLIB " + *runtimeLib + "\nSAVE\nEND\n";
    std::string scriptPath = (wrapperC + ".mri").str();
    std::error_code ec;
    llvm::raw_fd_ostream out(scriptPath, ec);
    if (ec)
      return environmentError("cannot write '" + scriptPath + "': " + ec.message());
    out << script;
    out.close();
    llvm::sys::fs::remove(libPath); // ar's CREATE would add to an old archive's members
    return runTool({*ar, "-M"}, llvm::StringRef(scriptPath));
  }
  auto linker = findTool("c++", "the system linker driver");
  if (!linker)
    return linker.takeError();
  std::vector<std::string> args = {*linker, "-shared", "-o", libPath.str(), wrapperObject};
  args.insert(args.end(), objects.begin(), objects.end());
  args.push_back(*runtimeLib);
  for (std::string &lib : runtimeDependencies())
    args.push_back(std::move(lib));
  args.push_back("-Wl,--exclude-libs,ALL");
  args.push_back("-Wl,--no-undefined");
  return runTool(args);
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

int emitEntryObject(const graph::Graph &graph, DiagnosticEngine &diags,
                    const CodegenOptions &options, llvm::StringRef symbolPrefix,
                    llvm::StringRef objectPath) {
  return reportFailure(writeObject(graph, options, objectPath, sourceLines(diags), symbolPrefix),
                       diags);
}

int buildLibrary(const std::vector<std::string> &objects, llvm::StringRef wrapperC,
                 DiagnosticEngine &diags, const CodegenOptions &options, llvm::StringRef libPath,
                 llvm::StringRef toolPath) {
  return reportFailure(writeLibrary(objects, wrapperC, options, libPath, toolPath), diags);
}

std::vector<std::string> libraryLinkArguments() { return runtimeDependencies(); }

bool hasFmaCopies(const CodegenOptions &options) {
  return options.aotCpu != "native" && llvm::Triple(llvm::sys::getDefaultTargetTriple()).isX86();
}

} // namespace dlm::codegen
