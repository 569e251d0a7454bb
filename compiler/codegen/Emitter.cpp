//===- compiler/codegen/Emitter.cpp - Structured graph -> LLVM IR ---------===//
//
// Every graph value gets a stack slot (promoted to SSA registers by mem2reg at -O1 and up): a
// 0-d tensor lives in it as a scalar of its dtype (i64, double, float, i32, i1), a tensor as an
// owned `dlm_tensor*`, a string as a `const char*`. Forwarding nodes share their input's slot.
// Tensor slots follow one ownership rule: a slot holds one reference, set when its node runs
// and dropped right after its last reader in the region that owns it (the program for the root
// frame, each iteration for a loop frame), or when that region ends (loop-carried variables
// when the loop exits). Slots start null and are nulled when dropped, so a branch that did not
// run releases nothing.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Emitter.h"

#include "compiler/codegen/CodegenError.h"
#include "compiler/codegen/ElementCode.h"
#include "compiler/ir/ErrorReport.h"
#include "compiler/ir/OpRegistry.h"
#include "compiler/opt/FusedOp.h"
#include "compiler/opt/GraphUtil.h"
#include "compiler/opt/MemoryPlanning.h"
#include "runtime/DType.h"
#include "runtime/Devices.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace dlm::codegen {

using graph::Graph;
using graph::Node;
using graph::NodeId;
using graph::ValueRef;

namespace {

enum class Repr : uint8_t { Scalar, Tensor, Str, Unsupported };

Repr reprOf(const Type &t) {
  if (t.isTensor())
    return t.rank() == 0 ? Repr::Scalar : Repr::Tensor;
  if (t.kind() == Type::Kind::Str)
    return Repr::Str;
  return Repr::Unsupported;
}

class Emitter {
public:
  Emitter(const Graph &g, const Structure &s, llvm::LLVMContext &ctx, const EmitOptions &options,
          std::string &error)
      : g(g), s(s), ctx(ctx), options(options), error(error), b(ctx), ib(ctx) {}

  std::unique_ptr<llvm::Module> run() {
    m = std::make_unique<llvm::Module>("dlm." + g.name(), ctx);
    code = std::make_unique<ElementCode>(b, *m);
    ptrTy = llvm::PointerType::get(ctx, 0);
    valueTy = llvm::StructType::get(ctx, {ptrTy, ptrTy});
    slots.resize(g.numNodes());
    countUses();
    beginInit();
    mainFn = llvm::Function::Create(llvm::FunctionType::get(b.getInt32Ty(), false),
                                    llvm::Function::ExternalLinkage, "dlm_main", m.get());
    finiFn = llvm::Function::Create(llvm::FunctionType::get(voidTy(), false),
                                    llvm::Function::InternalLinkage, "dlm_fini", m.get());
    finiFn->addFnAttr(llvm::Attribute::NoInline);
    allocaBlock = llvm::BasicBlock::Create(ctx, "entry", mainFn);
    beginTensorSlots();
    auto *start = llvm::BasicBlock::Create(ctx, "start", mainFn);
    b.SetInsertPoint(start);
    llvm::Value *initStatus = b.CreateCall(initFn);
    auto *fail = llvm::BasicBlock::Create(ctx, "init.failed", mainFn);
    auto *go = llvm::BasicBlock::Create(ctx, "program", mainFn);
    b.CreateCondBr(b.CreateICmpNE(initStatus, b.getInt32(0)), fail, go);
    b.SetInsertPoint(fail);
    b.CreateCall(finiFn);
    b.CreateRet(b.getInt32(1));
    b.SetInsertPoint(go);
    emitItems(s.regions[graph::kRootFrame], [](const Item &) { return true; });
    releaseOwned(s.regions[graph::kRootFrame]);
    b.CreateCall(finiFn);
    b.CreateRet(b.getInt32(0));
    llvm::IRBuilder<> ab(allocaBlock);
    ab.CreateBr(start);
    ib.CreateRet(ib.getInt32(0));
    finishFini();
    finishFailBlock();
    if (options.withMain)
      emitMain();
    if (!error.empty())
      return nullptr;
    std::string broken;
    llvm::raw_string_ostream os(broken);
    if (options.verify && llvm::verifyModule(*m, &os)) {
      error = "generated an invalid LLVM module: " + os.str();
      return nullptr;
    }
    return std::move(m);
  }

private:
  // --- runtime declarations --------------------------------------------------------------
  llvm::FunctionCallee rt(llvm::StringRef name, llvm::Type *ret,
                          llvm::ArrayRef<llvm::Type *> args) {
    return m->getOrInsertFunction(name, llvm::FunctionType::get(ret, args, false));
  }
  llvm::Type *i32() { return b.getInt32Ty(); }
  llvm::Type *i64() { return b.getInt64Ty(); }
  llvm::Type *voidTy() { return b.getVoidTy(); }

  void retain(llvm::IRBuilder<> &at, llvm::Value *t) {
    at.CreateCall(rt("dlm_tensor_retain", voidTy(), {ptrTy}), {t});
  }
  /// Drops a reference; a null one (a branch that did not run, a moved value) costs a test.
  /// (Inline, not a call to a shared helper: at machine-code level 0 — the large-program JIT
  /// path — a helper made the LSTM training step ~5% slower, for ~6 ms less compile time.)
  void release(llvm::IRBuilder<> &at, llvm::Value *t) {
    llvm::BasicBlock *from = at.GetInsertBlock();
    llvm::Function *fn = from->getParent();
    auto *live = llvm::BasicBlock::Create(ctx, "release", fn);
    auto *next = llvm::BasicBlock::Create(ctx, "released", fn);
    at.CreateCondBr(at.CreateIsNull(t), next, live);
    at.SetInsertPoint(live);
    at.CreateCall(rt("dlm_tensor_release", voidTy(), {ptrTy}), {t});
    at.CreateBr(next);
    at.SetInsertPoint(next);
  }
  /// Drops the reference tensor slot `slot` holds, if any, and nulls the slot.
  void drop(llvm::Value *slot) {
    release(b, b.CreateLoad(ptrTy, slot));
    b.CreateStore(llvm::ConstantPointerNull::get(ptrTy), slot);
  }

  llvm::Type *scalarType(DType t) { return code->scalarType(t); }

  // --- constants and globals ------------------------------------------------------------
  llvm::Constant *cstr(const std::string &text) {
    auto [it, fresh] = strings.try_emplace(text, nullptr);
    if (fresh) {
      auto *init = llvm::ConstantDataArray::getString(ctx, text, true);
      it->second = new llvm::GlobalVariable(*m, init->getType(), true,
                                            llvm::GlobalValue::PrivateLinkage, init, ".str");
    }
    return it->second;
  }

  template <typename T> llvm::Constant *constArray(llvm::ArrayRef<T> values) {
    auto *init = llvm::ConstantDataArray::get(ctx, values);
    return new llvm::GlobalVariable(*m, init->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                    init, ".arr");
  }

  llvm::GlobalVariable *global(llvm::Type *ty, llvm::Constant *init, const llvm::Twine &name) {
    return new llvm::GlobalVariable(*m, ty, false, llvm::GlobalValue::InternalLinkage, init, name);
  }

  // --- @dlm_init ------------------------------------------------------------------------
  void beginInit() {
    initFn = llvm::Function::Create(llvm::FunctionType::get(i32(), false),
                                    llvm::Function::InternalLinkage, "dlm_init", m.get());
    initFn->addFnAttr(llvm::Attribute::NoInline); // runs once: not worth optimising into main
    initFn->addFnAttr(llvm::Attribute::Cold);
    auto *entry = llvm::BasicBlock::Create(ctx, "entry", initFn);
    initFail = llvm::BasicBlock::Create(ctx, "failed", initFn);
    llvm::IRBuilder<>(initFail).CreateRet(llvm::ConstantInt::get(i32(), 1));
    ib.SetInsertPoint(entry);
  }

  /// In @dlm_init: branch to the failure exit when `bad` holds.
  void initCheck(llvm::Value *bad) {
    auto *next = llvm::BasicBlock::Create(ctx, "init", initFn);
    ib.CreateCondBr(bad, initFail, next);
    ib.SetInsertPoint(next);
  }

  std::string kernelName(const Node &n) {
    const OpInfo *info = OpRegistry::get().lookup(n.op);
    if (info && !info->kernels[(int)Device::CPU].empty())
      return info->kernels[(int)Device::CPU];
    return n.op;
  }

  llvm::GlobalVariable *kernelId(const std::string &name) {
    auto [it, fresh] = kernelIds.try_emplace(name, nullptr);
    if (!fresh)
      return it->second;
    it->second = global(i32(), ib.getInt32(-1), "kernel." + name);
    llvm::Value *id = ib.CreateCall(rt("dlm_kernel_id", i32(), {ptrTy}), {cstr(name)});
    ib.CreateStore(id, it->second);
    initCheck(ib.CreateICmpSLT(id, ib.getInt32(0)));
    return it->second;
  }

  std::vector<int64_t> runtimeShape(const Shape &shape) {
    std::vector<int64_t> dims;
    for (const Dim &d : shape)
      dims.push_back(d.isStatic() ? d.size() : isInferDim(d) ? -1 : kDynamicIndex);
    return dims;
  }

  void setAttr(llvm::Value *a, const std::string &name, const AttrValue &value) {
    llvm::Constant *key = cstr(name);
    auto call = [&](const char *fn, llvm::Type *ty, llvm::Value *v) {
      ib.CreateCall(rt(fn, voidTy(), {ptrTy, ptrTy, ty}), {a, key, v});
    };
    auto ints = [&](const std::vector<int64_t> &v) {
      ib.CreateCall(rt("dlm_attrs_set_ints", voidTy(), {ptrTy, ptrTy, ptrTy, i64()}),
                    {a, key, constArray<int64_t>(v), ib.getInt64(v.size())});
    };
    if (auto *v = std::get_if<int64_t>(&value))
      return call("dlm_attrs_set_int", i64(), ib.getInt64(*v));
    if (auto *v = std::get_if<double>(&value))
      return call("dlm_attrs_set_float", b.getDoubleTy(),
                  llvm::ConstantFP::get(b.getDoubleTy(), *v));
    if (auto *v = std::get_if<bool>(&value))
      return call("dlm_attrs_set_bool", i32(), ib.getInt32(*v));
    if (auto *v = std::get_if<std::string>(&value))
      return call("dlm_attrs_set_string", ptrTy, cstr(*v));
    if (auto *v = std::get_if<DType>(&value))
      return call("dlm_attrs_set_dtype", i32(), ib.getInt32((int)*v));
    if (auto *v = std::get_if<std::vector<int64_t>>(&value))
      return ints(*v);
    if (auto *v = std::get_if<Shape>(&value))
      return ints(runtimeShape(*v));
    if (auto *v = std::get_if<std::vector<double>>(&value)) {
      ib.CreateCall(rt("dlm_attrs_set_floats", voidTy(), {ptrTy, ptrTy, ptrTy, i64()}),
                    {a, key, constArray<double>(*v), ib.getInt64(v->size())});
      return;
    }
    if (auto *v = std::get_if<std::vector<DType>>(&value)) {
      std::vector<int32_t> codes;
      for (DType d : *v)
        codes.push_back((int32_t)d);
      ib.CreateCall(rt("dlm_attrs_set_dtypes", voidTy(), {ptrTy, ptrTy, ptrTy, i64()}),
                    {a, key, constArray<int32_t>(codes), ib.getInt64(codes.size())});
      return;
    }
    if (auto *v = std::get_if<std::vector<Shape>>(&value)) {
      std::vector<int64_t> dims, ranks;
      for (const Shape &shape : *v) {
        std::vector<int64_t> d = runtimeShape(shape);
        dims.insert(dims.end(), d.begin(), d.end());
        ranks.push_back((int64_t)d.size());
      }
      ib.CreateCall(rt("dlm_attrs_set_shapes", voidTy(), {ptrTy, ptrTy, ptrTy, ptrTy, i64()}),
                    {a, key, constArray<int64_t>(dims), constArray<int64_t>(ranks),
                     ib.getInt64(ranks.size())});
    }
  }

  /// A global holding node n's attributes, built by @dlm_init; null when it has none.
  llvm::Value *attrsOf(const Node &n) {
    if (n.attrs.empty())
      return llvm::ConstantPointerNull::get(ptrTy);
    auto *gv = global(ptrTy, llvm::ConstantPointerNull::get(ptrTy), "attrs." + llvm::Twine(n.id));
    attrObjects.push_back(gv);
    llvm::Value *a = ib.CreateCall(rt("dlm_attrs_new", ptrTy, {}), {});
    for (const auto &[name, value] : n.attrs)
      setAttr(a, name, value);
    ib.CreateStore(a, gv);
    return b.CreateLoad(ptrTy, gv);
  }

  // --- slots ----------------------------------------------------------------------------
  Repr repr(ValueRef v) { return reprOf(g.typeOf(v)); }

  llvm::Type *slotType(ValueRef v) {
    const Type &t = g.typeOf(v);
    return reprOf(t) == Repr::Scalar ? scalarType(t.dtype()) : ptrTy;
  }

  /// Tensor slots are the elements of one array (`tensors`, zeroed in the entry block) rather
  /// than allocas of their own, so that the error exit can release every reference the program
  /// holds with one call (releaseTensorsFunction) instead of a phi per slot and failing call.
  /// The array is as long as the graph has tensor results.
  void beginTensorSlots() {
    tensorCount = 0;
    for (const Node &n : g.nodes())
      for (uint32_t p = 0; p < n.numResults(); ++p)
        if (repr({n.id, p}) == Repr::Tensor)
          ++tensorCount;
    llvm::IRBuilder<> ab(allocaBlock);
    tensors = ab.CreateAlloca(ptrTy, ab.getInt64(std::max<uint64_t>(tensorCount, 1)), "tensors");
    ab.CreateMemSet(tensors, ab.getInt8(0), std::max<uint64_t>(tensorCount, 1) * 8,
                    llvm::MaybeAlign(8));
  }

  /// The slot of a resolved value, created in the entry block on first use: an element of the
  /// tensor array for a tensor, an alloca otherwise (a str slot starts null).
  llvm::Value *slot(ValueRef v) {
    std::vector<llvm::Value *> &ports = slots[v.node];
    if (ports.size() <= v.port)
      ports.resize(g.node(v.node).numResults(), nullptr);
    if (!ports[v.port]) {
      llvm::IRBuilder<> ab(allocaBlock);
      llvm::Type *ty = slotType(v);
      std::string name = "v" + std::to_string(v.node) + "." + std::to_string(v.port);
      if (repr(v) == Repr::Tensor) {
        ports[v.port] = ab.CreateConstInBoundsGEP1_64(ptrTy, tensors, tensorUsed++, name);
      } else {
        ports[v.port] = ab.CreateAlloca(ty, nullptr, name);
        if (ty == ptrTy)
          ab.CreateStore(llvm::ConstantPointerNull::get(ptrTy), ports[v.port]);
      }
    }
    return ports[v.port];
  }

  llvm::Value *load(ValueRef v) {
    ValueRef r = s.resolve(g, v);
    return b.CreateLoad(slotType(r), slot(r));
  }
  /// Stores into v's slot. A value of another machine type (a forwarding node or loop variable
  /// declared with a dtype its input does not have) would silently overwrite the slot with the
  /// wrong bits: it is an internal error instead.
  void store(ValueRef v, llvm::Value *x) {
    llvm::Type *want = slotType(v);
    if (x->getType() != want) {
      unsupported(g.node(v.node), "stores a " + typeName(x->getType()) + " into a " +
                                      typeName(want) + " slot (its type " + g.typeOf(v).str() +
                                      " disagrees with its operand's)");
      return;
    }
    b.CreateStore(x, slot(v));
  }
  static std::string typeName(llvm::Type *t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    t->print(os);
    return s;
  }

  /// One operand (or result) array shared by every kernel call site, as large as the largest.
  llvm::AllocaInst *callArray(llvm::AllocaInst *&array, llvm::Type *ty) {
    if (!array) {
      size_t most = 1;
      for (const Node &n : g.nodes())
        most = std::max({most, n.inputs.size(), n.numResults()});
      array = entryAlloca(ty, (unsigned)most);
    }
    return array;
  }

  llvm::AllocaInst *entryAlloca(llvm::Type *ty, unsigned count = 1) {
    llvm::IRBuilder<> ab(allocaBlock);
    return ab.CreateAlloca(ty, ab.getInt32(count));
  }

  void releaseOwned(const Region &region) {
    for (NodeId id : region.owned)
      for (uint32_t p = 0; p < g.node(id).numResults(); ++p) {
        ValueRef v{id, p};
        if (repr(v) == Repr::Tensor)
          drop(slot(v));
      }
  }

  // --- errors ---------------------------------------------------------------------------
  /// Branches to an error exit for node n when `failed` holds: records n's .dlm location and
  /// returns 1 from @dlm_main (the message is already set by the runtime).
  /// All failing checks branch to one exit block, passing their site (an index into a table of
  /// locations) through a phi: one compare and branch per call instead of a block each.
  void checkFailure(llvm::Value *failed, const Node &n) {
    if (!failBlock) {
      failBlock = llvm::BasicBlock::Create(ctx, "fail", mainFn);
      failSite = llvm::PHINode::Create(i32(), 0, "site", failBlock);
    }
    auto [it, fresh] = siteOf.try_emplace(n.id, (uint32_t)siteReports.size());
    if (fresh)
      siteReports.push_back(graph::describeError(g, n.loc));
    auto *ok = llvm::BasicBlock::Create(ctx, "ok", mainFn);
    failSite->addIncoming(b.getInt32(it->second), b.GetInsertBlock());
    b.CreateCondBr(failed, failBlock, ok, llvm::MDBuilder(ctx).createUnlikelyBranchWeights());
    b.SetInsertPoint(ok);
  }

  /// A failure site, runtime/CApi.h's dlm_error_site: where the error is reported (file, line,
  /// column, source line), the message's prefix (or null), the notes and their count.
  llvm::StructType *siteTy() {
    return llvm::StructType::get(ctx, {ptrTy, i32(), i32(), ptrTy, ptrTy, ptrTy, i32()});
  }
  /// A note, dlm_error_note: file, line, column, source line, message.
  llvm::StructType *noteTy() {
    return llvm::StructType::get(ctx, {ptrTy, i32(), i32(), ptrTy, ptrTy});
  }

  /// The failure-site table (one entry per failing node: reported at the user's line, the
  /// inlined calls it is in as notes; compiler/ir/ErrorReport.h) and one table of notes, each
  /// run of notes stored once, that the entries point into.
  llvm::GlobalVariable *siteTable() {
    llvm::Constant *null = llvm::ConstantPointerNull::get(ptrTy);
    auto sourceLine = [&](const graph::Location &at) {
      return cstr(options.sourceLine ? options.sourceLine(at) : "");
    };
    std::vector<llvm::Constant *> notes;
    std::map<std::string, uint32_t> runs; // a run of notes (as text) -> its first entry
    std::vector<std::optional<uint32_t>> firstNote;
    for (const graph::ErrorReport &r : siteReports) {
      std::string key;
      for (const graph::ErrorNote &n : r.notes)
        key += std::string(n.at.file) + ":" + std::to_string(n.at.line) + ":" +
               std::to_string(n.at.col) + " " + n.message + "\n";
      if (key.empty()) {
        firstNote.emplace_back();
        continue;
      }
      auto [it, fresh] = runs.try_emplace(key, (uint32_t)notes.size());
      firstNote.push_back(it->second);
      if (fresh)
        for (const graph::ErrorNote &n : r.notes)
          notes.push_back(llvm::ConstantStruct::get(
              noteTy(), {cstr(std::string(n.at.file)), b.getInt32(n.at.line), b.getInt32(n.at.col),
                         sourceLine(n.at), cstr(n.message)}));
    }
    llvm::GlobalVariable *noteTable = nullptr;
    if (!notes.empty()) {
      auto *init = llvm::ConstantArray::get(llvm::ArrayType::get(noteTy(), notes.size()), notes);
      noteTable = new llvm::GlobalVariable(*m, init->getType(), true,
                                           llvm::GlobalValue::PrivateLinkage, init, "notes");
    }
    std::vector<llvm::Constant *> sites;
    for (size_t i = 0; i < siteReports.size(); ++i) {
      const graph::ErrorReport &r = siteReports[i];
      llvm::Constant *first = null;
      if (firstNote[i])
        first = llvm::ConstantExpr::getInBoundsGetElementPtr(
            noteTable->getValueType(), noteTable,
            llvm::ArrayRef<llvm::Constant *>{b.getInt32(0), b.getInt32(*firstNote[i])});
      sites.push_back(llvm::ConstantStruct::get(
          siteTy(), {cstr(std::string(r.at.file)), b.getInt32(r.at.line), b.getInt32(r.at.col),
                     sourceLine(r.at), r.prefix.empty() ? null : cstr(r.prefix), first,
                     b.getInt32((int32_t)r.notes.size())}));
    }
    auto *table = llvm::ConstantArray::get(llvm::ArrayType::get(siteTy(), sites.size()), sites);
    return new llvm::GlobalVariable(*m, table->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                    table, "sites");
  }

  /// The shared error exit: dlm_set_error_site(&sites[site]); return 1.
  void finishFailBlock() {
    if (!failBlock)
      return;
    llvm::GlobalVariable *gv = siteTable();
    llvm::IRBuilder<> fb(failBlock);
    llvm::Value *site = fb.CreateInBoundsGEP(gv->getValueType(), gv, {fb.getInt32(0), failSite});
    fb.CreateCall(rt("dlm_set_error_site", voidTy(), {ptrTy}), {site});
    // Every slot holds one reference or null, so dropping them all releases exactly what the
    // program owned when it stopped (the root's values and the live iteration's of every loop).
    fb.CreateCall(releaseTensorsFunction(), {tensors, fb.getInt64(tensorCount)});
    fb.CreateCall(finiFn);
    fb.CreateRet(fb.getInt32(1));
  }
  /// `void dlm_release_tensors(ptr slots, i64 n)`: dlm_tensor_release on each (null-safe).
  llvm::Function *releaseTensorsFunction() {
    auto *fn =
        llvm::Function::Create(llvm::FunctionType::get(voidTy(), {ptrTy, i64()}, false),
                               llvm::Function::InternalLinkage, "dlm_release_tensors", m.get());
    fn->addFnAttr(llvm::Attribute::Cold);
    fn->addFnAttr(llvm::Attribute::NoInline);
    auto *entry = llvm::BasicBlock::Create(ctx, "entry", fn);
    auto *body = llvm::BasicBlock::Create(ctx, "slot", fn);
    auto *done = llvm::BasicBlock::Create(ctx, "done", fn);
    llvm::IRBuilder<> fb(entry);
    fb.CreateCondBr(fb.CreateICmpSGT(fn->getArg(1), fb.getInt64(0)), body, done);
    fb.SetInsertPoint(body);
    llvm::PHINode *i = fb.CreatePHI(i64(), 2, "i");
    i->addIncoming(fb.getInt64(0), entry);
    fb.CreateCall(rt("dlm_tensor_release", voidTy(), {ptrTy}),
                  {fb.CreateLoad(ptrTy, fb.CreateInBoundsGEP(ptrTy, fn->getArg(0), i))});
    llvm::Value *next = fb.CreateAdd(i, fb.getInt64(1));
    i->addIncoming(next, body);
    fb.CreateCondBr(fb.CreateICmpSLT(next, fn->getArg(1)), body, done);
    fb.SetInsertPoint(done);
    fb.CreateRetVoid();
    return fn;
  }

  /// @dlm_fini, run on every exit of @dlm_main: drops what @dlm_init built (the tensor
  /// literals' references and the attribute objects) and nulls the globals, so that running
  /// the entry again (a JitSession cache hit) starts from a clean state.
  void finishFini() {
    llvm::IRBuilder<> fb(llvm::BasicBlock::Create(ctx, "entry", finiFn));
    llvm::Value *null = llvm::ConstantPointerNull::get(ptrTy);
    for (llvm::GlobalVariable *gv : constTensors) {
      fb.CreateCall(rt("dlm_tensor_release", voidTy(), {ptrTy}), {fb.CreateLoad(ptrTy, gv)});
      fb.CreateStore(null, gv);
    }
    for (llvm::GlobalVariable *gv : attrObjects) {
      fb.CreateCall(rt("dlm_attrs_free", voidTy(), {ptrTy}), {fb.CreateLoad(ptrTy, gv)});
      fb.CreateStore(null, gv);
    }
    fb.CreateRetVoid();
  }

  void checkStatus(llvm::Value *status, const Node &n) {
    checkFailure(b.CreateICmpNE(status, b.getInt32(0)), n);
  }

  /// A loop's back-edge: one load of dlm_interrupt_flag (runtime/Interrupt.h) and a branch; a
  /// set flag stops the program like a run-time error at n ("interrupted").
  void checkInterrupt(const Node &n) {
    llvm::LoadInst *flag =
        b.CreateLoad(i32(), m->getOrInsertGlobal("dlm_interrupt_flag", i32()), "interrupt");
    flag->setAtomic(llvm::AtomicOrdering::Monotonic);
    flag->setAlignment(llvm::Align(4));
    auto *stop = llvm::BasicBlock::Create(ctx, "interrupted", mainFn);
    auto *go = llvm::BasicBlock::Create(ctx, "latch", mainFn);
    b.CreateCondBr(b.CreateICmpNE(flag, b.getInt32(0)), stop, go,
                   llvm::MDBuilder(ctx).createUnlikelyBranchWeights());
    b.SetInsertPoint(stop);
    checkStatus(b.CreateCall(rt("dlm_interrupted", i32(), {})), n);
    b.CreateBr(go);
    b.SetInsertPoint(go);
  }

  bool unsupported(const Node &n, const std::string &what) {
    if (error.empty())
      error = "node %" + std::to_string(n.id) + " ('" + n.op + "'): " + what;
    return false;
  }

  // --- regions --------------------------------------------------------------------------
  template <typename Filter> void emitItems(const Region &region, Filter filter) {
    Guard current;
    llvm::BasicBlock *join = nullptr;
    const std::vector<std::vector<ValueRef>> &dropAfter = lastReads(region);
    for (const Item &item : region.items) {
      if (!filter(item))
        continue;
      if (!item.isLoop()) {
        NodeRole role = s.roles[item.node];
        if (role == NodeRole::Forward || role == NodeRole::LoopMerge)
          continue;
      }
      if (item.guard != current) {
        if (join) {
          b.CreateBr(join);
          b.SetInsertPoint(join);
          join = nullptr;
        }
        current = item.guard;
        if (!current.empty())
          join = openGuard(current);
      }
      currentBody = item.body;
      if (item.isLoop())
        emitLoop(item.loop);
      else
        emitNode(g.node(item.node));
      for (ValueRef v : dropAfter[size_t(&item - region.items.data())])
        drop(slot(v));
    }
    if (join) {
      b.CreateBr(join);
      b.SetInsertPoint(join);
    }
  }

  /// The tensors `region` owns to drop after each of its items (by index in region.items): each
  /// after its last reader in emission order (a loop's header items, then its body items; a
  /// child loop reads what any node inside it reads), so that a long iteration (a training
  /// step) holds only what it still needs. A loop's next values and its Exits' operands are
  /// read after the items and stay to the iteration's end. Under a guard that does not hold,
  /// the drop does not run and the region's end releases the value as before.
  const std::vector<std::vector<ValueRef>> &lastReads(const Region &region) {
    auto [it, fresh] = dropAfterItem.try_emplace(region.frame);
    if (!fresh)
      return it->second;
    std::vector<std::vector<ValueRef>> &drops = it->second;
    drops.resize(region.items.size());
    std::vector<size_t> order;
    for (bool body : {false, true})
      for (size_t i = 0; i < region.items.size(); ++i)
        if (region.items[i].body == body)
          order.push_back(i);
    std::map<std::pair<NodeId, uint32_t>, size_t> last;
    auto read = [&](ValueRef v, size_t item) {
      ValueRef r = s.resolve(g, v);
      last[{r.node, r.port}] = item;
    };
    for (size_t i : order) {
      const Item &item = region.items[i];
      if (item.isLoop()) {
        for (const Node &n : g.nodes())
          if (g.frameWithin(n.frame, item.loop))
            for (ValueRef v : n.inputs)
              read(v, i);
      } else if (s.roles[item.node] == NodeRole::Compute ||
                 s.roles[item.node] == NodeRole::CondMerge) {
        for (ValueRef v : g.node(item.node).inputs)
          read(v, i);
      }
    }
    std::vector<ValueRef> kept = region.mergeNext;
    for (NodeId x : region.exits)
      kept.push_back(g.node(x).inputs[0]);
    for (ValueRef v : kept) {
      ValueRef r = s.resolve(g, v);
      last.erase({r.node, r.port});
    }
    for (NodeId id : region.owned)
      for (uint32_t p = 0; p < g.node(id).numResults(); ++p)
        if (auto l = last.find({id, p}); l != last.end() && repr({id, p}) == Repr::Tensor)
          drops[l->second].push_back({id, p});
    return drops;
  }

  /// Branches into a new block taken when every term of `guard` holds; returns the join block.
  llvm::BasicBlock *openGuard(const Guard &guard) {
    llvm::Value *cond = b.getTrue();
    for (const GuardTerm &term : guard) {
      llvm::Value *p = predicate(term.pred);
      cond = b.CreateAnd(cond, term.side ? p : b.CreateNot(p));
    }
    auto *then = llvm::BasicBlock::Create(ctx, "if", mainFn);
    auto *join = llvm::BasicBlock::Create(ctx, "endif", mainFn);
    b.CreateCondBr(cond, then, join);
    b.SetInsertPoint(then);
    return join;
  }

  llvm::Value *predicate(ValueRef v) {
    llvm::Value *p = load(v);
    if (!p->getType()->isIntegerTy(1)) {
      unsupported(g.node(v.node), "a predicate must be bool[]");
      return b.getFalse();
    }
    return p;
  }

  void emitLoop(graph::FrameId f) {
    const Region &loop = s.regions[f];
    for (size_t i = 0; i < loop.merges.size(); ++i) {
      llvm::Value *v = load(loop.mergeInit[i]);
      if (repr(loop.mergeInit[i]) == Repr::Tensor)
        retain(b, v);
      store({loop.merges[i], 0}, v);
    }
    auto *header = llvm::BasicBlock::Create(ctx, g.frame(f).name + ".header", mainFn);
    b.CreateBr(header);
    b.SetInsertPoint(header);
    emitItems(loop, [](const Item &item) { return !item.body; });
    auto *body = llvm::BasicBlock::Create(ctx, g.frame(f).name + ".body", mainFn);
    auto *exit = llvm::BasicBlock::Create(ctx, g.frame(f).name + ".exit", mainFn);
    b.CreateCondBr(predicate(loop.pred), body, exit);
    b.SetInsertPoint(body);
    emitItems(loop, [](const Item &item) { return item.body; });
    // Each next value moves into its variable when this iteration owns it (the first time it
    // is named), else the variable takes a new reference.
    std::vector<llvm::Value *> next;
    std::set<std::pair<NodeId, uint32_t>> moved;
    for (ValueRef v : loop.mergeNext) {
      next.push_back(load(v));
      if (repr(v) != Repr::Tensor)
        continue;
      ValueRef r = s.resolve(g, v);
      bool owned = g.node(r.node).frame == f &&
                   (s.roles[r.node] == NodeRole::Compute || s.roles[r.node] == NodeRole::CondMerge);
      if (owned && moved.insert({r.node, r.port}).second)
        store(r, llvm::ConstantPointerNull::get(ptrTy));
      else
        retain(b, next.back());
    }
    releaseOwned(loop);
    for (size_t i = 0; i < loop.merges.size(); ++i) {
      ValueRef merge{loop.merges[i], 0};
      if (repr(merge) == Repr::Tensor)
        drop(slot(merge));
      store(merge, next[i]);
    }
    checkInterrupt(g.node(loop.pred.node));
    b.CreateBr(header);
    b.SetInsertPoint(exit);
    for (NodeId x : loop.exits) {
      ValueRef in = g.node(x).inputs[0];
      llvm::Value *v = load(in);
      if (repr(in) == Repr::Tensor)
        retain(b, v);
      store({x, 0}, v);
    }
    releaseOwned(loop);
    for (NodeId merge : loop.merges)
      if (repr({merge, 0}) == Repr::Tensor)
        drop(slot({merge, 0}));
  }

  // --- nodes ----------------------------------------------------------------------------
  void emitNode(const Node &n) {
    for (uint32_t p = 0; p < n.numResults(); ++p)
      if (repr({n.id, p}) == Repr::Unsupported) {
        unsupported(n, "result type " + n.results[p].str() + " has no machine representation");
        return;
      }
    if (s.roles[n.id] == NodeRole::CondMerge)
      return emitCondMerge(n);
    if (n.op == "const" && emitConst(n))
      return;
    if (allScalar(n) && emitScalarOp(n))
      return;
    // A node placed on the GPU runs its kernel there: generated loops read host memory only.
    if (rt::runtimeDevice(n.device) != rt::Device::CPU)
      return emitKernelCall(n);
    if (emitElementwise(n))
      return;
    if (emitStaticSlice(n) || emitStaticSliceGrad(n) || emitStaticSplit(n) || emitStackOp(n) ||
        emitTranspose(n) || emitIndex(n) || emitReshape(n) || emitZeros(n) || emitSumToCopy(n))
      return;
    if (emitKernelRun(n))
      return;
    emitKernelCall(n);
  }

  /// Whether n has `numIn` tensor operands and one tensor result: the form of the direct calls.
  bool tensorsToTensor(const Node &n, size_t numIn) {
    if (n.inputs.size() != numIn || n.numResults() != 1 || repr({n.id, 0}) != Repr::Tensor)
      return false;
    for (ValueRef v : n.inputs)
      if (repr(v) != Repr::Tensor)
        return false;
    return true;
  }

  /// Stores the new reference a direct call returned as n's result, after the null check.
  void storeDirect(const Node &n, llvm::Value *t) {
    checkFailure(b.CreateIsNull(t), n);
    store({n.id, 0}, t);
  }

  /// The AD stack ops a loop runs every iteration (stack_push in the forward pass, stack_top
  /// and stack_pop in the gradient) call their C ABI entries directly: no operand array,
  /// attributes or kernel lookup.
  bool emitStackOp(const Node &n) {
    const char *fn = n.op == "stack_top"    ? "dlm_stack_top"
                     : n.op == "stack_pop"  ? "dlm_stack_pop"
                     : n.op == "stack_push" ? "dlm_stack_push"
                                            : nullptr;
    size_t numIn = n.op == "stack_push" ? 2 : 1;
    if (!fn || !tensorsToTensor(n, numIn))
      return false;
    std::vector<llvm::Value *> args;
    for (ValueRef v : n.inputs)
      args.push_back(load(v));
    storeDirect(n, b.CreateCall(rt(fn, ptrTy, std::vector<llvm::Type *>(numIn, ptrTy)), args));
    return true;
  }

  /// The node's int attribute `name`, if it has one.
  std::optional<int64_t> intAttr(const Node &n, const char *name) {
    const AttrValue *a = n.attr(name);
    const int64_t *v = a ? std::get_if<int64_t>(a) : nullptr;
    return v ? std::optional<int64_t>(*v) : std::nullopt;
  }

  /// `transpose{perm}` (a view) with the permutation checked here against the operand's static
  /// rank: `dlm_tensor_transpose` permutes dims and strides without the kernel's attribute
  /// parsing and checks. A permutation the kernel would reject takes the kernel (its error).
  bool emitTranspose(const Node &n) {
    if (n.op != "transpose" || !tensorsToTensor(n, 1))
      return false;
    int64_t rank = (int64_t)g.typeOf(n.inputs[0]).rank();
    std::vector<int64_t> perm;
    if (const AttrValue *a = n.attr("perm")) {
      const std::vector<int64_t> *p = std::get_if<std::vector<int64_t>>(a);
      if (!p)
        return false;
      perm = *p;
    }
    if (perm.empty())
      for (int64_t d = rank - 1; d >= 0; --d)
        perm.push_back(d);
    if ((int64_t)perm.size() != rank)
      return false;
    std::vector<bool> seen(rank, false);
    for (int64_t &a : perm) {
      if (a < -rank || a >= rank)
        return false;
      if (a < 0)
        a += rank;
      if (seen[a])
        return false;
      seen[a] = true;
    }
    storeDirect(
        n, b.CreateCall(rt("dlm_tensor_transpose", ptrTy, {ptrTy, i32(), ptrTy}),
                        {load(n.inputs[0]), b.getInt32((int)rank), constArray<int64_t>(perm)}));
    return true;
  }

  /// `index{axis}(x, i)` with a register integer index and a tensor result (x[t] in a loop): the
  /// view `dlm_tensor_select` makes, with the kernel's bounds check; no boxing of i.
  bool emitIndex(const Node &n) {
    if (n.op != "index" || n.inputs.size() != 2 || n.numResults() != 1 ||
        repr(n.inputs[0]) != Repr::Tensor || repr(n.inputs[1]) != Repr::Scalar ||
        repr({n.id, 0}) != Repr::Tensor)
      return false;
    DType it = g.typeOf(n.inputs[1]).dtype();
    int64_t rank = (int64_t)g.typeOf(n.inputs[0]).rank(),
            axis = intAttr(n, "axis").value_or(n.attr("axis") ? rank : 0);
    if ((it != DType::I64 && it != DType::I32) || axis < -rank || axis >= rank)
      return false;
    if (axis < 0)
      axis += rank;
    llvm::Value *i = b.CreateSExt(load(n.inputs[1]), i64());
    storeDirect(n, b.CreateCall(rt("dlm_tensor_select", ptrTy, {ptrTy, i32(), i64()}),
                                {load(n.inputs[0]), b.getInt32((int)axis), i}));
    return true;
  }

  /// A shape attribute without run-time dims (a reshape's may hold one -1), as the kernel reads it.
  std::optional<std::vector<int64_t>> fixedShapeAttr(const Node &n) {
    const AttrValue *a = n.attr("shape");
    std::vector<int64_t> dims;
    if (const Shape *shape = a ? std::get_if<Shape>(a) : nullptr)
      dims = runtimeShape(*shape);
    else if (const std::vector<int64_t> *v = a ? std::get_if<std::vector<int64_t>>(a) : nullptr)
      dims = *v;
    else
      return std::nullopt;
    for (int64_t d : dims)
      if (d == kDynamicIndex)
        return std::nullopt;
    return dims;
  }

  /// `reshape{shape}(x)` with a shape fixed at compile time: `dlm_tensor_reshape` (a view of a
  /// contiguous operand) without the kernel's attribute parsing.
  bool emitReshape(const Node &n) {
    if (n.op != "reshape" || !tensorsToTensor(n, 1))
      return false;
    std::optional<std::vector<int64_t>> shape = fixedShapeAttr(n);
    if (!shape)
      return false;
    storeDirect(n, b.CreateCall(rt("dlm_tensor_reshape", ptrTy, {ptrTy, i32(), ptrTy}),
                                {load(n.inputs[0]), b.getInt32((int)shape->size()),
                                 constArray<int64_t>(*shape)}));
    return true;
  }

  /// `zeros{shape, dtype}` of a fixed shape (a gradient accumulator's start, made again every
  /// training step): `dlm_tensor_zeros`.
  bool emitZeros(const Node &n) {
    if (n.op != "zeros" || !tensorsToTensor(n, 0))
      return false;
    std::optional<std::vector<int64_t>> shape = fixedShapeAttr(n);
    DType dt = DType::F32;
    if (const AttrValue *a = n.attr("dtype")) {
      const DType *d = std::get_if<DType>(a);
      if (!d)
        return false;
      dt = *d;
    }
    if (!shape)
      return false;
    for (int64_t d : *shape)
      if (d < 0)
        return false;
    storeDirect(n, b.CreateCall(rt("dlm_tensor_zeros", ptrTy, {i32(), i32(), ptrTy}),
                                {b.getInt32((int)dt), b.getInt32((int)shape->size()),
                                 constArray<int64_t>(*shape)}));
    denseResults.insert({n.id, 0});
    return true;
  }

  /// `sum_to{shape}(x)` of a float x whose static shape is `shape` after leading axes of size 1
  /// (an LSTM's bias gradient [1, 128] -> [128], every step): no sum to compute, so
  /// `dlm_tensor_sum_to` copies the elements (plus 0.0, as the kernel's sum from zero) without
  /// the reduction's planning. The shapes are checked here as the kernel checks them.
  bool emitSumToCopy(const Node &n) {
    if (n.op != "sum_to" || !tensorsToTensor(n, 1))
      return false;
    const Type &in = g.typeOf(n.inputs[0]);
    std::optional<std::vector<int64_t>> target = fixedShapeAttr(n);
    if (!target || !isFloat(in.dtype()) || n.results[0].dtype() != in.dtype() ||
        target->size() > in.rank())
      return false;
    size_t lead = in.rank() - target->size();
    if (lead == 0)
      return false; // (nothing summed: the kernel returns x itself)
    for (size_t d = 0; d < in.rank(); ++d) {
      if (!in.shape()[d].isStatic())
        return false;
      int64_t size = in.shape()[d].size();
      if (d < lead ? size != 1 : (*target)[d - lead] != size)
        return false; // a real sum (or an error)
    }
    storeDirect(n, b.CreateCall(rt("dlm_tensor_sum_to", ptrTy, {ptrTy, i32(), ptrTy, ptrTy}),
                                {load(n.inputs[0]), b.getInt32((int)target->size()),
                                 constArray<int64_t>(*target), attrsOf(n)}));
    return true;
  }

  /// Any other op with tensor (or boxed scalar) operands and one tensor result: the generic
  /// fast path `dlm_kernel_run`, which borrows the operands and returns the result (no value
  /// structs, output array, output count or status to read back).
  bool emitKernelRun(const Node &n) {
    if (n.numResults() != 1 || repr({n.id, 0}) != Repr::Tensor)
      return false;
    for (ValueRef v : n.inputs)
      if (repr(v) != Repr::Tensor && repr(v) != Repr::Scalar)
        return false;
    llvm::Value *id = b.CreateLoad(i32(), kernelId(kernelName(n)));
    llvm::Value *attrs = attrsOf(n);
    llvm::AllocaInst *ins = callArray(runInputs, ptrTy);
    std::vector<llvm::Value *> boxed;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      ValueRef v = n.inputs[i];
      llvm::Value *x = load(v);
      if (repr(v) == Repr::Scalar)
        boxed.push_back(x = box(x, g.typeOf(v).dtype()));
      b.CreateStore(x, b.CreateConstGEP1_32(ptrTy, ins, (unsigned)i));
    }
    std::optional<ValueRef> acc = accumulatorDonor(n);
    llvm::Value *t =
        acc ? b.CreateCall(rt("dlm_matmul_bias_accumulate", ptrTy, {i32(), ptrTy, ptrTy}),
                           {id, ins, attrs})
            : b.CreateCall(rt("dlm_kernel_run", ptrTy, {i32(), ptrTy, i32(), ptrTy}),
                           {id, ins, b.getInt32((int)n.inputs.size()), attrs});
    for (llvm::Value *x : boxed)
      release(b, x);
    storeDirect(n, t);
    if (acc) { // (the result may be the addend itself: its slot gives up the reference)
      llvm::Value *addend = b.CreateLoad(ptrTy, slot(*acc));
      b.CreateStore(
          b.CreateSelect(b.CreateICmpEQ(t, addend), llvm::ConstantPointerNull::get(ptrTy), addend),
          slot(*acc));
    }
    return true;
  }

  /// matmul_bias's addend (opt::accumulatorOperand), resolved, when n may take it over
  /// (donatable): dlm_matmul_bias_accumulate then writes the sum over it if nothing else holds it.
  std::optional<ValueRef> accumulatorDonor(const Node &n) {
    std::optional<size_t> k = opt::accumulatorOperand(g, n);
    if (!k || repr(n.inputs[*k]) != Repr::Tensor)
      return std::nullopt;
    ValueRef r = s.resolve(g, n.inputs[*k]);
    if (!donatable(n, r, currentBody))
      return std::nullopt;
    return r;
  }

  static std::vector<int64_t> staticSizes(const Shape &shape) {
    std::vector<int64_t> sizes;
    for (const Dim &d : shape)
      sizes.push_back(d.size());
    return sizes;
  }

  /// A `slice` with constant bounds and unit steps of an operand of static shape is a view
  /// made without the kernel (`dlm_tensor_slice`, which reads only the operand's strides and
  /// offset; staticSliceStart). An LSTM step slices its gates this way.
  bool emitStaticSlice(const Node &n) {
    if (n.op != "slice" || n.inputs.size() != 1 || n.numResults() != 1 ||
        repr(n.inputs[0]) != Repr::Tensor || repr({n.id, 0}) != Repr::Tensor)
      return false;
    const Shape &in = g.typeOf(n.inputs[0]).shape(), &out = n.results[0].shape();
    std::optional<std::vector<int64_t>> start = opt::staticSliceStart(n, in, out);
    if (!start)
      return false;
    llvm::Value *view =
        b.CreateCall(rt("dlm_tensor_slice", ptrTy, {ptrTy, i32(), ptrTy, ptrTy}),
                     {load(n.inputs[0]), b.getInt32((int)in.size()), constArray<int64_t>(*start),
                      constArray<int64_t>(staticSizes(out))});
    checkFailure(b.CreateIsNull(view), n);
    store({n.id, 0}, view);
    return true;
  }

  /// `split{axis, sizes}` of an operand of static shape (a merged autodiff stack's entry split
  /// back into its values, every gradient step) is one `dlm_tensor_slice` view per piece, as
  /// the kernel makes them (an empty piece starts at 0), without its attribute parsing and
  /// checks, which the static shapes settle here; anything else takes the kernel.
  bool emitStaticSplit(const Node &n) {
    if (n.op != "split" || n.inputs.size() != 1 || repr(n.inputs[0]) != Repr::Tensor)
      return false;
    const Shape &in = g.typeOf(n.inputs[0]).shape();
    int64_t rank = (int64_t)in.size(),
            axis = intAttr(n, "axis").value_or(n.attr("axis") ? rank : 0);
    const AttrValue *a = n.attr("sizes");
    const std::vector<int64_t> *sizes = a ? std::get_if<std::vector<int64_t>>(a) : nullptr;
    if (!sizes || axis < -rank || axis >= rank || sizes->size() != n.numResults())
      return false;
    if (axis < 0)
      axis += rank;
    for (const Dim &d : in)
      if (!d.isStatic())
        return false;
    int64_t total = 0;
    for (size_t p = 0; p < sizes->size(); ++p) {
      const Type &out = n.results[p];
      if (repr({n.id, (uint32_t)p}) != Repr::Tensor || (*sizes)[p] < 0 || out.rank() != in.size())
        return false;
      for (int64_t d = 0; d < rank; ++d)
        if (!out.shape()[d].isStatic() ||
            out.shape()[d].size() != (d == axis ? (*sizes)[p] : in[d].size()))
          return false;
      total += (*sizes)[p];
    }
    if (total != in[axis].size())
      return false;
    llvm::Value *x = load(n.inputs[0]);
    int64_t at = 0;
    for (size_t p = 0; p < sizes->size(); ++p) {
      std::vector<int64_t> start(rank, 0);
      if ((*sizes)[p] > 0)
        start[axis] = at;
      at += (*sizes)[p];
      llvm::Value *view = b.CreateCall(rt("dlm_tensor_slice", ptrTy, {ptrTy, i32(), ptrTy, ptrTy}),
                                       {x, b.getInt32((int)rank), constArray<int64_t>(start),
                                        constArray<int64_t>(staticSizes(n.results[p].shape()))});
      checkFailure(b.CreateIsNull(view), n);
      store({n.id, (uint32_t)p}, view);
    }
    return true;
  }

  /// `slice_grad` of such a slice (its gradient placed into zeros of the input's static shape;
  /// the LSTM backward assembles its gate gradients this way) calls `dlm_tensor_slice_grad`
  /// with the window's start resolved here instead of the kernel's attribute parsing and
  /// generic copy; the node's attributes go along for a gradient on another device.
  bool emitStaticSliceGrad(const Node &n) {
    if (n.op != "slice_grad" || n.inputs.size() != 1 || n.numResults() != 1 ||
        repr(n.inputs[0]) != Repr::Tensor || repr({n.id, 0}) != Repr::Tensor)
      return false;
    const Shape &in = n.results[0].shape(), &window = g.typeOf(n.inputs[0]).shape();
    std::optional<std::vector<int64_t>> start = opt::staticSliceStart(n, in, window);
    if (!start)
      return false;
    llvm::Value *grad =
        b.CreateCall(rt("dlm_tensor_slice_grad", ptrTy, {ptrTy, ptrTy, i32(), ptrTy, ptrTy}),
                     {load(n.inputs[0]), attrsOf(n), b.getInt32((int)in.size()),
                      constArray<int64_t>(staticSizes(in)), constArray<int64_t>(*start)});
    checkFailure(b.CreateIsNull(grad), n);
    store({n.id, 0}, grad);
    return true;
  }

  void emitCondMerge(const Node &n) {
    uint32_t t = s.mergeTrueInput[n.id];
    llvm::Value *v =
        b.CreateSelect(predicate(s.mergePred[n.id]), load(n.inputs[t]), load(n.inputs[1 - t]));
    if (repr({n.id, 0}) == Repr::Tensor)
      retain(b, v);
    store({n.id, 0}, v);
  }

  bool allScalar(const Node &n) {
    if (n.numResults() != 1 || repr({n.id, 0}) != Repr::Scalar || n.inputs.empty())
      return false;
    for (ValueRef v : n.inputs)
      if (repr(v) != Repr::Scalar)
        return false;
    return true;
  }

  /// A scalar constant in a register, a string in a global, or a tensor built once by
  /// @dlm_init (tensors are immutable, so every use shares it).
  bool emitConst(const Node &n) {
    const AttrValue *value = n.attr("value");
    if (!value || n.numResults() != 1)
      return false;
    Repr r = repr({n.id, 0});
    if (r == Repr::Str) {
      const std::string *text = std::get_if<std::string>(value);
      if (!text)
        return false;
      store({n.id, 0}, cstr(*text));
      return true;
    }
    if (r == Repr::Scalar) {
      DType dt = n.results[0].dtype();
      llvm::Type *ty = scalarType(dt);
      llvm::Value *c = nullptr;
      if (auto *i = std::get_if<int64_t>(value))
        c = isFloat(dt) ? llvm::ConstantFP::get(ty, (double)*i)
                        : llvm::ConstantInt::get(ty, *i != 0 && dt == DType::Bool ? 1 : *i);
      else if (auto *d = std::get_if<double>(value))
        c = isFloat(dt) ? llvm::ConstantFP::get(ty, *d) : nullptr;
      else if (auto *t = std::get_if<bool>(value))
        c = isFloat(dt) ? llvm::ConstantFP::get(ty, *t ? 1.0 : 0.0)
                        : llvm::ConstantInt::get(ty, *t);
      else if (auto *l = std::get_if<std::vector<double>>(value); l && l->size() == 1)
        c = constFromDouble(dt, ty, l->front()); // a 0-d literal {dtype, shape = [], value = [v]}
      if (!c)
        return false;
      store({n.id, 0}, c);
      return true;
    }
    // A tensor literal: one kernel call at start-up.
    auto *gv = global(ptrTy, llvm::ConstantPointerNull::get(ptrTy), "const." + llvm::Twine(n.id));
    constTensors.push_back(gv);
    llvm::Value *a = ib.CreateCall(rt("dlm_attrs_new", ptrTy, {}), {});
    for (const auto &[name, v] : n.attrs)
      setAttr(a, name, v);
    llvm::AllocaInst *out = nullptr;
    {
      llvm::IRBuilder<> ab(&initFn->getEntryBlock(), initFn->getEntryBlock().begin());
      out = ab.CreateAlloca(ptrTy);
    }
    llvm::GlobalVariable *id = kernelId(kernelName(n));
    llvm::Value *status = ib.CreateCall(
        rt("dlm_kernel_call", i32(), {i32(), ptrTy, i32(), ptrTy, ptrTy, i32(), ptrTy}),
        {ib.CreateLoad(i32(), id), llvm::ConstantPointerNull::get(ptrTy), ib.getInt32(0), a, out,
         ib.getInt32(1), llvm::ConstantPointerNull::get(ptrTy)});
    ib.CreateCall(rt("dlm_attrs_free", voidTy(), {ptrTy}), {a});
    initCheck(ib.CreateICmpNE(status, ib.getInt32(0)));
    ib.CreateStore(ib.CreateLoad(ptrTy, out), gv);
    llvm::Value *t = b.CreateLoad(ptrTy, gv);
    retain(b, t);
    store({n.id, 0}, t);
    return true;
  }

  /// The constant of dtype dt (machine type ty) the const kernel makes from a flat literal's
  /// value v (a C++ conversion, as Tensor::fromVector does); null when it is not representable.
  llvm::Constant *constFromDouble(DType dt, llvm::Type *ty, double v) {
    switch (dt) {
    case DType::F32:
      return llvm::ConstantFP::get(ty, (double)(float)v);
    case DType::F64:
      return llvm::ConstantFP::get(ty, v);
    case DType::Bool:
      return llvm::ConstantInt::get(ty, v != 0);
    case DType::I32:
      if (!(v > -2147483649.0 && v < 2147483648.0))
        return nullptr;
      return llvm::ConstantInt::get(ty, (uint64_t)(int64_t)(int32_t)v, true);
    case DType::I64:
      if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
        return nullptr;
      return llvm::ConstantInt::get(ty, (uint64_t)(int64_t)v, true);
    }
    return nullptr;
  }

  std::vector<DType> operandTypes(const Node &n) {
    std::vector<DType> types;
    for (ValueRef v : n.inputs)
      types.push_back(g.typeOf(v).dtype());
    return types;
  }

  /// The elementwise expression n computes: a `fused` node's body, or n itself as one
  /// statement (a registry elementwise op without attributes, or cast); nullopt otherwise.
  std::optional<ElementBody> elementBody(const Node &n) {
    if (n.numResults() != 1 || n.inputs.empty() || !n.results[0].isTensor())
      return std::nullopt;
    if (n.op == "fused") {
      const AttrValue *text = n.attr("body");
      const std::string *body = text ? std::get_if<std::string>(text) : nullptr;
      if (!body)
        return std::nullopt;
      return opt::parseFusedBody(*body, n.inputs.size());
    }
    const OpInfo *info = OpRegistry::get().lookup(n.op);
    if (!info || !info->elementwise || !(n.attrs.empty() || n.op == "cast"))
      return std::nullopt;
    opt::FusedStatement st;
    st.op = n.op;
    for (unsigned i = 0; i < n.inputs.size(); ++i)
      st.operands.push_back(i);
    st.dtype = n.results[0].dtype();
    return ElementBody{st};
  }

  /// An elementwise op (or a fused node) on scalars: inline instructions in registers.
  bool emitScalarOp(const Node &n) {
    std::optional<ElementBody> body = elementBody(n);
    std::vector<DType> types = operandTypes(n);
    if (!body || !code->supports(*body, types))
      return false;
    std::vector<llvm::Value *> args;
    for (ValueRef v : n.inputs)
      args.push_back(load(v));
    store({n.id, 0}, code->body(*body, args, types));
    return true;
  }

  /// Counts, per resolved value, its readers (Exits apart): a tensor read once may be updated
  /// in place by that reader.
  void countUses() {
    uses.assign(g.numNodes(), {});
    exitUses.assign(g.numNodes(), {});
    for (const Node &n : g.nodes()) {
      if (s.roles[n.id] == NodeRole::Forward)
        continue;
      for (ValueRef v : n.inputs) {
        ValueRef r = s.resolve(g, v);
        auto &counts = s.roles[n.id] == NodeRole::Exit ? exitUses[r.node] : uses[r.node];
        if (counts.size() <= r.port)
          counts.resize(r.port + 1, 0);
        ++counts[r.port];
      }
    }
  }

  unsigned useCount(const std::vector<std::vector<unsigned>> &counts, ValueRef r) {
    return r.port < counts[r.node].size() ? counts[r.node][r.port] : 0;
  }

  /// Whether node n may take over operand value r's tensor (when, at run time, nothing else
  /// holds it): n is r's only reader, in r's own frame, and an Exit reading r (a loop
  /// variable) runs only after the loop, never after n in the same iteration.
  bool donatable(const Node &n, ValueRef r, bool nInBody) {
    const Node &producer = g.node(r.node);
    if (producer.frame != n.frame || useCount(uses, r) != 1)
      return false;
    if (useCount(exitUses, r) == 0)
      return true;
    return s.roles[r.node] == NodeRole::LoopMerge && nInBody;
  }

  /// An elementwise op or a fused node with a tensor result as one loop nest over the output
  /// (ElementCode::loopFunction), its body inlined as scalar code: operands broadcast by
  /// strides (the broadcast pattern is read from the static types: an operand dim equal to the
  /// result's runs along it, a static 1 is broadcast; anything else takes the kernel), views
  /// are first copied dense, and the output takes over a donated operand's buffer when it can
  /// (in place). Output dims of static size 1 are dropped and adjacent dims along which every
  /// operand runs alike are merged, so same-shape operands make one flat loop.
  bool emitElementwise(const Node &n) {
    if (n.numResults() != 1 || repr({n.id, 0}) != Repr::Tensor)
      return false;
    std::optional<ElementBody> body = elementBody(n);
    if (!body || body->empty())
      return false;
    const Type &result = n.results[0];
    const Shape &shape = result.shape();
    size_t rank = shape.size(), numIn = n.inputs.size();
    std::vector<DType> types = operandTypes(n);
    // runs[k][d]: operand k runs along output dim d (tensor operands only).
    std::vector<std::vector<bool>> runs(numIn, std::vector<bool>(rank, false));
    std::vector<bool> isTensor(numIn, false);
    for (size_t k = 0; k < numIn; ++k) {
      Repr r = repr(n.inputs[k]);
      if (r == Repr::Scalar)
        continue;
      if (r != Repr::Tensor)
        return false;
      isTensor[k] = true;
      const Shape &in = g.typeOf(n.inputs[k]).shape();
      if (in.size() > rank)
        return false;
      size_t lead = rank - in.size();
      for (size_t d = lead; d < rank; ++d) {
        const Dim &dim = in[d - lead];
        if (dim == shape[d])
          runs[k][d] = true;
        else if (!(dim.isStatic() && dim.size() == 1))
          return false;
      }
    }
    auto unit = [&](size_t d) { return shape[d].isStatic() && shape[d].size() == 1; };
    // The operand whose run-time shape gives output dim d (a symbolic dim), if any.
    auto source = [&](size_t d) -> std::optional<size_t> {
      for (size_t k = 0; k < numIn; ++k)
        if (runs[k][d])
          return k;
      return std::nullopt;
    };
    struct LoopDim {
      std::vector<size_t> dims; ///< merged output dims
      std::vector<bool> full;   ///< per operand
    };
    std::vector<LoopDim> loops;
    for (size_t d = 0; d < rank; ++d) {
      if (unit(d))
        continue;
      if (!shape[d].isStatic() && !source(d))
        return false;
      std::vector<bool> full(numIn);
      for (size_t k = 0; k < numIn; ++k)
        full[k] = runs[k][d];
      if (!loops.empty() && loops.back().full == full)
        loops.back().dims.push_back(d);
      else
        loops.push_back({{d}, full});
    }
    if (!code->supports(*body, types))
      return false;

    llvm::Value *null = llvm::ConstantPointerNull::get(ptrTy);
    std::vector<llvm::Value *> values;
    for (ValueRef v : n.inputs)
      values.push_back(load(v));
    auto dimValue = [&](size_t d) -> llvm::Value * {
      if (shape[d].isStatic())
        return b.getInt64(shape[d].size());
      size_t k = *source(d);
      size_t lead = rank - g.typeOf(n.inputs[k]).rank();
      llvm::Value *dims = b.CreateCall(rt("dlm_tensor_shape", ptrTy, {ptrTy}), {values[k]});
      return b.CreateLoad(i64(), b.CreateConstInBoundsGEP1_64(i64(), dims, d - lead));
    };
    std::vector<llvm::Value *> dims(rank);
    for (size_t d = 0; d < rank; ++d)
      dims[d] = dimValue(d);

    // The output: output_like (donor or fresh) when an operand has its shape, else empty.
    std::optional<ValueRef> donor;
    llvm::Value *like = nullptr;
    for (size_t k = 0; k < numIn; ++k) {
      if (!isTensor[k] || g.typeOf(n.inputs[k]).shape() != shape)
        continue;
      if (!like)
        like = values[k];
      ValueRef r = s.resolve(g, n.inputs[k]);
      if (!donor && types[k] == result.dtype() && donatable(n, r, currentBody))
        donor = r;
    }
    llvm::Value *dt = b.getInt32((int)result.dtype()), *out;
    llvm::Value *donorValue = donor ? b.CreateLoad(ptrTy, slot(*donor)) : null;
    if (like) {
      out = b.CreateCall(rt("dlm_tensor_output_like", ptrTy, {ptrTy, i32(), ptrTy}),
                         {donorValue, dt, like});
    } else {
      llvm::AllocaInst *shapeArray = entryAlloca(i64(), (unsigned)rank);
      for (size_t d = 0; d < rank; ++d)
        b.CreateStore(dims[d], b.CreateConstInBoundsGEP1_64(i64(), shapeArray, d));
      out = b.CreateCall(rt("dlm_tensor_empty", ptrTy, {i32(), i32(), ptrTy}),
                         {dt, b.getInt32((int)rank), shapeArray});
    }
    checkFailure(b.CreateIsNull(out), n);
    if (donor)
      b.CreateStore(b.CreateSelect(b.CreateICmpEQ(out, donorValue), null, donorValue),
                    slot(*donor));

    // Operands: a scalar's value, a tensor's dense data (of a contiguous copy for a view).
    // The output is dense (fresh, or a donor output_like checked), so its data address is
    // enough; an operand that is the output itself (updated in place) has the same data.
    llvm::Value *outData = b.CreateCall(rt("dlm_tensor_data", ptrTy, {ptrTy}), {out});
    std::vector<llvm::Value *> args = {outData};
    for (const LoopDim &loop : loops) {
      llvm::Value *extent = nullptr;
      for (size_t d : loop.dims)
        extent = extent ? b.CreateMul(extent, dims[d], "", true, true) : dims[d];
      args.push_back(extent);
    }
    std::vector<llvm::Value *> copies;
    std::vector<LoopOperand> operands;
    for (size_t k = 0; k < numIn; ++k) {
      LoopOperand operand;
      operand.dtype = types[k];
      operand.tensor = isTensor[k];
      for (const LoopDim &loop : loops)
        operand.full.push_back(loop.full[k]);
      operands.push_back(operand);
      if (!isTensor[k]) {
        args.push_back(values[k]);
        continue;
      }
      ValueRef r = s.resolve(g, n.inputs[k]);
      bool inPlace = donor && r == *donor;
      if (!inPlace && knownDense(r)) { // (no contiguity test, no copy to make)
        args.push_back(b.CreateCall(rt("dlm_tensor_data", ptrTy, {ptrTy}), {values[k]}));
        continue;
      }
      auto [data, copy] = denseData(values[k], n, inPlace ? out : nullptr, outData);
      args.push_back(data);
      copies.push_back(copy);
    }
    std::string name = (n.op == "fused" ? "dlm_fused." : "dlm_elementwise.") + std::to_string(n.id);
    b.CreateCall(code->loopFunction(name, *body, operands, loops.size()), args);
    for (llvm::Value *copy : copies)
      release(b, copy);
    store({n.id, 0}, out);
    denseResults.insert({n.id, 0});
    return true;
  }

  /// Whether value r is a dense host tensor whenever it is set: the output of a generated
  /// elementwise loop (a fresh dense tensor or a dense donor updated in place) or of zeros.
  bool knownDense(ValueRef r) { return denseResults.count({r.node, r.port}) != 0; }

  /// The dense data of tensor t: its own, or (for a view) that of a contiguous copy, returned
  /// second (null when t is dense) for the caller to release. When t may be the output `out`
  /// (a donor), the output's data `outData` is taken without asking the runtime.
  std::pair<llvm::Value *, llvm::Value *> denseData(llvm::Value *t, const Node &n, llvm::Value *out,
                                                    llvm::Value *outData) {
    llvm::Value *null = llvm::ConstantPointerNull::get(ptrTy);
    if (!copySlot)
      copySlot = entryAlloca(ptrTy);
    llvm::Value *data = b.CreateCall(denseDataFunction(),
                                     {t, out ? out : null, out ? outData : null, copySlot}, "data");
    llvm::Value *copy = b.CreateLoad(ptrTy, copySlot);
    checkFailure(b.CreateAnd(b.CreateIsNull(data), b.CreateIsNull(copy)), n);
    return {data, copy};
  }

  /// `ptr @dlm.dense_data(ptr t, ptr out, ptr outData, ptr copySlot)`: outData when t is out;
  /// else t's dense data, or that of a contiguous copy of t (a view), stored in *copySlot (null
  /// otherwise); null data and a null copy when the copy failed. One call per operand (41 in
  /// the LSTM training script) rather than five blocks inline (see releaseFunction).
  llvm::Function *denseDataFunction() {
    if (denseDataFn)
      return denseDataFn;
    denseDataFn =
        llvm::Function::Create(llvm::FunctionType::get(ptrTy, {ptrTy, ptrTy, ptrTy, ptrTy}, false),
                               llvm::Function::InternalLinkage, "dlm.dense_data", m.get());
    denseDataFn->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::Value *t = denseDataFn->getArg(0), *out = denseDataFn->getArg(1),
                *slotArg = denseDataFn->getArg(3);
    auto block = [&](const char *name) { return llvm::BasicBlock::Create(ctx, name, denseDataFn); };
    llvm::BasicBlock *entry = block("entry"), *same = block("same"), *other = block("operand"),
                     *copyBlock = block("view.copy"), *copied = block("copied"),
                     *failed = block("failed");
    llvm::Value *null = llvm::ConstantPointerNull::get(ptrTy);
    llvm::IRBuilder<> fb(entry);
    fb.CreateStore(null, slotArg);
    fb.CreateCondBr(fb.CreateICmpEQ(t, out), same, other);
    fb.SetInsertPoint(same);
    fb.CreateRet(denseDataFn->getArg(2));
    fb.SetInsertPoint(other);
    llvm::FunctionCallee dense = rt("dlm_tensor_dense_data", ptrTy, {ptrTy});
    llvm::Value *data = fb.CreateCall(dense, {t});
    llvm::BasicBlock *ret = block("dense");
    fb.CreateCondBr(fb.CreateIsNull(data), copyBlock, ret,
                    llvm::MDBuilder(ctx).createBranchWeights(1, 1000));
    fb.SetInsertPoint(ret);
    fb.CreateRet(data);
    fb.SetInsertPoint(copyBlock);
    llvm::Value *copy = fb.CreateCall(rt("dlm_tensor_contiguous", ptrTy, {ptrTy}), {t});
    fb.CreateCondBr(fb.CreateIsNull(copy), failed, copied);
    fb.SetInsertPoint(failed);
    fb.CreateRet(null);
    fb.SetInsertPoint(copied);
    fb.CreateStore(copy, slotArg);
    fb.CreateRet(fb.CreateCall(dense, {copy}));
    return denseDataFn;
  }

  /// A 0-d tensor holding a register scalar (a new reference).
  llvm::Value *box(llvm::Value *v, DType t) {
    switch (t) {
    case DType::F32:
      return b.CreateCall(rt("dlm_tensor_scalar_f32", ptrTy, {b.getFloatTy()}), {v});
    case DType::F64:
      return b.CreateCall(rt("dlm_tensor_scalar_f64", ptrTy, {b.getDoubleTy()}), {v});
    case DType::I32:
      return b.CreateCall(rt("dlm_tensor_scalar_i32", ptrTy, {i32()}), {v});
    case DType::I64:
      return b.CreateCall(rt("dlm_tensor_scalar_i64", ptrTy, {i64()}), {v});
    case DType::Bool:
      return b.CreateCall(rt("dlm_tensor_scalar_bool", ptrTy, {i32()}), {b.CreateZExt(v, i32())});
    }
    return nullptr;
  }

  /// Any op: boxes scalar operands, calls the kernel through the C ABI, checks the status,
  /// unboxes scalar results.
  void emitKernelCall(const Node &n) {
    llvm::Value *id = b.CreateLoad(i32(), kernelId(kernelName(n)));
    llvm::Value *attrs = attrsOf(n);
    size_t numIn = n.inputs.size(), numOut = n.numResults();
    llvm::AllocaInst *ins = callArray(callInputs, valueTy);
    llvm::AllocaInst *outs = callArray(callOutputs, ptrTy);
    llvm::Value *null = llvm::ConstantPointerNull::get(ptrTy);
    std::vector<llvm::Value *> boxed;
    for (size_t i = 0; i < numIn; ++i) {
      ValueRef v = n.inputs[i];
      llvm::Value *x = load(v);
      llvm::Value *tensor = null, *str = null;
      switch (repr(v)) {
      case Repr::Tensor:
        tensor = x;
        break;
      case Repr::Str:
        str = x;
        break;
      case Repr::Scalar:
        tensor = box(x, g.typeOf(v).dtype());
        boxed.push_back(tensor);
        break;
      case Repr::Unsupported:
        unsupported(n, "operand type " + g.typeOf(v).str() + " has no machine representation");
        return;
      }
      llvm::Value *element = b.CreateConstGEP1_32(valueTy, ins, i);
      b.CreateStore(tensor, b.CreateStructGEP(valueTy, element, 0));
      b.CreateStore(str, b.CreateStructGEP(valueTy, element, 1));
    }
    llvm::Value *status = b.CreateCall(
        rt("dlm_kernel_call_values", i32(), {i32(), ptrTy, i32(), ptrTy, ptrTy, i32(), ptrTy}),
        {id, ins, b.getInt32(numIn), attrs, outs, b.getInt32(numOut), null});
    for (llvm::Value *t : boxed)
      release(b, t);
    checkStatus(status, n);
    for (uint32_t p = 0; p < numOut; ++p) {
      llvm::Value *t = b.CreateLoad(ptrTy, b.CreateConstGEP1_32(ptrTy, outs, p));
      if (repr({n.id, p}) != Repr::Scalar) {
        store({n.id, p}, t);
        continue;
      }
      DType dt = n.results[p].dtype();
      llvm::Type *memTy = dt == DType::Bool ? b.getInt8Ty() : scalarType(dt);
      if (!scalarTmp)
        scalarTmp = entryAlloca(i64());
      llvm::AllocaInst *tmp = scalarTmp;
      llvm::Value *rs = b.CreateCall(rt("dlm_tensor_read_scalar", i32(), {ptrTy, i32(), ptrTy}),
                                     {t, b.getInt32((int)dt), tmp});
      release(b, t);
      checkStatus(rs, n);
      llvm::Value *v = b.CreateLoad(memTy, tmp);
      if (dt == DType::Bool)
        v = b.CreateICmpNE(v, b.getInt8(0));
      store({n.id, p}, v);
    }
  }

  // --- AOT entry ------------------------------------------------------------------------
  void emitMain() {
    auto *fn = llvm::Function::Create(llvm::FunctionType::get(i32(), {i32(), ptrTy}, false),
                                      llvm::Function::ExternalLinkage, "main", m.get());
    llvm::IRBuilder<> mb(llvm::BasicBlock::Create(ctx, "entry", fn));
    llvm::Value *status = mb.CreateCall(mainFn);
    auto *report = llvm::BasicBlock::Create(ctx, "report", fn);
    auto *done = llvm::BasicBlock::Create(ctx, "done", fn);
    mb.CreateCondBr(mb.CreateICmpNE(status, mb.getInt32(0)), report, done);
    mb.SetInsertPoint(report);
    mb.CreateCall(
        m->getOrInsertFunction("dlm_print_last_error", llvm::FunctionType::get(voidTy(), false)));
    mb.CreateBr(done);
    mb.SetInsertPoint(done);
    mb.CreateRet(status);
  }

  const Graph &g;
  const Structure &s;
  llvm::LLVMContext &ctx;
  const EmitOptions &options;
  std::string &error;
  std::unique_ptr<llvm::Module> m;
  llvm::IRBuilder<> b;  ///< @dlm_main
  llvm::IRBuilder<> ib; ///< @dlm_init
  llvm::Function *mainFn = nullptr, *initFn = nullptr;
  llvm::BasicBlock *allocaBlock = nullptr, *initFail = nullptr;
  llvm::PointerType *ptrTy = nullptr;
  llvm::StructType *valueTy = nullptr;
  std::vector<std::vector<llvm::Value *>> slots; ///< see slot()
  llvm::AllocaInst *tensors = nullptr;           ///< the tensor slots (beginTensorSlots)
  uint64_t tensorCount = 0, tensorUsed = 0;
  llvm::Function *finiFn = nullptr;                              ///< @dlm_fini (finishFini)
  llvm::Function *denseDataFn = nullptr;                         ///< see denseDataFunction
  std::vector<llvm::GlobalVariable *> constTensors, attrObjects; ///< what @dlm_fini drops
  std::map<std::string, llvm::Constant *> strings;
  std::map<std::string, llvm::GlobalVariable *> kernelIds;
  std::vector<std::vector<unsigned>> uses, exitUses;                          ///< see countUses
  std::map<graph::FrameId, std::vector<std::vector<ValueRef>>> dropAfterItem; ///< see lastReads
  std::unique_ptr<ElementCode> code; ///< elementwise ops as scalar IR and loops
  bool currentBody = false;          ///< the item being emitted is in its loop's body
  llvm::AllocaInst *callInputs = nullptr, *callOutputs = nullptr, *runInputs = nullptr,
                   *scalarTmp = nullptr;
  llvm::AllocaInst *copySlot = nullptr;               ///< see denseData
  std::set<std::pair<NodeId, uint32_t>> denseResults; ///< see knownDense
  llvm::BasicBlock *failBlock = nullptr;              ///< the shared error exit (see checkFailure)
  llvm::PHINode *failSite = nullptr;
  std::vector<graph::ErrorReport> siteReports; ///< per failure site (see siteTable)
  std::map<NodeId, uint32_t> siteOf;
};

} // namespace

llvm::Expected<std::unique_ptr<llvm::Module>>
emitModule(const Graph &g, const Structure &s, llvm::LLVMContext &ctx, const EmitOptions &options) {
  std::string error;
  std::unique_ptr<llvm::Module> m = Emitter(g, s, ctx, options, error).run();
  if (!m)
    return internalError(error);
  return m;
}

} // namespace dlm::codegen
