//===- compiler/codegen/JitSession.cpp - The ORC LLJIT session ------------===//
//
// `dlm run` and the REPL: one ORC LLJIT for the host, the runtime's C ABI defined in it as
// absolute symbols, each program compiled whole (Pipeline.h; a large program perhaps on two
// threads, SplitCompile.h) into objects linked into a JITDylib of its own, a cache of compiled
// programs per session and the on-disk object cache across processes (ObjectCache.h). The
// session's entry points are the boundary where its errors become diagnostics.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Codegen.h"

#include "compiler/codegen/CodegenError.h"
#include "compiler/codegen/ObjectCache.h"
#include "compiler/codegen/Pipeline.h"
#include "compiler/codegen/SplitCompile.h"
#include "compiler/codegen/StageTimer.h"
#include "compiler/codegen/Targets.h"
#include "compiler/ir/Dlmir.h"
#include "compiler/ir/ErrorReport.h"
#include "runtime/CApi.h"
#include "runtime/Dist.h"
#include "runtime/Interrupt.h"
#include "runtime/ScalarOps.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/xxhash.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <optional>

namespace dlm::codegen {

namespace {

/// The runtime entry points generated code calls, defined in the JIT as absolute symbols so
/// they resolve to this process's statically linked runtime.
// clang-format off
#define DLM_CAPI_SYMBOLS(X)                                                                        \
  X(dlm_tensor_retain)                                                                             \
  X(dlm_tensor_release)                                                                            \
  X(dlm_kernel_id)                                                                                 \
  X(dlm_kernel_call)                                                                               \
  X(dlm_kernel_call_values)                                                                        \
  X(dlm_attrs_new)                                                                                 \
  X(dlm_attrs_free)                                                                                \
  X(dlm_attrs_set_int)                                                                             \
  X(dlm_attrs_set_float)                                                                           \
  X(dlm_attrs_set_bool)                                                                            \
  X(dlm_attrs_set_ints)                                                                            \
  X(dlm_attrs_set_string)                                                                          \
  X(dlm_attrs_set_dtype)                                                                           \
  X(dlm_attrs_set_floats)                                                                          \
  X(dlm_attrs_set_dtypes)                                                                          \
  X(dlm_attrs_set_shapes)                                                                          \
  X(dlm_tensor_scalar_f32)                                                                         \
  X(dlm_tensor_scalar_f64)                                                                         \
  X(dlm_tensor_scalar_i32)                                                                         \
  X(dlm_tensor_scalar_i64)                                                                         \
  X(dlm_tensor_scalar_bool)                                                                        \
  X(dlm_tensor_read_scalar)                                                                        \
  X(dlm_set_error)                                                                                 \
  X(dlm_set_error_site)                                                                            \
  X(dlm_print_last_error)                                                                          \
  X(dlm_tensor_empty)                                                                              \
  X(dlm_tensor_data)                                                                               \
  X(dlm_tensor_shape)                                                                              \
  X(dlm_tensor_numel)                                                                              \
  X(dlm_tensor_is_contiguous)                                                                      \
  X(dlm_tensor_contiguous)                                                                         \
  X(dlm_tensor_dtype)                                                                              \
  X(dlm_tensor_rank)                                                                               \
  X(dlm_tensor_dense_data)                                                                         \
  X(dlm_tensor_output_like)                                                                        \
  X(dlm_interrupted)                                                                               \
  X(dlm_tensor_slice)                                                                              \
  X(dlm_stack_top)                                                                                 \
  X(dlm_stack_pop)                                                                                 \
  X(dlm_tensor_slice_grad)                                                                         \
  X(dlm_stack_push)                                                                                \
  X(dlm_kernel_run)                                                                                \
  X(dlm_tensor_reshape)                                                                            \
  X(dlm_tensor_select)                                                                             \
  X(dlm_tensor_sum_to)                                                                             \
  X(dlm_tensor_transpose)                                                                          \
  X(dlm_tensor_zeros)                                                                              \
  X(dlm_matmul_bias_accumulate)                                                                    \
  X(dlm_use_fma)                                                                                   \
  X(dlm_dist_finish)
// clang-format on

/// The session cache's key for `graph` at -O`level`. Lowering inlines every call, so a graph is
/// the whole program and the unit of compilation: its printed form (ops, attributes, types with
/// their static shapes, source locations) identifies what was compiled; symbolic dims print as
/// names, so one entry serves every run-time shape.
uint64_t cacheKey(const graph::Graph &graph, unsigned level) {
  graph::PrintOptions withLocs;
  withLocs.printLocs = true;
  return llvm::xxh3_64bits(graph::graphToString(graph, withLocs) + "\n-O" + std::to_string(level));
}

/// The on-disk cache's key for `module` as emitted (before any pass: its bitcode holds the
/// program's constants, its failure sites' file names and source lines, and every loop), the
/// -O level, whether it is a large program and the machine-code level it compiles at, the target
/// (triple, CPU, features), the LLVM version, this build of dlm (buildIdentity) and the entry's
/// payload format (packObjects). The emitted module has no address of this process in it
/// (kernels are looked up by name in @dlm_init, the runtime's entries are symbols the JIT links),
/// so its objects serve any process. Whether they were compiled on one thread or two is not in the
/// key: either pack links and runs the same.
ObjectKey objectKey(const llvm::Module &module, const llvm::TargetMachine &tm, unsigned optLevel,
                    bool large, unsigned codegenLevel) {
  llvm::SmallVector<char, 0> bitcode;
  llvm::raw_svector_ostream os(bitcode);
  llvm::WriteBitcodeToFile(module, os);
  ObjectKeyBuilder key;
  key.add("dlm JIT object");
  key.add(buildIdentity());
  key.add(LLVM_VERSION_STRING);
  key.add(tm.getTargetTriple().str());
  key.add(tm.getTargetCPU());
  key.add(tm.getTargetFeatureString());
  key.add(optLevel);
  key.add(large);
  key.add(codegenLevel);
  key.add(kPackMagic);
  key.add(kPackVersion);
  key.add(llvm::StringRef(bitcode.data(), bitcode.size()));
  return key.finish();
}

/// @dlm_main of a compiled program.
using EntryPoint = int (*)();

/// What linking a program gives: its @dlm_main, and for an entry graph its @dlm_init and
/// @dlm_fini (Codegen.h EntryFunctions).
struct Linked {
  void *main = nullptr, *init = nullptr, *fini = nullptr;
};

/// Reports a warning (to the diagnostic engine, at the session's boundary).
using WarningSink = llvm::function_ref<void(const std::string &)>;

} // namespace

struct JitSession::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::map<uint64_t, EntryPoint> cache; ///< cacheKey -> compiled @dlm_main
  unsigned modules = 0;
  std::unique_ptr<HostMachines> machines;      ///< the calling thread's target machines
  std::unique_ptr<HostMachines> splitMachines; ///< the second compile thread's
  std::unique_ptr<ObjectCache> disk;           ///< the on-disk cache (null: off)
  bool diskOpened = false;
  bool threadsChecked = false;
  std::mutex linkErrorsLock;
  std::string linkErrors; ///< what the ExecutionSession reported during the current link

  /// The on-disk object cache when options ask for it and the environment has one (opened by
  /// the first program that asks); null otherwise.
  ObjectCache *diskCache(const CodegenOptions &options, WarningSink warn) {
    if (!options.objectCache)
      return nullptr;
    if (!diskOpened) {
      diskOpened = true;
      ObjectCacheConfig config = objectCacheConfigFromEnvironment();
      for (const std::string &warning : config.warnings)
        warn(warning);
      if (!config.directory.empty())
        disk = std::make_unique<ObjectCache>(std::move(config));
      else if (options.timePasses)
        llvm::errs() << "cache: off (" << config.off << ")\n";
    }
    return disk.get();
  }

  /// How many threads this session compiles on (jitThreads; a malformed setting is warned about
  /// once).
  unsigned compileThreads(WarningSink warn) {
    std::string warning;
    unsigned n = jitThreads(warning);
    if (!threadsChecked && !warning.empty())
      warn(warning);
    threadsChecked = true;
    return n;
  }

  /// Links `objects` into a new JITDylib of the session, linked against the main one (the
  /// runtime's C ABI): each program's symbols never meet another program's. Returns its
  /// @dlm_main (and an entry graph's @dlm_init and @dlm_fini); on failure no JITDylib is left
  /// behind, and what the linker reported is part of the error.
  llvm::Expected<Linked> link(std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects,
                              bool entryGraph) {
    auto dylib = jit->createJITDylib("program." + std::to_string(modules++));
    if (!dylib)
      return dylib.takeError();
    dylib->addToLinkOrder(jit->getMainJITDylib());
    {
      std::lock_guard<std::mutex> lock(linkErrorsLock);
      linkErrors.clear();
    }
    llvm::Error error = llvm::Error::success();
    for (auto &object : objects)
      if ((error = jit->addObjectFile(*dylib, std::move(object))))
        break;
    Linked linked;
    std::pair<const char *, void **> symbols[] = {
        {"dlm_main", &linked.main}, {"dlm_init", &linked.init}, {"dlm_fini", &linked.fini}};
    for (auto &[name, at] : symbols) {
      if (error || (!entryGraph && at != &linked.main))
        break;
      auto address = jit->lookup(*dylib, name);
      if (!address) {
        error = address.takeError();
        break;
      }
      *at = address->toPtr<void *>();
    }
    if (!error)
      return linked;
    std::string why = llvm::toString(std::move(error));
    {
      std::lock_guard<std::mutex> lock(linkErrorsLock);
      if (!linkErrors.empty())
        why += " (" + linkErrors + ")";
    }
    llvm::consumeError(jit->getExecutionSession().removeJITDylib(*dylib));
    return internalError(why);
  }

  /// The cached objects of `key`, linked; a null main on a miss. An entry that does not link
  /// (only a foreign writer could make one) is removed, and a miss.
  Linked linkCached(ObjectCache &disk, const ObjectKey &key, bool entryGraph, bool verbose,
                    StageTimer &timer) {
    std::string why;
    std::unique_ptr<llvm::MemoryBuffer> entry = disk.load(key, why);
    if (!entry) {
      if (verbose)
        llvm::errs() << "cache: miss " << disk.entryPath(key) << " (" << why << ")\n";
      return {};
    }
    auto objects = unpackObjects(entry->getBuffer());
    if (!objects) {
      why = llvm::toString(objects.takeError());
      if (verbose)
        llvm::errs() << "cache: miss " << disk.entryPath(key) << " (" << why << ")\n";
      return {};
    }
    size_t bytes = entry->getBufferSize(), count = objects->size();
    entry.reset();
    timer.lap("cache-load");
    auto main = link(std::move(*objects), entryGraph);
    if (main) {
      timer.lap("link");
      if (verbose)
        llvm::errs() << "cache: hit " << disk.entryPath(key) << " (" << count
                     << (count == 1 ? " object, " : " objects, ") << bytes << " bytes)\n";
      return *main;
    }
    why = llvm::toString(main.takeError());
    disk.remove(key);
    if (verbose)
      llvm::errs() << "cache: miss " << disk.entryPath(key) << " (the entry does not link: " << why
                   << ")\n";
    return {};
  }

  /// Stores `pack` (the objects just compiled for `key`, packObjects) in the on-disk cache.
  void storeCompiled(ObjectCache &disk, const ObjectKey &key, const std::string &pack, size_t count,
                     bool verbose, StageTimer &timer) {
    std::string why;
    bool stored = disk.store(key, pack, why);
    timer.lap("cache-store");
    if (!verbose)
      return;
    if (stored)
      llvm::errs() << "cache: stored " << disk.entryPath(key) << " (" << count
                   << (count == 1 ? " object, " : " objects, ") << pack.size() << " bytes)\n";
    else
      llvm::errs() << "cache: not stored (" << why << ")\n";
  }
  /// Creates the JIT on first use.
  llvm::Error start() {
    if (jit)
      return llvm::Error::success();
    initializeLLVM();
    llvm::orc::JITTargetMachineBuilder host = hostMachine(2);
    // The small code model, as LLJIT configures its own compiler for JITLink on x86-64 ELF (a
    // target machine made for a JIT defaults to the large one: bigger, slower-to-compile code).
    host.setCodeModel(llvm::CodeModel::Small);
    machines = std::make_unique<HostMachines>(host);
    splitMachines = std::make_unique<HostMachines>(host);
    // The session compiles its programs itself (compile) and adds their objects: LLJIT's own
    // IR compiler never runs, so it gets one that makes its target machine only when asked.
    auto built =
        llvm::orc::LLJITBuilder()
            .setJITTargetMachineBuilder(host)
            .setCompileFunctionCreator(
                [](llvm::orc::JITTargetMachineBuilder jtmb)
                    -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                  return std::make_unique<llvm::orc::ConcurrentIRCompiler>(std::move(jtmb));
                })
            .create();
    if (!built)
      return built.takeError();
    jit = std::move(*built);
    // What the linker finds wrong (symbols not found, ...) becomes part of the failed link's
    // reason (link), rather than a line ORC prints on stderr (a damaged cache entry is a miss).
    jit->getExecutionSession().setErrorReporter([this](llvm::Error e) {
      std::lock_guard<std::mutex> lock(linkErrorsLock);
      linkErrors += (linkErrors.empty() ? "" : "; ") + llvm::toString(std::move(e));
    });
    llvm::orc::SymbolMap symbols;
    auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
#define DLM_DEFINE_SYMBOL(name)                                                                    \
  symbols[jit->mangleAndIntern(#name)] = {llvm::orc::ExecutorAddr::fromPtr(&name), flags};
    DLM_CAPI_SYMBOLS(DLM_DEFINE_SYMBOL)
#undef DLM_DEFINE_SYMBOL
    // The kernels' scalar functions elementwise code calls (runtime/ScalarOps.h).
    for (OpKind kind : allOpKinds())
      for (bool f64 : {false, true})
        if (rt::ScalarFunction fn = rt::scalarFunction(kind, f64); fn.name)
          symbols[jit->mangleAndIntern(fn.name)] = {llvm::orc::ExecutorAddr::fromPtr(fn.address),
                                                    flags};
    // The flag loops read at each back-edge (runtime/Interrupt.h): data, not callable.
    symbols[jit->mangleAndIntern("dlm_interrupt_flag")] = {
        llvm::orc::ExecutorAddr::fromPtr(&dlm_interrupt_flag), llvm::JITSymbolFlags::Exported};
    llvm::orc::JITDylib &main = jit->getMainJITDylib();
    if (llvm::Error e = main.define(llvm::orc::absoluteSymbols(std::move(symbols))))
      return e;
    // libm and libc functions the optimiser may call (expf, memset, ...).
    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        jit->getDataLayout().getGlobalPrefix());
    if (!process)
      return process.takeError();
    main.addGenerator(std::move(*process));
    return llvm::Error::success();
  }

  /// Compiles `graph` into a new JITDylib of the session (or finds its objects in the on-disk
  /// cache) and returns its functions.
  llvm::Expected<Linked> compile(const graph::Graph &graph, const CodegenOptions &options,
                                 std::function<std::string(const graph::Location &)> sourceLine,
                                 WarningSink warn, StageTimer &timer) {
    if (llvm::Error e = start())
      return withContext(std::move(e), "cannot start the JIT");
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto tm = machines->get(options.optLevel);
    if (!tm)
      return tm.takeError();
    auto module = buildModule(graph, *ctx, *tm, false, std::move(sourceLine), options.entry);
    if (!module)
      return module.takeError();
    timer.lap("codegen");
    bool large = largeProgram(**module, graph);
    ObjectCache *disk = diskCache(options, warn);
    std::optional<ObjectKey> key;
    if (disk) {
      key = objectKey(**module, *tm, options.optLevel, large, large ? 0 : options.optLevel);
      timer.lap("cache-key");
      if (Linked linked = linkCached(*disk, *key, options.entry, options.timePasses, timer);
          linked.main)
        return linked;
      // An entry another user could have written turned the cache off (ObjectCache.h).
      if (std::string warning = disk->takeWarning(); !warning.empty())
        warn(warning);
    }
    // The whole module compiles before the program runs: @dlm_main calls every other function
    // of the module, and ORC's compile-on-demand layer (a module per function, each cloned
    // through bitcode into its own context, calls through stubs) cost more CPU than compiling
    // the module at once (docs/codegen.md "JIT").
    std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
    if (large) {
      LargeCompileOptions largeOptions;
      largeOptions.optLevel = options.optLevel;
      largeOptions.threads = compileThreads(warn);
      largeOptions.verbose = options.timePasses;
      largeOptions.crashWorker = options.debugCrashJitWorker;
      auto compiled = compileLarge(**module, *machines, splitMachines, largeOptions, timer);
      if (!compiled)
        return compiled.takeError();
      objects = std::move(*compiled);
    } else {
      optimize(**module, *tm, options.optLevel);
      timer.lap("optimise");
      auto object = objectCode(**module, *tm);
      if (!object)
        return object.takeError();
      objects.push_back(std::move(*object));
      timer.lap("jit");
    }
    module->reset();
    ctx.reset();
    std::string pack;
    size_t count = objects.size();
    if (key)
      pack = packObjects(objects);
    auto main = link(std::move(objects), options.entry);
    if (!main)
      return main.takeError();
    timer.lap("link");
    if (key)
      storeCompiled(*disk, *key, pack, count, options.timePasses, timer);
    return *main;
  }
};

JitSession::JitSession() : impl(std::make_unique<Impl>()) {}
JitSession::~JitSession() = default;

int JitSession::run(const graph::Graph &graph, DiagnosticEngine &diags,
                    const CodegenOptions &options) {
  StageTimer timer(options.timePasses);
  initializeLLVM();
  uint64_t key = cacheKey(graph, options.optLevel);
  EntryPoint entry = nullptr;
  if (auto hit = impl->cache.find(key); hit != impl->cache.end()) {
    entry = hit->second;
    timer.lap("jit-cached");
  } else {
    auto warn = [&](const std::string &warning) { diags.warning(warning); };
    auto compiled = impl->compile(graph, options, sourceLines(diags), warn, timer);
    if (!compiled)
      return reportFailure(compiled.takeError(), diags);
    entry = impl->cache[key] = reinterpret_cast<EntryPoint>(compiled->main);
  }
  dlm_clear_error();
  int status = entry();
  std::fflush(stdout);
  timer.lap("run");
  if (status == 0)
    return kExitOk;
  reportLastError(diags);
  return kExitRuntimeError;
}

std::optional<EntryFunctions> JitSession::compileEntry(const graph::Graph &graph,
                                                       DiagnosticEngine &diags,
                                                       CodegenOptions options) {
  StageTimer timer(options.timePasses);
  initializeLLVM();
  options.entry = true;
  auto warn = [&](const std::string &warning) { diags.warning(warning); };
  auto compiled = impl->compile(graph, options, sourceLines(diags), warn, timer);
  if (!compiled) {
    reportFailure(compiled.takeError(), diags);
    return std::nullopt;
  }
  return EntryFunctions{reinterpret_cast<EntryFunctions::Main>(compiled->main),
                        reinterpret_cast<int (*)()>(compiled->init),
                        reinterpret_cast<void (*)()>(compiled->fini)};
}

void reportLastError(DiagnosticEngine &diags) {
  // Where the failure site said to report it (the user's line) and its notes (the inlined
  // calls the failing op is in: compiler/ir/ErrorReport.h).
  const char *file = nullptr;
  int32_t line = 0, col = 0;
  dlm_error_location(&file, &line, &col);
  const dlm_error_note *notes = nullptr;
  std::vector<graph::ErrorNote> noteList;
  for (int32_t i = 0, n = dlm_error_notes(&notes); i < n; ++i)
    noteList.push_back(
        {graph::Location{notes[i].file, (uint32_t)notes[i].line, (uint32_t)notes[i].col},
         notes[i].message});
  graph::reportError(diags, graph::Location{file ? file : "", (uint32_t)line, (uint32_t)col},
                     dlm_last_error(), noteList);
}

int runJit(const graph::Graph &graph, DiagnosticEngine &diags, const CodegenOptions &options) {
  JitSession session;
  return session.run(graph, diags, options);
}

} // namespace dlm::codegen
