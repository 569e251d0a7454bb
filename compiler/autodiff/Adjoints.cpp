//===- compiler/autodiff/Adjoints.cpp - Adjoint accumulation ---------------===//
//
// Each level keeps the adjoints of the leaves it has seen, in a deterministic order (the
// value's first-seen number, then the leaf). give() is the only way an adjoint grows: the
// gradient is first fitted to the leaf's type (fitTo: a broadcast undone by summing down, with
// sum_to for static shapes, then a cast to the leaf's dtype), then added to what the leaf had.
// Inactive or non-float leaves get nothing, so an absent adjoint stays symbolic.
//
//===----------------------------------------------------------------------===//
#include "compiler/autodiff/Reverse.h"

namespace dlm::autodiff {

uint64_t Reverse::order(const ssa::Value *v) {
  auto [it, inserted] = numbering.try_emplace(v, numbering.size());
  return it->second;
}

ssa::Value *Reverse::adjoint(Level &at, Leaf leaf) {
  auto it = at.adj->entries.find({order(leaf.first), leaf.second});
  return it == at.adj->entries.end() ? nullptr : it->second.second;
}

void Reverse::give(Level &at, Leaf leaf, ssa::Value *grad, llvm::SMRange loc) {
  if (!grad || !isActive(leaf.first))
    return;
  Type t = leafType(leaf.first->type, leaf.second);
  if (!isFloatType(t))
    return;
  grad = fitTo(at, grad, t, loc);
  auto key = std::make_pair(order(leaf.first), leaf.second);
  auto it = at.adj->entries.find(key);
  if (it == at.adj->entries.end()) {
    at.adj->entries.emplace(key, std::make_pair(leaf, grad));
    return;
  }
  it->second.second = emit(at, OpKind::Add, {it->second.second, grad}, {}, loc, t);
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
      g = emit(at, OpKind::Sum, {g}, all, loc);
    Attrs cast;
    cast["dtype"] = t.dtype();
    return emit(at, OpKind::Cast, {g}, cast, loc, t);
  }
  if (!gt.isTensor()) {
    Attrs cast;
    cast["dtype"] = t.dtype();
    return emit(at, OpKind::Cast, {g}, cast, loc, Type::tensor(t.dtype(), {}));
  }
  if (t.staticNumElements() && gt.shape() != t.shape()) {
    Attrs to;
    to["shape"] = t.shape();
    g = emit(at, OpKind::SumTo, {g}, to, loc, Type::tensor(g->type.dtype(), t.shape()));
  }
  if (gt.rank() > t.rank() && !t.staticNumElements()) {
    Attrs lead;
    std::vector<int64_t> axes;
    for (size_t i = 0; i < gt.rank() - t.rank(); ++i)
      axes.push_back(int64_t(i));
    lead["axes"] = axes;
    lead["keepdims"] = false;
    g = emit(at, OpKind::Sum, {g}, lead, loc);
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
    g = emit(at, OpKind::Sum, {g}, keep, loc);
  }
  if (g->type.dtype() != t.dtype()) {
    Attrs cast;
    cast["dtype"] = t.dtype();
    g = emit(at, OpKind::Cast, {g}, cast, loc);
  }
  return g;
}

} // namespace dlm::autodiff
