//===- compiler/autodiff/Reverse.cpp - Forward augmentation + backward sweep ===//
//
// Reverse::run, on a flattened function (Reverse.h explains levels and primal values):
//   1. activity: `varied` (depends on a differentiated parameter) and `useful` (the result
//      depends on it) are computed to a fixpoint over the structured SSA; only values that are
//      both get adjoints, so inactive paths produce no ops and absent adjoints stay symbolic;
//   2. the Return is removed and the result's adjoint seeded with 1;
//   3. the body's ops are swept in reverse: a registry op calls its gradient rule; tuple and get
//      route leaf adjoints; an `if` becomes a backward `if` on the same predicate whose sides
//      sweep the forward sides (gradient of Merge = Switch and of Switch = Merge once lowered);
//      a loop becomes a backward `for` over the forward trip count whose body sweeps the
//      forward body, carrying the adjoints of the loop variables and accumulating the adjoints
//      of values from outside the loop (invariants) over the iterations; a checkpointed call
//      is recomputed in place and swept there;
//   4. the gradients of the requested parameters (zeros where none arrived) are returned, with
//      the value first for value_and_grad.
// Materialised zeros are only made where control flow needs a value on both paths (a side of
// an `if` that does not touch an adjoint, a loop variable's adjoint before the first backward
// iteration).
//
//===----------------------------------------------------------------------===//
#include "compiler/autodiff/Reverse.h"

#include "compiler/frontend/Diagnostics.h"

#include <algorithm>

namespace dlm::autodiff {

//===--- small helpers --------------------------------------------------===//

std::vector<Type> leafTypes(const Type &t) {
  if (!t.isTuple())
    return {t};
  std::vector<Type> out;
  for (const Type &e : t.elements())
    for (Type &l : leafTypes(e))
      out.push_back(std::move(l));
  return out;
}

bool isFloatType(const Type &t) {
  return t.kind() == Type::Kind::Float || (t.isTensor() && isFloat(t.dtype()));
}

size_t indexIn(const ssa::Block &b, const ssa::Operation *op) {
  for (size_t i = 0; i < b.ops.size(); ++i)
    if (b.ops[i].get() == op)
      return i;
  return b.ops.size();
}

LoopParts loopParts(ssa::Operation &loop) {
  LoopParts p;
  bool isFor = loop.kind == ssa::OpKind::For;
  size_t firstCarried = isFor ? 1 : 0;
  p.body = (isFor ? loop.regions[0] : loop.regions[1])->block.get();
  p.inits.assign(loop.operands.begin() + (isFor ? 3 : 0), loop.operands.end());
  for (size_t i = firstCarried; i < loop.carried.size(); ++i)
    p.headers.push_back(loop.carried[i].get());
  ssa::Operation *term = p.body->terminator();
  size_t skipYield = term->operands.size() == loop.carried.size() ? firstCarried : 0;
  p.yields.assign(term->operands.begin() + skipYield, term->operands.end());
  size_t skipResult = loop.results.size() == loop.carried.size() ? firstCarried : 0;
  for (size_t i = skipResult; i < loop.results.size(); ++i)
    p.results.push_back(loop.results[i].get());
  return p;
}

namespace {

size_t numLeaves(const Type &t) { return leafTypes(t).size(); }

ssa::Value *newHeader(ssa::Operation &loop, Type type, llvm::SMRange loc) {
  loop.carried.push_back(
      std::make_unique<ssa::Value>(std::move(type), nullptr, unsigned(loop.carried.size()), loc));
  return loop.carried.back().get();
}

ssa::Operation *makeStructural(ssa::OpKind kind, llvm::SMRange loc, ssa::Block &into,
                               std::vector<ssa::Value *> operands) {
  auto op = std::make_unique<ssa::Operation>(kind, loc);
  op->operands = std::move(operands);
  op->parent = &into;
  ssa::Operation *raw = op.get();
  into.ops.push_back(std::move(op));
  return raw;
}

} // namespace

//===--- values, levels, emission ----------------------------------------===//

uint64_t Reverse::order(const ssa::Value *v) {
  auto [it, inserted] = numbering.try_emplace(v, numbering.size());
  return it->second;
}

const ssa::Block *Reverse::defBlock(const ssa::Value *v) const {
  if (v->def)
    return v->def->parent;
  auto it = argBlocks.find(v);
  return it == argBlocks.end() ? nullptr : it->second;
}

Level *Reverse::levelOf(const ssa::Value *v, Level &from) {
  const ssa::Block *b = defBlock(v);
  for (Level *l = &from; l; l = l->parent)
    if (l->fwd == b)
      return l;
  return nullptr;
}

ssa::Operation *Reverse::insertOp(ssa::Block &b, size_t pos, std::unique_ptr<ssa::Operation> op) {
  op->parent = &b;
  if (!op->inlinedAt)
    op->inlinedAt = ruleOp ? ruleOp->inlinedAt : sweepSite;
  ssa::Operation *raw = op.get();
  if (pos >= b.ops.size())
    b.ops.push_back(std::move(op));
  else
    b.ops.insert(b.ops.begin() + ptrdiff_t(pos), std::move(op));
  return raw;
}

ssa::Value *Reverse::makeOp(ssa::Block &b, size_t pos, const std::string &name,
                            std::vector<ssa::Value *> operands, Attrs attrs, llvm::SMRange loc,
                            std::optional<Type> type) {
  const OpInfo *info = OpRegistry::get().lookup(name);
  assert(info && "autodiff emits registry ops only");
  // An op made for a gradient rule (its own, or the stack traffic of a value it reads) is
  // placed at the forward op: errors say "in the gradient of 'op' at <op's location>".
  auto op = std::make_unique<ssa::Operation>(ssa::OpKind::Builtin, ruleOp ? ruleOp->loc : loc);
  op->info = info;
  op->operands = std::move(operands);
  op->attrs = std::move(attrs);
  if (ruleOp)
    op->gradOf = ruleOp->info->name;
  if (!type) {
    std::vector<Type> types;
    for (ssa::Value *v : op->operands)
      types.push_back(v->type);
    std::string error;
    int culprit = -1;
    type = OpRegistry::get().infer(*info, types, op->attrs, dims(), error, culprit);
    if (!error.empty())
      fail(loc, "internal error: gradient op '" + name + "': " + error);
  }
  ssa::Value *r = op->addResult(*type);
  insertOp(b, pos, std::move(op));
  return r;
}

ssa::Value *Reverse::emit(Level &at, const std::string &name, std::vector<ssa::Value *> operands,
                          Attrs attrs, llvm::SMRange loc, std::optional<Type> type) {
  size_t pos = at.cursor ? (*at.cursor)++ : SIZE_MAX;
  return makeOp(*at.bwd, pos, name, std::move(operands), std::move(attrs), loc, std::move(type));
}

void Reverse::fail(llvm::SMRange loc, const std::string &message) {
  if (!failed)
    d.diagnostics().error(loc, message);
  failed = true;
}

ssa::Value *Reverse::extractLeaf(Level &at, ssa::Value *v, unsigned leaf, llvm::SMRange loc) {
  while (v->type.isTuple()) {
    const std::vector<Type> &elems = v->type.elements();
    for (size_t e = 0; e < elems.size(); ++e) {
      unsigned n = unsigned(numLeaves(elems[e]));
      if (leaf >= n) {
        leaf -= n;
        continue;
      }
      ssa::Operation *get = nullptr;
      {
        auto op = std::make_unique<ssa::Operation>(ssa::OpKind::Get, loc);
        op->operands = {v};
        op->attrs["index"] = int64_t(e);
        op->addResult(elems[e]);
        size_t pos = at.cursor ? (*at.cursor)++ : SIZE_MAX;
        get = insertOp(*at.bwd, pos, std::move(op));
      }
      v = get->result();
      break;
    }
  }
  return v;
}

ssa::Value *Reverse::copyAfter(Level &at, ssa::Value *v, ssa::Value *token, llvm::SMRange loc) {
  if (!v->type.isTuple()) {
    Type::Kind k = v->type.kind();
    bool value = k == Type::Kind::Tensor || k == Type::Kind::Float || k == Type::Kind::Int ||
                 k == Type::Kind::Bool;
    if (value && token)
      return emit(at, "after", {v, token}, {}, loc, v->type);
    return emit(at, "Identity", {v}, {}, loc, v->type);
  }
  std::vector<ssa::Value *> elems;
  const std::vector<Type> &types = v->type.elements();
  for (size_t e = 0; e < types.size(); ++e) {
    auto get = std::make_unique<ssa::Operation>(ssa::OpKind::Get, loc);
    get->operands = {v};
    get->attrs["index"] = int64_t(e);
    get->addResult(types[e]);
    size_t pos = at.cursor ? (*at.cursor)++ : SIZE_MAX;
    elems.push_back(copyAfter(at, insertOp(*at.bwd, pos, std::move(get))->result(), token, loc));
  }
  auto tuple = std::make_unique<ssa::Operation>(ssa::OpKind::Tuple, loc);
  tuple->operands = std::move(elems);
  tuple->addResult(v->type);
  size_t pos = at.cursor ? (*at.cursor)++ : SIZE_MAX;
  return insertOp(*at.bwd, pos, std::move(tuple))->result();
}

ssa::Value *Reverse::zerosLike(Level &at, ssa::Value *v, llvm::SMRange loc) {
  return emit(at, "zeros_like", {v}, {}, loc, v->type);
}

ssa::Value *Reverse::zerosOf(Level &at, const ssa::Value *v, unsigned leaf, llvm::SMRange loc) {
  Type t = leafTypes(v->type)[leaf];
  if (t.kind() == Type::Kind::Float)
    return constLike(at, 0.0, nullptr, loc);
  if (t.isTensor() && t.staticNumElements()) {
    Attrs a;
    a["shape"] = t.shape();
    a["dtype"] = t.dtype();
    return emit(at, "zeros", {}, a, loc, t);
  }
  ssa::Value *p = primal(v, at);
  return zerosLike(at, extractLeaf(at, p, leaf, loc), loc);
}

ssa::Value *Reverse::constLike(Level &at, double v, ssa::Value *like, llvm::SMRange loc) {
  Attrs a;
  if (!like || !like->type.isTensor() || !isFloat(like->type.dtype())) {
    a["value"] = v;
    return emit(at, "const", {}, a, loc, Type::floatTy());
  }
  a["value"] = std::vector<double>{v};
  a["shape"] = Shape{};
  a["dtype"] = like->type.dtype();
  return emit(at, "const", {}, a, loc, Type::tensor(like->type.dtype(), {}));
}

//===--- primal values: exports out of ifs and loops ----------------------===//

ssa::Value *Reverse::primal(const ssa::Value *v, Level &at) {
  Level *l = levelOf(v, at);
  if (!l || l->sameBlock)
    return const_cast<ssa::Value *>(v); // defined in a backward block or visible: read it
  // A constant is cheaper to make again than to export from a branch or stack in a loop.
  const ssa::Operation *def = v->def;
  if (def && def->kind == ssa::OpKind::Builtin && def->info->name == "const")
    return emit(at, "const", {}, def->attrs, def->loc, v->type);
  return exportValue(v, *l);
}

ssa::Value *Reverse::exportValue(const ssa::Value *v, Level &level) {
  if (level.sameBlock)
    return const_cast<ssa::Value *>(v);
  if (auto it = level.visible.find(v); it != level.visible.end())
    return it->second;
  ssa::Value *out = nullptr;
  if (level.kind == Level::Kind::LoopBody)
    out = exportFromLoop(v, level);
  else if (loopAroundIfs(level) && v->type.isTensor() && !v->type.staticNumElements() &&
           !stackValues.count(v))
    out = exportFromIfInLoop(v, level);
  else
    out = exportFromIf(v, level);
  level.visible[v] = out;
  return out;
}

ssa::Value *Reverse::exportFromIf(const ssa::Value *v, Level &level) {
  ssa::Operation &ifOp = *level.fwdOp;
  while (ifOp.regions.size() < 2) {
    ssa::Region &r = ifOp.addRegion();
    makeStructural(ssa::OpKind::Yield, ifOp.loc, *r.block, {});
  }
  for (int side = 0; side < 2; ++side) {
    ssa::Block &b = *ifOp.regions[side]->block;
    ssa::Value *val = const_cast<ssa::Value *>(v);
    if (side != level.side) {
      auto undef = std::make_unique<ssa::Operation>(ssa::OpKind::Undef, ifOp.loc);
      val = undef->addResult(v->type);
      insertOp(b, b.ops.size() - 1, std::move(undef));
    }
    b.terminator()->operands.push_back(val);
  }
  ssa::Value *r = ifOp.addResult(v->type);
  if (stackValues.count(v))
    stackValues.insert(r);
  return primal(r, *level.parent);
}

Level *Reverse::loopAroundIfs(Level &level) {
  Level *l = &level;
  while (l->kind == Level::Kind::IfSide)
    l = l->parent;
  return l->kind == Level::Kind::LoopBody && !l->sameBlock ? l : nullptr;
}

ssa::Value *Reverse::exportFromIfInLoop(const ssa::Value *v, Level &level) {
  Level &loopLevel = *loopAroundIfs(level);
  ssa::Operation &loop = *loopLevel.fwdOp;
  // Forward: an empty stack before the loop, carried by it; the innermost `if` pushes v on its
  // side, and every `if` out to the loop body passes the stack through unchanged on its other
  // side.
  Attrs attrs;
  attrs["dtype"] = v->type.dtype();
  attrs["rank"] = int64_t(v->type.rank());
  ssa::Block &outer = *loop.parent;
  ssa::Value *empty =
      makeOp(outer, indexIn(outer, &loop), "stack_new", {}, attrs, loop.loc, std::nullopt);
  LoopParts parts = loopParts(loop);
  loop.operands.push_back(empty);
  ssa::Value *header = newHeader(loop, empty->type, loop.loc);
  argBlocks[header] = parts.body;
  ssa::Value *inner = nullptr;
  for (Level *l = &level; l != &loopLevel; l = l->parent) {
    ssa::Operation &ifOp = *l->fwdOp;
    while (ifOp.regions.size() < 2) {
      ssa::Region &r = ifOp.addRegion();
      makeStructural(ssa::OpKind::Yield, ifOp.loc, *r.block, {});
    }
    ssa::Block &b = *ifOp.regions[size_t(l->side)]->block;
    if (!inner)
      inner = makeOp(b, b.ops.size() - 1, "stack_push", {header, const_cast<ssa::Value *>(v)}, {},
                     ifOp.loc, std::nullopt);
    b.terminator()->operands.push_back(inner);
    ssa::Block &other = *ifOp.regions[size_t(1 - l->side)]->block;
    other.terminator()->operands.push_back(header);
    inner = ifOp.addResult(empty->type);
  }
  parts.body->terminator()->operands.push_back(inner);
  ssa::Value *stack = loop.addResult(empty->type);
  stackValues.insert(stack);
  ssa::Value *stackOutside = primal(stack, *loopLevel.parent);
  // Backward: the backward loop carries the stack; the innermost backward `if` pops it on v's
  // side first thing, and each backward `if` hands on the stack like the forward ones (sweepIf):
  // the outermost one's result is the loop's next stack.
  ssa::Operation &bwd = *loopLevel.bwdLoop;
  bwd.operands.push_back(stackOutside);
  ssa::Value *bwdHeader = newHeader(bwd, stackOutside->type, loop.loc);
  argBlocks[bwdHeader] = loopLevel.bwd;
  auto prefixOp = [&](const char *name, std::optional<Type> type) {
    ssa::Value *r = makeOp(*level.bwd, level.prefix++, name, {bwdHeader}, {}, v->loc, type);
    if (level.cursor)
      ++*level.cursor;
    return r;
  };
  ssa::Value *top = prefixOp("stack_top", v->type);
  ssa::Value *pop = prefixOp("stack_pop", std::nullopt);
  for (Level *l = &level; l != &loopLevel; l = l->parent)
    l->threaded.push_back({loopLevel.next.size(), bwdHeader, l == &level ? pop : nullptr});
  loopLevel.next.push_back(nullptr); // set by the outermost backward if (sweepIf)
  return top;
}

ssa::Value *Reverse::addCarried(ssa::Operation &loop, ssa::Value *init, NextFn next,
                                const ssa::Value *payload) {
  LoopParts parts = loopParts(loop);
  loop.operands.push_back(init);
  ssa::Value *header = newHeader(loop, init->type, loop.loc);
  argBlocks[header] = parts.body;
  ssa::Operation *term = parts.body->terminator();
  term->operands.push_back((this->*next)(loop, *parts.body, header, payload));
  return loop.addResult(init->type);
}

ssa::Value *Reverse::pushNext(ssa::Operation &loop, ssa::Block &body, ssa::Value *header,
                              const ssa::Value *payload) {
  return makeOp(body, body.ops.size() - 1, "stack_push",
                {header, const_cast<ssa::Value *>(payload)}, {}, loop.loc, std::nullopt);
}

ssa::Value *Reverse::countNext(ssa::Operation &loop, ssa::Block &body, ssa::Value *header,
                               const ssa::Value *) {
  Attrs one;
  one["value"] = int64_t(1);
  ssa::Value *c = makeOp(body, body.ops.size() - 1, "const", {}, one, loop.loc, Type::intTy());
  return makeOp(body, body.ops.size() - 1, "add", {header, c}, {}, loop.loc, Type::intTy());
}

ssa::Value *Reverse::extendNext(ssa::Operation &loop, ssa::Block &body, ssa::Value *header,
                                const ssa::Value *payload) {
  return makeOp(body, body.ops.size() - 1, "stack_extend",
                {header, const_cast<ssa::Value *>(payload)}, {}, loop.loc, std::nullopt);
}

ssa::Value *Reverse::exportFromLoop(const ssa::Value *v, Level &level) {
  ssa::Operation &loop = *level.fwdOp;
  Level &parent = *level.parent;
  // A nested loop's stack goes onto this loop's stack entry by entry (stack_extend); its length
  // is saved too, so the backward can split it off again.
  bool nested = stackValues.count(v) != 0;
  ssa::Value *length = nullptr;
  if (nested) {
    ssa::Block &body = *loopParts(loop).body;
    ssa::Value *shape = makeOp(body, body.ops.size() - 1, "shape_of", {const_cast<ssa::Value *>(v)},
                               {}, loop.loc, std::nullopt);
    Attrs axis0, zero;
    axis0["axis"] = int64_t(0);
    zero["value"] = int64_t(0);
    ssa::Value *c0 = makeOp(body, body.ops.size() - 1, "const", {}, zero, loop.loc, Type::intTy());
    length =
        makeOp(body, body.ops.size() - 1, "index", {shape, c0}, axis0, loop.loc, Type::intTy());
  }
  // Forward: an empty stack before the loop, a push per iteration.
  Attrs attrs;
  attrs["dtype"] = v->type.dtype();
  attrs["rank"] = int64_t(v->type.isTensor() ? v->type.rank() : 0) - (nested ? 1 : 0);
  ssa::Block &outer = *loop.parent;
  ssa::Value *empty =
      makeOp(outer, indexIn(outer, &loop), "stack_new", {}, attrs, loop.loc, std::nullopt);
  ssa::Value *stack =
      addCarried(loop, empty, nested ? &Reverse::extendNext : &Reverse::pushNext, v);
  stackValues.insert(stack);
  ssa::Value *stackOutside = primal(stack, parent);
  ssa::Value *count = nested ? primal(length, level) : nullptr;
  // Backward: the loop carries the stack and pops it first thing in each iteration.
  ssa::Operation &bwd = *level.bwdLoop;
  bwd.operands.push_back(stackOutside);
  ssa::Value *header = newHeader(bwd, stackOutside->type, loop.loc);
  argBlocks[header] = level.bwd;
  auto prefixOp = [&](const char *name, std::vector<ssa::Value *> operands,
                      std::optional<Type> type) {
    ssa::Value *r = makeOp(*level.bwd, level.prefix++, name, std::move(operands), {}, v->loc, type);
    if (level.cursor)
      ++*level.cursor;
    return r;
  };
  ssa::Value *top = nested ? prefixOp("stack_tail", {header, count}, v->type)
                           : prefixOp("stack_top", {header}, v->type);
  ssa::Value *pop = nested ? prefixOp("stack_drop", {header, count}, std::nullopt)
                           : prefixOp("stack_pop", {header}, std::nullopt);
  if (nested)
    stackValues.insert(top);
  level.next.push_back(pop);
  return top;
}

ssa::Value *Reverse::tripCount(ssa::Operation &loop, Level &parent) {
  Attrs zero;
  zero["value"] = int64_t(0);
  ssa::Block &outer = *loop.parent;
  ssa::Value *init =
      makeOp(outer, indexIn(outer, &loop), "const", {}, zero, loop.loc, Type::intTy());
  ssa::Value *count = addCarried(loop, init, &Reverse::countNext, nullptr);
  return primal(count, parent);
}

//===--- adjoints ---------------------------------------------------------===//

bool Reverse::isActive(const ssa::Value *v) const {
  if (!analysed || !known.count(v))
    return true;
  return varied.count(v) && useful.count(v);
}

ssa::Value *Reverse::adjoint(Level &at, Leaf leaf) {
  auto it = at.adj->entries.find({order(leaf.first), leaf.second});
  return it == at.adj->entries.end() ? nullptr : it->second.second;
}

void Reverse::give(Level &at, Leaf leaf, ssa::Value *grad, llvm::SMRange loc) {
  if (!grad || !isActive(leaf.first))
    return;
  Type t = leafTypes(leaf.first->type)[leaf.second];
  if (!isFloatType(t))
    return;
  grad = fitTo(at, grad, t, loc);
  auto key = std::make_pair(order(leaf.first), leaf.second);
  auto it = at.adj->entries.find(key);
  if (it == at.adj->entries.end()) {
    at.adj->entries.emplace(key, std::make_pair(leaf, grad));
    return;
  }
  it->second.second = emit(at, "add", {it->second.second, grad}, {}, loc, t);
}

ssa::Value *Reverse::fitTo(Level &at, ssa::Value *g, const Type &t, llvm::SMRange loc) {
  const Type &gt = g->type;
  if (gt == t)
    return g;
  Attrs all;
  all["axes"] = std::vector<int64_t>{};
  all["keepdims"] = false;
  if (!t.isTensor()) {
    if (gt.isTensor())
      g = emit(at, "sum", {g}, all, loc);
    Attrs cast;
    cast["dtype"] = t.dtype();
    return emit(at, "cast", {g}, cast, loc, t);
  }
  if (!gt.isTensor()) {
    Attrs cast;
    cast["dtype"] = t.dtype();
    return emit(at, "cast", {g}, cast, loc, Type::tensor(t.dtype(), {}));
  }
  if (t.staticNumElements() && gt.shape() != t.shape()) {
    Attrs to;
    to["shape"] = t.shape();
    g = emit(at, "sum_to", {g}, to, loc, Type::tensor(g->type.dtype(), t.shape()));
  }
  if (gt.rank() > t.rank() && !t.staticNumElements()) {
    Attrs lead;
    std::vector<int64_t> axes;
    for (size_t i = 0; i < gt.rank() - t.rank(); ++i)
      axes.push_back(int64_t(i));
    lead["axes"] = axes;
    lead["keepdims"] = false;
    g = emit(at, "sum", {g}, lead, loc);
  }
  std::vector<int64_t> ones;
  for (size_t i = 0; i < t.rank() && i < g->type.rank() && !t.staticNumElements(); ++i) {
    const Dim &td = t.shape()[i], &gd = g->type.shape()[i];
    if (td.isStatic() && td.size() == 1 && !(gd.isStatic() && gd.size() == 1))
      ones.push_back(int64_t(i));
  }
  if (!ones.empty()) {
    Attrs keep;
    keep["axes"] = ones;
    keep["keepdims"] = true;
    g = emit(at, "sum", {g}, keep, loc);
  }
  if (g->type.dtype() != t.dtype()) {
    Attrs cast;
    cast["dtype"] = t.dtype();
    g = emit(at, "cast", {g}, cast, loc);
  }
  return g;
}

//===--- activity ---------------------------------------------------------===//

namespace {

template <typename F> void walkOps(ssa::Block &b, F &&each) {
  for (auto &op : b.ops) {
    each(*op);
    for (auto &r : op->regions)
      walkOps(*r->block, each);
  }
}

bool isBackwardHelper(const OpInfo &info) {
  const std::string &n = info.name;
  return n.size() > 5 && n.compare(n.size() - 5, 5, "_grad") == 0;
}

bool flowsThrough(const ssa::Operation &op) {
  switch (op.kind) {
  case ssa::OpKind::Builtin: // backward helpers flow too, so a missing rule is reported
    return op.info->differentiable || isBackwardHelper(*op.info);
  case ssa::OpKind::Tuple:
  case ssa::OpKind::Get:
  case ssa::OpKind::Call:
    return true;
  default:
    return false;
  }
}

} // namespace

void Reverse::registerArgs(ssa::Block &b) {
  for (auto &a : b.args)
    argBlocks[a.get()] = &b;
  for (auto &op : b.ops) {
    if (op->kind == ssa::OpKind::While || op->kind == ssa::OpKind::For) {
      ssa::Block *body = loopParts(*op).body;
      for (auto &c : op->carried)
        argBlocks[c.get()] = body;
    }
    for (auto &r : op->regions)
      registerArgs(*r->block);
  }
}

void Reverse::analyseActivity(const std::vector<int64_t> &argnums) {
  ssa::Block &body = f.entry();
  for (auto &a : body.args)
    known.insert(a.get());
  walkOps(body, [&](ssa::Operation &op) {
    for (auto &r : op.results)
      known.insert(r.get());
    for (auto &c : op.carried)
      known.insert(c.get());
    for (auto &r : op.regions)
      for (auto &a : r->block->args)
        known.insert(a.get());
  });
  for (int64_t a : argnums)
    varied.insert(body.args[size_t(a)].get());
  auto mark = [](std::set<const ssa::Value *> &s, const ssa::Value *v) {
    return s.insert(v).second;
  };
  for (bool changed = true; changed;) {
    changed = false;
    walkOps(body, [&](ssa::Operation &op) {
      if (flowsThrough(op)) {
        bool any = std::any_of(op.operands.begin(), op.operands.end(),
                               [&](const ssa::Value *v) { return varied.count(v); });
        for (auto &r : op.results)
          if (any)
            changed |= mark(varied, r.get());
      } else if (op.kind == ssa::OpKind::If) {
        for (auto &r : op.regions)
          for (size_t j = 0; j < op.results.size(); ++j)
            if (varied.count(r->block->terminator()->operands[j]))
              changed |= mark(varied, op.result(j));
      } else if (op.kind == ssa::OpKind::While || op.kind == ssa::OpKind::For) {
        LoopParts p = loopParts(op);
        for (size_t j = 0; j < p.headers.size(); ++j)
          if (varied.count(p.inits[j]) || varied.count(p.yields[j])) {
            changed |= mark(varied, p.headers[j]);
            changed |= mark(varied, p.results[j]);
          }
      }
    });
  }
  // Stacks already in the program (grad of grad: the inner derivative's loops) are saved entry
  // by entry when a loop of this transformation needs them, like the stacks it makes.
  auto isStackOp = [](const ssa::Operation &op) {
    return op.kind == ssa::OpKind::Builtin && op.info->name.rfind("stack_", 0) == 0 &&
           op.info->name != "stack_top";
  };
  for (bool changed = true; changed;) {
    changed = false;
    walkOps(body, [&](ssa::Operation &op) {
      if (isStackOp(op) || (op.kind == ssa::OpKind::Builtin && op.info->name == "zeros_like" &&
                            stackValues.count(op.operands[0])))
        changed |= mark(stackValues, op.result());
      else if (op.kind == ssa::OpKind::If) {
        for (auto &r : op.regions)
          for (size_t j = 0; j < op.results.size(); ++j)
            if (stackValues.count(r->block->terminator()->operands[j]))
              changed |= mark(stackValues, op.result(j));
      } else if (op.kind == ssa::OpKind::While || op.kind == ssa::OpKind::For) {
        LoopParts p = loopParts(op);
        for (size_t j = 0; j < p.headers.size(); ++j)
          if (stackValues.count(p.inits[j]) || stackValues.count(p.yields[j])) {
            changed |= mark(stackValues, p.headers[j]);
            changed |= mark(stackValues, p.results[j]);
          }
      }
    });
  }
  ssa::Operation *ret = body.terminator();
  if (ret && !ret->operands.empty())
    useful.insert(ret->operands[0]);
  for (bool changed = true; changed;) {
    changed = false;
    walkOps(body, [&](ssa::Operation &op) {
      if (flowsThrough(op)) {
        bool any = std::any_of(op.results.begin(), op.results.end(),
                               [&](const auto &r) { return useful.count(r.get()); });
        for (ssa::Value *v : op.operands)
          if (any)
            changed |= mark(useful, v);
      } else if (op.kind == ssa::OpKind::If) {
        for (size_t j = 0; j < op.results.size(); ++j)
          if (useful.count(op.result(j)))
            for (auto &r : op.regions)
              changed |= mark(useful, r->block->terminator()->operands[j]);
      } else if (op.kind == ssa::OpKind::While || op.kind == ssa::OpKind::For) {
        LoopParts p = loopParts(op);
        for (size_t j = 0; j < p.headers.size(); ++j) {
          if (useful.count(p.results[j]))
            changed |= mark(useful, p.headers[j]);
          if (useful.count(p.headers[j])) {
            changed |= mark(useful, p.yields[j]);
            changed |= mark(useful, p.inits[j]);
          }
        }
      }
    });
  }
  analysed = true;
}

//===--- the sweep --------------------------------------------------------===//

void Reverse::sweepOps(Level &level, std::vector<ssa::Operation *> ops) {
  const ssa::InlineSite *outer = sweepSite;
  for (size_t i = ops.size(); i-- > 0 && !failed;) {
    sweepSite = ops[i]->inlinedAt;
    sweepOp(level, *ops[i]);
  }
  sweepSite = outer;
}

void Reverse::sweepBlock(Level &level, const ssa::Block &block) {
  std::vector<ssa::Operation *> ops;
  for (const auto &op : block.ops)
    ops.push_back(op.get());
  sweepOps(level, std::move(ops));
}

bool Reverse::hasAdjoint(Level &level, const ssa::Operation &op) {
  for (const auto &r : op.results)
    for (unsigned l = 0; l < numLeaves(r->type); ++l)
      if (adjoint(level, {r.get(), l}))
        return true;
  return false;
}

void Reverse::sweepOp(Level &level, ssa::Operation &op) {
  switch (op.kind) {
  case ssa::OpKind::Builtin:
    return sweepBuiltin(level, op);
  case ssa::OpKind::Tuple: {
    unsigned at = 0;
    for (ssa::Value *v : op.operands) {
      unsigned n = unsigned(numLeaves(v->type));
      for (unsigned l = 0; l < n; ++l)
        give(level, {v, l}, adjoint(level, {op.result(), at + l}), op.loc);
      at += n;
    }
    return;
  }
  case ssa::OpKind::Get: {
    ssa::Value *t = op.operands[0];
    int64_t index = std::get<int64_t>(op.attrs.at("index"));
    unsigned offset = 0;
    for (int64_t e = 0; e < index; ++e)
      offset += unsigned(numLeaves(t->type.elements()[size_t(e)]));
    for (unsigned l = 0; l < numLeaves(op.result()->type); ++l)
      give(level, {t, offset + l}, adjoint(level, {op.result(), l}), op.loc);
    return;
  }
  case ssa::OpKind::If:
    return sweepIf(level, op);
  case ssa::OpKind::While:
  case ssa::OpKind::For:
    return sweepLoop(level, op);
  case ssa::OpKind::Call:
    return sweepCheckpoint(level, op);
  default:
    return; // dim, undef, terminators: nothing flows back
  }
}

void Reverse::sweepBuiltin(Level &level, ssa::Operation &op) {
  if (!hasAdjoint(level, op))
    return;
  const OpInfo &info = *op.info;
  if (!info.differentiable) {
    // A backward helper without a rule (conv2d_grad_input, ...) is differentiable in truth:
    // silently zero would be a wrong second derivative.
    bool helper = isBackwardHelper(info);
    bool active = std::any_of(op.operands.begin(), op.operands.end(), [&](const ssa::Value *v) {
      return isFloatType(v->type) && isActive(v);
    });
    if (helper && active)
      fail(op.loc, "cannot differentiate '" + info.name +
                       "' (a second derivative through this op is not supported)");
    return; // stop_gradient, creation, comparisons, zeros_like: the gradient is zero
  }
  if (!info.grad)
    return fail(op.loc, "'" + info.name + "' has no gradient rule");
  GradContext ctx(*this, level, op);
  const ssa::Operation *outer = ruleOp;
  ruleOp = &op;
  info.grad(ctx);
  ruleOp = outer;
}

void Reverse::sweepIf(Level &parent, ssa::Operation &ifOp) {
  struct Seed {
    size_t result;
    unsigned leaf;
    ssa::Value *grad;
  };
  std::vector<Seed> seeds;
  for (size_t j = 0; j < ifOp.results.size(); ++j)
    for (unsigned l = 0; l < numLeaves(ifOp.result(j)->type); ++l)
      if (ssa::Value *g = adjoint(parent, {ifOp.result(j), l}))
        seeds.push_back({j, l, g});
  if (seeds.empty())
    return;
  ssa::Value *pred = primal(ifOp.operands[0], parent);
  auto owned = std::make_unique<ssa::Operation>(ssa::OpKind::If, ifOp.loc);
  owned->operands = {pred};
  ssa::Operation &bwdIf =
      *insertOp(*parent.bwd, parent.cursor ? (*parent.cursor)++ : SIZE_MAX, std::move(owned));
  Level sides[2];
  for (int s = 0; s < 2; ++s) {
    Level &side = sides[s];
    side.kind = Level::Kind::IfSide;
    side.parent = &parent;
    side.fwdOp = &ifOp;
    side.side = s;
    side.bwd = bwdIf.addRegion().block.get();
    side.adj = &side.ownAdj;
    if (size_t(s) >= ifOp.regions.size())
      continue;
    side.fwd = ifOp.regions[s]->block.get();
    ssa::Operation *term = side.fwd->terminator();
    for (const Seed &seed : seeds)
      give(side, {term->operands[seed.result], seed.leaf}, seed.grad, ifOp.loc);
    sweepBlock(side, *side.fwd);
    if (failed)
      return;
  }
  // The adjoints of values from outside the if, each side's own or zeros, meet in the results;
  // then the stacks of the values saved on one side only (exportFromIfInLoop).
  std::map<std::pair<uint64_t, unsigned>, Leaf> outer;
  for (Level &side : sides)
    for (auto &[key, entry] : side.adj->entries)
      if (!side.fwd || defBlock(entry.first.first) != side.fwd)
        outer.emplace(key, entry.first);
  if (outer.empty() && sides[0].threaded.empty() && sides[1].threaded.empty()) {
    parent.bwd->ops.erase(parent.bwd->ops.begin() + ptrdiff_t(indexIn(*parent.bwd, &bwdIf)));
    if (parent.cursor)
      --*parent.cursor;
    return;
  }
  for (int s = 0; s < 2; ++s) {
    Level &side = sides[s];
    std::vector<ssa::Value *> yields;
    for (auto &[key, leaf] : outer) {
      ssa::Value *g = adjoint(side, leaf);
      if (!g)
        g = zerosOf(side, leaf.first, leaf.second, ifOp.loc);
      yields.push_back(g);
    }
    for (int t = 0; t < 2; ++t)
      for (const Level::Threaded &th : sides[t].threaded)
        yields.push_back(t == s ? th.popped : th.header);
    makeStructural(ssa::OpKind::Yield, ifOp.loc, *side.bwd, yields);
  }
  std::vector<ssa::Value *> results;
  for (auto &[key, leaf] : outer)
    results.push_back(bwdIf.addResult(leafTypes(leaf.first->type)[leaf.second]));
  for (Level &side : sides)
    for (const Level::Threaded &th : side.threaded) {
      ssa::Value *r = bwdIf.addResult(th.header->type);
      if (parent.kind == Level::Kind::LoopBody) {
        parent.next[th.nextIndex] = r;
        continue;
      }
      for (Level::Threaded &up : parent.threaded)
        if (up.nextIndex == th.nextIndex)
          up.popped = r;
    }
  size_t k = 0;
  for (auto &[key, leaf] : outer)
    give(parent, leaf, results[k++], ifOp.loc);
}

void Reverse::sweepLoop(Level &parent, ssa::Operation &loop) {
  LoopParts parts = loopParts(loop);
  std::vector<Leaf> carriedLeaves;
  bool anySeed = false;
  for (size_t j = 0; j < parts.headers.size(); ++j)
    for (unsigned l = 0; l < numLeaves(parts.headers[j]->type); ++l) {
      bool seeded = adjoint(parent, {parts.results[j], l}) != nullptr;
      anySeed |= seeded;
      if (isFloatType(leafTypes(parts.headers[j]->type)[l]) && isActive(parts.headers[j]))
        carriedLeaves.push_back({parts.headers[j], l});
    }
  if (!anySeed || carriedLeaves.empty())
    return;
  llvm::SMRange loc = loop.loc;
  ssa::Value *trips = tripCount(loop, parent);
  Attrs zero, one;
  zero["value"] = int64_t(0);
  one["value"] = int64_t(1);
  ssa::Value *lo = emit(parent, "const", {}, zero, loc, Type::intTy());
  ssa::Value *step = emit(parent, "const", {}, one, loc, Type::intTy());
  // Initial adjoints of the loop variables: those of the loop's results, or zeros.
  std::vector<ssa::Value *> inits;
  for (const Leaf &leaf : carriedLeaves) {
    size_t j = size_t(std::find(parts.headers.begin(), parts.headers.end(), leaf.first) -
                      parts.headers.begin());
    ssa::Value *g = adjoint(parent, {parts.results[j], leaf.second});
    if (!g)
      g = zerosOf(parent, parts.results[j], leaf.second, loc);
    inits.push_back(g);
  }
  auto owned = std::make_unique<ssa::Operation>(ssa::OpKind::For, loc);
  owned->operands = {lo, trips, step};
  ssa::Operation &bwdLoop =
      *insertOp(*parent.bwd, parent.cursor ? (*parent.cursor)++ : SIZE_MAX, std::move(owned));
  ssa::Block &bwdBody = *bwdLoop.addRegion().block;
  argBlocks[newHeader(bwdLoop, Type::intTy(), loc)] = &bwdBody;
  Level body;
  body.kind = Level::Kind::LoopBody;
  body.parent = &parent;
  body.fwd = parts.body;
  body.bwd = &bwdBody;
  body.fwdOp = &loop;
  body.bwdLoop = &bwdLoop;
  body.adj = &body.ownAdj;
  std::vector<ssa::Value *> gradHeaders;
  for (size_t k = 0; k < carriedLeaves.size(); ++k) {
    bwdLoop.operands.push_back(inits[k]);
    ssa::Value *h = newHeader(bwdLoop, inits[k]->type, loc);
    argBlocks[h] = &bwdBody;
    gradHeaders.push_back(h);
    body.next.push_back(nullptr);
  }
  for (size_t k = 0; k < carriedLeaves.size(); ++k) {
    size_t j =
        size_t(std::find(parts.headers.begin(), parts.headers.end(), carriedLeaves[k].first) -
               parts.headers.begin());
    give(body, {parts.yields[j], carriedLeaves[k].second}, gradHeaders[k], loc);
  }
  sweepBlock(body, *parts.body);
  if (failed)
    return;
  // Next adjoints of the loop variables (zeros when the body overwrote them).
  for (size_t k = 0; k < carriedLeaves.size(); ++k) {
    ssa::Value *g = adjoint(body, carriedLeaves[k]);
    body.next[k] = g ? g : zerosLike(body, gradHeaders[k], loc);
  }
  // Values from outside the loop accumulate their adjoint over the iterations.
  std::vector<Leaf> outer;
  std::vector<ssa::Value *> contributions;
  for (auto &[key, entry] : body.adj->entries)
    if (defBlock(entry.first.first) != parts.body) {
      outer.push_back(entry.first);
      contributions.push_back(entry.second);
    }
  size_t firstAcc = body.next.size();
  for (size_t k = 0; k < outer.size(); ++k) {
    primal(outer[k].first, parent); // exports first: they may insert before the loop
    parent.cursor = indexIn(*parent.bwd, &bwdLoop);
    ssa::Value *init = zerosOf(parent, outer[k].first, outer[k].second, loc);
    parent.cursor.reset();
    bwdLoop.operands.push_back(init);
    ssa::Value *h = newHeader(bwdLoop, init->type, loc);
    argBlocks[h] = &bwdBody;
    body.next.push_back(emit(body, "add", {h, contributions[k]}, {}, loc, init->type));
  }
  makeStructural(ssa::OpKind::Yield, loc, bwdBody, body.next);
  std::vector<ssa::Value *> results;
  for (size_t i = 1; i < bwdLoop.carried.size(); ++i)
    results.push_back(bwdLoop.addResult(bwdLoop.carried[i]->type));
  for (size_t k = 0; k < carriedLeaves.size(); ++k) {
    size_t j =
        size_t(std::find(parts.headers.begin(), parts.headers.end(), carriedLeaves[k].first) -
               parts.headers.begin());
    give(parent, {parts.inits[j], carriedLeaves[k].second}, results[k], loc);
  }
  for (size_t k = 0; k < outer.size(); ++k)
    give(parent, outer[k], results[firstAcc + k], loc);
}

void Reverse::sweepCheckpoint(Level &level, ssa::Operation &call) {
  if (!hasAdjoint(level, call))
    return;
  // Recompute the callee where the backward runs, then sweep the recomputation: nothing of
  // its inside was saved by the forward pass.
  Level *at = &level;
  std::unique_ptr<Level> recompute;
  if (!level.sameBlock) {
    recompute = std::make_unique<Level>();
    recompute->parent = &level;
    recompute->fwd = recompute->bwd = level.bwd;
    recompute->sameBlock = true;
    // The recomputation's adjoints are its own: only its parameters' reach `level` (below).
    // Left in the level's map, the values of the recomputation, which live in the backward
    // block, would look to an enclosing loop or `if` like values from outside it, and get an
    // accumulator or an `if` result each, whose zeros (zeros_like of the value where its shape
    // is known only at run time) would be made where the value does not exist.
    recompute->adj = &recompute->ownAdj;
    recompute->cursor = level.cursor;
    at = recompute.get();
  }
  // The recomputation starts from copies of the arguments that also wait for the adjoint of
  // the call's result (after(x, token) is x once token exists). Without that edge the graph
  // executor would run it as soon as the arguments exist, during the forward pass, and hold
  // its values as if they had been stored; the copies also keep CSE from merging the
  // recomputation back into the forward call.
  ssa::Value *token = nullptr;
  for (unsigned l = 0; l < numLeaves(call.result()->type) && !token; ++l)
    token = adjoint(level, {call.result(), l});
  std::vector<ssa::Value *> params;
  for (ssa::Value *v : call.operands)
    params.push_back(copyAfter(*at, primal(v, level), token, call.loc));
  size_t first = at->bwd->ops.size();
  const ssa::InlineSite *site = d.sites().addSite(call.loc, call.calleeName(), call.inlinedAt);
  ssa::Value *ret = d.inlineInto(*call.callee, *at->bwd, params, site);
  if (!ret)
    return fail(call.loc, "internal error: cannot recompute a checkpointed call");
  std::vector<ssa::Operation *> recomputed;
  for (size_t i = first; i < at->bwd->ops.size(); ++i) {
    recomputed.push_back(at->bwd->ops[i].get());
    for (auto &r : at->bwd->ops[i]->regions)
      registerArgs(*r->block);
    if (ssa::Operation *op = at->bwd->ops[i].get();
        op->kind == ssa::OpKind::While || op->kind == ssa::OpKind::For)
      for (auto &c : op->carried)
        argBlocks[c.get()] = loopParts(*op).body;
  }
  for (unsigned l = 0; l < numLeaves(call.result()->type); ++l)
    give(*at, {ret, l}, adjoint(level, {call.result(), l}), call.loc);
  sweepOps(*at, recomputed);
  for (size_t i = 0; i < params.size(); ++i)
    for (unsigned l = 0; l < numLeaves(params[i]->type); ++l)
      give(level, {call.operands[i], l}, adjoint(*at, {params[i], l}), call.loc);
}

//===--- the entry point --------------------------------------------------===//

ssa::Value *Reverse::buildLike(Level &at, const Type &t, std::vector<ssa::Value *> &leaves,
                               size_t &next, llvm::SMRange loc) {
  if (!t.isTuple())
    return leaves[next++];
  std::vector<ssa::Value *> elems;
  for (const Type &e : t.elements())
    elems.push_back(buildLike(at, e, leaves, next, loc));
  ssa::Operation *tuple = makeStructural(ssa::OpKind::Tuple, loc, *at.bwd, elems);
  return tuple->addResult(t);
}

bool Reverse::run(const std::vector<int64_t> &argnums, bool withValue, const Type &resultType) {
  ssa::Block &body = f.entry();
  registerArgs(body);
  analyseActivity(argnums);
  ssa::Operation *ret = body.terminator();
  assert(ret && ret->kind == ssa::OpKind::Return && !ret->operands.empty());
  ssa::Value *y = ret->operands[0];
  llvm::SMRange loc = ret->loc;
  body.ops.pop_back();

  Level root;
  root.fwd = root.bwd = &body;
  root.sameBlock = true;
  root.adj = &root.ownAdj;
  std::vector<ssa::Operation *> forward;
  for (auto &op : body.ops)
    forward.push_back(op.get());
  ssa::Value *seed = constLike(root, 1.0, y, loc);
  give(root, {y, 0}, seed, loc);
  sweepOps(root, forward);
  if (failed)
    return false;

  std::vector<ssa::Value *> grads;
  for (int64_t a : argnums) {
    ssa::Value *p = body.args[size_t(a)].get();
    std::vector<ssa::Value *> leaves;
    for (unsigned l = 0; l < numLeaves(p->type); ++l) {
      ssa::Value *g = adjoint(root, {p, l});
      if (!g)
        g = zerosOf(root, p, l, loc);
      // The gradient already has its parameter's dtype, statically and at run time: give()
      // fits every adjoint to its leaf's type (fitTo casts), and lowering casts a 0-d tensor
      // meeting a Python scalar to the dtype sema typed the op with (castToComputeDType in
      // compiler/lower), so no cast back is needed (a run-time f64 from an f32 op was why one
      // used to be emitted here for every parameter).
      assert(
          (!leafTypes(p->type)[l].isTensor() || g->type.dtype() == leafTypes(p->type)[l].dtype()) &&
          "an adjoint has its leaf's dtype");
      leaves.push_back(g);
    }
    size_t next = 0;
    grads.push_back(buildLike(root, p->type, leaves, next, loc));
  }
  Type gradType = withValue ? resultType.elements()[1] : resultType;
  bool single = argnums.size() == 1 && gradType == body.args[size_t(argnums[0])]->type;
  ssa::Value *out = grads[0];
  if (!single)
    out = makeStructural(ssa::OpKind::Tuple, loc, body, grads)->addResult(gradType);
  if (withValue)
    out = makeStructural(ssa::OpKind::Tuple, loc, body, {y, out})->addResult(resultType);
  makeStructural(ssa::OpKind::Return, loc, body, {out});
  f.resultType = resultType;
  return !failed;
}

} // namespace dlm::autodiff
