//===- compiler/codegen/ElementCode.cpp - Elementwise ops as scalar LLVM IR -===//
#include "compiler/codegen/ElementCode.h"

#include "runtime/Promotion.h"
#include "runtime/ScalarOps.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Metadata.h"

#include <cmath>
#include <functional>

namespace dlm::codegen {

namespace {

bool isComparison(OpKind op) {
  return op == OpKind::Eq || op == OpKind::Ne || op == OpKind::Lt || op == OpKind::Le ||
         op == OpKind::Gt || op == OpKind::Ge;
}

} // namespace

ElementCode::~ElementCode() = default;

llvm::Type *ElementCode::scalarType(DType t) {
  switch (t) {
  case DType::F32:
    return b.getFloatTy();
  case DType::F64:
    return b.getDoubleTy();
  case DType::I32:
    return b.getInt32Ty();
  case DType::I64:
    return b.getInt64Ty();
  case DType::Bool:
    return b.getInt1Ty();
  }
  return b.getInt64Ty();
}

llvm::Type *ElementCode::memoryType(DType t) {
  return t == DType::Bool ? b.getInt8Ty() : scalarType(t);
}

llvm::Constant *ElementCode::f32(float v) {
  return llvm::ConstantFP::get(b.getFloatTy(), (double)v);
}
llvm::Constant *ElementCode::fp(DType dt, double v) {
  return llvm::ConstantFP::get(scalarType(dt), v);
}

llvm::Value *ElementCode::convert(llvm::Value *v, DType from, DType to) {
  if (from == to)
    return v;
  llvm::Type *ty = scalarType(to);
  if (to == DType::Bool)
    return isFloat(from) ? b.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0))
                         : b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  if (isFloat(to)) {
    if (isFloat(from))
      return b.CreateFPCast(v, ty);
    return from == DType::Bool ? b.CreateUIToFP(v, ty) : b.CreateSIToFP(v, ty);
  }
  if (isFloat(from))
    return nullptr;
  return from == DType::Bool ? b.CreateZExt(v, ty) : b.CreateSExtOrTrunc(v, ty);
}

// --- kernels/cpu/FastMath.h, operation for operation ---------------------------------------
// The kernels are built without fast-math, so every operation below rounds as there, with one
// exception GCC makes for C++ in kernels/cpu/Elementwise.cpp and NN.cpp (-ffp-contract=fast, its
// default, kept for these two files only: kernels/CMakeLists.txt): a product whose only users
// are additions or subtractions is fused into them (an FMA) when the target has FMA. `mulAdd` is
// llvm.fmuladd, which the backend fuses exactly when the target has FMA, so the JIT (host CPU)
// matches the native runtime and a generic AOT object the portable one. The constants are C++
// float literals, rounded as the kernels' are. std::max(a, b) is `a < b ? b : a`, std::min(a,
// b) is `b < a ? b : a`.

/// a * b + c, fused where the target has FMA (as GCC contracts it).
llvm::Value *ElementCode::mulAdd(llvm::Value *a, llvm::Value *x, llvm::Value *c) {
  return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {a->getType()}, {a, x, c});
}

llvm::Value *ElementCode::fastExpF32(llvm::Value *x) {
  llvm::Value *hi = f32(88.72283905206835f), *lo = f32(-103.9720840454f);
  llvm::Value *mx = b.CreateSelect(b.CreateFCmpOLT(x, lo), lo, x);
  llvm::Value *xc = b.CreateSelect(b.CreateFCmpOLT(hi, mx), hi, mx);
  llvm::Value *magic = f32(12582912.0f);
  llvm::Value *shifted = mulAdd(xc, f32(1.44269504088896341f), magic);
  llvm::Value *fx = b.CreateFSub(shifted, magic);
  llvm::Value *r = mulAdd(fx, f32(2.12194440e-4f), mulAdd(b.CreateFNeg(fx), f32(0.693359375f), xc));
  llvm::Value *z = b.CreateFMul(r, r);
  llvm::Value *y = mulAdd(f32(1.9875691500E-4f), r, f32(1.3981999507E-3f));
  y = mulAdd(y, r, f32(8.3334519073E-3f));
  y = mulAdd(y, r, f32(4.1665795894E-2f));
  y = mulAdd(y, r, f32(1.6666665459E-1f));
  y = mulAdd(y, r, f32(5.0000001201E-1f));
  y = b.CreateFAdd(mulAdd(y, z, r), f32(1.0f));
  llvm::Type *i32 = b.getInt32Ty();
  llvm::Value *n = b.CreateSub(b.CreateBitCast(shifted, i32), b.CreateBitCast(magic, i32));
  llvm::Value *n1 = b.CreateAShr(n, 1), *n2 = b.CreateSub(n, n1);
  auto pow2 = [&](llvm::Value *k) {
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, b.getInt32(127)), 23), b.getFloatTy());
  };
  llvm::Value *out = b.CreateFMul(b.CreateFMul(y, pow2(n1)), pow2(n2));
  out = b.CreateSelect(b.CreateFCmpOGT(x, hi), f32(INFINITY), out);
  out = b.CreateSelect(b.CreateFCmpOLT(x, lo), f32(0.0f), out);
  return b.CreateSelect(b.CreateFCmpUNE(x, x), x, out);
}

llvm::Value *ElementCode::fastTanhF32(llvm::Value *x) {
  llvm::Value *a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value *s = b.CreateFMul(x, x);
  llvm::Value *p = mulAdd(f32(-5.70498872745E-3f), s, f32(2.06390887954E-2f));
  p = mulAdd(p, s, f32(-5.37397155531E-2f));
  p = mulAdd(p, s, f32(1.33314422036E-1f));
  p = mulAdd(p, s, f32(-3.33332819422E-1f));
  llvm::Value *small = mulAdd(b.CreateFMul(p, s), x, x);
  llvm::Value *nine = f32(9.0f);
  llvm::Value *big9 = b.CreateFCmpOGT(a, nine);
  llvm::Value *e = fastExpF32(b.CreateFMul(f32(2.0f), b.CreateSelect(big9, nine, a)));
  llvm::Value *big = b.CreateFSub(f32(1.0f), b.CreateFDiv(f32(2.0f), b.CreateFAdd(e, f32(1.0f))));
  big = b.CreateSelect(big9, f32(1.0f), big);
  big = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, big, x);
  llvm::Value *out = b.CreateSelect(b.CreateFCmpOLT(a, f32(0.625f)), small, big);
  return b.CreateSelect(b.CreateFCmpUNE(x, x), x, out);
}

llvm::Value *ElementCode::fastSigmoidF32(llvm::Value *x) {
  llvm::Value *e = fastExpF32(b.CreateFNeg(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x)));
  llvm::Value *inv = b.CreateFDiv(f32(1.0f), b.CreateFAdd(f32(1.0f), e));
  llvm::Value *neg = b.CreateSelect(b.CreateFCmpUNE(x, x), x, b.CreateFMul(e, inv));
  return b.CreateSelect(b.CreateFCmpOGE(x, f32(0.0f)), inv, neg);
}

/// A call of the C library's f32 or f64 function (what the kernels' std:: calls compile to).
llvm::Value *ElementCode::libm(const char *f32Name, const char *f64Name, DType dt, llvm::Value *x) {
  llvm::Type *ty = scalarType(dt);
  llvm::FunctionCallee f = m.getOrInsertFunction(dt == DType::F32 ? f32Name : f64Name,
                                                 llvm::FunctionType::get(ty, {ty}, false));
  if (auto *fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setDoesNotAccessMemory(); // the kernels are built with -fno-math-errno
    fn->setWillReturn();
  }
  return b.CreateCall(f, {x});
}

/// The kernels' scalar function of `kind` (runtime/ScalarOps.h) on x: in x's float dtype, or
/// f64, unless the result is a float (a predicate's is bool); the function's 1 or 0 converts.
llvm::Value *ElementCode::scalarCall(OpKind kind, DType dt, llvm::Value *x, DType from) {
  DType arg = isFloat(dt) ? dt : isFloat(from) ? from : DType::F64;
  llvm::Value *v = convert(x, from, arg);
  rt::ScalarFunction fn = rt::scalarFunction(kind, arg == DType::F64);
  if (!v || !fn.name)
    return nullptr;
  llvm::Type *ty = scalarType(arg);
  llvm::FunctionCallee f = m.getOrInsertFunction(fn.name, llvm::FunctionType::get(ty, {ty}, false));
  if (auto *decl = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    decl->setDoesNotThrow();
    decl->setDoesNotAccessMemory(); // pure functions of their operand
    decl->setWillReturn();
  }
  return convert(b.CreateCall(f, {v}), arg, dt);
}

llvm::Value *ElementCode::unary(OpKind op, DType dt, llvm::Value *x) {
  bool f = isFloat(dt);
  llvm::Value *zero = f ? (llvm::Value *)fp(dt, 0.0) : llvm::ConstantInt::get(scalarType(dt), 0);
  if (op == OpKind::Neg)
    return f ? b.CreateFNeg(x) : b.CreateNeg(x);
  if (op == OpKind::Abs) {
    llvm::Value *lt = f ? b.CreateFCmpOLT(x, zero) : b.CreateICmpSLT(x, zero);
    return b.CreateSelect(lt, f ? b.CreateFNeg(x) : b.CreateNeg(x), x);
  }
  // kernels' reluOf: x < 0 ? 0 : x, so NaN and -0.0 pass as in PyTorch.
  if (op == OpKind::Relu)
    return b.CreateSelect(f ? b.CreateFCmpOLT(x, zero) : b.CreateICmpSLT(x, zero), zero, x);
  if (!f)
    return nullptr;
  bool single = dt == DType::F32;
  if (op == OpKind::Exp)
    return single ? fastExpF32(x) : libm("expf", "exp", dt, x);
  if (op == OpKind::Tanh)
    return single ? fastTanhF32(x) : libm("tanhf", "tanh", dt, x);
  if (op == OpKind::Sigmoid) {
    if (single)
      return fastSigmoidF32(x);
    // kernels' sigmoidOf: x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x)).
    llvm::Value *pos = b.CreateFCmpOGE(x, zero);
    llvm::Value *e = libm("expf", "exp", dt, b.CreateSelect(pos, b.CreateFNeg(x), x));
    llvm::Value *one = fp(dt, 1.0);
    llvm::Value *den = b.CreateFAdd(one, e);
    return b.CreateSelect(pos, b.CreateFDiv(one, den), b.CreateFDiv(e, den));
  }
  if (op == OpKind::Sqrt)
    return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
  return nullptr;
}

llvm::Value *ElementCode::compare(OpKind op, DType t, llvm::Value *x, llvm::Value *y) {
  if (isFloat(t)) {
    if (op == OpKind::Eq)
      return b.CreateFCmpOEQ(x, y);
    if (op == OpKind::Ne)
      return b.CreateFCmpUNE(x, y);
    if (op == OpKind::Lt)
      return b.CreateFCmpOLT(x, y);
    if (op == OpKind::Le)
      return b.CreateFCmpOLE(x, y);
    if (op == OpKind::Gt)
      return b.CreateFCmpOGT(x, y);
    return b.CreateFCmpOGE(x, y);
  }
  bool u = t == DType::Bool;
  if (op == OpKind::Eq)
    return b.CreateICmpEQ(x, y);
  if (op == OpKind::Ne)
    return b.CreateICmpNE(x, y);
  if (op == OpKind::Lt)
    return u ? b.CreateICmpULT(x, y) : b.CreateICmpSLT(x, y);
  if (op == OpKind::Le)
    return u ? b.CreateICmpULE(x, y) : b.CreateICmpSLE(x, y);
  if (op == OpKind::Gt)
    return u ? b.CreateICmpUGT(x, y) : b.CreateICmpSGT(x, y);
  return u ? b.CreateICmpUGE(x, y) : b.CreateICmpSGE(x, y);
}

/// maximum/minimum: NaN-propagating on floats (x + y when either is NaN), or/and on bools.
llvm::Value *ElementCode::minMax(bool max, DType dt, llvm::Value *x, llvm::Value *y) {
  if (dt == DType::Bool)
    return max ? b.CreateOr(x, y) : b.CreateAnd(x, y);
  if (!isFloat(dt))
    return b.CreateSelect(max ? b.CreateICmpSGT(x, y) : b.CreateICmpSLT(x, y), x, y);
  llvm::Value *pick = b.CreateSelect(max ? b.CreateFCmpOGT(x, y) : b.CreateFCmpOLT(x, y), x, y);
  return b.CreateSelect(b.CreateFCmpUNO(x, y), b.CreateFAdd(x, y), pick);
}

llvm::Value *ElementCode::op(OpKind op, DType dt, llvm::ArrayRef<llvm::Value *> args,
                             llvm::ArrayRef<DType> types) {
  bool f = isFloat(dt);
  size_t arity = args.size();
  // Every operand converted to `to` first, as the kernels do; null when one cannot be.
  std::vector<llvm::Value *> x;
  auto as = [&](DType to) {
    x.clear();
    for (size_t i = 0; i < arity; ++i) {
      x.push_back(convert(args[i], types[i], to));
      if (!x.back())
        return false;
    }
    return true;
  };
  if ((op == OpKind::Add || op == OpKind::Sub || op == OpKind::Mul || op == OpKind::Div) &&
      arity == 2 && dt != DType::Bool) {
    if ((op == OpKind::Div && !f) || !as(dt))
      return nullptr;
    if (op == OpKind::Add)
      return f ? b.CreateFAdd(x[0], x[1]) : b.CreateAdd(x[0], x[1]);
    if (op == OpKind::Sub)
      return f ? b.CreateFSub(x[0], x[1]) : b.CreateSub(x[0], x[1]);
    if (op == OpKind::Mul)
      return f ? b.CreateFMul(x[0], x[1]) : b.CreateMul(x[0], x[1]);
    return b.CreateFDiv(x[0], x[1]);
  }
  if (op == OpKind::Pow && arity == 2 && f && as(dt)) {
    llvm::Type *ty = scalarType(dt);
    llvm::FunctionCallee pow = m.getOrInsertFunction(dt == DType::F32 ? "powf" : "pow",
                                                     llvm::FunctionType::get(ty, {ty, ty}, false));
    if (auto *fn = llvm::dyn_cast<llvm::Function>(pow.getCallee())) {
      fn->setDoesNotThrow();
      fn->setDoesNotAccessMemory();
      fn->setWillReturn();
    }
    return b.CreateCall(pow, {x[0], x[1]});
  }
  if ((op == OpKind::Maximum || op == OpKind::Minimum) && arity == 2 && as(dt))
    return minMax(op == OpKind::Maximum, dt, x[0], x[1]);
  if (op == OpKind::Clip && arity == 3 && as(dt))
    return minMax(false, dt, minMax(true, dt, x[0], x[1]), x[2]);
  if (isComparison(op) && arity == 2 && dt == DType::Bool) {
    DType ct = widerDType(types[0], types[1]); // as the kernels compare (runtime/Promotion.h)
    if (!as(ct))
      return nullptr;
    return compare(op, ct, x[0], x[1]);
  }
  if ((op == OpKind::LogicalAnd || op == OpKind::LogicalOr) && arity == 2 && dt == DType::Bool &&
      as(DType::Bool))
    return op == OpKind::LogicalAnd ? b.CreateAnd(x[0], x[1]) : b.CreateOr(x[0], x[1]);
  if (op == OpKind::LogicalNot && arity == 1 && dt == DType::Bool && as(DType::Bool))
    return b.CreateNot(x[0]);
  if ((op == OpKind::Cast || op == OpKind::StopGradient) && arity == 1)
    return convert(args[0], types[0], dt);
  if (op == OpKind::Where && arity == 3) {
    llvm::Value *c = convert(args[0], types[0], DType::Bool);
    llvm::Value *p = convert(args[1], types[1], dt), *q = convert(args[2], types[2], dt);
    if (!p || !q)
      return nullptr;
    return b.CreateSelect(c, p, q);
  }
  if (op == OpKind::ReluGrad && arity == 2 && dt != DType::Bool && as(dt)) {
    llvm::Value *zero = f ? (llvm::Value *)fp(dt, 0.0) : llvm::ConstantInt::get(scalarType(dt), 0);
    return b.CreateSelect(f ? b.CreateFCmpOLE(x[0], zero) : b.CreateICmpSLE(x[0], zero), zero,
                          x[1]); // reluGradOf
  }
  if ((op == OpKind::SigmoidGrad || op == OpKind::TanhGrad) && arity == 2 && f && as(dt)) {
    llvm::Value *one = fp(dt, 1.0);
    if (op == OpKind::TanhGrad)
      return b.CreateFMul(x[1], mulAdd(b.CreateFNeg(x[0]), x[0], one)); // g * (1 - y*y)
    return b.CreateFMul(b.CreateFMul(x[1], x[0]), b.CreateFSub(one, x[0]));
  }
  if (opHas(op, opflag::ScalarCall))
    return arity == 1 ? scalarCall(op, dt, args[0], types[0]) : nullptr;
  if (arity == 1 && dt != DType::Bool && as(dt))
    return unary(op, dt, x[0]);
  return nullptr;
}

llvm::Value *ElementCode::body(const ElementBody &body, llvm::ArrayRef<llvm::Value *> args,
                               llvm::ArrayRef<DType> types) {
  std::vector<llvm::Value *> values(args.begin(), args.end());
  std::vector<DType> dtypes(types.begin(), types.end());
  for (const FusedStatement &st : body) {
    std::vector<llvm::Value *> in;
    std::vector<DType> inTypes;
    for (unsigned v : st.operands) {
      if (v >= values.size())
        return nullptr;
      in.push_back(values[v]);
      inTypes.push_back(dtypes[v]);
    }
    llvm::Value *r = op(st.op, st.dtype, in, inTypes);
    if (!r)
      return nullptr;
    values.push_back(r);
    dtypes.push_back(st.dtype);
  }
  return body.empty() ? nullptr : values.back();
}

bool ElementCode::supports(const ElementBody &bodyToTry, llvm::ArrayRef<DType> types) {
  llvm::IRBuilderBase::InsertPointGuard keep(b);
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), false),
                                    llvm::Function::InternalLinkage, "dlm.probe", m);
  b.SetInsertPoint(llvm::BasicBlock::Create(m.getContext(), "probe", fn));
  std::vector<llvm::Value *> args;
  for (DType t : types)
    args.push_back(llvm::PoisonValue::get(scalarType(t)));
  bool ok = body(bodyToTry, args, types) != nullptr;
  fn->eraseFromParent();
  return ok;
}

llvm::Function *ElementCode::loopFunction(const std::string &name, const ElementBody &bodyToEmit,
                                          const std::vector<LoopOperand> &operands,
                                          size_t numDims) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::Type *ptrTy = b.getPtrTy(), *i64 = b.getInt64Ty();
  std::vector<llvm::Type *> params = {ptrTy};
  params.insert(params.end(), numDims, i64);
  for (const LoopOperand &o : operands)
    params.push_back(o.tensor ? ptrTy : scalarType(o.dtype));
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), params, false),
                                    llvm::Function::InternalLinkage, name, m);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilderBase::InsertPointGuard keep(b);
  auto *entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  auto *work = llvm::BasicBlock::Create(ctx, "elements", fn);
  auto *done = llvm::BasicBlock::Create(ctx, "done", fn);
  b.SetInsertPoint(entry);
  llvm::Value *out = fn->getArg(0);
  std::vector<llvm::Value *> extent;
  llvm::Value *empty = b.getFalse();
  for (size_t l = 0; l < numDims; ++l) {
    extent.push_back(fn->getArg(1 + l));
    empty = b.CreateOr(empty, b.CreateICmpSLE(extent.back(), b.getInt64(0)));
  }
  b.CreateCondBr(empty, done, work);
  b.SetInsertPoint(work);
  // Row-major strides in elements: the output's over every loop dim, an operand's over the
  // dims it runs along (0 where it is broadcast).
  std::vector<llvm::Value *> outStride(numDims);
  std::vector<std::vector<llvm::Value *>> stride(operands.size(),
                                                 std::vector<llvm::Value *>(numDims));
  llvm::Value *outProd = b.getInt64(1);
  std::vector<llvm::Value *> prod(operands.size(), b.getInt64(1));
  for (size_t l = numDims; l-- > 0;) {
    outStride[l] = outProd;
    outProd = b.CreateMul(outProd, extent[l], "", true, true);
    for (size_t k = 0; k < operands.size(); ++k) {
      bool runs = operands[k].tensor && operands[k].full[l];
      stride[k][l] = runs ? prod[k] : b.getInt64(0);
      if (runs)
        prod[k] = b.CreateMul(prod[k], extent[l], "", true, true);
    }
  }
  llvm::MDNode *group = llvm::MDNode::getDistinct(ctx, {});
  // One element: out[o] = body(operand k at index[k]).
  auto element = [&](llvm::Value *o, const std::vector<llvm::Value *> &index, bool innermost) {
    std::vector<llvm::Value *> args;
    std::vector<DType> types;
    for (size_t k = 0; k < operands.size(); ++k) {
      const LoopOperand &operand = operands[k];
      types.push_back(operand.dtype);
      if (!operand.tensor) {
        args.push_back(fn->getArg(1 + numDims + k));
        continue;
      }
      llvm::Type *mem = memoryType(operand.dtype);
      llvm::LoadInst *v =
          b.CreateLoad(mem, b.CreateInBoundsGEP(mem, fn->getArg(1 + numDims + k), index[k]));
      if (innermost)
        v->setMetadata(llvm::LLVMContext::MD_access_group, group);
      args.push_back(operand.dtype == DType::Bool ? b.CreateICmpNE(v, b.getInt8(0))
                                                  : (llvm::Value *)v);
    }
    DType dt = bodyToEmit.back().dtype;
    llvm::Value *r = body(bodyToEmit, args, types);
    if (dt == DType::Bool)
      r = b.CreateZExt(r, b.getInt8Ty());
    llvm::StoreInst *st = b.CreateStore(r, b.CreateInBoundsGEP(memoryType(dt), out, o));
    if (innermost)
      st->setMetadata(llvm::LLVMContext::MD_access_group, group);
  };
  // The loop nest, outermost first; each level a do-while (every extent is positive here).
  std::function<void(size_t, llvm::Value *, std::vector<llvm::Value *>)> level = [&](size_t l,
                                                                                     llvm::Value
                                                                                         *outBase,
                                                                                     std::vector<
                                                                                         llvm::Value
                                                                                             *>
                                                                                         base) {
    if (l == numDims)
      return element(outBase, base, false);
    bool innermost = l + 1 == numDims;
    llvm::BasicBlock *pre = b.GetInsertBlock();
    auto *loop = llvm::BasicBlock::Create(ctx, "d" + std::to_string(l), fn);
    b.CreateBr(loop);
    b.SetInsertPoint(loop);
    llvm::PHINode *i = b.CreatePHI(i64, 2, "i" + std::to_string(l));
    i->addIncoming(b.getInt64(0), pre);
    llvm::Value *o =
        b.CreateAdd(outBase, b.CreateMul(i, outStride[l], "", true, true), "", true, true);
    std::vector<llvm::Value *> index;
    for (size_t k = 0; k < operands.size(); ++k)
      index.push_back(
          operands[k].tensor && operands[k].full[l]
              ? b.CreateAdd(base[k], b.CreateMul(i, stride[k][l], "", true, true), "", true, true)
              : base[k]);
    if (innermost)
      element(o, index, true);
    else
      level(l + 1, o, index);
    llvm::Value *next = b.CreateAdd(i, b.getInt64(1), "", true, true);
    i->addIncoming(next, b.GetInsertBlock());
    auto *after = llvm::BasicBlock::Create(ctx, "d" + std::to_string(l) + ".end", fn);
    llvm::BranchInst *br = b.CreateCondBr(b.CreateICmpSLT(next, extent[l]), loop, after);
    if (innermost) {
      llvm::Metadata *parallel[] = {llvm::MDString::get(ctx, "llvm.loop.parallel_accesses"), group};
      auto temp = llvm::MDNode::getTemporary(ctx, {});
      llvm::Metadata *loopOps[] = {temp.get(), llvm::MDNode::get(ctx, parallel)};
      llvm::MDNode *id = llvm::MDNode::getDistinct(ctx, loopOps);
      id->replaceOperandWith(0, id);
      br->setMetadata(llvm::LLVMContext::MD_loop, id);
    }
    b.SetInsertPoint(after);
  };
  level(0, b.getInt64(0), std::vector<llvm::Value *>(operands.size(), b.getInt64(0)));
  b.CreateBr(done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();
  return fn;
}

} // namespace dlm::codegen
