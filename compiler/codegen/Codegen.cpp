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

#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Vectorize/LoopVectorize.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>

#include <sched.h>

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
double processCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/// Timing of the codegen stages for --time-passes: "time: STAGE WALL ms (cpu CPU ms)".
class StageTimer {
public:
  explicit StageTimer(bool on)
      : on(on), last(std::chrono::steady_clock::now()), lastCpu(processCpuMs()) {}
  void lap(const char *stage) {
    auto now = std::chrono::steady_clock::now();
    double cpu = processCpuMs();
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
  if (!at.isValid())
    return "";
  const char *end = at.getPointer();
  while (*end && *end != '\n' && *end != '\r')
    ++end;
  return std::string(at.getPointer(), end);
}

/// The machine-code generator's level for -O<level>.
llvm::CodeGenOptLevel codegenLevel(unsigned level) {
  return level == 0   ? llvm::CodeGenOptLevel::None
         : level == 1 ? llvm::CodeGenOptLevel::Less
         : level == 2 ? llvm::CodeGenOptLevel::Default
                      : llvm::CodeGenOptLevel::Aggressive;
}

/// The host's target machine builder: this CPU and its features.
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
                       "internal error: codegen cannot structure the graph at node %" +
                           std::to_string(n.id) + " ('" + n.op + "'): " + structError.message,
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
    if (auto *phi = llvm::dyn_cast<llvm::PHINode>(&i); phi && !phi->getType()->isIntegerTy())
      return;
    // A libm call (tanh, exp in f64 loops) cannot be vectorised, and a loop whose width was
    // given and that is not vectorised makes LLVM print "remark: loop not vectorized" on stderr.
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(&i);
        call && !llvm::isa<llvm::IntrinsicInst>(call))
      return;
    llvm::Type *type = nullptr;
    if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&i))
      type = load->getType();
    if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&i))
      type = store->getValueOperand()->getType();
    if (type && (type->isIntegerTy() || type->isFloatingPointTy()))
      bits = std::max(bits, std::max(8u, (unsigned)type->getPrimitiveSizeInBits().getFixedValue()));
  }
  if (bits == 0)
    return;
  llvm::TypeSize reg = tm.getTargetTransformInfo(f).getRegisterBitWidth(
      llvm::TargetTransformInfo::RGK_FixedWidthVector);
  unsigned width = std::min(64u, (unsigned)reg.getFixedValue() / bits);
  if (width < 2)
    return;
  llvm::LLVMContext &ctx = f.getContext();
  auto hint = [&](const char *name, unsigned value) -> llvm::Metadata * {
    return llvm::MDNode::get(
        ctx, {llvm::MDString::get(ctx, name), llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                                                  llvm::Type::getInt32Ty(ctx), value))});
  };
  for (llvm::BasicBlock &bb : f) {
    llvm::Instruction *term = bb.getTerminator();
    llvm::MDNode *loop = term ? term->getMetadata(llvm::LLVMContext::MD_loop) : nullptr;
    if (!loop)
      continue;
    llvm::SmallVector<llvm::Metadata *, 4> ops = {nullptr};
    for (unsigned k = 1; k < loop->getNumOperands(); ++k)
      ops.push_back(loop->getOperand(k));
    ops.push_back(hint("llvm.loop.vectorize.width", width));
    ops.push_back(hint("llvm.loop.interleave.count", 1));
    llvm::MDNode *pinned = llvm::MDNode::getDistinct(ctx, ops);
    pinned->replaceOperandWith(0, pinned);
    term->setMetadata(llvm::LLVMContext::MD_loop, pinned);
  }
}

/// The JIT's pipeline for a large program (largeProgram) at -O2 and above: identical functions
/// merged (mergeIdenticalFunctions), then the loop vectoriser alone on every function but
/// @dlm_main (vectorizeLoops) — the outlined elementwise loops, where such a program's arithmetic
/// is — and nothing on @dlm_main, whose calls into the runtime run as fast unoptimised.
/// (instcombine and simplifycfg after the vectoriser cost ~3 ms of CPU on the LSTM script and its
/// run was no faster.) Everything is then compiled at machine-code level 0 (FastISel and the fast
/// register allocator: instruction selection and register allocation at any higher level cost
/// 5-8x as much on these modules). The two halves may run on two threads (splitOffLoops).
///
/// Identical loops become one (13 of the LSTM script's 25: its three sigmoids, their gradients,
/// ...), which halves what the vectoriser and instruction selection see.
void mergeIdenticalFunctions(llvm::Module &module) {
  llvm::ModuleAnalysisManager unused; // the pass asks for no analysis
  llvm::MergeFunctionsPass().run(module, unused);
}

/// The loop vectoriser, with the width pinned (pinVectorWidth), on every function of `module` but
/// @dlm_main.
void vectorizeLoops(llvm::Module &module, llvm::TargetMachine &tm, Analyses &a) {
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::LoopVectorizePass());
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && f.getName() != "dlm_main") {
      pinVectorWidth(f, tm);
      fpm.run(f, a.fam);
    }
}

void vectorizeLoops(llvm::Module &module, llvm::TargetMachine &tm) {
  Analyses a(tm, llvm::PipelineTuningOptions());
  vectorizeLoops(module, tm, a);
}

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
  X(dlm_matmul_bias_accumulate)
// clang-format on

/// The JIT compiles a program the large-program way (mergeIdenticalFunctions, vectorizeLoops,
/// then machine-code level 0) when its elementwise loops are small and either it has no loop
/// inside a loop or its @dlm_main has more than kJitSmallBudget instructions; always above
/// kJitOptimizeBudget; every other program at the requested level. docs/codegen.md "Large programs"
/// has the measurements.
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
    if (n.op != "fused" && !(info && info->elementwise))
      continue;
    for (const Type &t : n.results) {
      std::optional<int64_t> numel = t.staticNumElements();
      if (!numel || *numel > kJitSmallLoopElements)
        return false;
    }
  }
  return true;
}

/// Whether `graph` has a loop inside a loop (a frame whose parent is not the root).
bool nestedLoops(const graph::Graph &graph) {
  for (graph::FrameId f = 0; f < graph.numFrames(); ++f)
    if (f != graph::kRootFrame && graph.frame(f).parent != graph::kRootFrame)
      return true;
  return false;
}

/// Whether the JIT compiles `module` (emitted from `graph`) the large-program way.
bool largeProgram(const llvm::Module &module, const graph::Graph &graph) {
  const llvm::Function *main = module.getFunction("dlm_main");
  if (!main)
    return false;
  size_t size = main->getInstructionCount();
  if (size > kJitOptimizeBudget)
    return true;
  if (!smallElementwiseLoops(graph))
    return false;
  return size > kJitSmallBudget || !nestedLoops(graph);
}

} // namespace

// --- JIT -------------------------------------------------------------------------------------

namespace {

/// One compile thread's target machines for the host, one per machine-code level, created on
/// first use and kept for the session's later programs. A TargetMachine may not be used by two
/// threads at once, so each thread of a split compile has its own set.
class HostMachines {
public:
  explicit HostMachines(llvm::orc::JITTargetMachineBuilder jtmb) : jtmb(std::move(jtmb)) {}

  /// What the machines are made from.
  const llvm::orc::JITTargetMachineBuilder &builder() const { return jtmb; }

  llvm::Expected<llvm::TargetMachine &> get(unsigned level) {
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

private:
  llvm::orc::JITTargetMachineBuilder jtmb;
  std::unique_ptr<llvm::TargetMachine> machines[4];
};

/// CPU milliseconds the calling thread has used.
double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/// How many threads the JIT may compile a large program on: $DLM_JIT_THREADS when set (1 forces
/// one; any larger number means two, the most a compile uses), else 2 when the process may run on
/// two or more CPUs (its affinity mask) and one of them is free — the load average over the last
/// minute is under the CPU count less one half, as `make -l` judges it (the second thread costs
/// ~6 ms of CPU more in all, which on a busy machine is time the first waits for: docs/codegen.md
/// "Compiling on two threads") — else 1. Decided once per process. `warning` says why a malformed
/// value was ignored.
unsigned jitThreads(std::string &warning) {
  static const std::pair<unsigned, std::string> threads = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    unsigned cpus = sched_getaffinity(0, sizeof set, &set) == 0
                        ? (unsigned)CPU_COUNT(&set)
                        : std::thread::hardware_concurrency();
    double load = 0;
    bool busy = getloadavg(&load, 1) == 1 && load > cpus - 0.5;
    std::pair<unsigned, std::string> result{cpus >= 2 && !busy ? 2 : 1, ""};
    if (const char *env = std::getenv("DLM_JIT_THREADS"); env && *env) {
      unsigned n = 0;
      if (!llvm::StringRef(env).getAsInteger(10, n) && n >= 1)
        result.first = std::min(n, 2u);
      else
        result.second = std::string("ignoring DLM_JIT_THREADS='") + env +
                        "': expected a number of threads (1 or more)";
    }
    return result;
  }();
  warning = threads.second;
  return threads.first;
}

/// What a function costs to compile the large-program way, in units of about one instruction of
/// @dlm_main at machine-code level 0 (~5 us of CPU): its instructions as emitted, times
/// kJitLoopWeight for a loop the vectoriser widens (AVX-512 code: several machine instructions
/// per IR one, and the vectoriser itself). On the LSTM training script @dlm_main (~3060
/// instructions) took ~14 ms of CPU, its loops (~700 instructions) ~18 ms, its other functions
/// (~160) under 1 ms.
constexpr double kJitLoopWeight = 5;

/// What the second thread pays before its share once the split is done, in the same units:
/// reading the bitcode (~0.7 ms), and per loop more than the weight says (on the LSTM script its
/// half took ~1.5 ms more than this thread's with an even estimate). Its target machines and
/// pass managers it makes while the first thread splits.
constexpr double kJitSplitStartCost = 450;

/// A split compile's second half goes to another thread only when the balance (functionsToSplitOff)
/// gives it at least this much work, in the same units: less does not pay for splitting the
/// module and starting the thread. bench/jit/first_result.dlm (~420) and examples/main.dlm (~270)
/// stay on one thread, the LSTM training script (~3300) does not (docs/codegen.md "Compiling on
/// two threads").
constexpr double kJitSplitMinCost = 800;

/// Whether `f` holds an outlined loop: a loop latch the emitter marked (llvm.loop metadata).
bool hasLoop(const llvm::Function &f) {
  for (const llvm::BasicBlock &bb : f)
    if (const llvm::Instruction *term = bb.getTerminator();
        term && term->getMetadata(llvm::LLVMContext::MD_loop))
      return true;
  return false;
}

/// The functions of `module` the second thread of a split compile takes, chosen so that the two
/// threads' estimated costs (kJitLoopWeight) are even: @dlm_main stays on this thread, and the
/// others, most expensive first, go to whichever side has less so far. None when the second
/// thread's share would be under kJitSplitMinCost.
std::vector<llvm::Function *> functionsToSplitOff(llvm::Module &module, bool vectorize) {
  std::vector<std::pair<double, llvm::Function *>> others;
  double here = 0, there = kJitSplitStartCost;
  for (llvm::Function &f : module) {
    if (f.isDeclaration())
      continue;
    double cost = (double)f.getInstructionCount() * (vectorize && hasLoop(f) ? kJitLoopWeight : 1);
    if (f.getName() == "dlm_main")
      here += cost;
    else
      others.push_back({cost, &f});
  }
  // Ties keep the module's order, so that the split (and the objects) do not vary between runs.
  std::stable_sort(others.begin(), others.end(),
                   [](const auto &a, const auto &b) { return a.first > b.first; });
  std::vector<llvm::Function *> moved;
  for (const auto &[cost, f] : others) {
    if (there <= here) {
      moved.push_back(f);
      there += cost;
    } else {
      here += cost;
    }
  }
  if (there - kJitSplitStartCost < kJitSplitMinCost)
    moved.clear();
  return moved;
}

/// Makes `g` a symbol the two objects of a split module share: external (named; its references
/// not DSO-local, so they go through the GOT entries and stubs the JIT's linker makes, wherever in
/// memory the two objects land).
void shareSymbol(llvm::GlobalValue &g) {
  if (!g.hasLocalLinkage())
    return;
  if (!g.hasName())
    g.setName("dlm.shared");
  g.setLinkage(llvm::GlobalValue::ExternalLinkage);
  g.setVisibility(llvm::GlobalValue::DefaultVisibility);
  g.setDSOLocal(false);
}

/// Adds the globals `c` refers to, through constant expressions and aggregates, to `out`.
void globalsIn(const llvm::Constant *c, llvm::SmallPtrSetImpl<const llvm::Constant *> &seen,
               llvm::SetVector<llvm::GlobalValue *> &out) {
  if (!seen.insert(c).second)
    return;
  if (auto *g = llvm::dyn_cast<llvm::GlobalValue>(c)) {
    out.insert(const_cast<llvm::GlobalValue *>(g));
    return;
  }
  for (const llvm::Use &u : c->operands())
    if (auto *k = llvm::dyn_cast<llvm::Constant>(u.get()))
      globalsIn(k, seen, out);
}

/// Splits `module` for a compile on two threads: the bodies of `moved` leave it for a module of
/// their own, returned as bitcode for the other thread to read into its own LLVMContext (a context
/// and everything in it may only be used by one thread at a time; writing and reading the bitcode
/// of a few small functions is cheaper than emitting them twice). Each half declares what the
/// other defines, and what they share becomes an external symbol (shareSymbol); read-only data
/// the moved functions use without its address being compared (unnamed_addr) is copied into both
/// halves. The new module holds only what the moved functions name (CloneModule would first
/// declare every global of `module`, several times the cost).
std::string splitOff(llvm::Module &module, llvm::ArrayRef<llvm::Function *> moved) {
  llvm::SmallPtrSet<const llvm::GlobalValue *, 32> copied(moved.begin(), moved.end());
  llvm::SmallPtrSet<const llvm::Constant *, 32> seen;
  llvm::SetVector<llvm::GlobalValue *> used;
  for (llvm::Function *f : moved)
    for (const llvm::Instruction &i : llvm::instructions(*f))
      for (const llvm::Value *op : i.operands())
        if (auto *c = llvm::dyn_cast<llvm::Constant>(op))
          globalsIn(c, seen, used);
  // `used` grows while it is walked: a copied constant's initializer may name more globals.
  for (size_t k = 0; k < used.size(); ++k) {
    llvm::GlobalValue *g = used[k];
    if (copied.contains(g))
      continue;
    auto *var = llvm::dyn_cast<llvm::GlobalVariable>(g);
    if (var && var->isConstant() && var->hasLocalLinkage() && var->hasInitializer() &&
        var->hasGlobalUnnamedAddr()) {
      copied.insert(var);
      globalsIn(var->getInitializer(), seen, used);
    } else {
      shareSymbol(*g);
    }
  }
  for (llvm::Function *f : moved) {
    shareSymbol(*f);
    used.insert(f);
  }
  auto part = std::make_unique<llvm::Module>("dlm.split", module.getContext());
  part->setDataLayout(module.getDataLayout());
  part->setTargetTriple(module.getTargetTriple());
  llvm::ValueToValueMapTy map;
  for (llvm::GlobalValue *g : used) {
    llvm::GlobalValue *copy;
    if (auto *f = llvm::dyn_cast<llvm::Function>(g)) {
      auto *nf = llvm::Function::Create(f->getFunctionType(), llvm::GlobalValue::ExternalLinkage,
                                        f->getAddressSpace(), f->getName(), part.get());
      nf->copyAttributesFrom(f);
      copy = nf;
    } else if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(g)) {
      auto *nv = new llvm::GlobalVariable(*part, var->getValueType(), var->isConstant(),
                                          llvm::GlobalValue::ExternalLinkage, nullptr,
                                          var->getName(), nullptr, var->getThreadLocalMode(),
                                          var->getType()->getAddressSpace());
      nv->copyAttributesFrom(var);
      copy = nv;
    } else if (g->getValueType()->isFunctionTy()) { // an alias of a function: declared as one
      copy = llvm::Function::Create(llvm::cast<llvm::FunctionType>(g->getValueType()),
                                    llvm::GlobalValue::ExternalLinkage, g->getAddressSpace(),
                                    g->getName(), part.get());
    } else {
      copy = new llvm::GlobalVariable(*part, g->getValueType(), false,
                                      llvm::GlobalValue::ExternalLinkage, nullptr, g->getName());
    }
    copy->setLinkage(g->getLinkage());
    if (!copied.contains(g))
      copy->setLinkage(llvm::GlobalValue::ExternalLinkage);
    map[g] = copy;
  }
  for (llvm::GlobalValue *g : used) {
    if (!copied.contains(g))
      continue;
    if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(g)) {
      llvm::cast<llvm::GlobalVariable>(map[g])->setInitializer(
          llvm::MapValue(var->getInitializer(), map));
    } else {
      auto *f = llvm::cast<llvm::Function>(g);
      auto *nf = llvm::cast<llvm::Function>(map[g]);
      auto arg = nf->arg_begin();
      for (const llvm::Argument &a : f->args()) {
        arg->setName(a.getName());
        map[&a] = &*arg++;
      }
      llvm::SmallVector<llvm::ReturnInst *, 4> returns;
      llvm::CloneFunctionInto(nf, f, map, llvm::CloneFunctionChangeType::ClonedModule, returns);
    }
  }
  std::string bitcode;
  llvm::raw_string_ostream os(bitcode);
  llvm::WriteBitcodeToFile(*part, os);
  os.flush();
  part.reset();
  for (llvm::Function *f : moved) {
    f->deleteBody();
    f->setDSOLocal(false);
  }
  // Data only the moved functions used.
  for (llvm::GlobalVariable &g : llvm::make_early_inc_range(module.globals())) {
    if (!g.hasLocalLinkage())
      continue;
    g.removeDeadConstantUsers();
    if (g.use_empty())
      g.eraseFromParent();
  }
  return bitcode;
}

/// Machine code for `module` at `tm`'s level, as an object file in memory.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> objectCode(llvm::Module &module,
                                                               llvm::TargetMachine &tm) {
  return llvm::orc::SimpleCompiler(tm)(module);
}

/// The IR verifier's complaint about `module` after a split, "" when it is well formed or when
/// modules are not verified (verifyEveryModule).
std::string verifySplit(const llvm::Module &module) {
  if (!verifyEveryModule())
    return "";
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (!llvm::verifyModule(module, &os))
    return "";
  return "the split module '" + module.getModuleIdentifier() + "' is malformed: " + os.str();
}

/// What the second thread of a split compile hands back: its object, or why it has none; the CPU
/// time it spent getting ready (while this thread split the module), reading the bitcode,
/// vectorising and generating machine code.
struct SplitCompiled {
  std::unique_ptr<llvm::MemoryBuffer> object;
  std::string error;
  bool crashed = false; ///< the thread crashed (compileSplitOffGuarded); its machines are suspect
  double readyMs = 0, readMs = 0, vectorizeMs = 0, machineCodeMs = 0;
  size_t functions = 0;
};

/// The second thread's half of a split compile (splitOff). It starts while the first thread is
/// still merging and splitting the module, and meanwhile makes what does not depend on the split
/// (its target machines, its pass managers); then it waits for the bitcode (`handOver`; null: no
/// split after all), reads it into a context of its own, vectorises its loops with `irLevel`'s
/// machine (when `vectorize`) and compiles it at machine-code level 0.
void compileSplitOff(std::future<const std::string *> handOver, HostMachines &machines,
                     unsigned irLevel, bool vectorize, SplitCompiled &out) {
  double t0 = threadCpuMs();
  auto irMachine = machines.get(irLevel);
  auto machine = machines.get(0);
  std::optional<Analyses> analyses;
  if (irMachine && vectorize)
    analyses.emplace(*irMachine, llvm::PipelineTuningOptions());
  double t1 = threadCpuMs();
  out.readyMs = t1 - t0;
  const std::string *bitcode = handOver.get();
  if (!bitcode) {
    if (!irMachine)
      llvm::consumeError(irMachine.takeError());
    if (!machine)
      llvm::consumeError(machine.takeError());
    return;
  }
  t1 = threadCpuMs();
  if (!irMachine || !machine) {
    out.error = llvm::toString(irMachine ? machine.takeError() : irMachine.takeError());
    if (!machine)
      llvm::consumeError(machine.takeError());
    return;
  }
  llvm::LLVMContext ctx;
  auto module = llvm::parseBitcodeFile(llvm::MemoryBufferRef(*bitcode, "dlm.split"), ctx);
  if (!module) {
    out.error = llvm::toString(module.takeError());
    return;
  }
  if (std::string e = verifySplit(**module); !e.empty()) {
    out.error = e;
    return;
  }
  for (const llvm::Function &f : **module)
    out.functions += !f.isDeclaration();
  double t2 = threadCpuMs();
  out.readMs = t2 - t1;
  if (vectorize)
    vectorizeLoops(**module, *irMachine, *analyses);
  double t3 = threadCpuMs();
  out.vectorizeMs = t3 - t2;
  auto object = objectCode(**module, *machine);
  if (!object) {
    out.error = llvm::toString(object.takeError());
    return;
  }
  out.object = std::move(*object);
  out.machineCodeMs = threadCpuMs() - t3;
}

/// compileSplitOff under LLVM's crash recovery. The second thread is outside the tools' crash
/// guard (runGuarded, which covers the thread that compiles @dlm_main), so without its own a
/// crash there (an LLVM bug: a signal, an assertion) would end dlm with the raw signal instead
/// of an internal error and exit status 70. A crash leaves `out.crashed` set and the error
/// message; what the thread had made (its target machines) is not used again.
/// `crashOnPurpose` (`--debug-crash=jit-worker`) aborts on the thread, to test this.
void compileSplitOffGuarded(std::future<const std::string *> handOver, HostMachines &machines,
                            unsigned irLevel, bool vectorize, SplitCompiled &out,
                            bool crashOnPurpose) {
  llvm::CrashRecoveryContext guard;
  bool finished = guard.RunSafely([&] {
    if (crashOnPurpose)
      std::abort();
    compileSplitOff(std::move(handOver), machines, irLevel, vectorize, out);
  });
  if (!finished) {
    out.crashed = true;
    out.object.reset();
    out.error = "the JIT's second compile thread crashed (a bug in dlm, not in your program; "
                "please report it "
                "with the input file)";
  }
}

/// A cache entry holds a program's objects — one, or two from a compile on two threads — packed
/// into one byte string: the magic "DLMPACK\n", the format version and the number of objects
/// (32-bit little-endian each), each object's size (64-bit little-endian), then the objects back
/// to back. An entry that is not such a pack, or whose sizes do not add up to its length, is a
/// miss.
constexpr llvm::StringLiteral kPackMagic = "DLMPACK\n";
constexpr uint32_t kPackVersion = 1;
constexpr uint32_t kPackMaxObjects = 16;

std::string packObjects(llvm::ArrayRef<std::unique_ptr<llvm::MemoryBuffer>> objects) {
  std::string pack(kPackMagic);
  auto append = [&](uint64_t value, unsigned bytes) {
    for (unsigned k = 0; k < bytes; ++k)
      pack.push_back((char)(value >> (8 * k)));
  };
  append(kPackVersion, 4);
  append(objects.size(), 4);
  for (const auto &object : objects)
    append(object->getBufferSize(), 8);
  for (const auto &object : objects)
    pack += object->getBuffer();
  return pack;
}

/// The objects of `pack` (packObjects), each copied into a buffer of its own; false, with `why`,
/// when it is not a whole pack this dlm reads.
bool unpackObjects(llvm::StringRef pack, std::vector<std::unique_ptr<llvm::MemoryBuffer>> &objects,
                   std::string &why) {
  namespace endian = llvm::support::endian;
  size_t header = kPackMagic.size() + 8;
  if (pack.size() < header || !pack.starts_with(kPackMagic)) {
    why = "not a pack of objects";
    return false;
  }
  uint32_t version = endian::read32le(pack.data() + kPackMagic.size());
  uint32_t count = endian::read32le(pack.data() + kPackMagic.size() + 4);
  if (version != kPackVersion) {
    why = "object pack version " + std::to_string(version) + ", this dlm reads " +
          std::to_string(kPackVersion);
    return false;
  }
  if (count == 0 || count > kPackMaxObjects || pack.size() < header + 8 * (size_t)count) {
    why = "object pack of " + std::to_string(count) + " objects in " + std::to_string(pack.size()) +
          " bytes";
    return false;
  }
  uint64_t at = header + 8 * (uint64_t)count;
  std::vector<uint64_t> sizes;
  for (uint32_t k = 0; k < count; ++k) {
    uint64_t size = endian::read64le(pack.data() + header + 8 * k);
    if (size == 0 || size > pack.size() - at) {
      why = "object pack: object " + std::to_string(k) + " of " + std::to_string(size) +
            " bytes past the end of the entry";
      return false;
    }
    sizes.push_back(size);
    at += size;
  }
  if (at != pack.size()) {
    why = "object pack: " + std::to_string(pack.size() - at) + " bytes after its objects";
    return false;
  }
  at = header + 8 * (uint64_t)count;
  for (uint32_t k = 0; k < count; ++k) {
    objects.push_back(llvm::MemoryBuffer::getMemBufferCopy(pack.substr(at, sizes[k]),
                                                           "cached object " + std::to_string(k)));
    at += sizes[k];
  }
  return true;
}

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

} // namespace

struct JitSession::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::map<uint64_t, int (*)()> cache; ///< cacheKey -> compiled @dlm_main
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
  ObjectCache *diskCache(const CodegenOptions &options, DiagnosticEngine &diags) {
    if (!options.objectCache)
      return nullptr;
    if (!diskOpened) {
      diskOpened = true;
      ObjectCacheConfig config = objectCacheConfigFromEnvironment();
      for (const std::string &warning : config.warnings)
        diags.warning(warning);
      if (!config.directory.empty())
        disk = std::make_unique<ObjectCache>(std::move(config));
      else if (options.timePasses)
        llvm::errs() << "cache: off (" << config.off << ")\n";
    }
    return disk.get();
  }

  /// How many threads this session compiles on (jitThreads; a malformed setting is warned about
  /// once).
  unsigned compileThreads(DiagnosticEngine &diags) {
    std::string warning;
    unsigned n = jitThreads(warning);
    if (!threadsChecked && !warning.empty())
      diags.warning(warning);
    threadsChecked = true;
    return n;
  }

  /// Links `objects` into a new JITDylib of the session, linked against the main one (the
  /// runtime's C ABI): each program's symbols never meet another program's. Returns its
  /// @dlm_main, or null with `why` (and no JITDylib left behind).
  int (*link(std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects, std::string &why))() {
    auto dylib = jit->createJITDylib("program." + std::to_string(modules++));
    if (!dylib) {
      why = llvm::toString(dylib.takeError());
      return nullptr;
    }
    dylib->addToLinkOrder(jit->getMainJITDylib());
    {
      std::lock_guard<std::mutex> lock(linkErrorsLock);
      linkErrors.clear();
    }
    llvm::Error error = llvm::Error::success();
    for (auto &object : objects)
      if ((error = jit->addObjectFile(*dylib, std::move(object))))
        break;
    if (!error) {
      auto address = jit->lookup(*dylib, "dlm_main");
      if (address)
        return address->toPtr<int (*)()>();
      error = address.takeError();
    }
    why = llvm::toString(std::move(error));
    std::lock_guard<std::mutex> lock(linkErrorsLock);
    if (!linkErrors.empty())
      why += " (" + linkErrors + ")";
    llvm::consumeError(jit->getExecutionSession().removeJITDylib(*dylib));
    return nullptr;
  }

  /// The @dlm_main of the cached objects of `key`, linked; null on a miss. An entry that does
  /// not link (only a foreign writer could make one) is removed, and a miss.
  int (*linkCached(ObjectCache &disk, const ObjectKey &key, bool verbose, StageTimer &timer))() {
    std::string why;
    std::unique_ptr<llvm::MemoryBuffer> entry = disk.load(key, why);
    std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
    if (!entry || !unpackObjects(entry->getBuffer(), objects, why)) {
      if (verbose)
        llvm::errs() << "cache: miss " << disk.entryPath(key) << " (" << why << ")\n";
      return nullptr;
    }
    size_t bytes = entry->getBufferSize(), count = objects.size();
    entry.reset();
    timer.lap("cache-load");
    if (int (*main)() = link(std::move(objects), why)) {
      timer.lap("link");
      if (verbose)
        llvm::errs() << "cache: hit " << disk.entryPath(key) << " (" << count
                     << (count == 1 ? " object, " : " objects, ") << bytes << " bytes)\n";
      return main;
    }
    disk.remove(key);
    if (verbose)
      llvm::errs() << "cache: miss " << disk.entryPath(key) << " (the entry does not link: " << why
                   << ")\n";
    return nullptr;
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

  /// Creates the JIT on first use. Returns an error message, "" on success.
  std::string start() {
    if (jit)
      return "";
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
      return llvm::toString(built.takeError());
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
    // The flag loops read at each back-edge (runtime/Interrupt.h): data, not callable.
    symbols[jit->mangleAndIntern("dlm_interrupt_flag")] = {
        llvm::orc::ExecutorAddr::fromPtr(&dlm_interrupt_flag), llvm::JITSymbolFlags::Exported};
    llvm::orc::JITDylib &main = jit->getMainJITDylib();
    if (llvm::Error e = main.define(llvm::orc::absoluteSymbols(std::move(symbols))))
      return llvm::toString(std::move(e));
    // libm and libc functions the optimiser may call (expf, memset, ...).
    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        jit->getDataLayout().getGlobalPrefix());
    if (!process)
      return llvm::toString(process.takeError());
    main.addGenerator(std::move(*process));
    return "";
  }

  /// Compiles a large program's `module` (largeProgram) on up to `threads` threads into `objects`
  /// (mergeIdenticalFunctions, vectorizeLoops, machine-code level 0). Identical functions are
  /// merged on the whole module first, so that calls to them are rewritten once; then, when there
  /// is enough to share (functionsToSplitOff), about half of the work — outlined loops, @dlm_init,
  /// ... — is split off (splitOff) and vectorised and compiled on a second thread while this one
  /// does @dlm_main and the rest, into two objects. Returns "" or an error message (either
  /// thread's); no thread outlives it.
  std::string compileLarge(llvm::Module &module, unsigned optLevel, unsigned threads, bool verbose,
                           bool crashWorker, StageTimer &timer,
                           std::vector<std::unique_ptr<llvm::MemoryBuffer>> &objects) {
    bool vectorize = optLevel >= 2;
    auto irMachine = machines->get(optLevel);
    if (!irMachine)
      return llvm::toString(irMachine.takeError());
    // The second thread starts now, to make its target machines and pass managers while this
    // one merges and splits, when the split is likely: when it would split the module as it is
    // (merging only makes the other side's share smaller).
    SplitCompiled split;
    std::promise<const std::string *> handOver;
    bool handedOver = false;
    std::thread worker;
    if (threads >= 2 && !functionsToSplitOff(module, vectorize).empty()) {
      try {
        worker =
            std::thread(compileSplitOffGuarded, handOver.get_future(), std::ref(*splitMachines),
                        optLevel, vectorize, std::ref(split), crashWorker);
      } catch (const std::system_error &) {
        // No thread to be had: one thread compiles the whole module.
      }
    }
    // Hands the worker its bitcode (null: nothing to do) once; it is joined before any return.
    auto handOff = [&](const std::string *bitcode) {
      if (!handedOver)
        handOver.set_value(bitcode);
      handedOver = true;
    };
    if (vectorize)
      mergeIdenticalFunctions(module);
    std::vector<llvm::Function *> moved;
    if (worker.joinable())
      moved = functionsToSplitOff(module, vectorize);
    if (moved.empty()) {
      handOff(nullptr);
      if (worker.joinable())
        worker.join();
      if (vectorize)
        vectorizeLoops(module, *irMachine);
      timer.lap("optimise");
      auto machine = machines->get(0);
      if (!machine)
        return llvm::toString(machine.takeError());
      auto object = objectCode(module, *machine);
      if (!object)
        return llvm::toString(object.takeError());
      objects.push_back(std::move(*object));
      timer.lap("jit");
      return "";
    }
    std::string bitcode = splitOff(module, moved);
    if (std::string e = verifySplit(module); !e.empty()) {
      handOff(nullptr);
      worker.join();
      return e;
    }
    handOff(&bitcode);
    timer.lap("split");
    // This thread's half: no early return until the worker has been joined.
    double t0 = threadCpuMs();
    std::string error;
    if (vectorize)
      vectorizeLoops(module, *irMachine);
    double t1 = threadCpuMs();
    auto machine = machines->get(0);
    if (!machine) {
      error = llvm::toString(machine.takeError());
    } else if (auto object = objectCode(module, *machine)) {
      objects.push_back(std::move(*object));
    } else {
      error = llvm::toString(object.takeError());
    }
    double t2 = threadCpuMs();
    worker.join();
    timer.lap("jit-parallel");
    if (split.crashed)
      splitMachines = std::make_unique<HostMachines>(machines->builder());
    if (!error.empty())
      return error;
    if (!split.object)
      return split.error;
    objects.push_back(std::move(split.object));
    if (verbose) {
      size_t functions = 0;
      for (const llvm::Function &f : module)
        functions += !f.isDeclaration();
      llvm::errs() << llvm::format(
          "jit-threads: this thread %.3f ms cpu (vectorise %.3f, machine code %.3f; %zu "
          "functions), the other %.3f ms cpu (read %.3f, vectorise %.3f, machine code "
          "%.3f; %zu functions) after %.3f getting ready during the split\n",
          t2 - t0, t1 - t0, t2 - t1, functions,
          split.readMs + split.vectorizeMs + split.machineCodeMs, split.readMs, split.vectorizeMs,
          split.machineCodeMs, split.functions, split.readyMs);
    }
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
    auto tm = machines->get(options.optLevel);
    if (!tm) {
      diags.error("internal error: " + llvm::toString(tm.takeError()));
      return nullptr;
    }
    std::unique_ptr<llvm::Module> module = buildModule(graph, diags, *ctx, *tm, false);
    if (!module)
      return nullptr;
    timer.lap("codegen");
    bool large = largeProgram(*module, graph);
    ObjectCache *disk = diskCache(options, diags);
    std::optional<ObjectKey> key;
    if (disk) {
      key = objectKey(*module, *tm, options.optLevel, large, large ? 0 : options.optLevel);
      timer.lap("cache-key");
      if (int (*entry)() = linkCached(*disk, *key, options.timePasses, timer))
        return entry;
      // An entry another user could have written turned the cache off (ObjectCache.h).
      if (std::string warning = disk->takeWarning(); !warning.empty())
        diags.warning(warning);
    }
    // The whole module compiles before the program runs: @dlm_main calls every other function
    // of the module, and ORC's compile-on-demand layer (a module per function, each cloned
    // through bitcode into its own context, calls through stubs) cost ~35% more CPU than
    // compiling the module at once.
    std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
    if (large) {
      std::string error =
          compileLarge(*module, options.optLevel, compileThreads(diags), options.timePasses,
                       options.debugCrashJitWorker, timer, objects);
      if (!error.empty()) {
        diags.error("internal error: " + error);
        return nullptr;
      }
    } else {
      optimize(*module, *tm, options.optLevel);
      timer.lap("optimise");
      auto object = objectCode(*module, *tm);
      if (!object) {
        diags.error("internal error: " + llvm::toString(object.takeError()));
        return nullptr;
      }
      objects.push_back(std::move(*object));
      timer.lap("jit");
    }
    module.reset();
    ctx.reset();
    std::string pack;
    size_t count = objects.size();
    if (key)
      pack = packObjects(objects);
    std::string why;
    int (*main)() = link(std::move(objects), why);
    if (!main) {
      diags.error("internal error: " + why);
      return nullptr;
    }
    timer.lap("link");
    if (key)
      storeCompiled(*disk, *key, pack, count, options.timePasses, timer);
    return main;
  }
};

JitSession::JitSession() : impl(std::make_unique<Impl>()) {}
JitSession::~JitSession() = default;

int JitSession::run(const graph::Graph &graph, DiagnosticEngine &diags,
                    const CodegenOptions &options) {
  StageTimer timer(options.timePasses);
  initializeLLVM();
  uint64_t key = cacheKey(graph, options.optLevel);
  int (*entry)() = nullptr;
  if (auto hit = impl->cache.find(key); hit != impl->cache.end()) {
    entry = hit->second;
    timer.lap("jit-cached");
  } else {
    entry = impl->compile(graph, diags, options, timer);
    if (!entry)
      return kExitInternal;
    impl->cache[key] = entry;
  }
  dlm_clear_error();
  int status = entry();
  std::fflush(stdout);
  timer.lap("run");
  if (status == 0)
    return kExitOk;
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
  if (!module)
    return kExitInternal;
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
  if (!target)
    return nullptr;
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
  if (!module)
    return kExitInternal;
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
  if (options.aotCpu != "native")
    return DLM_AOT_PORTABLE_RUNTIME;
#endif
  return "libdlm_runtime.a";
}

int buildExecutable(const graph::Graph &graph, DiagnosticEngine &diags,
                    const CodegenOptions &options, llvm::StringRef exePath,
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
  if (!llvm::sys::fs::exists(runtimeLib)) {
    diags.error(
        "cannot find the runtime library '" + runtimeLib +
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
  for (llvm::StringRef lib : libs)
    args.push_back(lib.str());
  std::vector<llvm::StringRef> argv(args.begin(), args.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*linker, argv, std::nullopt, {}, 0, 0, &message);
  llvm::sys::fs::remove(object);
  if (rc != 0) {
    std::string line;
    for (const std::string &a : args)
      line += (line.empty() ? "" : " ") + a;
    diags.error("linking failed (" +
                (message.empty() ? "exit status " + std::to_string(rc) : message) + "): " + line);
    return kExitRuntimeError;
  }
  return kExitOk;
}

} // namespace dlm::codegen
