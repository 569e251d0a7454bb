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
            bool withMain, std::function<std::string(const graph::Location &)> sourceLine,
            bool entry) {
  StructureError structError;
  std::optional<Structure> structure = structureGraph(graph, structError);
  if (!structure) {
    const graph::Node &n = graph.node(structError.node);
    return internalError("codegen cannot structure the graph at node %" + std::to_string(n.id) +
                             " ('" + opString(n.op) + "'): " + structError.message,
                         n.loc);
  }
  EmitOptions emit;
  emit.withMain = withMain;
  emit.entry = entry;
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
/// interleave counts: on loops of at most a few thousand elements the search, and the larger
/// interleaved code it chose, cost more compile time than they won back (docs/codegen.md "Large
/// programs"). Only in functions whose phis are all integers (induction variables): a width hint
/// also lets the vectoriser reorder a floating-point reduction, and the outlined elementwise
/// loops have none.
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
/// kJitOptimizeBudget; every other program at the requested level. The measurements behind the
/// numbers, program by program, are in docs/codegen.md "Large programs".
///
/// LLVM's -O2 pipeline and instruction selection grow faster than linearly with the size of
/// @dlm_main, which holds every inlined call of the program (forward and backward), and a large
/// program runs as fast the cheap way: its time is in the runtime's kernels and the calls to
/// them. A small program, too, pays more for -O2 than a short run wins back. Level-0 code keeps
/// @dlm_main's scalars and tensor slots in memory, which costs per op where a program runs long:
/// in a loop nest (without one, each op runs at most one loop's trip count of times). Level-0
/// machine code is also slower per element, so a program with a loop over more than
/// kJitSmallLoopElements elements (or a symbolic count) keeps the requested level up to
/// kJitOptimizeBudget instructions.
constexpr size_t kJitSmallBudget = 1500;
constexpr size_t kJitOptimizeBudget = 4000;
constexpr int64_t kJitSmallLoopElements = 4096;

/// Whether every elementwise op and fused region of `graph` has a static number of elements of
/// at most kJitSmallLoopElements.
bool smallElementwiseLoops(const graph::Graph &graph) {
  for (const graph::Node &n : graph.nodes()) {
    if (n.op != OpKind::Fused && !n.info().elementwise)
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

// The large-program way at -O2 and above: identical functions merged, then the loop vectoriser
// alone on every function but @dlm_main — the outlined elementwise loops, where such a program's
// arithmetic is — and nothing on @dlm_main, whose calls into the runtime run as fast unoptimised
// (instcombine and simplifycfg after the vectoriser cost compile time, and the code ran no
// faster). Everything is then compiled at machine-code level 0 (FastISel and the fast register
// allocator: any higher level costs several times as much on these modules). The functions may
// be compiled on two threads (SplitCompile.h).
void mergeIdenticalFunctions(llvm::Module &module) {
  llvm::ModuleAnalysisManager unused; // the pass asks for no analysis
  llvm::MergeFunctionsPass().run(module, unused);
}

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
