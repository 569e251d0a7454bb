//===- compiler/codegen/Codegen.cpp - Optimise, JIT, emit objects, link ---===//
//
// The LLVM side of the engine: the host target machine (its CPU and features, AVX-512 where
// present) for the JIT and --emit=llvm, a generic x86-64 one for portable AOT objects, the -O
// levels mapped to the new pass manager's default pipelines, the ORC LLJIT session (whole-module
// compilation, large programs the cheap way, a cache per graph) with the runtime's C ABI defined
// as absolute symbols, and the AOT link through the system's c++ (with a portable runtime for
// generic CPUs).
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Codegen.h"

#include "compiler/codegen/Emitter.h"
#include "compiler/codegen/ObjectCache.h"
#include "compiler/codegen/Structure.h"
#include "compiler/ir/Dlmir.h"
#include "compiler/ir/ErrorReport.h"
#include "compiler/ir/OpRegistry.h"
#include "runtime/CApi.h"
#include "runtime/Interrupt.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"
#include "llvm/Transforms/Vectorize/LoopVectorize.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string_view>

#ifndef DLM_AOT_LINK_LIBS
#define DLM_AOT_LINK_LIBS ""
#endif

namespace dlm::codegen {

namespace {

void initializeLLVM() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

/// Milliseconds of CPU time this process has used, all threads (what other jobs on a shared
/// machine do not inflate, unlike wall time).
double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/// Timing of the codegen stages for --time-passes: "time: STAGE WALL ms (cpu CPU ms)".
class StageTimer {
public:
  explicit StageTimer(bool on) : on(on), last(std::chrono::steady_clock::now()), lastCpu(threadCpuMs()) {}
  void lap(const char *stage) {
    auto now = std::chrono::steady_clock::now();
    double cpu = threadCpuMs();
    if (on)
      llvm::errs() << llvm::format("time: %-10s %9.3f ms (cpu %.3f ms)\n", stage,
                                   std::chrono::duration<double, std::milli>(now - last).count(),
                                   cpu - lastCpu);
    last = now;
    lastCpu = cpu;
  }

private:
  bool on;
  std::chrono::steady_clock::time_point last;
  double lastCpu;
};

std::string sourceLineOf(DiagnosticEngine &diags, const graph::Location &loc) {
  llvm::SMLoc at = graph::findSourceLoc(diags, loc.file, loc.line, 1);
  if (!at.isValid()) return "";
  const char *end = at.getPointer();
  while (*end && *end != '\n' && *end != '\r') ++end;
  return std::string(at.getPointer(), end);
}

/// The machine-code generator's level for -O<level>.
llvm::CodeGenOptLevel codegenLevel(unsigned level) {
  return level == 0 ? llvm::CodeGenOptLevel::None
         : level == 1 ? llvm::CodeGenOptLevel::Less
         : level == 2 ? llvm::CodeGenOptLevel::Default
                      : llvm::CodeGenOptLevel::Aggressive;
}

/// The host's target machine builder: this CPU and its features.
llvm::orc::JITTargetMachineBuilder hostMachine(unsigned optLevel) {
  llvm::orc::JITTargetMachineBuilder jtmb((llvm::Triple(llvm::sys::getProcessTriple())));
  jtmb.setCPU(llvm::sys::getHostCPUName().str());
  llvm::SubtargetFeatures features;
  for (const auto &[name, on] : llvm::sys::getHostCPUFeatures()) features.AddFeature(name, on);
  jtmb.addFeatures(features.getFeatures());
  jtmb.setCodeGenOptLevel(codegenLevel(optLevel));
  jtmb.setRelocationModel(llvm::Reloc::PIC_);
  return jtmb;
}

/// Whether LLVM's verifier checks every module the emitter builds: when DLM_VERIFY_IR is set to
/// anything but "" or "0" (the test suite sets it: tests/lit.cfg.py). Otherwise only AOT
/// modules are verified: for the JIT the verifier cost ~1 ms of CPU on the LSTM training
/// script's module (a fifth of the codegen stage) to find what the tests find.
bool verifyEveryModule() {
  static const bool requested = [] {
    const char *env = std::getenv("DLM_VERIFY_IR");
    return env && *env && std::string_view(env) != "0";
  }();
  return requested;
}

/// Structures and emits `graph` into a module for `tm`; reports an internal error on failure.
std::unique_ptr<llvm::Module> buildModule(const graph::Graph &graph, DiagnosticEngine &diags,
                                          llvm::LLVMContext &ctx, llvm::TargetMachine &tm,
                                          bool withMain) {
  StructureError structError;
  std::optional<Structure> structure = structureGraph(graph, structError);
  if (!structure) {
    const graph::Node &n = graph.node(structError.node);
    graph::reportError(diags, n.loc,
                       "internal error: codegen cannot structure the graph at node %" + std::to_string(n.id) +
                           " ('" + n.op + "'): " + structError.message,
                       {});
    return nullptr;
  }
  EmitOptions emit;
  emit.withMain = withMain;
  emit.verify = withMain || verifyEveryModule();
  emit.sourceLine = [&](const graph::Location &loc) { return sourceLineOf(diags, loc); };
  std::string error;
  std::unique_ptr<llvm::Module> module = emitModule(graph, *structure, ctx, emit, error);
  if (!module) {
    diags.error("internal error: codegen: " + error);
    return nullptr;
  }
  module->setDataLayout(tm.createDataLayout());
  module->setTargetTriple(tm.getTargetTriple().str());
  return module;
}

/// The new pass manager's analysis managers, registered for `tm` and cross-linked.
struct Analyses {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;

  Analyses(llvm::TargetMachine &tm, llvm::PipelineTuningOptions tuning) : pb(&tm, tuning) {
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
  }
};

/// Runs LLVM's default new-pass-manager pipeline for -O<level>.
void optimize(llvm::Module &module, llvm::TargetMachine &tm, unsigned level) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = level >= 2;
  tuning.SLPVectorization = level >= 2;
  Analyses a(tm, tuning);
  llvm::ModulePassManager mpm;
  if (level == 0) {
    mpm = a.pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0);
  } else {
    llvm::OptimizationLevel ol = level == 1   ? llvm::OptimizationLevel::O1
                                 : level == 2 ? llvm::OptimizationLevel::O2
                                              : llvm::OptimizationLevel::O3;
    mpm = a.pb.buildPerModuleDefaultPipeline(ol);
  }
  mpm.run(module, a.mam);
}

/// Tells the loop vectoriser the width to use for the loops of `f` — one vector register of its
/// widest loaded or stored element, no interleaving — so that it skips its search over widths and
/// interleave counts (for the LSTM training script's 25 loops that search cost ~12 ms of CPU, and
/// the interleaved code it chose ~7 ms more instruction selection, for no faster run on loops of
/// at most a few thousand elements). Only in functions whose phis are all integers (induction
/// variables): a width hint also lets the vectoriser reorder a floating-point reduction, and the
/// outlined elementwise loops have none.
void pinVectorWidth(llvm::Function &f, llvm::TargetMachine &tm) {
  unsigned bits = 0;
  for (llvm::Instruction &i : llvm::instructions(f)) {
    if (auto *phi = llvm::dyn_cast<llvm::PHINode>(&i); phi && !phi->getType()->isIntegerTy()) return;
    // A libm call (tanh, exp in f64 loops) cannot be vectorised, and a loop whose width was
    // given and that is not vectorised makes LLVM print "remark: loop not vectorized" on stderr.
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(&i); call && !llvm::isa<llvm::IntrinsicInst>(call)) return;
    llvm::Type *type = nullptr;
    if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&i)) type = load->getType();
    if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&i)) type = store->getValueOperand()->getType();
    if (type && (type->isIntegerTy() || type->isFloatingPointTy()))
      bits = std::max(bits, std::max(8u, (unsigned)type->getPrimitiveSizeInBits().getFixedValue()));
  }
  if (bits == 0) return;
  llvm::TypeSize reg = tm.getTargetTransformInfo(f).getRegisterBitWidth(
      llvm::TargetTransformInfo::RGK_FixedWidthVector);
  unsigned width = std::min(64u, (unsigned)reg.getFixedValue() / bits);
  if (width < 2) return;
  llvm::LLVMContext &ctx = f.getContext();
  auto hint = [&](const char *name, unsigned value) -> llvm::Metadata * {
    return llvm::MDNode::get(ctx, {llvm::MDString::get(ctx, name),
                                   llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), value))});
  };
  for (llvm::BasicBlock &bb : f) {
    llvm::Instruction *term = bb.getTerminator();
    llvm::MDNode *loop = term ? term->getMetadata(llvm::LLVMContext::MD_loop) : nullptr;
    if (!loop) continue;
    llvm::SmallVector<llvm::Metadata *, 4> ops = {nullptr};
    for (unsigned k = 1; k < loop->getNumOperands(); ++k) ops.push_back(loop->getOperand(k));
    ops.push_back(hint("llvm.loop.vectorize.width", width));
    ops.push_back(hint("llvm.loop.interleave.count", 1));
    llvm::MDNode *pinned = llvm::MDNode::getDistinct(ctx, ops);
    pinned->replaceOperandWith(0, pinned);
    term->setMetadata(llvm::LLVMContext::MD_loop, pinned);
  }
}

/// The JIT's pipeline for a large program (largeProgram) at -O2 and above: identical functions
/// merged, then the loop vectoriser alone on every function but @dlm_main — the outlined
/// elementwise loops, where such a program's arithmetic is — and nothing on @dlm_main, whose
/// calls into the runtime run as fast unoptimised. (instcombine and simplifycfg after the
/// vectoriser cost ~3 ms of CPU on the LSTM script and its run was no faster.) Everything is
/// then compiled at machine-code level 0 (FastISel and the fast register allocator: instruction
/// selection and register allocation at any higher level cost 5-8x as much on these modules).
void vectorizeHelpers(llvm::Module &module, llvm::TargetMachine &tm) {
  Analyses a(tm, llvm::PipelineTuningOptions());
  // Identical loops first become one (13 of the LSTM script's 25: its three sigmoids, their
  // gradients, ...), which halves what the vectoriser and instruction selection see.
  llvm::MergeFunctionsPass().run(module, a.mam);
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::LoopVectorizePass());
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && f.getName() != "dlm_main") {
      pinVectorWidth(f, tm);
      fpm.run(f, a.fam);
    }
}

/// The runtime entry points generated code calls, defined in the JIT as absolute symbols so
/// they resolve to this process's statically linked runtime.
#define DLM_CAPI_SYMBOLS(X)                                                                       \
  X(dlm_tensor_retain) X(dlm_tensor_release) X(dlm_kernel_id) X(dlm_kernel_call)                  \
  X(dlm_kernel_call_values) X(dlm_attrs_new) X(dlm_attrs_free) X(dlm_attrs_set_int)               \
  X(dlm_attrs_set_float) X(dlm_attrs_set_bool) X(dlm_attrs_set_ints) X(dlm_attrs_set_string)      \
  X(dlm_attrs_set_dtype) X(dlm_attrs_set_floats) X(dlm_attrs_set_dtypes) X(dlm_attrs_set_shapes)  \
  X(dlm_tensor_scalar_f32) X(dlm_tensor_scalar_f64) X(dlm_tensor_scalar_i32)                      \
  X(dlm_tensor_scalar_i64) X(dlm_tensor_scalar_bool) X(dlm_tensor_read_scalar)                    \
  X(dlm_set_error) X(dlm_set_error_site) X(dlm_print_last_error) X(dlm_tensor_empty)          \
  X(dlm_tensor_data) X(dlm_tensor_shape) X(dlm_tensor_numel) X(dlm_tensor_is_contiguous)          \
  X(dlm_tensor_contiguous) X(dlm_tensor_dtype) X(dlm_tensor_rank) X(dlm_tensor_dense_data)       \
  X(dlm_tensor_output_like) X(dlm_interrupted) X(dlm_tensor_slice) \
  X(dlm_stack_top) X(dlm_stack_pop) X(dlm_tensor_slice_grad) X(dlm_stack_push)                  \
  X(dlm_kernel_run) X(dlm_tensor_reshape) X(dlm_tensor_select) X(dlm_tensor_sum_to)             \
  X(dlm_tensor_transpose) X(dlm_tensor_zeros) X(dlm_matmul_bias_accumulate)

/// The JIT compiles a program the large-program way (vectorizeHelpers, then machine-code level
/// 0) when its elementwise loops are small and either it has no loop inside a loop or its
/// @dlm_main has more than kJitSmallBudget instructions; always above kJitOptimizeBudget; every
/// other program at the requested level. docs/codegen.md "Large programs" has the measurements.
///
/// LLVM's -O2 pipeline and instruction selection grow faster than linearly with the size of
/// @dlm_main, which holds every inlined call of the program (forward and backward): for the LSTM
/// training script (~3100 instructions, elementwise loops over at most 4096 elements) they cost
/// ~300 ms of CPU, the large-program way ~35 ms, and it runs as fast (its time is in the
/// runtime's kernels and the calls to them). A small program still pays 25-110 ms of CPU for
/// -O2 (bench/jit/first_result.dlm ~50 ms, examples/main.dlm 50-70 ms, against ~12 ms the
/// large-program way), which only a long run wins back: level-0 code in @dlm_main costs a few ns
/// per op of scalar and slot work (bench/jit/adds.dlm, 10^6 adds in a loop nest: 11.6 -> 18 ns
/// per add). A loop nest is where a small program runs long; without one, each op runs at most
/// one loop's trip count of times. Level-0 machine code is also slower per element, so a program
/// with a loop over more than kJitSmallLoopElements elements (or a symbolic count) keeps the
/// requested level up to kJitOptimizeBudget instructions (the Fashion-MNIST MLP, loops over
/// 200k elements, ran ~13% slower at level 0).
constexpr size_t kJitSmallBudget = 1500;
constexpr size_t kJitOptimizeBudget = 4000;
constexpr int64_t kJitSmallLoopElements = 4096;

/// Whether every elementwise op and fused region of `graph` has a static number of elements of
/// at most kJitSmallLoopElements.
bool smallElementwiseLoops(const graph::Graph &graph) {
  for (const graph::Node &n : graph.nodes()) {
    const OpInfo *info = OpRegistry::get().lookup(n.op);
    if (n.op != "fused" && !(info && info->elementwise)) continue;
    for (const Type &t : n.results) {
      std::optional<int64_t> numel = t.staticNumElements();
      if (!numel || *numel > kJitSmallLoopElements) return false;
    }
  }
  return true;
}

/// Whether `graph` has a loop inside a loop (a frame whose parent is not the root).
bool nestedLoops(const graph::Graph &graph) {
  for (graph::FrameId f = 0; f < graph.numFrames(); ++f)
    if (f != graph::kRootFrame && graph.frame(f).parent != graph::kRootFrame) return true;
  return false;
}

/// Whether the JIT compiles `module` (emitted from `graph`) the large-program way.
bool largeProgram(const llvm::Module &module, const graph::Graph &graph) {
  const llvm::Function *main = module.getFunction("dlm_main");
  if (!main) return false;
  size_t size = main->getInstructionCount();
  if (size > kJitOptimizeBudget) return true;
  if (!smallElementwiseLoops(graph)) return false;
  return size > kJitSmallBudget || !nestedLoops(graph);
}

} // namespace

// --- JIT -------------------------------------------------------------------------------------

namespace {

/// The function attribute carrying the machine-code level a JIT module is compiled at.
constexpr const char *kCodegenLevelAttr = "dlm-codegen-level";

/// The session's IR -> object compiler: one target machine per machine-code level, chosen per
/// module by the kCodegenLevelAttr of its functions. One session serves programs compiled at
/// different -O levels (and large programs, which the JIT compiles at level 0: largeProgram).
class LevelledCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
public:
  explicit LevelledCompiler(llvm::orc::JITTargetMachineBuilder jtmb)
      : IRCompiler(llvm::orc::irManglingOptionsFromTargetOptions(jtmb.getOptions())), jtmb(std::move(jtmb)) {}

  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module &m) override {
    unsigned level = 2;
    for (const llvm::Function &f : m)
      if (!f.isDeclaration() && f.hasFnAttribute(kCodegenLevelAttr)) {
        level = std::min(3u, (unsigned)f.getFnAttributeAsParsedInteger(kCodegenLevelAttr, 2));
        break;
      }
    if (!machines[level]) {
      llvm::orc::JITTargetMachineBuilder builder = jtmb;
      builder.setCodeGenOptLevel(codegenLevel(level));
      auto tm = builder.createTargetMachine();
      if (!tm) return tm.takeError();
      machines[level] = std::move(*tm);
    }
    return llvm::orc::SimpleCompiler(*machines[level])(m);
  }

private:
  llvm::orc::JITTargetMachineBuilder jtmb;
  std::unique_ptr<llvm::TargetMachine> machines[4];
};

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
/// (triple, CPU, features), the LLVM version and this build of dlm (buildIdentity). The emitted
/// module has no address of this process in it (kernels are looked up by name in @dlm_init, the
/// runtime's entries are symbols the JIT links), so its object serves any process.
ObjectKey objectKey(const llvm::Module &module, const llvm::TargetMachine &tm, unsigned optLevel, bool large,
                    unsigned codegenLevel) {
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
  key.add(llvm::StringRef(bitcode.data(), bitcode.size()));
  return key.finish();
}

} // namespace

struct JitSession::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::map<uint64_t, int (*)()> cache; ///< cacheKey -> compiled @dlm_main
  unsigned modules = 0;
  ObjectCapture capture;            ///< copies of compiled objects, for the on-disk cache
  std::unique_ptr<ObjectCache> disk; ///< the on-disk cache (null: off)
  bool diskOpened = false;

  /// The on-disk object cache when options ask for it and the environment has one (opened by
  /// the first program that asks); null otherwise.
  ObjectCache *diskCache(const CodegenOptions &options, DiagnosticEngine &diags) {
    if (!options.objectCache) return nullptr;
    if (!diskOpened) {
      diskOpened = true;
      ObjectCacheConfig config = objectCacheConfigFromEnvironment();
      for (const std::string &warning : config.warnings) diags.warning(warning);
      if (!config.directory.empty())
        disk = std::make_unique<ObjectCache>(std::move(config));
      else if (options.timePasses)
        llvm::errs() << "cache: off (" << config.off << ")\n";
    }
    return disk.get();
  }

  /// A new JITDylib for one program, linked against the main one (the runtime's C ABI).
  llvm::Expected<llvm::orc::JITDylib &> programDylib() {
    auto dylib = jit->createJITDylib("program." + std::to_string(modules++));
    if (dylib) dylib->addToLinkOrder(jit->getMainJITDylib());
    return dylib;
  }

  /// The @dlm_main of the cached object of `key`, linked into a new JITDylib; null on a miss. An
  /// entry that does not link (only a foreign writer could make one) is removed, and a miss.
  int (*linkCached(ObjectCache &disk, const ObjectKey &key, bool verbose, StageTimer &timer))() {
    std::string why;
    std::unique_ptr<llvm::MemoryBuffer> object = disk.load(key, why);
    if (!object) {
      if (verbose) llvm::errs() << "cache: miss " << disk.entryPath(key) << " (" << why << ")\n";
      return nullptr;
    }
    size_t bytes = object->getBufferSize();
    timer.lap("cache-load");
    auto dylib = programDylib();
    if (!dylib) {
      why = llvm::toString(dylib.takeError());
    } else if (llvm::Error e = jit->addObjectFile(*dylib, std::move(object))) {
      why = llvm::toString(std::move(e));
    } else if (auto address = jit->lookup(*dylib, "dlm_main")) {
      timer.lap("link");
      if (verbose) llvm::errs() << "cache: hit " << disk.entryPath(key) << " (" << bytes << " bytes of object)\n";
      return address->toPtr<int (*)()>();
    } else {
      why = llvm::toString(address.takeError());
    }
    if (dylib) llvm::consumeError(jit->getExecutionSession().removeJITDylib(*dylib));
    disk.remove(key);
    if (verbose) llvm::errs() << "cache: miss " << disk.entryPath(key) << " (the entry does not link: " << why << ")\n";
    return nullptr;
  }

  /// Stores the object just compiled for `key` (captured from the compiler).
  void storeCompiled(ObjectCache &disk, const ObjectKey &key, bool verbose, StageTimer &timer) {
    std::optional<std::string> object = capture.take();
    std::string why = "the JIT compiled no object for it";
    bool stored = object && disk.store(key, *object, why);
    timer.lap("cache-store");
    if (!verbose) return;
    if (stored)
      llvm::errs() << "cache: stored " << disk.entryPath(key) << " (" << object->size() << " bytes of object)\n";
    else
      llvm::errs() << "cache: not stored (" << why << ")\n";
  }

  /// Creates the JIT on first use. Returns an error message, "" on success.
  std::string start() {
    if (jit) return "";
    initializeLLVM();
    llvm::orc::JITTargetMachineBuilder host = hostMachine(2);
    auto built =
        llvm::orc::LLJITBuilder()
            .setJITTargetMachineBuilder(host)
            .setCompileFunctionCreator([this](llvm::orc::JITTargetMachineBuilder jtmb)
                                           -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
              return std::make_unique<CapturingCompiler>(std::make_unique<LevelledCompiler>(std::move(jtmb)), capture);
            })
            .create();
    if (!built) return llvm::toString(built.takeError());
    jit = std::move(*built);
    llvm::orc::SymbolMap symbols;
    auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
#define DLM_DEFINE_SYMBOL(name)                                                                   \
  symbols[jit->mangleAndIntern(#name)] = {llvm::orc::ExecutorAddr::fromPtr(&name), flags};
    DLM_CAPI_SYMBOLS(DLM_DEFINE_SYMBOL)
#undef DLM_DEFINE_SYMBOL
    // The flag loops read at each back-edge (runtime/Interrupt.h): data, not callable.
    symbols[jit->mangleAndIntern("dlm_interrupt_flag")] = {
        llvm::orc::ExecutorAddr::fromPtr(&dlm_interrupt_flag), llvm::JITSymbolFlags::Exported};
    llvm::orc::JITDylib &main = jit->getMainJITDylib();
    if (llvm::Error e = main.define(llvm::orc::absoluteSymbols(std::move(symbols))))
      return llvm::toString(std::move(e));
    // libm and libc functions the optimiser may call (expf, memset, ...).
    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        jit->getDataLayout().getGlobalPrefix());
    if (!process) return llvm::toString(process.takeError());
    main.addGenerator(std::move(*process));
    return "";
  }

  /// Compiles `graph` into a new JITDylib of the session; null after reporting an error.
  int (*compile(const graph::Graph &graph, DiagnosticEngine &diags, const CodegenOptions &options,
                StageTimer &timer))() {
    if (std::string e = start(); !e.empty()) {
      diags.error("internal error: cannot start the JIT: " + e);
      return nullptr;
    }
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto tm = hostMachine(options.optLevel).createTargetMachine();
    if (!tm) {
      diags.error("internal error: " + llvm::toString(tm.takeError()));
      return nullptr;
    }
    std::unique_ptr<llvm::Module> module = buildModule(graph, diags, *ctx, **tm, false);
    if (!module) return nullptr;
    timer.lap("codegen");
    bool large = largeProgram(*module, graph);
    ObjectCache *disk = diskCache(options, diags);
    std::optional<ObjectKey> key;
    if (disk) {
      key = objectKey(*module, **tm, options.optLevel, large, large ? 0 : options.optLevel);
      timer.lap("cache-key");
      if (int (*entry)() = linkCached(*disk, *key, options.timePasses, timer)) return entry;
      // An entry another user could have written turned the cache off (ObjectCache.h).
      if (std::string warning = disk->takeWarning(); !warning.empty()) diags.warning(warning);
    }
    unsigned level = options.optLevel;
    if (large) {
      if (level >= 2) vectorizeHelpers(*module, **tm);
      level = 0;
    } else {
      optimize(*module, **tm, level);
    }
    for (llvm::Function &f : *module)
      if (!f.isDeclaration()) f.addFnAttr(kCodegenLevelAttr, std::to_string(level));
    timer.lap("optimise");
    // Each program gets its own JITDylib (its symbols never meet another program's) linked
    // against the main one (the runtime's C ABI). The module compiles whole when @dlm_main is
    // looked up: @dlm_main calls every other function of the module, and ORC's compile-on-demand
    // layer (a module per function, each cloned through bitcode into its own context, calls
    // through stubs) cost ~35% more CPU than compiling the module at once.
    auto dylib = programDylib();
    if (!dylib) {
      diags.error("internal error: " + llvm::toString(dylib.takeError()));
      return nullptr;
    }
    if (key) capture.expect(module.get());
    if (llvm::Error e = jit->addIRModule(*dylib, llvm::orc::ThreadSafeModule(std::move(module), std::move(ctx)))) {
      diags.error("internal error: " + llvm::toString(std::move(e)));
      return nullptr;
    }
    auto address = jit->lookup(*dylib, "dlm_main");
    if (!address) {
      diags.error("internal error: " + llvm::toString(address.takeError()));
      return nullptr;
    }
    timer.lap("jit");
    if (key) storeCompiled(*disk, *key, options.timePasses, timer);
    return address->toPtr<int (*)()>();
  }
};

JitSession::JitSession() : impl(std::make_unique<Impl>()) {}
JitSession::~JitSession() = default;

int JitSession::run(const graph::Graph &graph, DiagnosticEngine &diags, const CodegenOptions &options) {
  StageTimer timer(options.timePasses);
  initializeLLVM();
  uint64_t key = cacheKey(graph, options.optLevel);
  int (*entry)() = nullptr;
  if (auto hit = impl->cache.find(key); hit != impl->cache.end()) {
    entry = hit->second;
    timer.lap("jit-cached");
  } else {
    entry = impl->compile(graph, diags, options, timer);
    if (!entry) return kExitInternal;
    impl->cache[key] = entry;
  }
  dlm_clear_error();
  int status = entry();
  std::fflush(stdout);
  timer.lap("run");
  if (status == 0) return kExitOk;
  // Where the failure site said to report it (the user's line) and its notes (the inlined
  // calls the failing op is in: compiler/ir/ErrorReport.h).
  const char *file = nullptr;
  int32_t line = 0, col = 0;
  dlm_error_location(&file, &line, &col);
  const dlm_error_note *notes = nullptr;
  std::vector<graph::ErrorNote> noteList;
  for (int32_t i = 0, n = dlm_error_notes(&notes); i < n; ++i)
    noteList.push_back({graph::Location{notes[i].file, (uint32_t)notes[i].line, (uint32_t)notes[i].col}, notes[i].message});
  graph::reportError(diags, graph::Location{file ? file : "", (uint32_t)line, (uint32_t)col}, dlm_last_error(),
                     noteList);
  return kExitRuntimeError;
}

int runJit(const graph::Graph &graph, DiagnosticEngine &diags, const CodegenOptions &options) {
  JitSession session;
  return session.run(graph, diags, options);
}

int printLLVM(const graph::Graph &graph, DiagnosticEngine &diags, const CodegenOptions &options,
              llvm::raw_ostream &os) {
  initializeLLVM();
  auto tm = hostMachine(options.optLevel).createTargetMachine();
  if (!tm) {
    diags.error("internal error: " + llvm::toString(tm.takeError()));
    return kExitInternal;
  }
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> module = buildModule(graph, diags, ctx, **tm, false);
  if (!module) return kExitInternal;
  optimize(*module, **tm, options.optLevel);
  module->print(os, nullptr);
  return kExitOk;
}

// --- AOT -------------------------------------------------------------------------------------

namespace {

/// The AOT target: the default triple, generic x86-64 (or this CPU for aotCpu == "native").
std::unique_ptr<llvm::TargetMachine> aotMachine(const CodegenOptions &options, std::string &error) {
  initializeLLVM();
  std::string triple = llvm::sys::getDefaultTargetTriple();
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) return nullptr;
  std::string cpu = "x86-64", features;
  if (options.aotCpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures f;
    for (const auto &[name, on] : llvm::sys::getHostCPUFeatures()) f.AddFeature(name, on);
    features = f.getString();
  } else if (!llvm::Triple(triple).isX86()) {
    cpu = "generic";
  }
  llvm::CodeGenOptLevel level = options.optLevel == 0 ? llvm::CodeGenOptLevel::None : llvm::CodeGenOptLevel::Default;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt, level));
}

} // namespace

int emitObject(const graph::Graph &graph, DiagnosticEngine &diags, const CodegenOptions &options,
               llvm::StringRef objectPath) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = aotMachine(options, error);
  if (!tm) {
    diags.error("internal error: no target machine for AOT: " + error);
    return kExitInternal;
  }
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> module = buildModule(graph, diags, ctx, *tm, true);
  if (!module) return kExitInternal;
  optimize(*module, *tm, options.optLevel);
  std::error_code ec;
  llvm::raw_fd_ostream out(objectPath, ec, llvm::sys::fs::OF_None);
  if (ec) {
    diags.error("cannot write '" + objectPath + "': " + ec.message());
    return kExitRuntimeError;
  }
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, out, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    diags.error("internal error: the target cannot emit object files");
    return kExitInternal;
  }
  pm.run(*module);
  out.close();
  return out.has_error() ? kExitRuntimeError : kExitOk;
}

/// The static runtime an executable for `options.aotCpu` links: the portable build of the
/// kernels for a generic target when this build has one (compiler/codegen/CMakeLists.txt).
static const char *runtimeLibraryName(const CodegenOptions &options) {
#ifdef DLM_AOT_PORTABLE_RUNTIME
  if (options.aotCpu != "native") return DLM_AOT_PORTABLE_RUNTIME;
#endif
  return "libdlm_runtime.a";
}

int buildExecutable(const graph::Graph &graph, DiagnosticEngine &diags, const CodegenOptions &options,
                    llvm::StringRef exePath, llvm::StringRef toolPath) {
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
  if (!llvm::sys::fs::exists(runtimeLib)) {
    diags.error("cannot find the runtime library '" + runtimeLib +
                "' (dlmc looks in ../lib next to its own directory; set DLM_RUNTIME_LIB to override)");
    return kExitRuntimeError;
  }
  auto linker = llvm::sys::findProgramByName("c++");
  if (!linker) {
    diags.error("cannot find the system linker driver 'c++' on PATH");
    return kExitRuntimeError;
  }
  llvm::SmallString<128> object;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("dlm", "o", object)) {
    diags.error("cannot create a temporary object file: " + ec.message());
    return kExitRuntimeError;
  }
  int status = emitObject(graph, diags, options, object);
  if (status != kExitOk) {
    llvm::sys::fs::remove(object);
    return status;
  }
  std::vector<std::string> args = {*linker, object.str().str(), "-o", exePath.str(), runtimeLib};
  llvm::SmallVector<llvm::StringRef, 8> libs;
  llvm::StringRef(DLM_AOT_LINK_LIBS).split(libs, '|', -1, false);
  for (llvm::StringRef lib : libs) args.push_back(lib.str());
  std::vector<llvm::StringRef> argv(args.begin(), args.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*linker, argv, std::nullopt, {}, 0, 0, &message);
  llvm::sys::fs::remove(object);
  if (rc != 0) {
    std::string line;
    for (const std::string &a : args) line += (line.empty() ? "" : " ") + a;
    diags.error("linking failed (" + (message.empty() ? "exit status " + std::to_string(rc) : message) +
                "): " + line);
    return kExitRuntimeError;
  }
  return kExitOk;
}

} // namespace dlm::codegen
