//===- compiler/codegen/Emitter.cpp - Structured graph -> LLVM IR ---------===//
//
// Every graph value gets a stack slot (promoted to SSA registers by mem2reg at -O1 and up): a
// 0-d tensor lives in it as a scalar of its dtype (i64, double, float, i32, i1), a tensor as an
// owned `dlm_tensor*`, a string as a `const char*`. Forwarding nodes share their input's slot.
// Tensor slots follow one ownership rule: a slot holds one reference, set when its node runs
// and dropped when the region that owns it ends (the program for the root frame, each
// iteration for a loop frame; loop-carried variables when the loop exits). Slots start null,
// so a branch that did not run releases nothing.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Emitter.h"

#include "compiler/ir/OpRegistry.h"
#include "runtime/DType.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

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
  if (t.isTensor()) return t.rank() == 0 ? Repr::Scalar : Repr::Tensor;
  if (t.kind() == Type::Kind::Str) return Repr::Str;
  return Repr::Unsupported;
}

/// PyTorch/NumPy-style promotion of two dtypes, as the runtime's kernels do it for operands of
/// equal rank (kernels/cpu/CpuKernels.cpp): the higher category wins, then the wider type.
int category(DType t) { return t == DType::Bool ? 0 : isFloat(t) ? 2 : 1; }
DType promote(DType a, DType b) {
  if (a == b) return a;
  if (category(a) != category(b)) return category(a) > category(b) ? a : b;
  return dtypeSize(a) >= dtypeSize(b) ? a : b;
}

class Emitter {
public:
  Emitter(const Graph &g, const Structure &s, llvm::LLVMContext &ctx, const EmitOptions &options,
          std::string &error)
      : g(g), s(s), ctx(ctx), options(options), error(error), b(ctx), ib(ctx) {}

  std::unique_ptr<llvm::Module> run() {
    m = std::make_unique<llvm::Module>("dlm." + g.name(), ctx);
    ptrTy = llvm::PointerType::get(ctx, 0);
    valueTy = llvm::StructType::get(ctx, {ptrTy, ptrTy});
    slots.resize(g.numNodes());
    countUses();
    beginInit();
    mainFn = llvm::Function::Create(llvm::FunctionType::get(b.getInt32Ty(), false),
                                    llvm::Function::ExternalLinkage, "dlm_main", m.get());
    allocaBlock = llvm::BasicBlock::Create(ctx, "entry", mainFn);
    auto *start = llvm::BasicBlock::Create(ctx, "start", mainFn);
    b.SetInsertPoint(start);
    llvm::Value *initStatus = b.CreateCall(initFn);
    auto *fail = llvm::BasicBlock::Create(ctx, "init.failed", mainFn);
    auto *go = llvm::BasicBlock::Create(ctx, "program", mainFn);
    b.CreateCondBr(b.CreateICmpNE(initStatus, b.getInt32(0)), fail, go);
    b.SetInsertPoint(fail);
    b.CreateRet(b.getInt32(1));
    b.SetInsertPoint(go);
    emitItems(s.regions[graph::kRootFrame], [](const Item &) { return true; });
    releaseOwned(s.regions[graph::kRootFrame]);
    b.CreateRet(b.getInt32(0));
    llvm::IRBuilder<> ab(allocaBlock);
    ab.CreateBr(start);
    ib.CreateRet(ib.getInt32(0));
    finishFailBlock();
    if (options.withMain) emitMain();
    if (!error.empty()) return nullptr;
    std::string broken;
    llvm::raw_string_ostream os(broken);
    if (llvm::verifyModule(*m, &os)) {
      error = "generated an invalid LLVM module: " + os.str();
      return nullptr;
    }
    return std::move(m);
  }

private:
  // --- runtime declarations --------------------------------------------------------------
  llvm::FunctionCallee rt(llvm::StringRef name, llvm::Type *ret, llvm::ArrayRef<llvm::Type *> args) {
    return m->getOrInsertFunction(name, llvm::FunctionType::get(ret, args, false));
  }
  llvm::Type *i32() { return b.getInt32Ty(); }
  llvm::Type *i64() { return b.getInt64Ty(); }
  llvm::Type *voidTy() { return b.getVoidTy(); }

  void retain(llvm::IRBuilder<> &at, llvm::Value *t) { at.CreateCall(rt("dlm_tensor_retain", voidTy(), {ptrTy}), {t}); }
  /// Drops a reference; a null slot (a branch that did not run, a moved value) costs a test.
  void release(llvm::IRBuilder<> &at, llvm::Value *t) {
    llvm::BasicBlock *from = at.GetInsertBlock();
    llvm::Function *fn = from->getParent();
    auto *drop = llvm::BasicBlock::Create(ctx, "release", fn);
    auto *next = llvm::BasicBlock::Create(ctx, "released", fn);
    at.CreateCondBr(at.CreateIsNull(t), next, drop);
    at.SetInsertPoint(drop);
    at.CreateCall(rt("dlm_tensor_release", voidTy(), {ptrTy}), {t});
    at.CreateBr(next);
    at.SetInsertPoint(next);
  }

  llvm::Type *scalarType(DType t) {
    switch (t) {
    case DType::F32: return b.getFloatTy();
    case DType::F64: return b.getDoubleTy();
    case DType::I32: return b.getInt32Ty();
    case DType::I64: return b.getInt64Ty();
    case DType::Bool: return b.getInt1Ty();
    }
    return b.getInt64Ty();
  }

  // --- constants and globals ------------------------------------------------------------
  llvm::Constant *cstr(const std::string &text) {
    auto [it, fresh] = strings.try_emplace(text, nullptr);
    if (fresh) {
      auto *init = llvm::ConstantDataArray::getString(ctx, text, true);
      it->second = new llvm::GlobalVariable(*m, init->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                            init, ".str");
    }
    return it->second;
  }

  template <typename T> llvm::Constant *constArray(llvm::ArrayRef<T> values) {
    auto *init = llvm::ConstantDataArray::get(ctx, values);
    return new llvm::GlobalVariable(*m, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init,
                                    ".arr");
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
    if (info && !info->kernels[(int)Device::CPU].empty()) return info->kernels[(int)Device::CPU];
    return n.op;
  }

  llvm::GlobalVariable *kernelId(const std::string &name) {
    auto [it, fresh] = kernelIds.try_emplace(name, nullptr);
    if (!fresh) return it->second;
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
    if (auto *v = std::get_if<int64_t>(&value)) return call("dlm_attrs_set_int", i64(), ib.getInt64(*v));
    if (auto *v = std::get_if<double>(&value))
      return call("dlm_attrs_set_float", b.getDoubleTy(), llvm::ConstantFP::get(b.getDoubleTy(), *v));
    if (auto *v = std::get_if<bool>(&value)) return call("dlm_attrs_set_bool", i32(), ib.getInt32(*v));
    if (auto *v = std::get_if<std::string>(&value)) return call("dlm_attrs_set_string", ptrTy, cstr(*v));
    if (auto *v = std::get_if<DType>(&value)) return call("dlm_attrs_set_dtype", i32(), ib.getInt32((int)*v));
    if (auto *v = std::get_if<std::vector<int64_t>>(&value)) return ints(*v);
    if (auto *v = std::get_if<Shape>(&value)) return ints(runtimeShape(*v));
    if (auto *v = std::get_if<std::vector<double>>(&value)) {
      ib.CreateCall(rt("dlm_attrs_set_floats", voidTy(), {ptrTy, ptrTy, ptrTy, i64()}),
                    {a, key, constArray<double>(*v), ib.getInt64(v->size())});
      return;
    }
    if (auto *v = std::get_if<std::vector<DType>>(&value)) {
      std::vector<int32_t> codes;
      for (DType d : *v) codes.push_back((int32_t)d);
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
                    {a, key, constArray<int64_t>(dims), constArray<int64_t>(ranks), ib.getInt64(ranks.size())});
    }
  }

  /// A global holding node n's attributes, built by @dlm_init; null when it has none.
  llvm::Value *attrsOf(const Node &n) {
    if (n.attrs.empty()) return llvm::ConstantPointerNull::get(ptrTy);
    auto *gv = global(ptrTy, llvm::ConstantPointerNull::get(ptrTy), "attrs." + llvm::Twine(n.id));
    llvm::Value *a = ib.CreateCall(rt("dlm_attrs_new", ptrTy, {}), {});
    for (const auto &[name, value] : n.attrs) setAttr(a, name, value);
    ib.CreateStore(a, gv);
    return b.CreateLoad(ptrTy, gv);
  }

  // --- slots ----------------------------------------------------------------------------
  Repr repr(ValueRef v) { return reprOf(g.typeOf(v)); }

  llvm::Type *slotType(ValueRef v) {
    const Type &t = g.typeOf(v);
    return reprOf(t) == Repr::Scalar ? scalarType(t.dtype()) : ptrTy;
  }

  /// The slot of a resolved value, created (null-initialised) in the entry block on first use.
  llvm::AllocaInst *slot(ValueRef v) {
    std::vector<llvm::AllocaInst *> &ports = slots[v.node];
    if (ports.size() <= v.port) ports.resize(g.node(v.node).numResults(), nullptr);
    if (!ports[v.port]) {
      llvm::IRBuilder<> ab(allocaBlock);
      llvm::Type *ty = slotType(v);
      ports[v.port] = ab.CreateAlloca(ty, nullptr, "v" + llvm::Twine(v.node) + "." + llvm::Twine(v.port));
      if (ty == ptrTy) ab.CreateStore(llvm::ConstantPointerNull::get(ptrTy), ports[v.port]);
    }
    return ports[v.port];
  }

  llvm::Value *load(ValueRef v) {
    ValueRef r = s.resolve(g, v);
    return b.CreateLoad(slotType(r), slot(r));
  }
  void store(ValueRef v, llvm::Value *x) { b.CreateStore(x, slot(v)); }

  /// One operand (or result) array shared by every kernel call site, as large as the largest.
  llvm::AllocaInst *callArray(llvm::AllocaInst *&array, llvm::Type *ty) {
    if (!array) {
      size_t most = 1;
      for (const Node &n : g.nodes()) most = std::max({most, n.inputs.size(), n.numResults()});
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
        if (repr(v) != Repr::Tensor) continue;
        release(b, b.CreateLoad(ptrTy, slot(v)));
        store(v, llvm::ConstantPointerNull::get(ptrTy));
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
    auto [it, fresh] = siteOf.try_emplace(n.id, (uint32_t)sites.size());
    if (fresh) {
      std::string line = options.sourceLine ? options.sourceLine(n.loc) : "";
      sites.push_back(llvm::ConstantStruct::get(
          siteTy(), {cstr(std::string(n.loc.file)), b.getInt32(n.loc.line), b.getInt32(n.loc.col), cstr(line)}));
    }
    auto *ok = llvm::BasicBlock::Create(ctx, "ok", mainFn);
    failSite->addIncoming(b.getInt32(it->second), b.GetInsertBlock());
    b.CreateCondBr(failed, failBlock, ok, llvm::MDBuilder(ctx).createUnlikelyBranchWeights());
    b.SetInsertPoint(ok);
  }

  llvm::StructType *siteTy() { return llvm::StructType::get(ctx, {ptrTy, i32(), i32(), ptrTy}); }

  /// The shared error exit: dlm_set_error_location(sites[site]...); return 1.
  void finishFailBlock() {
    if (!failBlock) return;
    auto *table = llvm::ConstantArray::get(llvm::ArrayType::get(siteTy(), sites.size()), sites);
    auto *gv = new llvm::GlobalVariable(*m, table->getType(), true, llvm::GlobalValue::PrivateLinkage, table, "sites");
    llvm::IRBuilder<> fb(failBlock);
    llvm::Value *site = fb.CreateInBoundsGEP(table->getType(), gv, {fb.getInt32(0), failSite});
    auto field = [&](unsigned i, llvm::Type *ty) { return fb.CreateLoad(ty, fb.CreateStructGEP(siteTy(), site, i)); };
    fb.CreateCall(rt("dlm_set_error_location", voidTy(), {ptrTy, i32(), i32(), ptrTy}),
                  {field(0, ptrTy), field(1, i32()), field(2, i32()), field(3, ptrTy)});
    fb.CreateRet(fb.getInt32(1));
  }
  void checkStatus(llvm::Value *status, const Node &n) { checkFailure(b.CreateICmpNE(status, b.getInt32(0)), n); }

  bool unsupported(const Node &n, const std::string &what) {
    if (error.empty()) error = "node %" + std::to_string(n.id) + " ('" + n.op + "'): " + what;
    return false;
  }

  // --- regions --------------------------------------------------------------------------
  template <typename Filter> void emitItems(const Region &region, Filter filter) {
    Guard current;
    llvm::BasicBlock *join = nullptr;
    for (const Item &item : region.items) {
      if (!filter(item)) continue;
      if (!item.isLoop()) {
        NodeRole role = s.roles[item.node];
        if (role == NodeRole::Forward || role == NodeRole::LoopMerge) continue;
      }
      if (item.guard != current) {
        if (join) {
          b.CreateBr(join);
          b.SetInsertPoint(join);
          join = nullptr;
        }
        current = item.guard;
        if (!current.empty()) join = openGuard(current);
      }
      currentBody = item.body;
      if (item.isLoop())
        emitLoop(item.loop);
      else
        emitNode(g.node(item.node));
    }
    if (join) {
      b.CreateBr(join);
      b.SetInsertPoint(join);
    }
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
      if (repr(loop.mergeInit[i]) == Repr::Tensor) retain(b, v);
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
      if (repr(v) != Repr::Tensor) continue;
      ValueRef r = s.resolve(g, v);
      bool owned = g.node(r.node).frame == f && (s.roles[r.node] == NodeRole::Compute || s.roles[r.node] == NodeRole::CondMerge);
      if (owned && moved.insert({r.node, r.port}).second)
        store(r, llvm::ConstantPointerNull::get(ptrTy));
      else
        retain(b, next.back());
    }
    releaseOwned(loop);
    for (size_t i = 0; i < loop.merges.size(); ++i) {
      ValueRef merge{loop.merges[i], 0};
      if (repr(merge) == Repr::Tensor) release(b, b.CreateLoad(ptrTy, slot(merge)));
      store(merge, next[i]);
    }
    b.CreateBr(header);
    b.SetInsertPoint(exit);
    for (NodeId x : loop.exits) {
      ValueRef in = g.node(x).inputs[0];
      llvm::Value *v = load(in);
      if (repr(in) == Repr::Tensor) retain(b, v);
      store({x, 0}, v);
    }
    releaseOwned(loop);
    for (NodeId merge : loop.merges) {
      if (repr({merge, 0}) != Repr::Tensor) continue;
      release(b, b.CreateLoad(ptrTy, slot({merge, 0})));
      store({merge, 0}, llvm::ConstantPointerNull::get(ptrTy));
    }
  }

  // --- nodes ----------------------------------------------------------------------------
  void emitNode(const Node &n) {
    for (uint32_t p = 0; p < n.numResults(); ++p)
      if (repr({n.id, p}) == Repr::Unsupported) {
        unsupported(n, "result type " + n.results[p].str() + " has no machine representation");
        return;
      }
    if (s.roles[n.id] == NodeRole::CondMerge) return emitCondMerge(n);
    if (n.op == "const" && emitConst(n)) return;
    if (allScalar(n) && emitScalarOp(n)) return;
    if (emitTensorLoop(n)) return;
    emitKernelCall(n);
  }

  void emitCondMerge(const Node &n) {
    uint32_t t = s.mergeTrueInput[n.id];
    llvm::Value *v = b.CreateSelect(predicate(s.mergePred[n.id]), load(n.inputs[t]), load(n.inputs[1 - t]));
    if (repr({n.id, 0}) == Repr::Tensor) retain(b, v);
    store({n.id, 0}, v);
  }

  bool allScalar(const Node &n) {
    if (n.numResults() != 1 || repr({n.id, 0}) != Repr::Scalar || n.inputs.empty()) return false;
    for (ValueRef v : n.inputs)
      if (repr(v) != Repr::Scalar) return false;
    return true;
  }

  /// A scalar constant in a register, a string in a global, or a tensor built once by
  /// @dlm_init (tensors are immutable, so every use shares it).
  bool emitConst(const Node &n) {
    const AttrValue *value = n.attr("value");
    if (!value || n.numResults() != 1) return false;
    Repr r = repr({n.id, 0});
    if (r == Repr::Str) {
      const std::string *text = std::get_if<std::string>(value);
      if (!text) return false;
      store({n.id, 0}, cstr(*text));
      return true;
    }
    if (r == Repr::Scalar) {
      DType dt = n.results[0].dtype();
      llvm::Type *ty = scalarType(dt);
      llvm::Value *c = nullptr;
      if (auto *i = std::get_if<int64_t>(value))
        c = isFloat(dt) ? llvm::ConstantFP::get(ty, (double)*i) : llvm::ConstantInt::get(ty, *i != 0 && dt == DType::Bool ? 1 : *i);
      else if (auto *d = std::get_if<double>(value))
        c = isFloat(dt) ? llvm::ConstantFP::get(ty, *d) : nullptr;
      else if (auto *t = std::get_if<bool>(value))
        c = isFloat(dt) ? llvm::ConstantFP::get(ty, *t ? 1.0 : 0.0) : llvm::ConstantInt::get(ty, *t);
      if (!c) return false;
      store({n.id, 0}, c);
      return true;
    }
    // A tensor literal: one kernel call at start-up.
    auto *gv = global(ptrTy, llvm::ConstantPointerNull::get(ptrTy), "const." + llvm::Twine(n.id));
    llvm::Value *a = ib.CreateCall(rt("dlm_attrs_new", ptrTy, {}), {});
    for (const auto &[name, v] : n.attrs) setAttr(a, name, v);
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

  /// Converts a scalar like the runtime's casts (static_cast); false for float -> int, whose
  /// out-of-range behaviour is left to the kernel.
  llvm::Value *convert(llvm::Value *v, DType from, DType to) {
    if (from == to) return v;
    llvm::Type *ty = scalarType(to);
    if (to == DType::Bool)
      return isFloat(from) ? b.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0))
                           : b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
    if (isFloat(to)) {
      if (isFloat(from)) return b.CreateFPCast(v, ty);
      return from == DType::Bool ? b.CreateUIToFP(v, ty) : b.CreateSIToFP(v, ty);
    }
    if (isFloat(from)) return nullptr;
    return from == DType::Bool ? b.CreateZExt(v, ty) : b.CreateSExtOrTrunc(v, ty);
  }

  /// Elementwise ops with exactly the kernels' semantics on one element per operand (`args`,
  /// of dtypes `types`): used for scalar ops and inside generated tensor loops. Returns null to
  /// leave the op to its kernel.
  llvm::Value *elementOp(const Node &n, llvm::ArrayRef<llvm::Value *> args, llvm::ArrayRef<DType> types) {
    DType dt = n.results[0].dtype();
    const std::string &op = n.op;
    bool fp = isFloat(dt);
    auto arg = [&](size_t i, DType to) { return convert(args[i], types[i], to); };
    size_t arity = args.size();
    if ((op == "add" || op == "sub" || op == "mul" || op == "div") && arity == 2 && dt != DType::Bool) {
      if (op == "div" && !fp) return nullptr;
      llvm::Value *x = arg(0, dt), *y = arg(1, dt);
      if (!x || !y) return nullptr;
      if (op == "add") return fp ? b.CreateFAdd(x, y) : b.CreateAdd(x, y);
      if (op == "sub") return fp ? b.CreateFSub(x, y) : b.CreateSub(x, y);
      if (op == "mul") return fp ? b.CreateFMul(x, y) : b.CreateMul(x, y);
      return b.CreateFDiv(x, y);
    }
    if ((op == "maximum" || op == "minimum") && arity == 2 && dt != DType::Bool) {
      llvm::Value *x = arg(0, dt), *y = arg(1, dt);
      if (!x || !y) return nullptr;
      bool mx = op == "maximum";
      if (!fp) return b.CreateSelect(mx ? b.CreateICmpSGT(x, y) : b.CreateICmpSLT(x, y), x, y);
      llvm::Value *pick = b.CreateSelect(mx ? b.CreateFCmpOGT(x, y) : b.CreateFCmpOLT(x, y), x, y);
      return b.CreateSelect(b.CreateFCmpUNO(x, y), b.CreateFAdd(x, y), pick);
    }
    if (op == "neg" && arity == 1 && dt != DType::Bool) {
      llvm::Value *x = arg(0, dt);
      if (!x) return nullptr;
      return fp ? b.CreateFNeg(x) : b.CreateNeg(x);
    }
    if (isComparison(op) && arity == 2 && dt == DType::Bool) {
      DType ct = promote(types[0], types[1]);
      llvm::Value *x = arg(0, ct), *y = arg(1, ct);
      if (!x || !y) return nullptr;
      return compare(op, ct, x, y);
    }
    if ((op == "logical_and" || op == "logical_or") && arity == 2 && dt == DType::Bool) {
      llvm::Value *x = arg(0, DType::Bool), *y = arg(1, DType::Bool);
      return op == "logical_and" ? b.CreateAnd(x, y) : b.CreateOr(x, y);
    }
    if (op == "logical_not" && arity == 1 && dt == DType::Bool) return b.CreateNot(arg(0, DType::Bool));
    if (op == "cast" && arity == 1) return arg(0, dt);
    if (op == "where" && arity == 3) {
      llvm::Value *c = arg(0, DType::Bool), *x = arg(1, dt), *y = arg(2, dt);
      if (!x || !y) return nullptr;
      return b.CreateSelect(c, x, y);
    }
    return nullptr;
  }

  std::vector<DType> operandTypes(const Node &n) {
    std::vector<DType> types;
    for (ValueRef v : n.inputs) types.push_back(g.typeOf(v).dtype());
    return types;
  }

  bool emitScalarOp(const Node &n) {
    std::vector<llvm::Value *> args;
    for (ValueRef v : n.inputs) args.push_back(load(v));
    llvm::Value *r = elementOp(n, args, operandTypes(n));
    if (!r) return false;
    store({n.id, 0}, r);
    return true;
  }

  /// Whether elementOp handles n (tried on placeholder operands in a scratch block).
  bool supportsElementOp(const Node &n) {
    llvm::IRBuilderBase::InsertPointGuard keep(b);
    auto *scratch = llvm::BasicBlock::Create(ctx, "probe", mainFn);
    b.SetInsertPoint(scratch);
    std::vector<DType> types = operandTypes(n);
    std::vector<llvm::Value *> args;
    for (DType t : types) args.push_back(llvm::PoisonValue::get(scalarType(t)));
    bool ok = elementOp(n, args, types) != nullptr;
    scratch->eraseFromParent();
    return ok;
  }

  /// Counts, per resolved value, its readers (Exits apart): a tensor read once may be updated
  /// in place by that reader.
  void countUses() {
    uses.assign(g.numNodes(), {});
    exitUses.assign(g.numNodes(), {});
    for (const Node &n : g.nodes()) {
      if (s.roles[n.id] == NodeRole::Forward) continue;
      for (ValueRef v : n.inputs) {
        ValueRef r = s.resolve(g, v);
        auto &counts = s.roles[n.id] == NodeRole::Exit ? exitUses[r.node] : uses[r.node];
        if (counts.size() <= r.port) counts.resize(r.port + 1, 0);
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
    if (producer.frame != n.frame || useCount(uses, r) != 1) return false;
    if (useCount(exitUses, r) == 0) return true;
    return s.roles[r.node] == NodeRole::LoopMerge && nInBody;
  }

  /// An elementwise op on same-shape tensors (and scalars) as one loop over dense memory,
  /// updating an operand in place when it can be donated. Operands that are not dense at run
  /// time take the kernel instead.
  bool emitTensorLoop(const Node &n) {
    if (n.numResults() != 1 || repr({n.id, 0}) != Repr::Tensor || n.inputs.empty()) return false;
    const Type &result = n.results[0];
    for (ValueRef v : n.inputs) {
      Repr r = repr(v);
      if (r == Repr::Scalar) continue;
      if (r != Repr::Tensor || g.typeOf(v).shape() != result.shape()) return false;
    }
    if (!supportsElementOp(n)) return false;
    std::vector<DType> types = operandTypes(n);
    std::vector<llvm::Value *> values, data;
    llvm::Value *dense = b.getTrue(), *like = nullptr;
    std::optional<ValueRef> donor;
    for (ValueRef v : n.inputs) {
      values.push_back(load(v));
      if (repr(v) != Repr::Tensor) {
        data.push_back(nullptr);
        continue;
      }
      if (!like) like = values.back();
      ValueRef r = s.resolve(g, v);
      if (!donor && g.typeOf(v).dtype() == result.dtype() && donatable(n, r, currentBody)) donor = r;
      data.push_back(b.CreateCall(rt("dlm_tensor_dense_data", ptrTy, {ptrTy}), {values.back()}));
      dense = b.CreateAnd(dense, b.CreateIsNotNull(data.back()));
    }
    auto *fast = llvm::BasicBlock::Create(ctx, "loop." + llvm::Twine(n.id), mainFn);
    auto *slow = llvm::BasicBlock::Create(ctx, "kernel." + llvm::Twine(n.id), mainFn);
    auto *join = llvm::BasicBlock::Create(ctx, "done." + llvm::Twine(n.id), mainFn);
    b.CreateCondBr(dense, fast, slow);
    b.SetInsertPoint(fast);
    llvm::Value *null = llvm::ConstantPointerNull::get(ptrTy);
    llvm::Value *donorValue = donor ? b.CreateLoad(ptrTy, slot(*donor)) : null;
    llvm::Value *out = b.CreateCall(rt("dlm_tensor_output_like", ptrTy, {ptrTy, i32(), ptrTy}),
                                    {donorValue, b.getInt32((int)result.dtype()), like});
    checkFailure(b.CreateIsNull(out), n);
    if (donor) b.CreateStore(b.CreateSelect(b.CreateICmpEQ(out, donorValue), null, donorValue), slot(*donor));
    llvm::Value *po = b.CreateCall(rt("dlm_tensor_dense_data", ptrTy, {ptrTy}), {out});
    std::optional<int64_t> staticCount = result.staticNumElements();
    llvm::Value *count = staticCount ? (llvm::Value *)b.getInt64(*staticCount)
                                     : b.CreateCall(rt("dlm_tensor_numel", i64(), {ptrTy}), {like});
    std::vector<llvm::Value *> operands = {po, count};
    for (size_t k = 0; k < values.size(); ++k) operands.push_back(data[k] ? data[k] : values[k]);
    b.CreateCall(elementLoopFunction(n, types, data), operands);
    store({n.id, 0}, out);
    b.CreateBr(join);
    b.SetInsertPoint(slow);
    emitKernelCall(n);
    b.CreateBr(join);
    b.SetInsertPoint(join);
    return true;
  }

  llvm::Type *memoryType(DType t) { return t == DType::Bool ? b.getInt8Ty() : scalarType(t); }

  /// An internal function `void dlm_elementwise.N(ptr out, i64 count, operands...)` running
  /// for (i = 0; i < count; ++i) out[i] = op(operands at i), where a tensor operand is a data
  /// pointer and a scalar operand its value: a small function LLVM vectorises on its own (and
  /// one place for a fused region's body when the optimizer produces them).
  llvm::Function *elementLoopFunction(const Node &n, llvm::ArrayRef<DType> types,
                                      llvm::ArrayRef<llvm::Value *> data) {
    std::vector<llvm::Type *> params = {ptrTy, i64()};
    for (size_t k = 0; k < types.size(); ++k) params.push_back(data[k] ? (llvm::Type *)ptrTy : scalarType(types[k]));
    auto *fn = llvm::Function::Create(llvm::FunctionType::get(voidTy(), params, false),
                                      llvm::Function::InternalLinkage, "dlm_elementwise." + llvm::Twine(n.id), m.get());
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::IRBuilderBase::InsertPointGuard keep(b);
    auto *entry = llvm::BasicBlock::Create(ctx, "entry", fn);
    auto *body = llvm::BasicBlock::Create(ctx, "elements", fn);
    auto *after = llvm::BasicBlock::Create(ctx, "done", fn);
    b.SetInsertPoint(entry);
    llvm::Value *out = fn->getArg(0), *count = fn->getArg(1);
    b.CreateCondBr(b.CreateICmpSGT(count, b.getInt64(0)), body, after);
    b.SetInsertPoint(body);
    llvm::PHINode *i = b.CreatePHI(i64(), 2, "i");
    i->addIncoming(b.getInt64(0), entry);
    std::vector<llvm::Value *> args;
    for (size_t k = 0; k < types.size(); ++k) {
      llvm::Value *arg = fn->getArg(2 + k);
      if (!data[k]) {
        args.push_back(arg);
        continue;
      }
      llvm::Type *mem = memoryType(types[k]);
      llvm::Value *x = b.CreateLoad(mem, b.CreateInBoundsGEP(mem, arg, i));
      args.push_back(types[k] == DType::Bool ? b.CreateICmpNE(x, b.getInt8(0)) : x);
    }
    DType dt = n.results[0].dtype();
    llvm::Value *r = elementOp(n, args, types);
    if (dt == DType::Bool) r = b.CreateZExt(r, b.getInt8Ty());
    b.CreateStore(r, b.CreateInBoundsGEP(memoryType(dt), out, i));
    llvm::Value *next = b.CreateAdd(i, b.getInt64(1), "", true, true);
    i->addIncoming(next, body);
    b.CreateCondBr(b.CreateICmpSLT(next, count), body, after);
    b.SetInsertPoint(after);
    b.CreateRetVoid();
    return fn;
  }

  static bool isComparison(const std::string &op) {
    return op == "eq" || op == "ne" || op == "lt" || op == "le" || op == "gt" || op == "ge";
  }

  llvm::Value *compare(const std::string &op, DType t, llvm::Value *x, llvm::Value *y) {
    if (isFloat(t)) {
      if (op == "eq") return b.CreateFCmpOEQ(x, y);
      if (op == "ne") return b.CreateFCmpUNE(x, y);
      if (op == "lt") return b.CreateFCmpOLT(x, y);
      if (op == "le") return b.CreateFCmpOLE(x, y);
      if (op == "gt") return b.CreateFCmpOGT(x, y);
      return b.CreateFCmpOGE(x, y);
    }
    bool u = t == DType::Bool;
    if (op == "eq") return b.CreateICmpEQ(x, y);
    if (op == "ne") return b.CreateICmpNE(x, y);
    if (op == "lt") return u ? b.CreateICmpULT(x, y) : b.CreateICmpSLT(x, y);
    if (op == "le") return u ? b.CreateICmpULE(x, y) : b.CreateICmpSLE(x, y);
    if (op == "gt") return u ? b.CreateICmpUGT(x, y) : b.CreateICmpSGT(x, y);
    return u ? b.CreateICmpUGE(x, y) : b.CreateICmpSGE(x, y);
  }

  /// A 0-d tensor holding a register scalar (a new reference).
  llvm::Value *box(llvm::Value *v, DType t) {
    switch (t) {
    case DType::F32: return b.CreateCall(rt("dlm_tensor_scalar_f32", ptrTy, {b.getFloatTy()}), {v});
    case DType::F64: return b.CreateCall(rt("dlm_tensor_scalar_f64", ptrTy, {b.getDoubleTy()}), {v});
    case DType::I32: return b.CreateCall(rt("dlm_tensor_scalar_i32", ptrTy, {i32()}), {v});
    case DType::I64: return b.CreateCall(rt("dlm_tensor_scalar_i64", ptrTy, {i64()}), {v});
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
      case Repr::Tensor: tensor = x; break;
      case Repr::Str: str = x; break;
      case Repr::Scalar: tensor = box(x, g.typeOf(v).dtype()); boxed.push_back(tensor); break;
      case Repr::Unsupported: unsupported(n, "operand type " + g.typeOf(v).str() + " has no machine representation"); return;
      }
      llvm::Value *element = b.CreateConstGEP1_32(valueTy, ins, i);
      b.CreateStore(tensor, b.CreateStructGEP(valueTy, element, 0));
      b.CreateStore(str, b.CreateStructGEP(valueTy, element, 1));
    }
    llvm::Value *status = b.CreateCall(
        rt("dlm_kernel_call_values", i32(), {i32(), ptrTy, i32(), ptrTy, ptrTy, i32(), ptrTy}),
        {id, ins, b.getInt32(numIn), attrs, outs, b.getInt32(numOut), null});
    for (llvm::Value *t : boxed) release(b, t);
    checkStatus(status, n);
    for (uint32_t p = 0; p < numOut; ++p) {
      llvm::Value *t = b.CreateLoad(ptrTy, b.CreateConstGEP1_32(ptrTy, outs, p));
      if (repr({n.id, p}) != Repr::Scalar) {
        store({n.id, p}, t);
        continue;
      }
      DType dt = n.results[p].dtype();
      llvm::Type *memTy = dt == DType::Bool ? b.getInt8Ty() : scalarType(dt);
      if (!scalarTmp) scalarTmp = entryAlloca(i64());
      llvm::AllocaInst *tmp = scalarTmp;
      llvm::Value *rs = b.CreateCall(rt("dlm_tensor_read_scalar", i32(), {ptrTy, i32(), ptrTy}),
                                     {t, b.getInt32((int)dt), tmp});
      release(b, t);
      checkStatus(rs, n);
      llvm::Value *v = b.CreateLoad(memTy, tmp);
      if (dt == DType::Bool) v = b.CreateICmpNE(v, b.getInt8(0));
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
    mb.CreateCall(m->getOrInsertFunction("dlm_print_last_error", llvm::FunctionType::get(voidTy(), false)));
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
  std::vector<std::vector<llvm::AllocaInst *>> slots;
  std::map<std::string, llvm::Constant *> strings;
  std::map<std::string, llvm::GlobalVariable *> kernelIds;
  std::vector<std::vector<unsigned>> uses, exitUses; ///< see countUses
  bool currentBody = false; ///< the item being emitted is in its loop's body
  llvm::AllocaInst *callInputs = nullptr, *callOutputs = nullptr, *scalarTmp = nullptr;
  llvm::BasicBlock *failBlock = nullptr; ///< the shared error exit (see checkFailure)
  llvm::PHINode *failSite = nullptr;
  std::vector<llvm::Constant *> sites;
  std::map<NodeId, uint32_t> siteOf;
};

} // namespace

std::unique_ptr<llvm::Module> emitModule(const Graph &g, const Structure &s, llvm::LLVMContext &ctx,
                                         const EmitOptions &options, std::string &error) {
  return Emitter(g, s, ctx, options, error).run();
}

} // namespace dlm::codegen
