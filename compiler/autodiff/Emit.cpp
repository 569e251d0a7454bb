//===- compiler/autodiff/Emit.cpp - Building ops for the sweep -------------===//
//
// Every op the transformation makes goes through here: registry ops in a backward block (at
// the level's cursor or appended) or in a forward block (the stack traffic and trip counters of
// Primal.cpp), typed by the registry's rule unless a type is given, and marked with the forward
// op whose gradient rule is running (gradOf) and its inlined-call chain; the structural ops
// (get, tuple, yield, return); and the values rules need ready-made: zeros of a leaf's type,
// constants in an operand's dtype, copies that wait for a token (checkpoint recomputation). The
// small readers of the structured SSA (leaf types, a loop's carried parts) live here too.
//
//===----------------------------------------------------------------------===//
#include "compiler/autodiff/Reverse.h"

#include "compiler/support/Diagnostics.h"

#include <cassert>

namespace dlm::autodiff {

std::vector<Type> leafTypes(const Type &t) {
  if (!t.isTuple())
    return {t};
  std::vector<Type> out;
  for (const Type &e : t.elements())
    for (Type &l : leafTypes(e))
      out.push_back(std::move(l));
  return out;
}

size_t numLeaves(const Type &t) {
  if (!t.isTuple())
    return 1;
  size_t n = 0;
  for (const Type &e : t.elements())
    n += numLeaves(e);
  return n;
}

Type leafType(const Type &t, size_t leaf) {
  if (!t.isTuple())
    return t;
  for (const Type &e : t.elements()) {
    size_t n = numLeaves(e);
    if (leaf < n)
      return leafType(e, leaf);
    leaf -= n;
  }
  assert(false && "leaf index out of range");
  return t;
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

ssa::Value *Reverse::makeOp(ssa::Block &b, size_t pos, OpKind kind,
                            std::vector<ssa::Value *> operands, Attrs attrs, llvm::SMRange loc,
                            std::optional<Type> type) {
  const OpInfo *info = &opInfo(kind);
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
      fail(loc, "internal error: gradient op '" + info->name + "': " + error);
  }
  ssa::Value *r = op->addResult(*type);
  insertOp(b, pos, std::move(op));
  return r;
}

ssa::Value *Reverse::emit(Level &at, OpKind kind, std::vector<ssa::Value *> operands, Attrs attrs,
                          llvm::SMRange loc, std::optional<Type> type) {
  size_t pos = at.cursor ? (*at.cursor)++ : SIZE_MAX;
  return makeOp(*at.bwd, pos, kind, std::move(operands), std::move(attrs), loc, std::move(type));
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
      return emit(at, OpKind::After, {v, token}, {}, loc, v->type);
    return emit(at, OpKind::Identity, {v}, {}, loc, v->type);
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
  return emit(at, OpKind::ZerosLike, {v}, {}, loc, v->type);
}

ssa::Value *Reverse::zerosOf(Level &at, const ssa::Value *v, unsigned leaf, llvm::SMRange loc) {
  Type t = leafType(v->type, leaf);
  if (t.kind() == Type::Kind::Float)
    return constLike(at, 0.0, nullptr, loc);
  if (t.isTensor() && t.staticNumElements()) {
    Attrs a;
    a["shape"] = t.shape();
    a["dtype"] = t.dtype();
    return emit(at, OpKind::Zeros, {}, a, loc, t);
  }
  ssa::Value *p = primal(v, at);
  return zerosLike(at, extractLeaf(at, p, leaf, loc), loc);
}

ssa::Value *Reverse::constLike(Level &at, double v, ssa::Value *like, llvm::SMRange loc) {
  Attrs a;
  if (!like || !like->type.isTensor() || !isFloat(like->type.dtype())) {
    a["value"] = v;
    return emit(at, OpKind::Const, {}, a, loc, Type::floatTy());
  }
  a["value"] = std::vector<double>{v};
  a["shape"] = Shape{};
  a["dtype"] = like->type.dtype();
  return emit(at, OpKind::Const, {}, a, loc, Type::tensor(like->type.dtype(), {}));
}

} // namespace dlm::autodiff
