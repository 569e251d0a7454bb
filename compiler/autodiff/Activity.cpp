//===- compiler/autodiff/Activity.cpp - Activity analysis ------------------===//
//
// Before the sweep, fixpoints over the structured program mark the values that are *varied*
// (depend on a differentiated parameter) and *useful* (the result depends on them); only values
// that are both get adjoints (isActive), so inactive paths make no gradient ops at all. A third
// fixpoint finds the values that are stacks already (grad of grad: an inner derivative's
// loops), which a loop of this transformation saves entry by entry (stack_extend). Operations
// flow varied-ness forward and usefulness backward; an `if` joins its sides' yields into its
// results, a loop its initial and yielded values into its header and results.
//
//===----------------------------------------------------------------------===//
#include "compiler/autodiff/Reverse.h"

#include <algorithm>

namespace dlm::autodiff {

bool Reverse::isActive(const ssa::Value *v) const {
  if (!analysed || !known.count(v))
    return true;
  return varied.count(v) && useful.count(v);
}

bool isBackwardHelper(const OpInfo &info) { return info.has(opflag::BackwardHelper); }

namespace {

template <typename F> void walkOps(ssa::Block &b, F &&each) {
  for (auto &op : b.ops) {
    each(*op);
    for (auto &r : op->regions)
      walkOps(*r->block, each);
  }
}

/// walkOps from the last op to the first (an op before the ops of its regions): the order in
/// which usefulness flows, so that a straight-line program takes one pass, not one per op (a
/// forward walk moved it one op back per pass, quadratic in the program: issue #27).
template <typename F> void walkOpsBackward(ssa::Block &b, F &&each) {
  for (auto it = b.ops.rbegin(); it != b.ops.rend(); ++it) {
    each(**it);
    for (auto &r : (*it)->regions)
      walkOpsBackward(*r->block, each);
  }
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
    return op.kind == ssa::OpKind::Builtin && op.info->has(opflag::StackOp) &&
           op.info->kind != OpKind::StackTop;
  };
  for (bool changed = true; changed;) {
    changed = false;
    walkOps(body, [&](ssa::Operation &op) {
      if (isStackOp(op) || (op.kind == ssa::OpKind::Builtin && op.info->kind == OpKind::ZerosLike &&
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
    walkOpsBackward(body, [&](ssa::Operation &op) {
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

} // namespace dlm::autodiff
