//===- compiler/ir/NNOps.cpp - Type rules of nn, creation and effect ops ---===//
//
// The rules of docs/ops.md's nn, creation, side-effect and backward-helper rows, which the rows
// of ops/Ops.def name.
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/OpRules.h"

namespace dlm::oprules {

//===--- nn ---------------------------------------------------------------===//

Type inferSoftmax(InferContext &ctx) {
  if (!checkTensor(ctx, 0))
    return Type::error();
  const Type &x = ctx.operand(0);
  if (!normAxis(ctx, ctx.intAttr("axis", -1), x.rank(), x))
    return Type::error();
  return isFloat(x.dtype()) ? x : Type::tensor(DType::F32, x.shape());
}

Type inferCrossEntropy(InferContext &ctx) {
  if (!checkTensor(ctx, 0) || !checkTensor(ctx, 1))
    return Type::error();
  const Type &logits = ctx.operand(0), &labels = ctx.operand(1);
  if (logits.rank() != 2)
    return ctx.fail("cross_entropy: logits must be [N, C], found " + logits.str(), 0);
  if (labels.rank() != 1 || !isInteger(labels.dtype()))
    return ctx.fail("cross_entropy: labels must be integer [N], found " + labels.str(), 1);
  const Dim &n1 = logits.shape()[0], &n2 = labels.shape()[0];
  if (n1.isStatic() && n2.isStatic() && n1 != n2)
    return ctx.fail("cross_entropy: " + n1.str() + " rows of logits vs " + n2.str() + " labels");
  return Type::tensor(isFloat(logits.dtype()) ? logits.dtype() : DType::F32, {});
}

Type inferMse(InferContext &ctx) {
  if (!checkTensor(ctx, 0) || !checkTensor(ctx, 1))
    return Type::error();
  if (!broadcastAll(ctx))
    return Type::error();
  DType t = promoteDTypes(ctx.operand(0).dtype(), ctx.operand(1).dtype());
  return Type::tensor(isFloat(t) ? t : DType::F32, {});
}

/// Output size of a window of `k` with `stride`/`padding` over a dim.
static Dim windowDim(const Dim &in, int64_t k, int64_t stride, int64_t padding, DimContext &dims) {
  if (!in.isStatic())
    return dims.fresh();
  return Dim::fixed((in.size() + 2 * padding - k) / stride + 1);
}

/// The `layout` attribute of the conv and pool ops: absent or "NCHW" (the language's layout),
/// or "NHWC" (what the `layout` pass rewrites conv chains to, compiler/opt/Layout.cpp); weights
/// stay OIHW. Sets `nhwc`; false after a failure reported to ctx.
static bool layoutAttr(InferContext &ctx, const char *op, bool &nhwc) {
  auto it = ctx.attrs.find("layout");
  const std::string *l = it == ctx.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
  nhwc = l && *l == "NHWC";
  if (it == ctx.attrs.end() || (l && (*l == "NCHW" || *l == "NHWC")))
    return true;
  ctx.fail(std::string(op) + ": layout must be \"NCHW\" or \"NHWC\", found " + attrStr(it->second));
  return false;
}

/// An activation shape of a rank-4 `nhwc` tensor as NCHW dims, and back.
static Shape nchwDims(const Shape &s, bool nhwc) {
  return nhwc ? Shape{s[0], s[3], s[1], s[2]} : s;
}
static Shape fromNchwDims(const Shape &s, bool nhwc) {
  return nhwc ? Shape{s[0], s[2], s[3], s[1]} : s;
}

Type inferConv2d(InferContext &ctx) {
  bool nhwc = false;
  if (!checkTensor(ctx, 0) || !checkTensor(ctx, 1) || !layoutAttr(ctx, "conv2d", nhwc))
    return Type::error();
  const Type &x = ctx.operand(0), &w = ctx.operand(1);
  const char *layout = nhwc ? "NHWC" : "NCHW";
  if (x.rank() != 4)
    return ctx.fail(std::string("conv2d: input must be ") + layout + " (rank 4), found " + x.str(),
                    0);
  if (w.rank() != 4)
    return ctx.fail("conv2d: weight must be OIHW (rank 4), found " + w.str(), 1);
  Shape xs = nchwDims(x.shape(), nhwc);
  const Dim &c1 = xs[1], &c2 = w.shape()[1];
  if (c1.isStatic() && c2.isStatic() && c1 != c2)
    return ctx.fail("conv2d: " + c1.str() + " input channels vs " + c2.str() + " in the weight (" +
                    x.str() + ", " + w.str() + ")");
  int64_t stride = ctx.intAttr("stride", 1), pad = ctx.intAttr("padding", 0);
  if (stride < 1 || pad < 0)
    return ctx.fail("conv2d: stride must be positive and padding non-negative");
  Shape out = {xs[0], w.shape()[0]};
  for (int d = 2; d < 4; ++d) {
    const Dim &k = w.shape()[d];
    Dim o = k.isStatic() ? windowDim(xs[d], k.size(), stride, pad, ctx.dims) : ctx.dims.fresh();
    if (o.isStatic() && o.size() <= 0)
      return ctx.fail("conv2d: kernel " + shapeStr(w.shape()) + " is larger than the input " +
                      x.str());
    out.push_back(o);
  }
  // The kernels compute in the promoted float dtype: integers and bools give f32.
  DType t = promoteDTypes(x.dtype(), w.dtype());
  return Type::tensor(isFloat(t) ? t : DType::F32, fromNchwDims(out, nhwc));
}

/// conv2d_bias(x, w, bias) {stride, padding, relu}
Type inferConv2dBias(InferContext &ctx) { return withBias(ctx, inferConv2d(ctx), "conv2d_bias"); }

Type inferPool(InferContext &ctx) {
  bool nhwc = false;
  if (!checkTensor(ctx, 0) || !layoutAttr(ctx, "pooling", nhwc))
    return Type::error();
  const Type &x = ctx.operand(0);
  if (x.rank() != 4)
    return ctx.fail(std::string("pooling input must be ") + (nhwc ? "NHWC" : "NCHW") +
                        " (rank 4), found " + x.str(),
                    0);
  int64_t k = ctx.intAttr("k", 2);
  if (k < 1)
    return ctx.fail("pooling window must be positive, found " + std::to_string(k));
  Shape out = nchwDims(x.shape(), nhwc);
  for (int d = 2; d < 4; ++d)
    out[d] = out[d].isStatic() ? Dim::fixed(out[d].size() / k) : ctx.dims.fresh();
  // The kernels pool floats: integers and bools give f32 (as conv2d).
  return Type::tensor(isFloat(x.dtype()) ? x.dtype() : DType::F32, fromNchwDims(out, nhwc));
}

Type inferDropout(InferContext &ctx) {
  if (!checkTensor(ctx, 0))
    return Type::error();
  return ctx.operand(0);
}

//===--- creation ---------------------------------------------------------===//

/// Operands that give run-time sizes of symbolic dims must be ints.
static bool checkDimOperands(InferContext &ctx, size_t first) {
  for (size_t i = first; i < ctx.operands.size(); ++i)
    if (ctx.operand(i).kind() != Type::Kind::Int) {
      ctx.fail("dimension must be an int, found " + ctx.operand(i).str(), int(i));
      return false;
    }
  return true;
}

Type inferCreate(InferContext &ctx) {
  if (!checkDimOperands(ctx, 0))
    return Type::error();
  return Type::tensor(ctx.dtypeAttr("dtype"), *ctx.shapeAttr("shape"));
}

Type inferFull(InferContext &ctx) {
  if (!ctx.operand(0).isNumericScalar() &&
      !(ctx.operand(0).isTensor() && ctx.operand(0).rank() == 0))
    return ctx.fail("full: fill value must be a number, found " + ctx.operand(0).str(), 0);
  if (!checkDimOperands(ctx, 1))
    return Type::error();
  return Type::tensor(ctx.dtypeAttr("dtype"), *ctx.shapeAttr("shape"));
}

Type inferEye(InferContext &ctx) {
  int64_t n = ctx.intAttr("n");
  if (n < 0)
    return ctx.fail("eye: size must be non-negative, found " + std::to_string(n));
  return Type::tensor(ctx.dtypeAttr("dtype"), {Dim::fixed(n), Dim::fixed(n)});
}

Type inferArange(InferContext &ctx) {
  if (!checkDimOperands(ctx, 0))
    return Type::error();
  return Type::tensor(ctx.dtypeAttr("dtype"), *ctx.shapeAttr("shape"));
}

Type inferConst(InferContext &ctx) {
  const AttrValue &v = ctx.attrs.at("value");
  if (std::holds_alternative<int64_t>(v))
    return Type::intTy();
  if (std::holds_alternative<double>(v))
    return Type::floatTy();
  if (std::holds_alternative<bool>(v))
    return Type::boolTy();
  if (std::holds_alternative<std::string>(v))
    return Type::strTy();
  // A tensor literal: flat values with a shape and dtype.
  return Type::tensor(ctx.dtypeAttr("dtype"), *ctx.shapeAttr("shape"));
}

Type inferNone(InferContext &ctx) { return Type::none(); }

Type inferProgress(InferContext &ctx) {
  for (size_t i = 0; i < 2; ++i)
    if (ctx.operand(i).kind() != Type::Kind::Int)
      return ctx.fail("progress needs int counts, found " + ctx.operand(i).str(), i);
  return Type::none();
}

/// memory_stats(after...) -> (int, int); the operands only order it.
Type inferMemoryStats(InferContext &) { return Type::tuple({Type::intTy(), Type::intTy()}); }

Type inferSeed(InferContext &ctx) {
  if (ctx.operand(0).kind() != Type::Kind::Int)
    return ctx.fail("seed must be an int, found " + ctx.operand(0).str(), 0);
  return Type::none();
}

//===--- side effects -----------------------------------------------------===//

/// The operands of save{names}(path, names..., tensors...) and load{names}(path, names...)
/// that are tensor names (the attribute `names` counts them; none without it).
size_t numNames(InferContext &ctx) {
  auto it = ctx.attrs.find("names");
  return it == ctx.attrs.end() ? 0 : size_t(std::max<int64_t>(0, std::get<int64_t>(it->second)));
}

bool checkNames(InferContext &ctx, const char *op, size_t count) {
  if (ctx.operands.size() < 1 + count) {
    ctx.fail(std::string(op) + ": expected " + std::to_string(count) + " tensor names");
    return false;
  }
  for (size_t i = 1; i <= count; ++i)
    if (ctx.operand(i).kind() != Type::Kind::Str) {
      ctx.fail(std::string(op) + ": a tensor name must be a str, found " + ctx.operand(i).str(),
               int(i));
      return false;
    }
  return true;
}

Type inferSave(InferContext &ctx) {
  if (ctx.operand(0).kind() != Type::Kind::Str)
    return ctx.fail("save: path must be a str, found " + ctx.operand(0).str(), 0);
  size_t names = numNames(ctx);
  if (!checkNames(ctx, "save", names))
    return Type::error();
  if (names && ctx.operands.size() != 1 + 2 * names)
    return ctx.fail("save: " + std::to_string(names) + " names for " +
                    std::to_string(ctx.operands.size() - 1 - names) + " tensors");
  for (size_t i = 1 + names; i < ctx.operands.size(); ++i)
    if (!checkTensor(ctx, i))
      return Type::error();
  return Type::none();
}

Type inferLoad(InferContext &ctx) {
  if (ctx.operand(0).kind() != Type::Kind::Str)
    return ctx.fail("load: path must be a str, found " + ctx.operand(0).str(), 0);
  const auto &dtypes = std::get<std::vector<DType>>(ctx.attrs.at("dtypes"));
  const auto &shapes = std::get<std::vector<Shape>>(ctx.attrs.at("shapes"));
  size_t names = numNames(ctx);
  if (!checkNames(ctx, "load", names))
    return Type::error();
  if (ctx.operands.size() != 1 + names || (names && names != dtypes.size()))
    return ctx.fail("load: " + std::to_string(ctx.operands.size() - 1) + " tensor names for " +
                    std::to_string(dtypes.size()) + " tensors");
  std::vector<Type> out;
  for (size_t i = 0; i < dtypes.size() && i < shapes.size(); ++i)
    out.push_back(Type::tensor(dtypes[i], shapes[i]));
  return Type::tuple(out);
}

/// fashion_mnist(split) -> (f32[N, 784], i64[N]): N is one run-time size shared by both.
Type inferFashionMnist(InferContext &ctx) {
  if (ctx.operand(0).kind() != Type::Kind::Str)
    return ctx.fail("fashion_mnist: split must be a str, found " + ctx.operand(0).str(), 0);
  Dim n = ctx.dims.fresh();
  return Type::tuple(
      {Type::tensor(DType::F32, {n, Dim::fixed(784)}), Type::tensor(DType::I64, {n})});
}

/// load_idx(path){rank} -> i32 with `rank` run-time dims; load_csv(path){dtype} -> [rows, cols].
Type inferReadFile(InferContext &ctx) {
  if (ctx.operand(0).kind() != Type::Kind::Str)
    return ctx.fail("path must be a str, found " + ctx.operand(0).str(), 0);
  bool idx = ctx.attrs.count("rank");
  Shape s;
  for (int64_t i = 0, n = idx ? ctx.intAttr("rank") : 2; i < n; ++i)
    s.push_back(ctx.dims.fresh());
  return Type::tensor(idx ? DType::I32 : ctx.dtypeAttr("dtype"), s);
}

Type inferAssert(InferContext &ctx) {
  const Type &c = ctx.operand(0);
  if (c.kind() != Type::Kind::Bool && !(c.isTensor() && c.dtype() == DType::Bool && c.rank() == 0))
    return ctx.fail("assert condition must be bool, found " + c.str(), 0);
  return Type::none();
}

//===--- backward helpers -------------------------------------------------===//

/// relu_grad(x, g) and friends: the gradient has the type of operand 1 (`Like1`) or 0.
Type inferLike0(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  return ctx.operand(0);
}

Type inferLike1(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  return ctx.operand(1);
}

Type inferInputShaped(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  return Type::tensor(ctx.operand(0).dtype(), *ctx.shapeAttr("input_shape"));
}

Type inferWeightShaped(InferContext &ctx) {
  if (!checkNumeric(ctx))
    return Type::error();
  return Type::tensor(ctx.operand(0).dtype(), *ctx.shapeAttr("weight_shape"));
}

} // namespace dlm::oprules
