//===- compiler/autodiff/Reverse.cpp - The backward sweep ------------------===//
//
// Reverse::run, on a flattened function (Reverse.h explains levels and primal values):
//   1. activity (Activity.cpp): `varied` (depends on a differentiated parameter) and `useful`
//      (the result depends on it) are computed to a fixpoint over the structured SSA; only
//      values that are both get adjoints, so inactive paths produce no ops and absent adjoints
//      stay symbolic;
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
// iteration). The forward values the sweep reads come from Primal.cpp, its ops are made by
// Emit.cpp, and its adjoints accumulate in Adjoints.cpp.
//
//===----------------------------------------------------------------------===//
#include "compiler/autodiff/Reverse.h"

#include <algorithm>

namespace dlm::autodiff {

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
    results.push_back(bwdIf.addResult(leafType(leaf.first->type, leaf.second)));
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
      if (isFloatType(leafType(parts.headers[j]->type, l)) && isActive(parts.headers[j]))
        carriedLeaves.push_back({parts.headers[j], l});
    }
  if (!anySeed || carriedLeaves.empty())
    return;
  llvm::SMRange loc = loop.loc;
  ssa::Value *trips = tripCount(loop, parent);
  Attrs zero, one;
  zero["value"] = int64_t(0);
  one["value"] = int64_t(1);
  ssa::Value *lo = emit(parent, OpKind::Const, {}, zero, loc, Type::intTy());
  ssa::Value *step = emit(parent, OpKind::Const, {}, one, loc, Type::intTy());
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
    body.next.push_back(emit(body, OpKind::Add, {h, contributions[k]}, {}, loc, init->type));
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
          (!leafType(p->type, l).isTensor() || g->type.dtype() == leafType(p->type, l).dtype()) &&
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
