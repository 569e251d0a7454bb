//===- kernels/cpu/Elementwise.cpp - Elementwise ops with broadcasting ----===//
//
// Binary ops broadcast like NumPy, compute in the promoted dtype (CpuKernels.h) and run one
// strided loop nest (runtime/Strided.h) whose innermost run is a plain loop over raw pointers:
// contiguous same-shape operands become a single flat loop the compiler vectorises, and a
// broadcast scalar becomes a loop against a constant. Semantics follow Python where the
// language does: floordiv and mod floor (sign of the divisor), integer division by zero is an
// error, integer pow with a negative exponent is an error, maximum/minimum propagate NaN.
//
//===----------------------------------------------------------------------===//
#include "kernels/cpu/CpuKernels.h"
#include "kernels/cpu/FastMath.h"
#include "kernels/cpu/FmaVariant.h"
#include "runtime/Promotion.h"
#include "runtime/Random.h"
#include "runtime/Strided.h"

#include <cmath>
#include <limits>

namespace dlm::rt::cpu {
DLM_FMA_VARIANT_BEGIN
namespace {

/// Runs out[i] = f(a[i], b[i]) over the broadcast shape of `out`.
template <typename TA, typename TB, typename TO, typename F>
void binaryLoop(const Tensor &out, const Tensor &a, const Tensor &b, F f) {
  const Shape &shape = out.shape();
  if (a.isContiguous() && b.isContiguous() && a.shape() == shape && b.shape() == shape) {
    const TA *pa = a.data<TA>();
    const TB *pb = b.data<TB>();
    TO *po = out.data<TO>();
    int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i)
      po[i] = f(pa[i], pb[i]);
    return;
  }
  std::array<Shape, 3> strides = {broadcastByteStrides(out, shape), broadcastByteStrides(a, shape),
                                  broadcastByteStrides(b, shape)};
  forEachStrided<3>(shape, {bytePtr(out), bytePtr(a), bytePtr(b)}, strides,
                    [&](std::array<char *, 3> p, std::array<int64_t, 3> st, int64_t n) {
                      TO *o = reinterpret_cast<TO *>(p[0]);
                      const TA *x = reinterpret_cast<const TA *>(p[1]);
                      const TB *y = reinterpret_cast<const TB *>(p[2]);
                      if (st[0] == sizeof(TO) && st[1] == sizeof(TA) && st[2] == sizeof(TB)) {
                        for (int64_t i = 0; i < n; ++i)
                          o[i] = f(x[i], y[i]);
                      } else if (st[0] == sizeof(TO) && st[1] == sizeof(TA) && st[2] == 0) {
                        TB c = *y;
                        for (int64_t i = 0; i < n; ++i)
                          o[i] = f(x[i], c);
                      } else if (st[0] == sizeof(TO) && st[1] == 0 && st[2] == sizeof(TB)) {
                        TA c = *x;
                        for (int64_t i = 0; i < n; ++i)
                          o[i] = f(c, y[i]);
                      } else {
                        for (int64_t i = 0; i < n; ++i)
                          *reinterpret_cast<TO *>(p[0] + i * st[0]) =
                              f(*reinterpret_cast<const TA *>(p[1] + i * st[1]),
                                *reinterpret_cast<const TB *>(p[2] + i * st[2]));
                      }
                    });
}

/// Runs out[i] = f(x[i]).
template <typename TI, typename TO, typename F>
void unaryLoop(const Tensor &out, const Tensor &x, F f) {
  if (x.isContiguous()) {
    const TI *px = x.data<TI>();
    TO *po = out.data<TO>();
    int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i)
      po[i] = f(px[i]);
    return;
  }
  const Shape &shape = out.shape();
  std::array<Shape, 2> strides = {broadcastByteStrides(out, shape), broadcastByteStrides(x, shape)};
  forEachStrided<2>(shape, {bytePtr(out), bytePtr(x)}, strides,
                    [&](std::array<char *, 2> p, std::array<int64_t, 2> st, int64_t n) {
                      for (int64_t i = 0; i < n; ++i)
                        *reinterpret_cast<TO *>(p[0] + i * st[0]) =
                            f(*reinterpret_cast<const TI *>(p[1] + i * st[1]));
                    });
}

/// The operand converted to `dt` (no copy when it already has that dtype).
Tensor as(const Tensor &t, DType dt) { return t.dtype() == dt ? t : t.to(dt); }

// --- arithmetic ----------------------------------------------------------------------------

enum class BinKind { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Max, Min };

template <typename T> T pyMod(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == 0)
      return std::fmod(a, b);
    T m = std::fmod(a, b);
    if (m != 0) {
      if ((b < 0) != (m < 0))
        m += b;
    } else {
      m = std::copysign(T(0), b);
    }
    return m;
  } else {
    T m = a % b;
    if (m != 0 && ((m < 0) != (b < 0)))
      m += b;
    return m;
  }
}

template <typename T> T pyFloorDiv(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == 0)
      return a / b;
    T m = std::fmod(a, b);
    T div = (a - m) / b;
    if (m != 0 && ((b < 0) != (m < 0)))
      div -= 1;
    if (div == 0)
      return std::copysign(T(0), a / b);
    T f = std::floor(div);
    if (div - f > T(0.5))
      f += 1;
    return f;
  } else {
    if (a == std::numeric_limits<T>::min() && b == -1)
      return a; // wraps like NumPy
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
      q -= 1;
    return q;
  }
}

template <typename T> T intPow(T base, T exp) {
  using U = std::make_unsigned_t<T>;
  U result = 1, b = (U)base;
  for (uint64_t e = (uint64_t)exp; e; e >>= 1) {
    if (e & 1)
      result *= b;
    b *= b;
  }
  return (T)result;
}

template <typename T> void checkIntOperands(BinKind kind, const Tensor &b, const char *op) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (kind == BinKind::FloorDiv || kind == BinKind::Mod) {
      bool zero = false;
      unaryLoop<T, bool>(Tensor::empty(DType::Bool, b.shape()), b, [&](T v) {
        zero |= v == 0;
        return false;
      });
      check(!zero, std::string("integer division by zero in '") + op + "'");
    }
    if (kind == BinKind::Pow) {
      bool neg = false;
      unaryLoop<T, bool>(Tensor::empty(DType::Bool, b.shape()), b, [&](T v) {
        neg |= v < 0;
        return false;
      });
      check(!neg, "integers to negative integer powers are not allowed");
    }
  }
}

template <typename T> void arith(BinKind kind, const Tensor &o, const Tensor &a, const Tensor &b) {
  switch (kind) {
  case BinKind::Add:
    return binaryLoop<T, T, T>(o, a, b, [](T x, T y) { return T(x + y); });
  case BinKind::Sub:
    return binaryLoop<T, T, T>(o, a, b, [](T x, T y) { return T(x - y); });
  case BinKind::Mul:
    return binaryLoop<T, T, T>(o, a, b, [](T x, T y) { return T(x * y); });
  case BinKind::Div:
    return binaryLoop<T, T, T>(o, a, b, [](T x, T y) { return T(x / y); });
  case BinKind::FloorDiv:
    return binaryLoop<T, T, T>(o, a, b, [](T x, T y) { return pyFloorDiv(x, y); });
  case BinKind::Mod:
    return binaryLoop<T, T, T>(o, a, b, [](T x, T y) { return pyMod(x, y); });
  case BinKind::Pow:
    if constexpr (std::is_floating_point_v<T>)
      return binaryLoop<T, T, T>(o, a, b, [](T x, T y) { return (T)std::pow(x, y); });
    else
      return binaryLoop<T, T, T>(o, a, b, [](T x, T y) { return intPow(x, y); });
  case BinKind::Max:
    return binaryLoop<T, T, T>(o, a, b, [](T x, T y) {
      if constexpr (std::is_floating_point_v<T>)
        if (std::isnan(x) || std::isnan(y))
          return x + y;
      return x > y ? x : y;
    });
  case BinKind::Min:
    return binaryLoop<T, T, T>(o, a, b, [](T x, T y) {
      if constexpr (std::is_floating_point_v<T>)
        if (std::isnan(x) || std::isnan(y))
          return x + y;
      return x < y ? x : y;
    });
  }
}

template <BinKind K> void binaryKernel(Inputs ins, const Attrs &, Outputs &outs) {
  static const char *names[] = {"add", "sub", "mul",     "div",    "floordiv",
                                "mod", "pow", "maximum", "minimum"};
  const char *op = names[(int)K];
  expectArity(ins, 2, op);
  const Tensor &a = tensorArg(ins, 0, op), &b = tensorArg(ins, 1, op);
  Shape shape = broadcastShapes(a, b);
  DType dt = graphComputeDType(K == BinKind::Div ? ElementwiseKind::TrueDivision
                                                 : ElementwiseKind::Arithmetic,
                               a.dtype(), a.rank(), b.dtype(), b.rank());
  if (dt == DType::Bool && K != BinKind::Max && K != BinKind::Min)
    dt = DType::I64;
  Tensor ca = as(a, dt), cb = as(b, dt);
  Tensor out = Tensor::empty(dt, shape);
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_same_v<T, bool>) {
      // Only maximum/minimum reach here: logical or/and on bools.
      if (K == BinKind::Max)
        binaryLoop<bool, bool, bool>(out, ca, cb, [](bool x, bool y) { return x || y; });
      else
        binaryLoop<bool, bool, bool>(out, ca, cb, [](bool x, bool y) { return x && y; });
    } else {
      checkIntOperands<T>(K, cb, op);
      arith<T>(K, out, ca, cb);
    }
  });
  outs.emplace_back(out);
}

// --- comparisons and logic -----------------------------------------------------------------

enum class CmpKind { Eq, Ne, Lt, Le, Gt, Ge, And, Or };

template <CmpKind K> void compareKernel(Inputs ins, const Attrs &, Outputs &outs) {
  static const char *names[] = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or"};
  const char *op = names[(int)K];
  expectArity(ins, 2, op);
  const Tensor &a = tensorArg(ins, 0, op), &b = tensorArg(ins, 1, op);
  Shape shape = broadcastShapes(a, b);
  Tensor out = Tensor::empty(DType::Bool, shape);
  if constexpr (K == CmpKind::And || K == CmpKind::Or) {
    Tensor ca = as(a, DType::Bool), cb = as(b, DType::Bool);
    binaryLoop<bool, bool, bool>(
        out, ca, cb, [](bool x, bool y) { return K == CmpKind::And ? (x && y) : (x || y); });
  } else {
    DType dt =
        graphComputeDType(ElementwiseKind::Comparison, a.dtype(), a.rank(), b.dtype(), b.rank());
    Tensor ca = as(a, dt), cb = as(b, dt);
    dispatchDType(dt, [&]<typename T>() {
      binaryLoop<T, T, bool>(out, ca, cb, [](T x, T y) {
        switch (K) {
        case CmpKind::Eq:
          return x == y;
        case CmpKind::Ne:
          return x != y;
        case CmpKind::Lt:
          return x < y;
        case CmpKind::Le:
          return x <= y;
        case CmpKind::Gt:
          return x > y;
        default:
          return x >= y;
        }
      });
    });
  }
  outs.emplace_back(out);
}

// --- unary ---------------------------------------------------------------------------------

enum class UnKind { Neg, Abs, Exp, Log, Sqrt, Sin, Cos, Tanh, Sigmoid, Relu, Not };

template <typename T> T sigmoidOf(T x) {
  // Stable on both tails: never exp of a large positive number.
  if (x >= 0)
    return T(1) / (T(1) + std::exp(-x));
  T e = std::exp(x);
  return e / (T(1) + e);
}

template <UnKind K> void unaryKernel(Inputs ins, const Attrs &, Outputs &outs) {
  static const char *names[] = {"neg", "abs",  "exp",     "log",  "sqrt",       "sin",
                                "cos", "tanh", "sigmoid", "relu", "logical_not"};
  const char *op = names[(int)K];
  expectArity(ins, 1, op);
  const Tensor &x = tensorArg(ins, 0, op);
  if constexpr (K == UnKind::Not) {
    Tensor out = Tensor::empty(DType::Bool, x.shape());
    unaryLoop<bool, bool>(out, as(x, DType::Bool), [](bool v) { return !v; });
    outs.emplace_back(out);
    return;
  }
  if constexpr (K == UnKind::Abs || K == UnKind::Relu) {
    // |b| and max(b, 0) are b: a bool stays bool, as the type rule says (inferSameUnary) and
    // as NumPy does.
    if (x.dtype() == DType::Bool) {
      Tensor out = Tensor::empty(DType::Bool, x.shape());
      unaryLoop<bool, bool>(out, x, [](bool v) { return v; });
      outs.emplace_back(out);
      return;
    }
  }
  bool keepsDType = K == UnKind::Neg || K == UnKind::Abs || K == UnKind::Relu;
  DType dt = x.dtype();
  if (dt == DType::Bool && keepsDType)
    dt = DType::I64; // neg: sema rejects it for bool
  if (!keepsDType)
    dt = floatResultType(dt, readsAsScalar(x));
  Tensor cx = as(x, dt);
  Tensor out = Tensor::empty(dt, x.shape());
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      switch (K) {
      case UnKind::Neg:
        return unaryLoop<T, T>(out, cx, [](T v) { return T(-v); });
      case UnKind::Abs:
        return unaryLoop<T, T>(out, cx, [](T v) { return v < 0 ? T(-v) : v; });
      case UnKind::Relu:
        return unaryLoop<T, T>(out, cx, [](T v) { return reluOf(v); });
      default:
        break;
      }
      if constexpr (std::is_floating_point_v<T>) {
        switch (K) {
        case UnKind::Exp:
          if constexpr (std::is_same_v<T, float>)
            return unaryLoop<T, T>(out, cx, [](float v) { return fastExp(v); });
          return unaryLoop<T, T>(out, cx, [](T v) { return std::exp(v); });
        case UnKind::Log:
          return unaryLoop<T, T>(out, cx, [](T v) { return std::log(v); });
        case UnKind::Sqrt:
          return unaryLoop<T, T>(out, cx, [](T v) { return std::sqrt(v); });
        case UnKind::Sin:
          return unaryLoop<T, T>(out, cx, [](T v) { return std::sin(v); });
        case UnKind::Cos:
          return unaryLoop<T, T>(out, cx, [](T v) { return std::cos(v); });
        case UnKind::Tanh:
          if constexpr (std::is_same_v<T, float>)
            return unaryLoop<T, T>(out, cx, [](float v) { return fastTanh(v); });
          return unaryLoop<T, T>(out, cx, [](T v) { return std::tanh(v); });
        case UnKind::Sigmoid:
          if constexpr (std::is_same_v<T, float>)
            return unaryLoop<T, T>(out, cx, [](float v) { return fastSigmoid(v); });
          return unaryLoop<T, T>(out, cx, [](T v) { return sigmoidOf(v); });
        default:
          break;
        }
      }
    }
  });
  outs.emplace_back(out);
}

// --- other elementwise ---------------------------------------------------------------------

/// where(c, a, b): c is truthy-converted; a and b promote like a binary op.
void whereKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 3, "where");
  const Tensor &c = tensorArg(ins, 0, "where"), &a = tensorArg(ins, 1, "where"),
               &b = tensorArg(ins, 2, "where");
  Shape ab = broadcastShapes(a, b);
  Shape shape = broadcastShapes(c.shape(), ab,
                                "cannot broadcast condition " + c.typeString() + " with " +
                                    std::string(dtypeName(a.dtype())) + shapeString(ab));
  DType dt = resultType(a, b);
  Tensor cc = as(c, DType::Bool), ca = as(a, dt), cb = as(b, dt);
  Tensor out = Tensor::empty(dt, shape);
  std::array<Shape, 4> strides = {broadcastByteStrides(out, shape), broadcastByteStrides(cc, shape),
                                  broadcastByteStrides(ca, shape), broadcastByteStrides(cb, shape)};
  dispatchDType(dt, [&]<typename T>() {
    forEachStrided<4>(shape, {bytePtr(out), bytePtr(cc), bytePtr(ca), bytePtr(cb)}, strides,
                      [](std::array<char *, 4> p, std::array<int64_t, 4> st, int64_t n) {
                        for (int64_t i = 0; i < n; ++i)
                          *reinterpret_cast<T *>(p[0] + i * st[0]) =
                              *reinterpret_cast<const bool *>(p[1] + i * st[1])
                                  ? *reinterpret_cast<const T *>(p[2] + i * st[2])
                                  : *reinterpret_cast<const T *>(p[3] + i * st[3]);
                      });
  });
  outs.emplace_back(out);
}

/// clip(x, lo, hi) = minimum(maximum(x, lo), hi) computed in x's dtype (the bounds are
/// scalars, converted to it).
void clipKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  const Tensor &x = tensorArg(ins, 0, "clip");
  Tensor lo, hi;
  if (ins.size() == 3) {
    lo = tensorArg(ins, 1, "clip");
    hi = tensorArg(ins, 2, "clip");
  } else {
    expectArity(ins, 1, "clip");
    lo = Tensor::scalarF64(attrs.getFloat("lo"));
    hi = Tensor::scalarF64(attrs.getFloat("hi"));
  }
  DType dt = x.dtype();
  Tensor m = run("maximum", {as(x, dt), as(lo, dt)});
  outs.emplace_back(run("minimum", {m, as(hi, dt)}));
}

void castKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "cast");
  const Tensor &x = tensorArg(ins, 0, "cast");
  DType dt = attrs.getDType("dtype");
  Tensor out = Tensor::empty(dt, x.shape());
  copyInto(out, x);
  outs.emplace_back(out);
}

// --- backward helpers ----------------------------------------------------------------------

/// relu_grad(x, g) = 0 where x <= 0, else g (NaN passes g, as PyTorch's threshold_backward).
void reluGradKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 2, "relu_grad");
  const Tensor &x = tensorArg(ins, 0, "relu_grad"), &g = tensorArg(ins, 1, "relu_grad");
  Shape shape = broadcastShapes(x, g);
  DType dt = g.dtype();
  Tensor cx = as(x, dt);
  Tensor out = Tensor::empty(dt, shape);
  dispatchDType(dt, [&]<typename T>() {
    binaryLoop<T, T, T>(out, cx, g, [](T xv, T gv) { return reluGradOf(xv, gv); });
  });
  outs.emplace_back(out);
}

/// sigmoid_grad(y, g) = g * y * (1 - y); tanh_grad(y, g) = g * (1 - y^2). y is the forward output.
template <bool Tanh> void activationGradKernel(Inputs ins, const Attrs &, Outputs &outs) {
  const char *op = Tanh ? "tanh_grad" : "sigmoid_grad";
  expectArity(ins, 2, op);
  const Tensor &y = tensorArg(ins, 0, op), &g = tensorArg(ins, 1, op);
  Shape shape = broadcastShapes(y, g);
  DType dt = floatResultType(promoteTypes(y.dtype(), g.dtype()), false);
  Tensor cy = as(y, dt), cg = as(g, dt);
  Tensor out = Tensor::empty(dt, shape);
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>) {
      if (Tanh)
        binaryLoop<T, T, T>(out, cy, cg, [](T yv, T gv) { return gv * (T(1) - yv * yv); });
      else
        binaryLoop<T, T, T>(out, cy, cg, [](T yv, T gv) { return gv * yv * (T(1) - yv); });
    }
  });
  outs.emplace_back(out);
}

/// dropout{p}(x) -> y = x * mask / (1 - p) with mask[i] = uniform_i >= p (uniform from the f64
/// formula of runtime/Random.h). p = 0 keeps everything; p = 1 zeroes everything. One result,
/// as the registry declares: the gradient rule recovers the kept entries from y (docs/autodiff.md).
void dropoutKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "dropout");
  const Tensor &x = tensorArg(ins, 0, "dropout");
  double p = attrs.getFloat("p");
  check(p >= 0 && p <= 1, "dropout probability " + std::to_string(p) + " is not in [0, 1]");
  DType dt = floatResultType(x.dtype(), false);
  Tensor mask = Tensor::empty(DType::Bool, x.shape());
  bool *m = mask.data<bool>();
  int64_t n = mask.numel();
  RandomRange r = reserveRandom((uint64_t)n);
  for (int64_t c = 0; c < (n + 3) / 4; ++c) {
    auto w = philox4x32(r.start + c, r.key);
    for (int64_t j = 0; j < 4 && c * 4 + j < n; ++j)
      m[c * 4 + j] = uniformF64(w[j]) >= p;
  }
  Tensor cx = as(x, dt);
  Tensor y = Tensor::empty(dt, x.shape());
  double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>)
      binaryLoop<T, bool, T>(y, cx, mask, [s = (T)scale](T v, bool k) { return k ? v * s : T(0); });
  });
  outs.emplace_back(y);
}

/// dropout_grad(g, mask){p} = g * mask / (1 - p).
void dropoutGradKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 2, "dropout_grad");
  const Tensor &g = tensorArg(ins, 0, "dropout_grad"), &mask = tensorArg(ins, 1, "dropout_grad");
  double p = attrs.getFloat("p");
  double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;
  Shape shape = broadcastShapes(g, mask);
  DType dt = floatResultType(g.dtype(), false);
  Tensor cg = as(g, dt), cm = as(mask, DType::Bool);
  Tensor out = Tensor::empty(dt, shape);
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>)
      binaryLoop<T, bool, T>(out, cg, cm, [s = (T)scale](T v, bool k) { return k ? v * s : T(0); });
  });
  outs.emplace_back(out);
}

} // namespace

void registerElementwiseKernels() {
  registerKernel("add", Device::CPU, binaryKernel<BinKind::Add>);
  registerKernel("sub", Device::CPU, binaryKernel<BinKind::Sub>);
  registerKernel("mul", Device::CPU, binaryKernel<BinKind::Mul>);
  registerKernel("div", Device::CPU, binaryKernel<BinKind::Div>);
  registerKernel("floordiv", Device::CPU, binaryKernel<BinKind::FloorDiv>);
  registerKernel("mod", Device::CPU, binaryKernel<BinKind::Mod>);
  registerKernel("pow", Device::CPU, binaryKernel<BinKind::Pow>);
  registerKernel("maximum", Device::CPU, binaryKernel<BinKind::Max>);
  registerKernel("minimum", Device::CPU, binaryKernel<BinKind::Min>);
  registerKernel("eq", Device::CPU, compareKernel<CmpKind::Eq>);
  registerKernel("ne", Device::CPU, compareKernel<CmpKind::Ne>);
  registerKernel("lt", Device::CPU, compareKernel<CmpKind::Lt>);
  registerKernel("le", Device::CPU, compareKernel<CmpKind::Le>);
  registerKernel("gt", Device::CPU, compareKernel<CmpKind::Gt>);
  registerKernel("ge", Device::CPU, compareKernel<CmpKind::Ge>);
  registerKernel("logical_and", Device::CPU, compareKernel<CmpKind::And>);
  registerKernel("logical_or", Device::CPU, compareKernel<CmpKind::Or>);
  registerKernel("neg", Device::CPU, unaryKernel<UnKind::Neg>);
  registerKernel("abs", Device::CPU, unaryKernel<UnKind::Abs>);
  registerKernel("exp", Device::CPU, unaryKernel<UnKind::Exp>);
  registerKernel("log", Device::CPU, unaryKernel<UnKind::Log>);
  registerKernel("sqrt", Device::CPU, unaryKernel<UnKind::Sqrt>);
  registerKernel("sin", Device::CPU, unaryKernel<UnKind::Sin>);
  registerKernel("cos", Device::CPU, unaryKernel<UnKind::Cos>);
  registerKernel("tanh", Device::CPU, unaryKernel<UnKind::Tanh>);
  registerKernel("sigmoid", Device::CPU, unaryKernel<UnKind::Sigmoid>);
  registerKernel("relu", Device::CPU, unaryKernel<UnKind::Relu>);
  registerKernel("logical_not", Device::CPU, unaryKernel<UnKind::Not>);
  registerKernel("where", Device::CPU, whereKernel);
  registerKernel("clip", Device::CPU, clipKernel);
  registerKernel("cast", Device::CPU, castKernel);
  registerKernel("relu_grad", Device::CPU, reluGradKernel);
  registerKernel("sigmoid_grad", Device::CPU, activationGradKernel<false>);
  registerKernel("tanh_grad", Device::CPU, activationGradKernel<true>);
  registerKernel("dropout", Device::CPU, dropoutKernel);
  registerKernel("dropout_grad", Device::CPU, dropoutGradKernel);
}

DLM_FMA_VARIANT_END
} // namespace dlm::rt::cpu
