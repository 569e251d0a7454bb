//===- compiler/codegen/EmitOps.cpp - One graph node as LLVM IR ------------===//
//
// A node's code: the dispatch over the ways a node is emitted (constants, scalar and elementwise
// code, the direct fast paths of EmitDirect.cpp, the generic kernel calls), conditional merges,
// constants, and calls of the runtime's kernels through the C ABI.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/EmitterImpl.h"

#include "compiler/ir/NodeFacts.h"
#include "runtime/Devices.h"

namespace dlm::codegen {

// --- nodes ----------------------------------------------------------------------------
void Emitter::emitNode(const Node &n) {
  for (uint32_t p = 0; p < n.numResults(); ++p)
    if (repr({n.id, p}) == Repr::Unsupported) {
      unsupported(n, "result type " + n.results[p].str() + " has no machine representation");
      return;
    }
  if (s.roles[n.id] == NodeRole::CondMerge)
    return emitCondMerge(n);
  if (n.op == OpKind::Arg)
    return emitArg(n);
  if (n.op == OpKind::Retval)
    return emitRetval(n);
  if (n.op == OpKind::Const && emitConst(n))
    return;
  if (emitUnboxedFill(n))
    return;
  if (allScalar(n) && emitScalarOp(n))
    return;
  // A node placed on the GPU runs its kernel there: generated loops read host memory only.
  if (rt::runtimeDevice(n.device) != rt::Device::CPU)
    return emitKernelCall(n);
  if (emitElementwise(n))
    return;
  if (emitDirect(n))
    return;
  if (emitKernelRun(n))
    return;
  emitKernelCall(n);
}

void Emitter::emitArg(const Node &n) {
  if (!options.entry) {
    unsupported(n, "an argument outside an entry graph");
    return;
  }
  llvm::Value *t =
      b.CreateLoad(ptrTy, b.CreateConstInBoundsGEP1_64(ptrTy, mainFn->getArg(0),
                                                       intAttr(n, "index").value_or(0)));
  if (repr({n.id, 0}) == Repr::Tensor) {
    retain(b, t);
    store({n.id, 0}, t);
    return;
  }
  if (repr({n.id, 0}) != Repr::Scalar) {
    unsupported(n, "an argument of type " + n.results[0].str());
    return;
  }
  DType dt = n.results[0].dtype();
  if (!scalarTmp)
    scalarTmp = entryAlloca(i64());
  checkStatus(b.CreateCall(rt("dlm_tensor_read_scalar", i32(), {ptrTy, i32(), ptrTy}),
                           {t, b.getInt32((int)dt), scalarTmp}),
              n);
  llvm::Value *v = b.CreateLoad(dt == DType::Bool ? b.getInt8Ty() : scalarType(dt), scalarTmp);
  if (dt == DType::Bool)
    v = b.CreateICmpNE(v, b.getInt8(0));
  store({n.id, 0}, v);
}

void Emitter::emitRetval(const Node &n) {
  if (!options.entry) {
    unsupported(n, "a result outside an entry graph");
    return;
  }
  llvm::Value *out =
      b.CreateConstInBoundsGEP1_64(ptrTy, mainFn->getArg(1), intAttr(n, "index").value_or(0));
  llvm::Value *v = load(n.inputs[0]);
  if (repr(n.inputs[0]) == Repr::Tensor) {
    retain(b, v);
    b.CreateStore(v, out);
    return;
  }
  if (repr(n.inputs[0]) != Repr::Scalar) {
    unsupported(n, "a result of type " + g.typeOf(n.inputs[0]).str());
    return;
  }
  llvm::Value *boxed = box(v, g.typeOf(n.inputs[0]), n);
  checkFailure(b.CreateIsNull(boxed), n);
  b.CreateStore(boxed, out);
}

bool Emitter::emitKernelRun(const Node &n) {
  if (n.numResults() != 1 || repr({n.id, 0}) != Repr::Tensor)
    return false;
  for (ValueRef v : n.inputs)
    if (repr(v) != Repr::Tensor && repr(v) != Repr::Scalar)
      return false;
  llvm::Value *id = b.CreateLoad(i32(), kernelId(kernelName(n)));
  llvm::Value *attrs = attrsOf(n);
  llvm::AllocaInst *ins = callArray(runInputs, ptrTy);
  std::vector<llvm::Value *> boxed;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    ValueRef v = n.inputs[i];
    llvm::Value *x = load(v);
    if (repr(v) == Repr::Scalar)
      boxed.push_back(x = box(x, g.typeOf(v), n));
    b.CreateStore(x, b.CreateConstGEP1_32(ptrTy, ins, (unsigned)i));
  }
  std::optional<ValueRef> acc = accumulatorDonor(n);
  llvm::Value *t =
      acc ? b.CreateCall(rt("dlm_matmul_bias_accumulate", ptrTy, {i32(), ptrTy, ptrTy}),
                         {id, ins, attrs})
          : b.CreateCall(rt("dlm_kernel_run", ptrTy, {i32(), ptrTy, i32(), ptrTy}),
                         {id, ins, b.getInt32((int)n.inputs.size()), attrs});
  for (llvm::Value *x : boxed)
    release(b, x);
  storeDirect(n, t);
  if (acc) { // (the result may be the addend itself: its slot gives up the reference)
    llvm::Value *addend = b.CreateLoad(ptrTy, slot(*acc));
    b.CreateStore(
        b.CreateSelect(b.CreateICmpEQ(t, addend), llvm::ConstantPointerNull::get(ptrTy), addend),
        slot(*acc));
  }
  return true;
}

std::optional<ValueRef> Emitter::accumulatorDonor(const Node &n) {
  std::optional<size_t> k = graph::accumulatorOperand(g, n);
  if (!k || repr(n.inputs[*k]) != Repr::Tensor)
    return std::nullopt;
  ValueRef r = s.resolve(g, n.inputs[*k]);
  if (!donatable(n, r, currentBody))
    return std::nullopt;
  return r;
}

void Emitter::emitCondMerge(const Node &n) {
  uint32_t t = s.mergeTrueInput[n.id];
  llvm::Value *v =
      b.CreateSelect(predicate(s.mergePred[n.id]), load(n.inputs[t]), load(n.inputs[1 - t]));
  if (repr({n.id, 0}) == Repr::Tensor)
    retain(b, v);
  store({n.id, 0}, v);
}

bool Emitter::allScalar(const Node &n) {
  if (n.numResults() != 1 || repr({n.id, 0}) != Repr::Scalar || n.inputs.empty())
    return false;
  for (ValueRef v : n.inputs)
    if (repr(v) != Repr::Scalar)
      return false;
  return true;
}

bool Emitter::emitConst(const Node &n) {
  const AttrValue *value = n.attr("value");
  if (!value || n.numResults() != 1)
    return false;
  Repr r = repr({n.id, 0});
  if (r == Repr::Str) {
    const std::string *text = std::get_if<std::string>(value);
    if (!text)
      return false;
    store({n.id, 0}, cstr(*text));
    return true;
  }
  if (r == Repr::Scalar) {
    DType dt = n.results[0].dtype();
    llvm::Type *ty = scalarType(dt);
    llvm::Value *c = nullptr;
    if (auto *i = std::get_if<int64_t>(value))
      c = isFloat(dt) ? llvm::ConstantFP::get(ty, (double)*i)
                      : llvm::ConstantInt::get(ty, *i != 0 && dt == DType::Bool ? 1 : *i);
    else if (auto *d = std::get_if<double>(value))
      c = isFloat(dt) ? llvm::ConstantFP::get(ty, *d) : nullptr;
    else if (auto *t = std::get_if<bool>(value))
      c = isFloat(dt) ? llvm::ConstantFP::get(ty, *t ? 1.0 : 0.0) : llvm::ConstantInt::get(ty, *t);
    else if (auto *l = std::get_if<std::vector<double>>(value); l && l->size() == 1)
      c = constFromDouble(dt, ty, l->front()); // a 0-d literal {dtype, shape = [], value = [v]}
    if (!c)
      return false;
    store({n.id, 0}, c);
    return true;
  }
  // A tensor literal: one kernel call at start-up.
  auto *gv = global(ptrTy, llvm::ConstantPointerNull::get(ptrTy), "const." + llvm::Twine(n.id));
  constTensors.push_back(gv);
  llvm::Value *a = ib.CreateCall(rt("dlm_attrs_new", ptrTy, {}), {});
  for (const auto &[name, v] : n.attrs)
    setAttr(a, name, v);
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

bool Emitter::emitUnboxedFill(const Node &n) {
  if ((n.op != OpKind::Zeros && n.op != OpKind::Ones) || repr({n.id, 0}) != Repr::Scalar)
    return false;
  DType dt = n.results[0].dtype();
  store({n.id, 0}, constFromDouble(dt, scalarType(dt), n.op == OpKind::Ones ? 1.0 : 0.0));
  return true;
}

llvm::Constant *Emitter::constFromDouble(DType dt, llvm::Type *ty, double v) {
  switch (dt) {
  case DType::F32:
    return llvm::ConstantFP::get(ty, (double)(float)v);
  case DType::F64:
    return llvm::ConstantFP::get(ty, v);
  case DType::Bool:
    return llvm::ConstantInt::get(ty, v != 0);
  case DType::I32:
    if (!(v > -2147483649.0 && v < 2147483648.0))
      return nullptr;
    return llvm::ConstantInt::get(ty, (uint64_t)(int64_t)(int32_t)v, true);
  case DType::I64:
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
      return nullptr;
    return llvm::ConstantInt::get(ty, (uint64_t)(int64_t)v, true);
  }
  return nullptr;
}

llvm::Value *Emitter::box(llvm::Value *v, const Type &t, const Node &n) {
  llvm::Value *scalar = nullptr;
  switch (t.dtype()) {
  case DType::F32:
    scalar = b.CreateCall(rt("dlm_tensor_scalar_f32", ptrTy, {b.getFloatTy()}), {v});
    break;
  case DType::F64:
    scalar = b.CreateCall(rt("dlm_tensor_scalar_f64", ptrTy, {b.getDoubleTy()}), {v});
    break;
  case DType::I32:
    scalar = b.CreateCall(rt("dlm_tensor_scalar_i32", ptrTy, {i32()}), {v});
    break;
  case DType::I64:
    scalar = b.CreateCall(rt("dlm_tensor_scalar_i64", ptrTy, {i64()}), {v});
    break;
  case DType::Bool:
    scalar = b.CreateCall(rt("dlm_tensor_scalar_bool", ptrTy, {i32()}), {b.CreateZExt(v, i32())});
    break;
  }
  if (!scalar || t.rank() == 0)
    return scalar;
  // An unboxed value (findUnboxed): the 0-d tensor viewed with its static shape of ones.
  checkFailure(b.CreateIsNull(scalar), n);
  std::vector<int64_t> ones(t.rank(), 1);
  llvm::Value *shaped =
      b.CreateCall(rt("dlm_tensor_reshape", ptrTy, {ptrTy, i32(), ptrTy}),
                   {scalar, b.getInt32((int)t.rank()), constArray<int64_t>(ones)});
  release(b, scalar);
  return shaped;
}

void Emitter::emitKernelCall(const Node &n) {
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
    case Repr::Tensor:
      tensor = x;
      break;
    case Repr::Str:
      str = x;
      break;
    case Repr::Scalar:
      tensor = box(x, g.typeOf(v), n);
      boxed.push_back(tensor);
      break;
    case Repr::Unsupported:
      unsupported(n, "operand type " + g.typeOf(v).str() + " has no machine representation");
      return;
    }
    llvm::Value *element = b.CreateConstGEP1_32(valueTy, ins, i);
    b.CreateStore(tensor, b.CreateStructGEP(valueTy, element, 0));
    b.CreateStore(str, b.CreateStructGEP(valueTy, element, 1));
  }
  llvm::Value *status = b.CreateCall(
      rt("dlm_kernel_call_values", i32(), {i32(), ptrTy, i32(), ptrTy, ptrTy, i32(), ptrTy}),
      {id, ins, b.getInt32(numIn), attrs, outs, b.getInt32(numOut), null});
  for (llvm::Value *t : boxed)
    release(b, t);
  checkStatus(status, n);
  for (uint32_t p = 0; p < numOut; ++p) {
    llvm::Value *t = b.CreateLoad(ptrTy, b.CreateConstGEP1_32(ptrTy, outs, p));
    if (repr({n.id, p}) != Repr::Scalar) {
      store({n.id, p}, t);
      continue;
    }
    DType dt = n.results[p].dtype();
    llvm::Type *memTy = dt == DType::Bool ? b.getInt8Ty() : scalarType(dt);
    if (!scalarTmp)
      scalarTmp = entryAlloca(i64());
    llvm::AllocaInst *tmp = scalarTmp;
    llvm::Value *rs = b.CreateCall(rt("dlm_tensor_read_scalar", i32(), {ptrTy, i32(), ptrTy}),
                                   {t, b.getInt32((int)dt), tmp});
    release(b, t);
    checkStatus(rs, n);
    llvm::Value *v = b.CreateLoad(memTy, tmp);
    if (dt == DType::Bool)
      v = b.CreateICmpNE(v, b.getInt8(0));
    store({n.id, p}, v);
  }
}

} // namespace dlm::codegen
