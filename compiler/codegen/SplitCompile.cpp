//===- compiler/codegen/SplitCompile.cpp - A large program on two threads -===//
//
// The cost estimate that shares a large program's functions out between two threads, the split
// of the module (the second half travels as bitcode into the other thread's LLVMContext), and the
// two threads' compiles, the second under crash recovery of its own.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/SplitCompile.h"

#include "compiler/codegen/CodegenError.h"
#include "compiler/codegen/Pipeline.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <cstdlib>
#include <future>
#include <optional>
#include <system_error>
#include <thread>

#include <sched.h>

namespace dlm::codegen {

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

namespace {

/// What a function costs to compile the large-program way, in units of about one instruction of
/// @dlm_main at machine-code level 0: its instructions as emitted, times kJitLoopWeight for a
/// loop the vectoriser widens (AVX-512 code: several machine instructions per IR one, and the
/// vectoriser itself). The weights are fitted to the LSTM training script's split
/// (docs/codegen.md "Compiling on two threads").
constexpr double kJitLoopWeight = 5;

/// What the second thread pays before its share once the split is done, in the same units:
/// reading the bitcode, and per loop more than the weight says (with an even estimate without
/// it, its half took longer than this thread's). Its target machines and pass managers it makes
/// while the first thread splits.
constexpr double kJitSplitStartCost = 450;

/// A split compile's second half goes to another thread only when the balance (functionsToSplitOff)
/// gives it at least this much work, in the same units: less does not pay for splitting the
/// module and starting the thread (docs/codegen.md "Compiling on two threads" says which
/// programs split).
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

/// The IR verifier's complaint about `module` after a split, when modules are verified
/// (verifyEveryModule) and it is malformed.
llvm::Error verifySplit(const llvm::Module &module) {
  if (!verifyEveryModule())
    return llvm::Error::success();
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (!llvm::verifyModule(module, &os))
    return llvm::Error::success();
  return internalError("the split module '" + module.getModuleIdentifier() +
                       "' is malformed: " + os.str());
}

/// The CPU time the second thread of a split compile spent getting ready (while this thread
/// split the module), reading the bitcode, vectorising and generating machine code.
struct WorkerTimes {
  double readyMs = 0, readMs = 0, vectorizeMs = 0, machineCodeMs = 0;
  size_t functions = 0;
};

/// What the second thread of a split compile hands back.
struct SplitCompiled {
  /// Its object (null when there was no split after all), or why it has none; unset until the
  /// thread has run.
  std::optional<llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>> object;
  bool crashed = false; ///< the thread crashed (compileSplitOffGuarded); its machines are suspect
  WorkerTimes times;
};

/// The second thread's half of a split compile (splitOff). It starts while the first thread is
/// still merging and splitting the module, and meanwhile makes what does not depend on the split
/// (its target machines, its pass managers); then it waits for the bitcode (`handOver`; null: no
/// split after all, and no object), reads it into a context of its own, vectorises its loops with
/// `irLevel`'s machine (when `vectorize`) and compiles it at machine-code level 0.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
compileSplitOff(std::future<const std::string *> handOver, HostMachines &machines, unsigned irLevel,
                bool vectorize, WorkerTimes &times) {
  double t0 = threadCpuMs();
  auto irMachine = machines.get(irLevel);
  auto machine = machines.get(0);
  std::optional<Analyses> analyses;
  if (irMachine && vectorize)
    analyses.emplace(*irMachine, llvm::PipelineTuningOptions());
  double t1 = threadCpuMs();
  times.readyMs = t1 - t0;
  const std::string *bitcode = handOver.get();
  if (!bitcode) {
    if (!irMachine)
      llvm::consumeError(irMachine.takeError());
    if (!machine)
      llvm::consumeError(machine.takeError());
    return nullptr;
  }
  t1 = threadCpuMs();
  if (!irMachine) {
    if (!machine)
      llvm::consumeError(machine.takeError());
    return irMachine.takeError();
  }
  if (!machine)
    return machine.takeError();
  llvm::LLVMContext ctx;
  auto module = llvm::parseBitcodeFile(llvm::MemoryBufferRef(*bitcode, "dlm.split"), ctx);
  if (!module)
    return module.takeError();
  if (llvm::Error e = verifySplit(**module))
    return e;
  for (const llvm::Function &f : **module)
    times.functions += !f.isDeclaration();
  double t2 = threadCpuMs();
  times.readMs = t2 - t1;
  if (vectorize)
    vectorizeLoops(**module, *irMachine, *analyses);
  double t3 = threadCpuMs();
  times.vectorizeMs = t3 - t2;
  auto object = objectCode(**module, *machine);
  times.machineCodeMs = threadCpuMs() - t3;
  return object;
}

/// compileSplitOff under LLVM's crash recovery. The second thread is outside the tools' crash
/// guard (runGuarded, which covers the thread that compiles @dlm_main), so without its own a
/// crash there (an LLVM bug: a signal, an assertion) would end dlm with the raw signal instead
/// of an internal error and exit status 70. A crash leaves `out.crashed` set and the error; what
/// the thread had made (its target machines) is not used again. `crashOnPurpose`
/// (`--debug-crash=jit-worker`) aborts on the thread, to test this.
void compileSplitOffGuarded(std::future<const std::string *> handOver, HostMachines &machines,
                            unsigned irLevel, bool vectorize, SplitCompiled &out,
                            bool crashOnPurpose) {
  llvm::CrashRecoveryContext guard;
  bool finished = guard.RunSafely([&] {
    if (crashOnPurpose)
      std::abort();
    out.object.emplace(
        compileSplitOff(std::move(handOver), machines, irLevel, vectorize, out.times));
  });
  if (!finished) {
    out.crashed = true;
    if (out.object && !*out.object)
      llvm::consumeError(out.object->takeError());
    out.object.emplace(
        internalError("the JIT's second compile thread crashed (a bug in dlm, not in your program; "
                      "please report it "
                      "with the input file)"));
  }
}

} // namespace

llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
compileLarge(llvm::Module &module, HostMachines &machines,
             std::unique_ptr<HostMachines> &workerMachines, const LargeCompileOptions &options,
             StageTimer &timer) {
  bool vectorize = options.optLevel >= 2;
  auto irMachine = machines.get(options.optLevel);
  if (!irMachine)
    return irMachine.takeError();
  // The second thread starts now, to make its target machines and pass managers while this
  // one merges and splits, when the split is likely: when it would split the module as it is
  // (merging only makes the other side's share smaller).
  SplitCompiled split;
  std::promise<const std::string *> handOver;
  bool handedOver = false;
  std::thread worker;
  if (options.threads >= 2 && !functionsToSplitOff(module, vectorize).empty()) {
    try {
      worker = std::thread(compileSplitOffGuarded, handOver.get_future(), std::ref(*workerMachines),
                           options.optLevel, vectorize, std::ref(split), options.crashWorker);
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
  // Joins the worker, when there is one (handing it nothing if it had nothing yet); after a
  // crash its machines are made anew.
  auto joinWorker = [&] {
    handOff(nullptr);
    if (worker.joinable())
      worker.join();
    if (split.crashed)
      workerMachines = std::make_unique<HostMachines>(machines.builder());
  };
  // The worker's result when this thread failed: only this thread's error is reported.
  auto dropWorkerResult = [&] {
    if (split.object && !*split.object)
      llvm::consumeError(split.object->takeError());
  };
  if (vectorize)
    mergeIdenticalFunctions(module);
  std::vector<llvm::Function *> moved;
  if (worker.joinable())
    moved = functionsToSplitOff(module, vectorize);
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  if (moved.empty()) {
    joinWorker();
    dropWorkerResult();
    if (vectorize)
      vectorizeLoops(module, *irMachine);
    timer.lap("optimise");
    auto machine = machines.get(0);
    if (!machine)
      return machine.takeError();
    auto object = objectCode(module, *machine);
    if (!object)
      return object.takeError();
    objects.push_back(std::move(*object));
    timer.lap("jit");
    return objects;
  }
  std::string bitcode = splitOff(module, moved);
  if (llvm::Error e = verifySplit(module)) {
    joinWorker();
    dropWorkerResult();
    return e;
  }
  handOff(&bitcode);
  timer.lap("split");
  // This thread's half: no early return until the worker has been joined.
  double t0 = threadCpuMs();
  if (vectorize)
    vectorizeLoops(module, *irMachine);
  double t1 = threadCpuMs();
  auto compileHere = [&]() -> llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> {
    auto machine = machines.get(0);
    if (!machine)
      return machine.takeError();
    return objectCode(module, *machine);
  };
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> here = compileHere();
  double t2 = threadCpuMs();
  joinWorker();
  timer.lap("jit-parallel");
  if (!here) {
    dropWorkerResult();
    return here.takeError();
  }
  objects.push_back(std::move(*here));
  if (!split.object)
    return internalError("the JIT's second compile thread handed back nothing");
  if (!*split.object)
    return split.object->takeError();
  objects.push_back(std::move(**split.object));
  if (options.verbose) {
    size_t functions = 0;
    for (const llvm::Function &f : module)
      functions += !f.isDeclaration();
    const WorkerTimes &w = split.times;
    llvm::errs() << llvm::format(
        "jit-threads: this thread %.3f ms cpu (vectorise %.3f, machine code %.3f; %zu "
        "functions), the other %.3f ms cpu (read %.3f, vectorise %.3f, machine code "
        "%.3f; %zu functions) after %.3f getting ready during the split\n",
        t2 - t0, t1 - t0, t2 - t1, functions, w.readMs + w.vectorizeMs + w.machineCodeMs, w.readMs,
        w.vectorizeMs, w.machineCodeMs, w.functions, w.readyMs);
  }
  return objects;
}

} // namespace dlm::codegen
