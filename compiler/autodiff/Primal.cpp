//===- compiler/autodiff/Primal.cpp - Forward values the backward reads ----===//
//
// A backward op that reads a forward value calls primal() (Reverse.h, "Primal values"): a
// value of an enclosing level is read directly; one defined in an `if` side leaves the `if` as
// an extra result (or, in a loop and of run-time shape, on a stack of its own pushed on its
// side only); one defined in a loop body is pushed onto a stack the forward loop carries and
// popped by the backward loop. This file is the forward augmentation those exports make: the
// extra results, the stacks, the forward loop's trip counter (the backward loop's bound) and
// the pops placed at the start of each backward iteration. Exports are made on first use, so a
// loop stores exactly the values its backward reads.
//
//===----------------------------------------------------------------------===//
#include "compiler/autodiff/Reverse.h"

namespace dlm::autodiff {

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

ssa::Value *Reverse::primal(const ssa::Value *v, Level &at) {
  Level *l = levelOf(v, at);
  if (!l || l->sameBlock)
    return const_cast<ssa::Value *>(v); // defined in a backward block or visible: read it
  // A constant is cheaper to make again than to export from a branch or stack in a loop.
  const ssa::Operation *def = v->def;
  if (def && def->kind == ssa::OpKind::Builtin && def->info->kind == OpKind::Const)
    return emit(at, OpKind::Const, {}, def->attrs, def->loc, v->type);
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
      makeOp(outer, indexIn(outer, &loop), OpKind::StackNew, {}, attrs, loop.loc, std::nullopt);
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
      inner = makeOp(b, b.ops.size() - 1, OpKind::StackPush, {header, const_cast<ssa::Value *>(v)},
                     {}, ifOp.loc, std::nullopt);
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
  auto prefixOp = [&](OpKind kind, std::optional<Type> type) {
    ssa::Value *r = makeOp(*level.bwd, level.prefix++, kind, {bwdHeader}, {}, v->loc, type);
    if (level.cursor)
      ++*level.cursor;
    return r;
  };
  ssa::Value *top = prefixOp(OpKind::StackTop, v->type);
  ssa::Value *pop = prefixOp(OpKind::StackPop, std::nullopt);
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
  return makeOp(body, body.ops.size() - 1, OpKind::StackPush,
                {header, const_cast<ssa::Value *>(payload)}, {}, loop.loc, std::nullopt);
}

ssa::Value *Reverse::countNext(ssa::Operation &loop, ssa::Block &body, ssa::Value *header,
                               const ssa::Value *) {
  Attrs one;
  one["value"] = int64_t(1);
  ssa::Value *c =
      makeOp(body, body.ops.size() - 1, OpKind::Const, {}, one, loop.loc, Type::intTy());
  return makeOp(body, body.ops.size() - 1, OpKind::Add, {header, c}, {}, loop.loc, Type::intTy());
}

ssa::Value *Reverse::extendNext(ssa::Operation &loop, ssa::Block &body, ssa::Value *header,
                                const ssa::Value *payload) {
  return makeOp(body, body.ops.size() - 1, OpKind::StackExtend,
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
    ssa::Value *shape = makeOp(body, body.ops.size() - 1, OpKind::ShapeOf,
                               {const_cast<ssa::Value *>(v)}, {}, loop.loc, std::nullopt);
    Attrs axis0, zero;
    axis0["axis"] = int64_t(0);
    zero["value"] = int64_t(0);
    ssa::Value *c0 =
        makeOp(body, body.ops.size() - 1, OpKind::Const, {}, zero, loop.loc, Type::intTy());
    length = makeOp(body, body.ops.size() - 1, OpKind::Index, {shape, c0}, axis0, loop.loc,
                    Type::intTy());
  }
  // Forward: an empty stack before the loop, a push per iteration.
  Attrs attrs;
  attrs["dtype"] = v->type.dtype();
  attrs["rank"] = int64_t(v->type.isTensor() ? v->type.rank() : 0) - (nested ? 1 : 0);
  ssa::Block &outer = *loop.parent;
  ssa::Value *empty =
      makeOp(outer, indexIn(outer, &loop), OpKind::StackNew, {}, attrs, loop.loc, std::nullopt);
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
  auto prefixOp = [&](OpKind kind, std::vector<ssa::Value *> operands, std::optional<Type> type) {
    ssa::Value *r = makeOp(*level.bwd, level.prefix++, kind, std::move(operands), {}, v->loc, type);
    if (level.cursor)
      ++*level.cursor;
    return r;
  };
  ssa::Value *top = nested ? prefixOp(OpKind::StackTail, {header, count}, v->type)
                           : prefixOp(OpKind::StackTop, {header}, v->type);
  ssa::Value *pop = nested ? prefixOp(OpKind::StackDrop, {header, count}, std::nullopt)
                           : prefixOp(OpKind::StackPop, {header}, std::nullopt);
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
      makeOp(outer, indexIn(outer, &loop), OpKind::Const, {}, zero, loop.loc, Type::intTy());
  ssa::Value *count = addCarried(loop, init, &Reverse::countNext, nullptr);
  return primal(count, parent);
}

} // namespace dlm::autodiff
