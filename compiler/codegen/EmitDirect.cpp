//===- compiler/codegen/EmitDirect.cpp - Ops called directly ---------------===//
//
// The ops generated code runs without a kernel lookup: views made from static shapes (slice,
// split, transpose, index, reshape), fixed-shape creation (zeros), the autodiff stack ops and a
// sum_to that only copies, each a call of its own C ABI entry (docs/codegen.md "Ops").
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/EmitterImpl.h"

#include "compiler/ir/NodeFacts.h"

#include <map>
#include <string_view>
#include <utility>

namespace dlm::codegen {

/// The fast paths by op; each declines (false) what it does not handle, and the node then takes
/// the generic kernel call.
bool Emitter::emitDirect(const Node &n) {
  switch (n.op) {
  case OpKind::Index: // x[i] as a view, i in a register
    return emitIndex(n);
  case OpKind::Reshape: // a view of a fixed shape
    return emitReshape(n);
  case OpKind::Slice: // a view, bounds resolved here
    return emitStaticSlice(n);
  case OpKind::SliceGrad: // the gradient into zeros, window resolved
    return emitStaticSliceGrad(n);
  case OpKind::Split: // one view per piece
    return emitStaticSplit(n);
  case OpKind::StackPop: // the autodiff stack: in the gradient
    return emitStackPop(n);
  case OpKind::StackPush: // in the forward pass's loops
    return emitStackPush(n);
  case OpKind::StackTop: // in the gradient
    return emitStackTop(n);
  case OpKind::SumTo: // a sum over axes of size 1: a copy
    return emitSumToCopy(n);
  case OpKind::Transpose: // a view, permutation checked here
    return emitTranspose(n);
  case OpKind::Zeros: // a fixed shape
    return emitZeros(n);
  default:
    return false;
  }
}

bool Emitter::tensorsToTensor(const Node &n, size_t numIn) {
  if (n.inputs.size() != numIn || n.numResults() != 1 || repr({n.id, 0}) != Repr::Tensor)
    return false;
  for (ValueRef v : n.inputs)
    if (repr(v) != Repr::Tensor)
      return false;
  return true;
}

void Emitter::storeDirect(const Node &n, llvm::Value *t) {
  checkFailure(b.CreateIsNull(t), n);
  store({n.id, 0}, t);
}

bool Emitter::emitStackCall(const Node &n, const char *entry, size_t numIn) {
  if (!tensorsToTensor(n, numIn))
    return false;
  std::vector<llvm::Value *> args;
  for (ValueRef v : n.inputs)
    args.push_back(load(v));
  storeDirect(n, b.CreateCall(rt(entry, ptrTy, std::vector<llvm::Type *>(numIn, ptrTy)), args));
  return true;
}

bool Emitter::emitStackPush(const Node &n) { return emitStackCall(n, "dlm_stack_push", 2); }
bool Emitter::emitStackTop(const Node &n) { return emitStackCall(n, "dlm_stack_top", 1); }
bool Emitter::emitStackPop(const Node &n) { return emitStackCall(n, "dlm_stack_pop", 1); }

std::optional<int64_t> Emitter::intAttr(const Node &n, const char *name) {
  const AttrValue *a = n.attr(name);
  const int64_t *v = a ? std::get_if<int64_t>(a) : nullptr;
  return v ? std::optional<int64_t>(*v) : std::nullopt;
}

bool Emitter::emitTranspose(const Node &n) {
  if (!tensorsToTensor(n, 1))
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
  storeDirect(n,
              b.CreateCall(rt("dlm_tensor_transpose", ptrTy, {ptrTy, i32(), ptrTy}),
                           {load(n.inputs[0]), b.getInt32((int)rank), constArray<int64_t>(perm)}));
  return true;
}

bool Emitter::emitIndex(const Node &n) {
  if (n.inputs.size() != 2 || n.numResults() != 1 || repr(n.inputs[0]) != Repr::Tensor ||
      repr(n.inputs[1]) != Repr::Scalar || repr({n.id, 0}) != Repr::Tensor)
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

std::optional<std::vector<int64_t>> Emitter::fixedShapeAttr(const Node &n) {
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

bool Emitter::emitReshape(const Node &n) {
  if (!tensorsToTensor(n, 1))
    return false;
  std::optional<std::vector<int64_t>> shape = fixedShapeAttr(n);
  if (!shape)
    return false;
  storeDirect(n, b.CreateCall(rt("dlm_tensor_reshape", ptrTy, {ptrTy, i32(), ptrTy}),
                              {load(n.inputs[0]), b.getInt32((int)shape->size()),
                               constArray<int64_t>(*shape)}));
  return true;
}

bool Emitter::emitZeros(const Node &n) {
  if (!tensorsToTensor(n, 0))
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

bool Emitter::emitSumToCopy(const Node &n) {
  if (!tensorsToTensor(n, 1))
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

std::vector<int64_t> Emitter::staticSizes(const Shape &shape) {
  std::vector<int64_t> sizes;
  for (const Dim &d : shape)
    sizes.push_back(d.size());
  return sizes;
}

bool Emitter::emitStaticSlice(const Node &n) {
  if (n.inputs.size() != 1 || n.numResults() != 1 || repr(n.inputs[0]) != Repr::Tensor ||
      repr({n.id, 0}) != Repr::Tensor)
    return false;
  const Shape &in = g.typeOf(n.inputs[0]).shape(), &out = n.results[0].shape();
  std::optional<std::vector<int64_t>> start = graph::staticSliceStart(n, in, out);
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

bool Emitter::emitStaticSplit(const Node &n) {
  if (n.inputs.size() != 1 || repr(n.inputs[0]) != Repr::Tensor)
    return false;
  const Shape &in = g.typeOf(n.inputs[0]).shape();
  int64_t rank = (int64_t)in.size(), axis = intAttr(n, "axis").value_or(n.attr("axis") ? rank : 0);
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

bool Emitter::emitStaticSliceGrad(const Node &n) {
  if (n.inputs.size() != 1 || n.numResults() != 1 || repr(n.inputs[0]) != Repr::Tensor ||
      repr({n.id, 0}) != Repr::Tensor)
    return false;
  const Shape &in = n.results[0].shape(), &window = g.typeOf(n.inputs[0]).shape();
  std::optional<std::vector<int64_t>> start = graph::staticSliceStart(n, in, window);
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

} // namespace dlm::codegen
