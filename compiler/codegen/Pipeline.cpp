//===- compiler/codegen/Pipeline.cpp - Graph to optimised module ----------===//
//
// Structuring and emitting a graph's module, LLVM's -O pipelines, and the JIT's large-program
// way: which programs take it (largeProgram) and its two IR steps.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Pipeline.h"

#include "compiler/codegen/CodegenError.h"
#include "compiler/codegen/Emitter.h"
#include "compiler/codegen/Structure.h"
#include "compiler/ir/OpRegistry.h"

#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"
#include "llvm/Transforms/Vectorize/LoopVectorize.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace dlm::codegen {

bool verifyEveryModule() {
  static const bool requested = [] {
    const char *env = std::getenv("DLM_VERIFY_IR");
    return env && *env && std::string_view(env) != "0";
  }();
  return requested;
}

llvm::Expected<std::unique_ptr<llvm::Module>>
buildModule(const graph::Graph &graph, llvm::LLVMContext &ctx, llvm::TargetMachine &tm,
            bool withMain, std::function<std::string(const graph::Location &)> sourceLine) {
  StructureError structError;
  std::optional<Structure> structure = structureGraph(graph, structError);
  if (!structure) {
    const graph::Node &n = graph.node(structError.node);
    return internalError("codegen cannot structure the graph at node %" + std::to_string(n.id) +
                             " ('" + n.op + "'): " + structError.message,
                         n.loc);
  }
  EmitOptions emit;
  emit.withMain = withMain;
  emit.verify = withMain || verifyEveryModule();
  emit.sourceLine = std::move(sourceLine);
  auto module = emitModule(graph, *structure, ctx, emit);
  if (!module)
    return withContext(module.takeError(), "codegen");
  (*module)->setDataLayout(tm.createDataLayout());
  (*module)->setTargetTriple(tm.getTargetTriple().str());
  return module;
}

Analyses::Analyses(llvm::TargetMachine &tm, llvm::PipelineTuningOptions tuning) : pb(&tm, tuning) {
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
}

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

namespace {

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

} // namespace

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

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> objectCode(llvm::Module &module,
                                                               llvm::TargetMachine &tm) {
  return llvm::orc::SimpleCompiler(tm)(module);
}

} // namespace dlm::codegen
