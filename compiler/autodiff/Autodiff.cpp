//===- compiler/autodiff/Autodiff.cpp - Flattening and the Grad entry point ===//
//
// The Differentiator answers a Grad op with a derivative function in three steps:
//   1. flatten: copy the callee with every call inlined (lowering inlines them too, so nothing
//      is lost), checkpointed calls kept as calls to flattened copies (their bodies are
//      recomputed in the backward), and every nested Grad op replaced by the body of its own
//      derivative — which is how grad(grad(f)) differentiates code that contains a backward
//      pass with stacks;
//   2. Reverse (Reverse.cpp) rewrites the copy in place into forward + backward;
//   3. the result is cached per (callee, argnums, with_value).
// Every copied op keeps its source range, so gradient code points at the forward source.
//
//===----------------------------------------------------------------------===//
#include "compiler/autodiff/Autodiff.h"

#include "compiler/autodiff/Reverse.h"
#include "compiler/support/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"

namespace dlm::autodiff {
namespace {

using ValueMap = llvm::DenseMap<const ssa::Value *, ssa::Value *>;

/// Copies blocks op by op, inlining calls and nested derivatives.
class Cloner {
public:
  explicit Cloner(Differentiator &d, const ssa::InlineSite *outer = nullptr) : d(d), outer(outer) {}

  bool cloneBlock(const ssa::Block &src, ssa::Block &dst, ValueMap &map, bool dropTerminator,
                  ssa::Value **returned = nullptr) {
    for (const auto &op : src.ops) {
      if (op->kind == ssa::OpKind::Return) {
        if (returned)
          *returned = op->operands.empty() ? nullptr : map.lookup(op->operands[0]);
        if (dropTerminator)
          continue;
      }
      if (!cloneOp(*op, dst, map))
        return false;
    }
    return true;
  }

private:
  /// The copy of `op`'s chain once its body is copied under `outer` (the call being inlined).
  const ssa::InlineSite *siteOf(const ssa::Operation &op) {
    return d.sites().appendSite(op.inlinedAt, outer);
  }

  bool inlineBody(const ssa::Function &callee, const ssa::Operation &call, ssa::Block &dst,
                  ValueMap &map) {
    ValueMap inner;
    for (size_t i = 0; i < callee.entry().args.size(); ++i)
      inner[callee.entry().args[i].get()] = map.lookup(call.operands[i]);
    ssa::Value *ret = nullptr;
    const ssa::InlineSite *caller = outer;
    outer = d.sites().addSite(call.loc, call.calleeName(), siteOf(call));
    bool ok = cloneBlock(callee.entry(), dst, inner, /*dropTerminator=*/true, &ret);
    outer = caller;
    if (!ok)
      return false;
    if (!call.results.empty())
      map[call.result()] = ret;
    return true;
  }

  bool cloneOp(const ssa::Operation &op, ssa::Block &dst, ValueMap &map) {
    if (op.kind == ssa::OpKind::Call && op.callee && !op.callee->isCheckpointed)
      return inlineBody(*op.callee, op, dst, map);
    if (op.kind == ssa::OpKind::Grad) {
      const ssa::Function *df = d.derivative(op);
      return df && inlineBody(*df, op, dst, map);
    }
    auto copy = std::make_unique<ssa::Operation>(op.kind, op.loc);
    copy->info = op.info;
    copy->attrs = op.attrs;
    copy->gradOf = op.gradOf;
    copy->inlinedAt = siteOf(op);
    copy->callee = op.callee;
    if (op.kind == ssa::OpKind::Call) {
      copy->callee = d.flatten(*op.callee, /*share=*/true);
      if (!copy->callee)
        return false;
    }
    for (const ssa::Value *v : op.operands)
      copy->operands.push_back(map.lookup(v));
    for (const auto &r : op.results) {
      ssa::Value *nr = copy->addResult(r->type);
      nr->name = r->name;
      map[r.get()] = nr;
    }
    for (const auto &c : op.carried) {
      copy->carried.push_back(std::make_unique<ssa::Value>(c->type, nullptr, c->index, c->loc));
      copy->carried.back()->name = c->name;
      map[c.get()] = copy->carried.back().get();
    }
    copy->parent = &dst;
    ssa::Operation *raw = copy.get();
    dst.ops.push_back(std::move(copy));
    for (const auto &region : op.regions) {
      ssa::Region &nr = raw->addRegion();
      for (const auto &a : region->block->args) {
        ssa::Value *na = nr.block->addArg(a->type, a->loc);
        na->name = a->name;
        map[a.get()] = na;
      }
      if (!cloneBlock(*region->block, *nr.block, map, false))
        return false;
    }
    return true;
  }

  Differentiator &d;
  /// The call whose body is being copied (null at the function's own level).
  const ssa::InlineSite *outer = nullptr;
};

} // namespace

Differentiator::Differentiator(DiagnosticEngine &diags)
    : diags(diags), store(std::make_unique<ssa::Program>()) {
  registerGradRules();
}

Differentiator::~Differentiator() = default;

ssa::Function *Differentiator::flatten(const ssa::Function &fn, bool share) {
  bool memo = share; // a shared copy is only read (a checkpointed body is recomputed from it)
  if (memo)
    if (auto it = flatCache.find(&fn); it != flatCache.end())
      return it->second;
  ssa::Function &copy = store->addFunction(fn.name, fn.loc);
  copy.resultType = fn.resultType;
  copy.paramNames = fn.paramNames;
  copy.isCheckpointed = fn.isCheckpointed;
  ValueMap map;
  for (const auto &a : fn.entry().args) {
    ssa::Value *na = copy.entry().addArg(a->type, a->loc);
    na->name = a->name;
    map[a.get()] = na;
  }
  Cloner cloner(*this);
  if (!cloner.cloneBlock(fn.entry(), copy.entry(), map, false))
    return nullptr;
  if (memo)
    flatCache[&fn] = &copy;
  return &copy;
}

ssa::Value *Differentiator::inlineInto(const ssa::Function &fn, ssa::Block &into,
                                       const std::vector<ssa::Value *> &args,
                                       const ssa::InlineSite *site) {
  ValueMap map;
  for (size_t i = 0; i < fn.entry().args.size(); ++i)
    map[fn.entry().args[i].get()] = args[i];
  ssa::Value *ret = nullptr;
  Cloner cloner(*this, site);
  if (!cloner.cloneBlock(fn.entry(), into, map, /*dropTerminator=*/true, &ret))
    return nullptr;
  return ret;
}

const ssa::Function *Differentiator::derivative(const ssa::Operation &gradOp) {
  std::vector<int64_t> argnums;
  if (auto *a = std::get_if<std::vector<int64_t>>(&gradOp.attrs.at("argnums")))
    argnums = *a;
  bool withValue = false;
  if (auto it = gradOp.attrs.find("with_value"); it != gradOp.attrs.end())
    withValue = std::get<bool>(it->second);
  auto key = std::make_tuple(gradOp.callee, argnums, withValue);
  if (auto it = cache.find(key); it != cache.end())
    return it->second;
  cache[key] = nullptr; // a Grad reached again while this one is being built fails once
  ssa::Function *fn = flatten(*gradOp.callee);
  if (!fn)
    return nullptr;
  // Unique within the store, as sema names specialisations: grad(f, argnums=1) after grad(f)
  // is `grad.f.1`.
  std::string name = (withValue ? "value_and_grad." : "grad.") + gradOp.callee->name;
  fn->name = name;
  for (unsigned n = 1; store->lookup(fn->name) != fn; ++n)
    fn->name = name + "." + std::to_string(n);
  fn->isCheckpointed = false;
  Reverse reverse(*this, *fn);
  if (!reverse.run(argnums, withValue, gradOp.result()->type)) {
    diags.note(gradOp.loc, "while differentiating '" + gradOp.callee->name + "' here");
    cache[key] = nullptr; // reported once
    return nullptr;
  }
  cache[key] = fn;
  return fn;
}

bool Differentiator::differentiateCalls(const ssa::Block &block,
                                        std::set<const ssa::Function *> &seen) {
  bool ok = true;
  for (const auto &op : block.ops) {
    if (op->kind == ssa::OpKind::Grad)
      ok &= derivative(*op) != nullptr;
    else if (op->kind == ssa::OpKind::Call && op->callee && seen.insert(op->callee).second)
      ok &= differentiateCalls(op->callee->entry(), seen);
    for (const auto &region : op->regions)
      ok &= differentiateCalls(*region->block, seen);
  }
  return ok;
}

bool Differentiator::differentiateProgram(const ssa::Program &program) {
  std::set<const ssa::Function *> seen;
  // An entry compilation (the embedding API) lowers its entry def instead of main.
  const ssa::Function *main = program.entry ? program.entry : program.main();
  return !main || differentiateCalls(main->entry(), seen); // no main: lowering says so
}

} // namespace dlm::autodiff
