//===- compiler/codegen/Emitter.cpp - Structured graph -> LLVM IR ----------===//
//
// The module's skeleton — @dlm_init (kernel ids, attribute objects, tensor literals), @dlm_main,
// @dlm_fini and the AOT `main` — the runtime's declarations, the value slots and their ownership,
// regions, guards and loops, and the error exits with their failure-site table.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/EmitterImpl.h"

#include "compiler/codegen/CodegenError.h"
#include "compiler/ir/OpRegistry.h"
#include "runtime/Devices.h"

#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace dlm::codegen {

llvm::Expected<std::unique_ptr<llvm::Module>> Emitter::run() {
  m = std::make_unique<llvm::Module>("dlm." + g.name(), ctx);
  code = std::make_unique<ElementCode>(b, *m);
  ptrTy = llvm::PointerType::get(ctx, 0);
  valueTy = llvm::StructType::get(ctx, {ptrTy, ptrTy});
  slots.resize(g.numNodes());
  findUnboxed();
  countUses();
  beginInit();
  auto *mainTy = options.entry ? llvm::FunctionType::get(i32(), {ptrTy, ptrTy}, false)
                               : llvm::FunctionType::get(i32(), false);
  mainFn = llvm::Function::Create(mainTy, llvm::Function::ExternalLinkage, "dlm_main", m.get());
  finiFn = llvm::Function::Create(llvm::FunctionType::get(voidTy(), false), hostLinkage(),
                                  "dlm_fini", m.get());
  finiFn->addFnAttr(llvm::Attribute::NoInline);
  allocaBlock = llvm::BasicBlock::Create(ctx, "entry", mainFn);
  beginTensorSlots();
  auto *start = llvm::BasicBlock::Create(ctx, "start", mainFn);
  b.SetInsertPoint(start);
  if (!options.entry) { // an entry's host runs @dlm_init and @dlm_fini once, not per call
    llvm::Value *initStatus = b.CreateCall(initFn);
    auto *fail = llvm::BasicBlock::Create(ctx, "init.failed", mainFn);
    auto *go = llvm::BasicBlock::Create(ctx, "program", mainFn);
    b.CreateCondBr(b.CreateICmpNE(initStatus, b.getInt32(0)), fail, go);
    b.SetInsertPoint(fail);
    b.CreateCall(finiFn);
    b.CreateRet(b.getInt32(1));
    b.SetInsertPoint(go);
  }
  emitItems(s.regions[graph::kRootFrame], [](const Item &) { return true; });
  releaseOwned(s.regions[graph::kRootFrame]);
  if (!options.entry)
    b.CreateCall(finiFn);
  b.CreateRet(b.getInt32(0));
  llvm::IRBuilder<> ab(allocaBlock);
  ab.CreateBr(start);
  ib.CreateRet(ib.getInt32(0));
  finishFini();
  finishFailBlock();
  if (options.withMain)
    emitMain();
  if (firstError)
    return std::move(firstError);
  std::string broken;
  llvm::raw_string_ostream os(broken);
  if (options.verify && llvm::verifyModule(*m, &os))
    return internalError("generated an invalid LLVM module: " + os.str());
  return std::move(m);
}

// --- runtime declarations --------------------------------------------------------------
llvm::FunctionCallee Emitter::rt(llvm::StringRef name, llvm::Type *ret,
                                 llvm::ArrayRef<llvm::Type *> args) {
  return m->getOrInsertFunction(name, llvm::FunctionType::get(ret, args, false));
}

void Emitter::retain(llvm::IRBuilder<> &at, llvm::Value *t) {
  at.CreateCall(rt("dlm_tensor_retain", voidTy(), {ptrTy}), {t});
}

void Emitter::release(llvm::IRBuilder<> &at, llvm::Value *t) {
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

void Emitter::drop(llvm::Value *slot) {
  release(b, b.CreateLoad(ptrTy, slot));
  b.CreateStore(llvm::ConstantPointerNull::get(ptrTy), slot);
}

// --- constants and globals ------------------------------------------------------------
llvm::Constant *Emitter::cstr(const std::string &text) {
  auto [it, fresh] = strings.try_emplace(text, nullptr);
  if (fresh) {
    auto *init = llvm::ConstantDataArray::getString(ctx, text, true);
    it->second = new llvm::GlobalVariable(*m, init->getType(), true,
                                          llvm::GlobalValue::PrivateLinkage, init, ".str");
  }
  return it->second;
}

llvm::GlobalVariable *Emitter::global(llvm::Type *ty, llvm::Constant *init,
                                      const llvm::Twine &name) {
  return new llvm::GlobalVariable(*m, ty, false, llvm::GlobalValue::InternalLinkage, init, name);
}

// --- @dlm_init ------------------------------------------------------------------------
void Emitter::beginInit() {
  initFn = llvm::Function::Create(llvm::FunctionType::get(i32(), false), hostLinkage(), "dlm_init",
                                  m.get());
  initFn->addFnAttr(llvm::Attribute::NoInline); // runs once: not worth optimising into main
  initFn->addFnAttr(llvm::Attribute::Cold);
  auto *entry = llvm::BasicBlock::Create(ctx, "entry", initFn);
  initFail = llvm::BasicBlock::Create(ctx, "failed", initFn);
  llvm::IRBuilder<>(initFail).CreateRet(llvm::ConstantInt::get(i32(), 1));
  ib.SetInsertPoint(entry);
}

void Emitter::initCheck(llvm::Value *bad) {
  auto *next = llvm::BasicBlock::Create(ctx, "init", initFn);
  ib.CreateCondBr(bad, initFail, next);
  ib.SetInsertPoint(next);
}

llvm::GlobalVariable *Emitter::kernelId(const std::string &name) {
  auto [it, fresh] = kernelIds.try_emplace(name, nullptr);
  if (!fresh)
    return it->second;
  it->second = global(i32(), ib.getInt32(-1), "kernel." + name);
  llvm::Value *id = ib.CreateCall(rt("dlm_kernel_id", i32(), {ptrTy}), {cstr(name)});
  ib.CreateStore(id, it->second);
  initCheck(ib.CreateICmpSLT(id, ib.getInt32(0)));
  return it->second;
}

std::vector<int64_t> Emitter::runtimeShape(const Shape &shape) {
  std::vector<int64_t> dims;
  for (const Dim &d : shape)
    dims.push_back(d.isStatic() ? d.size() : isInferDim(d) ? -1 : kDynamicIndex);
  return dims;
}

void Emitter::setAttr(llvm::Value *a, const std::string &name, const AttrValue &value) {
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
    return call("dlm_attrs_set_float", b.getDoubleTy(), llvm::ConstantFP::get(b.getDoubleTy(), *v));
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
    ib.CreateCall(
        rt("dlm_attrs_set_shapes", voidTy(), {ptrTy, ptrTy, ptrTy, ptrTy, i64()}),
        {a, key, constArray<int64_t>(dims), constArray<int64_t>(ranks), ib.getInt64(ranks.size())});
  }
}

llvm::Value *Emitter::attrsOf(const Node &n) {
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

llvm::Type *Emitter::slotType(ValueRef v) {
  return repr(v) == Repr::Scalar ? scalarType(g.typeOf(v).dtype()) : ptrTy;
}

namespace {

/// A tensor of static shape [1], [1, 1], ...: one element, its place known at compile time.
bool isOneElement(const Type &t) {
  if (!t.isTensor() || t.rank() == 0)
    return false;
  return std::all_of(t.shape().begin(), t.shape().end(),
                     [](const Dim &d) { return d.isStatic() && d.size() == 1; });
}

} // namespace

void Emitter::findUnboxed() {
  std::map<std::pair<NodeId, uint32_t>, std::vector<NodeId>> readersOf;
  for (const Node &n : g.nodes()) {
    if (s.roles[n.id] == NodeRole::Forward)
      continue;
    for (ValueRef v : n.inputs) {
      ValueRef r = s.resolve(g, v);
      readersOf[{r.node, r.port}].push_back(n.id);
    }
    if (n.numResults() == 1 && isOneElement(n.results[0]))
      unboxed.insert({n.id, 0});
  }
  // A join (loop variable, loop exit, branch join) copies its inputs into its own slot, so
  // they and it live alike: a boxed join boxes its inputs. A literal read as a tensor stays the
  // tensor @dlm_init builds once (autodiff's seed of a [1, 1] sum, read by a matmul) rather
  // than being boxed at every read.
  auto keeps = [&](const Node &n) {
    auto readers = readersOf.find({n.id, 0});
    if (readers != readersOf.end())
      for (NodeId reader : readers->second) {
        const Node &r = g.node(reader);
        if (s.roles[reader] != NodeRole::Compute ? !unboxed.count({reader, 0})
                                                 : n.inputs.empty() && !readsUnboxed(r))
          return false;
      }
    return computesUnboxed(n);
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const Node &n : g.nodes())
      if (unboxed.count({n.id, 0}) && !keeps(n)) {
        unboxed.erase({n.id, 0});
        changed = true;
      }
  }
}

bool Emitter::readsUnboxed(const Node &n) {
  std::optional<ElementBody> body = elementBody(n);
  return body && code->supports(*body, operandTypes(n));
}

bool Emitter::computesUnboxed(const Node &n) {
  auto allUnboxed = [&] {
    return std::all_of(n.inputs.begin(), n.inputs.end(),
                       [&](ValueRef v) { return repr(v) == Repr::Scalar; });
  };
  if (s.roles[n.id] != NodeRole::Compute) // a loop variable, loop exit or branch join
    return allUnboxed();
  if (rt::runtimeDevice(n.device) != rt::Device::CPU)
    return false;
  if (n.op == OpKind::Const || n.op == OpKind::Zeros || n.op == OpKind::Ones)
    return n.inputs.empty();
  return allUnboxed() && readsUnboxed(n);
}

void Emitter::beginTensorSlots() {
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

llvm::Value *Emitter::slot(ValueRef v) {
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

llvm::Value *Emitter::load(ValueRef v) {
  ValueRef r = s.resolve(g, v);
  return b.CreateLoad(slotType(r), slot(r));
}

void Emitter::store(ValueRef v, llvm::Value *x) {
  llvm::Type *want = slotType(v);
  if (x->getType() != want) {
    unsupported(g.node(v.node), "stores a " + typeName(x->getType()) + " into a " + typeName(want) +
                                    " slot (its type " + g.typeOf(v).str() +
                                    " disagrees with its operand's)");
    return;
  }
  b.CreateStore(x, slot(v));
}

std::string Emitter::typeName(llvm::Type *t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t->print(os);
  return s;
}

llvm::AllocaInst *Emitter::callArray(llvm::AllocaInst *&array, llvm::Type *ty) {
  if (!array) {
    size_t most = 1;
    for (const Node &n : g.nodes())
      most = std::max({most, n.inputs.size(), n.numResults()});
    array = entryAlloca(ty, (unsigned)most);
  }
  return array;
}

llvm::AllocaInst *Emitter::entryAlloca(llvm::Type *ty, unsigned count) {
  llvm::IRBuilder<> ab(allocaBlock);
  return ab.CreateAlloca(ty, ab.getInt32(count));
}

void Emitter::releaseOwned(const Region &region) {
  for (NodeId id : region.owned)
    for (uint32_t p = 0; p < g.node(id).numResults(); ++p) {
      ValueRef v{id, p};
      if (repr(v) == Repr::Tensor)
        drop(slot(v));
    }
}

// --- errors ---------------------------------------------------------------------------
void Emitter::checkFailure(llvm::Value *failed, const Node &n) {
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

llvm::StructType *Emitter::siteTy() {
  return llvm::StructType::get(ctx, {ptrTy, i32(), i32(), ptrTy, ptrTy, ptrTy, i32()});
}

llvm::StructType *Emitter::noteTy() {
  return llvm::StructType::get(ctx, {ptrTy, i32(), i32(), ptrTy, ptrTy});
}

llvm::GlobalVariable *Emitter::siteTable() {
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

void Emitter::finishFailBlock() {
  if (!failBlock)
    return;
  llvm::GlobalVariable *gv = siteTable();
  llvm::IRBuilder<> fb(failBlock);
  llvm::Value *site = fb.CreateInBoundsGEP(gv->getValueType(), gv, {fb.getInt32(0), failSite});
  fb.CreateCall(rt("dlm_set_error_site", voidTy(), {ptrTy}), {site});
  // Every slot holds one reference or null, so dropping them all releases exactly what the
  // program owned when it stopped (the root's values and the live iteration's of every loop).
  fb.CreateCall(releaseTensorsFunction(), {tensors, fb.getInt64(tensorCount)});
  if (!options.entry)
    fb.CreateCall(finiFn);
  fb.CreateRet(fb.getInt32(1));
}

llvm::Function *Emitter::releaseTensorsFunction() {
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

void Emitter::finishFini() {
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

void Emitter::checkStatus(llvm::Value *status, const Node &n) {
  checkFailure(b.CreateICmpNE(status, b.getInt32(0)), n);
}

void Emitter::checkInterrupt(const Node &n) {
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

bool Emitter::unsupported(const Node &n, const std::string &what) {
  if (!firstError)
    firstError =
        internalError("node %" + std::to_string(n.id) + " ('" + opString(n.op) + "'): " + what);
  return false;
}

// --- regions --------------------------------------------------------------------------
template <typename Filter> void Emitter::emitItems(const Region &region, Filter filter) {
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

const std::vector<std::vector<ValueRef>> &Emitter::lastReads(const Region &region) {
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

llvm::BasicBlock *Emitter::openGuard(const Guard &guard) {
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

llvm::Value *Emitter::predicate(ValueRef v) {
  llvm::Value *p = load(v);
  if (!p->getType()->isIntegerTy(1)) {
    unsupported(g.node(v.node), "a predicate must be bool[]");
    return b.getFalse();
  }
  return p;
}

void Emitter::emitLoop(graph::FrameId f) {
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

// --- AOT entry ------------------------------------------------------------------------
void Emitter::emitMain() {
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
  // One rank of a launched run finalises MPI, or stops every rank after a failure (runtime/Dist.h).
  mb.CreateRet(mb.CreateCall(
      m->getOrInsertFunction("dlm_dist_finish", llvm::FunctionType::get(i32(), {i32()}, false)),
      {status}));
}

llvm::Expected<std::unique_ptr<llvm::Module>>
emitModule(const Graph &g, const Structure &s, llvm::LLVMContext &ctx, const EmitOptions &options) {
  return Emitter(g, s, ctx, options).run();
}

} // namespace dlm::codegen
