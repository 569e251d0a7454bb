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
#include "runtime/ScalarOps.h"
#include "runtime/Strided.h"

#include <cmath>
#include <concepts>
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
// One element of each op, in the dtype it computes in. An op's kernel is registered because
// its struct is specialised here (registerElementwiseKernels walks ops/Ops.def): the op kind is
// the kernels' enum, and ops/Ops.def has the names.

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

/// Binary arithmetic: apply(x, y) on non-bool T.
template <OpKind K> struct Arith {};
template <> struct Arith<OpKind::Add> {
  template <typename T> static T apply(T x, T y) { return T(x + y); }
};
template <> struct Arith<OpKind::Sub> {
  template <typename T> static T apply(T x, T y) { return T(x - y); }
};
template <> struct Arith<OpKind::Mul> {
  template <typename T> static T apply(T x, T y) { return T(x * y); }
};
template <> struct Arith<OpKind::Div> {
  template <typename T> static T apply(T x, T y) { return T(x / y); }
};
template <> struct Arith<OpKind::Floordiv> {
  template <typename T> static T apply(T x, T y) { return pyFloorDiv(x, y); }
};
template <> struct Arith<OpKind::Mod> {
  template <typename T> static T apply(T x, T y) { return pyMod(x, y); }
};
template <> struct Arith<OpKind::Pow> {
  template <typename T> static T apply(T x, T y) {
    if constexpr (std::is_floating_point_v<T>)
      return (T)std::pow(x, y);
    else
      return intPow(x, y);
  }
};
template <> struct Arith<OpKind::Maximum> {
  template <typename T> static T apply(T x, T y) {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(x) || std::isnan(y))
        return x + y;
    return x > y ? x : y;
  }
};
template <> struct Arith<OpKind::Minimum> {
  template <typename T> static T apply(T x, T y) {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(x) || std::isnan(y))
        return x + y;
    return x < y ? x : y;
  }
};

template <OpKind K, typename T> void checkIntOperands(const Tensor &b, const char *op) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (K == OpKind::Floordiv || K == OpKind::Mod) {
      bool zero = false;
      unaryLoop<T, bool>(Tensor::empty(DType::Bool, b.shape()), b, [&](T v) {
        zero |= v == 0;
        return false;
      });
      check(!zero, std::string("integer division by zero in '") + op + "'");
    }
    if (K == OpKind::Pow) {
      bool neg = false;
      unaryLoop<T, bool>(Tensor::empty(DType::Bool, b.shape()), b, [&](T v) {
        neg |= v < 0;
        return false;
      });
      check(!neg, "integers to negative integer powers are not allowed");
    }
  }
}

template <OpKind K> void binaryKernel(Inputs ins, const Attrs &, Outputs &outs) {
  constexpr bool maxOrMin = K == OpKind::Maximum || K == OpKind::Minimum;
  const char *op = opCName(K);
  expectArity(ins, 2, op);
  const Tensor &a = tensorArg(ins, 0, op), &b = tensorArg(ins, 1, op);
  Shape shape = broadcastShapes(a, b);
  DType dt = graphComputeDType(K == OpKind::Div ? ElementwiseKind::TrueDivision
                                                : ElementwiseKind::Arithmetic,
                               a.dtype(), a.rank(), b.dtype(), b.rank());
  if (dt == DType::Bool && !maxOrMin)
    dt = DType::I64;
  Tensor ca = as(a, dt), cb = as(b, dt);
  Tensor out = Tensor::empty(dt, shape);
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_same_v<T, bool>) {
      // Only maximum/minimum reach here: logical or/and on bools.
      if (K == OpKind::Maximum)
        binaryLoop<bool, bool, bool>(out, ca, cb, [](bool x, bool y) { return x || y; });
      else
        binaryLoop<bool, bool, bool>(out, ca, cb, [](bool x, bool y) { return x && y; });
    } else {
      checkIntOperands<K, T>(cb, op);
      binaryLoop<T, T, T>(out, ca, cb, [](T x, T y) { return Arith<K>::apply(x, y); });
    }
  });
  outs.emplace_back(out);
}

// --- comparisons and logic -----------------------------------------------------------------

/// Comparisons: apply(x, y) -> bool in the promoted dtype T.
template <OpKind K> struct Compare {};
template <> struct Compare<OpKind::Eq> {
  template <typename T> static bool apply(T x, T y) { return x == y; }
};
template <> struct Compare<OpKind::Ne> {
  template <typename T> static bool apply(T x, T y) { return x != y; }
};
template <> struct Compare<OpKind::Lt> {
  template <typename T> static bool apply(T x, T y) { return x < y; }
};
template <> struct Compare<OpKind::Le> {
  template <typename T> static bool apply(T x, T y) { return x <= y; }
};
template <> struct Compare<OpKind::Gt> {
  template <typename T> static bool apply(T x, T y) { return x > y; }
};
template <> struct Compare<OpKind::Ge> {
  template <typename T> static bool apply(T x, T y) { return x >= y; }
};

/// logical_and, logical_or: on operands converted to bool.
template <OpKind K> struct Logic {};
template <> struct Logic<OpKind::LogicalAnd> {
  static bool apply(bool x, bool y) { return x && y; }
};
template <> struct Logic<OpKind::LogicalOr> {
  static bool apply(bool x, bool y) { return x || y; }
};

template <OpKind K> void compareKernel(Inputs ins, const Attrs &, Outputs &outs) {
  const char *op = opCName(K);
  expectArity(ins, 2, op);
  const Tensor &a = tensorArg(ins, 0, op), &b = tensorArg(ins, 1, op);
  Shape shape = broadcastShapes(a, b);
  Tensor out = Tensor::empty(DType::Bool, shape);
  DType dt =
      graphComputeDType(ElementwiseKind::Comparison, a.dtype(), a.rank(), b.dtype(), b.rank());
  Tensor ca = as(a, dt), cb = as(b, dt);
  dispatchDType(dt, [&]<typename T>() {
    binaryLoop<T, T, bool>(out, ca, cb, [](T x, T y) { return Compare<K>::apply(x, y); });
  });
  outs.emplace_back(out);
}

template <OpKind K> void logicKernel(Inputs ins, const Attrs &, Outputs &outs) {
  const char *op = opCName(K);
  expectArity(ins, 2, op);
  const Tensor &a = tensorArg(ins, 0, op), &b = tensorArg(ins, 1, op);
  Shape shape = broadcastShapes(a, b);
  Tensor out = Tensor::empty(DType::Bool, shape);
  Tensor ca = as(a, DType::Bool), cb = as(b, DType::Bool);
  binaryLoop<bool, bool, bool>(out, ca, cb, [](bool x, bool y) { return Logic<K>::apply(x, y); });
  outs.emplace_back(out);
}

// --- unary ---------------------------------------------------------------------------------

template <typename T> T sigmoidOf(T x) {
  // Stable on both tails: never exp of a large positive number.
  if (x >= 0)
    return T(1) / (T(1) + std::exp(-x));
  T e = std::exp(x);
  return e / (T(1) + e);
}

/// Unary ops: apply(v) in T, the operand's dtype (bool as i64) or, for the ops that give floats
/// (ops/Ops.def FloatResult), its float dtype; those are only instantiated for floats.
template <OpKind K> struct Unary {};
template <> struct Unary<OpKind::Neg> {
  template <typename T> static T apply(T v) { return T(-v); }
};
template <> struct Unary<OpKind::Abs> {
  template <typename T> static T apply(T v) { return v < 0 ? T(-v) : v; }
};
template <> struct Unary<OpKind::Relu> {
  template <typename T> static T apply(T v) { return reluOf(v); }
};
template <> struct Unary<OpKind::Exp> {
  static float apply(float v) { return fastExp(v); }
  static double apply(double v) { return std::exp(v); }
};
template <> struct Unary<OpKind::Sqrt> {
  template <typename T> static T apply(T v) { return std::sqrt(v); }
};
template <> struct Unary<OpKind::Tanh> {
  static float apply(float v) { return fastTanh(v); }
  static double apply(double v) { return std::tanh(v); }
};
template <> struct Unary<OpKind::Sigmoid> {
  static float apply(float v) { return fastSigmoid(v); }
  static double apply(double v) { return sigmoidOf(v); }
};

// --- ops computed by one scalar function (ops/Ops.def DLM_SCALAR_OP rows) ------------------
// The CPU kernel runs apply() inline; the JIT's elementwise code calls the same apply()
// through the C exports at the end of this file (runtime/ScalarOps.h), so both engines compute
// these ops from this one definition.

/// One element in T, the float dtype the op computes in.
template <OpKind K> struct ScalarOp {};
template <> struct ScalarOp<OpKind::Log> {
  template <typename T> static T apply(T v) { return std::log(v); }
};
template <> struct ScalarOp<OpKind::Sin> {
  template <typename T> static T apply(T v) { return std::sin(v); }
};
template <> struct ScalarOp<OpKind::Cos> {
  template <typename T> static T apply(T v) { return std::cos(v); }
};
template <> struct ScalarOp<OpKind::Log1p> {
  template <typename T> static T apply(T v) { return std::log1p(v); }
};
template <> struct ScalarOp<OpKind::Erf> {
  template <typename T> static T apply(T v) { return std::erf(v); }
};
/// x * Phi(x) with Phi(x) = erfc(-x / sqrt(2)) / 2: PyTorch's 1 + erf(x / sqrt(2)) loses the
/// digits of Phi where it is tiny (x < -2).
template <> struct ScalarOp<OpKind::Gelu> {
  template <typename T> static T apply(T v) { return T(0.5) * v * std::erfc(-v * T(M_SQRT1_2)); }
};
/// Predicates: bool from the operand's float dtype (integers read as f64, as the JIT calls them).
template <> struct ScalarOp<OpKind::Isnan> {
  template <typename T> static bool apply(T v) { return std::isnan(v); }
};
template <> struct ScalarOp<OpKind::Isfinite> {
  template <typename T> static bool apply(T v) { return std::isfinite(v); }
};

/// A predicate (ScalarOp<K>::apply gives bool): bool elements of the operand read in its float
/// dtype, or f64 for integers and bools.
template <OpKind K> void predicateKernel(Inputs ins, const Attrs &, Outputs &outs) {
  const char *op = opCName(K);
  expectArity(ins, 1, op);
  const Tensor &x = tensorArg(ins, 0, op);
  DType dt = isFloat(x.dtype()) ? x.dtype() : DType::F64;
  Tensor cx = as(x, dt);
  Tensor out = Tensor::empty(DType::Bool, x.shape());
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>)
      unaryLoop<T, bool>(out, cx, [](T v) { return ScalarOp<K>::apply(v); });
  });
  outs.emplace_back(out);
}

/// A unary op whose elements `Element<K>::apply` computes (Unary or ScalarOp).
template <OpKind K, template <OpKind> class Element>
void unaryKernel(Inputs ins, const Attrs &, Outputs &outs) {
  constexpr bool floats = opHas(K, opflag::FloatResult);
  const char *op = opCName(K);
  expectArity(ins, 1, op);
  const Tensor &x = tensorArg(ins, 0, op);
  if constexpr (K == OpKind::Abs || K == OpKind::Relu) {
    // |b| and max(b, 0) are b: a bool stays bool, as the type rule says (inferSameUnary) and
    // as NumPy does.
    if (x.dtype() == DType::Bool) {
      Tensor out = Tensor::empty(DType::Bool, x.shape());
      unaryLoop<bool, bool>(out, x, [](bool v) { return v; });
      outs.emplace_back(out);
      return;
    }
  }
  DType dt = x.dtype();
  if (dt == DType::Bool && !floats)
    dt = DType::I64; // neg: sema rejects it for bool
  if (floats)
    dt = floatResultType(dt, readsAsScalar(x));
  Tensor cx = as(x, dt);
  Tensor out = Tensor::empty(dt, x.shape());
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (!std::is_same_v<T, bool> && (std::is_floating_point_v<T> || !floats))
      unaryLoop<T, T>(out, cx, [](T v) { return Element<K>::apply(v); });
  });
  outs.emplace_back(out);
}

void logicalNotKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 1, "logical_not");
  const Tensor &x = tensorArg(ins, 0, "logical_not");
  Tensor out = Tensor::empty(DType::Bool, x.shape());
  unaryLoop<bool, bool>(out, as(x, DType::Bool), [](bool v) { return !v; });
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
  DType dt = floatResultType(widerDType(y.dtype(), g.dtype()), false);
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

/// Registers K's kernel when one of the element structs above is specialised for it.
template <OpKind K> void registerElementwise() {
  if constexpr (requires { Arith<K>::apply(1.0, 1.0); })
    registerKernel(K, Device::CPU, binaryKernel<K>);
  else if constexpr (requires { Compare<K>::apply(1.0, 1.0); })
    registerKernel(K, Device::CPU, compareKernel<K>);
  else if constexpr (requires { Logic<K>::apply(true, true); })
    registerKernel(K, Device::CPU, logicKernel<K>);
  else if constexpr (requires { Unary<K>::apply(1.0); })
    registerKernel(K, Device::CPU, unaryKernel<K, Unary>);
  else if constexpr (requires {
                       { ScalarOp<K>::apply(1.0) } -> std::same_as<bool>;
                     })
    registerKernel(K, Device::CPU, predicateKernel<K>);
  else if constexpr (requires { ScalarOp<K>::apply(1.0); })
    registerKernel(K, Device::CPU, unaryKernel<K, ScalarOp>);
}

} // namespace

void registerElementwiseKernels() {
#define DLM_OP(Kind, Name, Operands, Attrs, Rule, Flags) registerElementwise<OpKind::Kind>();
#include "ops/Ops.def"
  registerKernel(OpKind::LogicalNot, Device::CPU, logicalNotKernel);
  registerKernel(OpKind::Where, Device::CPU, whereKernel);
  registerKernel(OpKind::Clip, Device::CPU, clipKernel);
  registerKernel(OpKind::Cast, Device::CPU, castKernel);
  registerKernel(OpKind::ReluGrad, Device::CPU, reluGradKernel);
  registerKernel(OpKind::SigmoidGrad, Device::CPU, activationGradKernel<false>);
  registerKernel(OpKind::TanhGrad, Device::CPU, activationGradKernel<true>);
  registerKernel(OpKind::Dropout, Device::CPU, dropoutKernel);
  registerKernel(OpKind::DropoutGrad, Device::CPU, dropoutGradKernel);
}

DLM_FMA_VARIANT_END
} // namespace dlm::rt::cpu

// The scalar functions of runtime/ScalarOps.h, from the baseline copy only: the portable
// runtime's FMA copy (FmaVariant.h) would define the same C names again. A scalar function is
// one C library call or products without additions, so FMA contraction cannot change it.
#ifndef DLM_FMA_VARIANT
#define DLM_OP(Kind, Name, Operands, Attrs, Rule, Flags)
#define DLM_SCALAR_OP(Kind, Name, Operands, Attrs, Rule, Flags)                                    \
  float dlm_scalar_##Kind##_f32(float x) {                                                         \
    return float(dlm::rt::cpu::ScalarOp<dlm::OpKind::Kind>::apply(x));                             \
  }                                                                                                \
  double dlm_scalar_##Kind##_f64(double x) {                                                       \
    return double(dlm::rt::cpu::ScalarOp<dlm::OpKind::Kind>::apply(x));                            \
  }
#include "ops/Ops.def"
#endif
