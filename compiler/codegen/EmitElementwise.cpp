//===- compiler/codegen/EmitElementwise.cpp - Elementwise ops as inline code ---===//
//
// Elementwise ops and fused regions as inline code (ElementCode.h): in registers when every
// operand is a scalar, else one loop nest over the output, outlined into a function of its own,
// with broadcasting by strides, views copied dense, and the output updated in place when an
// operand can be donated (docs/codegen.md "Ops", "In-place updates").
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/EmitterImpl.h"

#include "compiler/ir/FusedOp.h"
#include "compiler/ir/OpRegistry.h"

#include "llvm/IR/MDBuilder.h"

namespace dlm::codegen {

std::vector<DType> Emitter::operandTypes(const Node &n) {
  std::vector<DType> types;
  for (ValueRef v : n.inputs)
    types.push_back(g.typeOf(v).dtype());
  return types;
}

std::optional<ElementBody> Emitter::elementBody(const Node &n) {
  if (n.numResults() != 1 || n.inputs.empty() || !n.results[0].isTensor())
    return std::nullopt;
  if (n.op == OpKind::Fused) {
    const AttrValue *text = n.attr("body");
    const std::string *body = text ? std::get_if<std::string>(text) : nullptr;
    if (!body)
      return std::nullopt;
    return parseFusedBody(*body, n.inputs.size());
  }
  if (!n.info().elementwise || !(n.attrs.empty() || n.op == OpKind::Cast))
    return std::nullopt;
  FusedStatement st;
  st.op = n.op;
  for (unsigned i = 0; i < n.inputs.size(); ++i)
    st.operands.push_back(i);
  st.dtype = n.results[0].dtype();
  return ElementBody{st};
}

bool Emitter::emitScalarOp(const Node &n) {
  std::optional<ElementBody> body = elementBody(n);
  std::vector<DType> types = operandTypes(n);
  if (!body || !code->supports(*body, types))
    return false;
  std::vector<llvm::Value *> args;
  for (ValueRef v : n.inputs)
    args.push_back(load(v));
  store({n.id, 0}, code->body(*body, args, types));
  return true;
}

void Emitter::countUses() {
  uses.assign(g.numNodes(), {});
  exitUses.assign(g.numNodes(), {});
  for (const Node &n : g.nodes()) {
    if (s.roles[n.id] == NodeRole::Forward)
      continue;
    for (ValueRef v : n.inputs) {
      ValueRef r = s.resolve(g, v);
      auto &counts = s.roles[n.id] == NodeRole::Exit ? exitUses[r.node] : uses[r.node];
      if (counts.size() <= r.port)
        counts.resize(r.port + 1, 0);
      ++counts[r.port];
    }
  }
}

unsigned Emitter::useCount(const std::vector<std::vector<unsigned>> &counts, ValueRef r) {
  return r.port < counts[r.node].size() ? counts[r.node][r.port] : 0;
}

bool Emitter::donatable(const Node &n, ValueRef r, bool nInBody) {
  const Node &producer = g.node(r.node);
  if (producer.frame != n.frame || useCount(uses, r) != 1)
    return false;
  if (useCount(exitUses, r) == 0)
    return true;
  return s.roles[r.node] == NodeRole::LoopMerge && nInBody;
}

bool Emitter::emitElementwise(const Node &n) {
  if (n.numResults() != 1 || repr({n.id, 0}) != Repr::Tensor)
    return false;
  std::optional<ElementBody> body = elementBody(n);
  if (!body || body->empty())
    return false;
  const Type &result = n.results[0];
  const Shape &shape = result.shape();
  size_t rank = shape.size(), numIn = n.inputs.size();
  std::vector<DType> types = operandTypes(n);
  // runs[k][d]: operand k runs along output dim d (tensor operands only).
  std::vector<std::vector<bool>> runs(numIn, std::vector<bool>(rank, false));
  std::vector<bool> isTensor(numIn, false);
  for (size_t k = 0; k < numIn; ++k) {
    Repr r = repr(n.inputs[k]);
    if (r == Repr::Scalar)
      continue;
    if (r != Repr::Tensor)
      return false;
    isTensor[k] = true;
    const Shape &in = g.typeOf(n.inputs[k]).shape();
    if (in.size() > rank)
      return false;
    size_t lead = rank - in.size();
    for (size_t d = lead; d < rank; ++d) {
      const Dim &dim = in[d - lead];
      if (dim == shape[d])
        runs[k][d] = true;
      else if (!(dim.isStatic() && dim.size() == 1))
        return false;
    }
  }
  auto unit = [&](size_t d) { return shape[d].isStatic() && shape[d].size() == 1; };
  // The operand whose run-time shape gives output dim d (a symbolic dim), if any.
  auto source = [&](size_t d) -> std::optional<size_t> {
    for (size_t k = 0; k < numIn; ++k)
      if (runs[k][d])
        return k;
    return std::nullopt;
  };
  struct LoopDim {
    std::vector<size_t> dims; ///< merged output dims
    std::vector<bool> full;   ///< per operand
  };
  std::vector<LoopDim> loops;
  for (size_t d = 0; d < rank; ++d) {
    if (unit(d))
      continue;
    if (!shape[d].isStatic() && !source(d))
      return false;
    std::vector<bool> full(numIn);
    for (size_t k = 0; k < numIn; ++k)
      full[k] = runs[k][d];
    if (!loops.empty() && loops.back().full == full)
      loops.back().dims.push_back(d);
    else
      loops.push_back({{d}, full});
  }
  if (!code->supports(*body, types))
    return false;

  llvm::Value *null = llvm::ConstantPointerNull::get(ptrTy);
  std::vector<llvm::Value *> values;
  for (ValueRef v : n.inputs)
    values.push_back(load(v));
  auto dimValue = [&](size_t d) -> llvm::Value * {
    if (shape[d].isStatic())
      return b.getInt64(shape[d].size());
    size_t k = *source(d);
    size_t lead = rank - g.typeOf(n.inputs[k]).rank();
    llvm::Value *dims = b.CreateCall(rt("dlm_tensor_shape", ptrTy, {ptrTy}), {values[k]});
    return b.CreateLoad(i64(), b.CreateConstInBoundsGEP1_64(i64(), dims, d - lead));
  };
  std::vector<llvm::Value *> dims(rank);
  for (size_t d = 0; d < rank; ++d)
    dims[d] = dimValue(d);

  // The output: output_like (donor or fresh) when an operand has its shape, else empty.
  std::optional<ValueRef> donor;
  llvm::Value *like = nullptr;
  for (size_t k = 0; k < numIn; ++k) {
    if (!isTensor[k] || g.typeOf(n.inputs[k]).shape() != shape)
      continue;
    if (!like)
      like = values[k];
    ValueRef r = s.resolve(g, n.inputs[k]);
    if (!donor && types[k] == result.dtype() && donatable(n, r, currentBody))
      donor = r;
  }
  llvm::Value *dt = b.getInt32((int)result.dtype()), *out;
  llvm::Value *donorValue = donor ? b.CreateLoad(ptrTy, slot(*donor)) : null;
  if (like) {
    out = b.CreateCall(rt("dlm_tensor_output_like", ptrTy, {ptrTy, i32(), ptrTy}),
                       {donorValue, dt, like});
  } else {
    llvm::AllocaInst *shapeArray = entryAlloca(i64(), (unsigned)rank);
    for (size_t d = 0; d < rank; ++d)
      b.CreateStore(dims[d], b.CreateConstInBoundsGEP1_64(i64(), shapeArray, d));
    out = b.CreateCall(rt("dlm_tensor_empty", ptrTy, {i32(), i32(), ptrTy}),
                       {dt, b.getInt32((int)rank), shapeArray});
  }
  checkFailure(b.CreateIsNull(out), n);
  if (donor)
    b.CreateStore(b.CreateSelect(b.CreateICmpEQ(out, donorValue), null, donorValue), slot(*donor));

  // Operands: a scalar's value, a tensor's dense data (of a contiguous copy for a view).
  // The output is dense (fresh, or a donor output_like checked), so its data address is
  // enough; an operand that is the output itself (updated in place) has the same data.
  llvm::Value *outData = b.CreateCall(rt("dlm_tensor_data", ptrTy, {ptrTy}), {out});
  std::vector<llvm::Value *> args = {outData};
  for (const LoopDim &loop : loops) {
    llvm::Value *extent = nullptr;
    for (size_t d : loop.dims)
      extent = extent ? b.CreateMul(extent, dims[d], "", true, true) : dims[d];
    args.push_back(extent);
  }
  std::vector<llvm::Value *> copies;
  std::vector<LoopOperand> operands;
  for (size_t k = 0; k < numIn; ++k) {
    LoopOperand operand;
    operand.dtype = types[k];
    operand.tensor = isTensor[k];
    for (const LoopDim &loop : loops)
      operand.full.push_back(loop.full[k]);
    operands.push_back(operand);
    if (!isTensor[k]) {
      args.push_back(values[k]);
      continue;
    }
    ValueRef r = s.resolve(g, n.inputs[k]);
    bool inPlace = donor && r == *donor;
    if (!inPlace && knownDense(r)) { // (no contiguity test, no copy to make)
      args.push_back(b.CreateCall(rt("dlm_tensor_data", ptrTy, {ptrTy}), {values[k]}));
      continue;
    }
    auto [data, copy] = denseData(values[k], n, inPlace ? out : nullptr, outData);
    args.push_back(data);
    copies.push_back(copy);
  }
  std::string name =
      (n.op == OpKind::Fused ? "dlm_fused." : "dlm_elementwise.") + std::to_string(n.id);
  b.CreateCall(code->loopFunction(name, *body, operands, loops.size()), args);
  for (llvm::Value *copy : copies)
    release(b, copy);
  store({n.id, 0}, out);
  denseResults.insert({n.id, 0});
  return true;
}

std::pair<llvm::Value *, llvm::Value *> Emitter::denseData(llvm::Value *t, const Node &n,
                                                           llvm::Value *out, llvm::Value *outData) {
  llvm::Value *null = llvm::ConstantPointerNull::get(ptrTy);
  if (!copySlot)
    copySlot = entryAlloca(ptrTy);
  llvm::Value *data = b.CreateCall(denseDataFunction(),
                                   {t, out ? out : null, out ? outData : null, copySlot}, "data");
  llvm::Value *copy = b.CreateLoad(ptrTy, copySlot);
  checkFailure(b.CreateAnd(b.CreateIsNull(data), b.CreateIsNull(copy)), n);
  return {data, copy};
}

llvm::Function *Emitter::denseDataFunction() {
  if (denseDataFn)
    return denseDataFn;
  denseDataFn =
      llvm::Function::Create(llvm::FunctionType::get(ptrTy, {ptrTy, ptrTy, ptrTy, ptrTy}, false),
                             llvm::Function::InternalLinkage, "dlm.dense_data", m.get());
  denseDataFn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value *t = denseDataFn->getArg(0), *out = denseDataFn->getArg(1),
              *slotArg = denseDataFn->getArg(3);
  auto block = [&](const char *name) { return llvm::BasicBlock::Create(ctx, name, denseDataFn); };
  llvm::BasicBlock *entry = block("entry"), *same = block("same"), *other = block("operand"),
                   *copyBlock = block("view.copy"), *copied = block("copied"),
                   *failed = block("failed");
  llvm::Value *null = llvm::ConstantPointerNull::get(ptrTy);
  llvm::IRBuilder<> fb(entry);
  fb.CreateStore(null, slotArg);
  fb.CreateCondBr(fb.CreateICmpEQ(t, out), same, other);
  fb.SetInsertPoint(same);
  fb.CreateRet(denseDataFn->getArg(2));
  fb.SetInsertPoint(other);
  llvm::FunctionCallee dense = rt("dlm_tensor_dense_data", ptrTy, {ptrTy});
  llvm::Value *data = fb.CreateCall(dense, {t});
  llvm::BasicBlock *ret = block("dense");
  fb.CreateCondBr(fb.CreateIsNull(data), copyBlock, ret,
                  llvm::MDBuilder(ctx).createBranchWeights(1, 1000));
  fb.SetInsertPoint(ret);
  fb.CreateRet(data);
  fb.SetInsertPoint(copyBlock);
  llvm::Value *copy = fb.CreateCall(rt("dlm_tensor_contiguous", ptrTy, {ptrTy}), {t});
  fb.CreateCondBr(fb.CreateIsNull(copy), failed, copied);
  fb.SetInsertPoint(failed);
  fb.CreateRet(null);
  fb.SetInsertPoint(copied);
  fb.CreateStore(copy, slotArg);
  fb.CreateRet(fb.CreateCall(dense, {copy}));
  return denseDataFn;
}

} // namespace dlm::codegen
