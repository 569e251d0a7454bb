//===- kernels/cpu/NN.cpp - Softmax, losses, convolution and pooling -----===//
//
// softmax / log_softmax subtract the row maximum before exponentiating (logsumexp), so large
// logits never overflow; cross_entropy is fused (one pass: row max, log-sum-exp, pick the
// label) and its gradient is softmax - onehot. conv2d is im2col + one GEMM per chunk of images
// (their columns side by side), its gradients the transposed GEMMs plus col2im. Pooling windows
// are k x k with stride k (floor), like PyTorch's defaults. Activations are NCHW, or NHWC under
// the `layout` attribute (see "convolution" below); weights are OIHW.
//
//===----------------------------------------------------------------------===//
#include "kernels/cpu/CpuKernels.h"
#include "kernels/cpu/FastMath.h"
#include "kernels/cpu/FmaVariant.h"
#include "runtime/Promotion.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace dlm::rt::cpu {
DLM_FMA_VARIANT_BEGIN
namespace {

/// A contiguous float tensor viewed as [outer, n, inner] around `axis`.
struct AxisView {
  Tensor x;
  int64_t outer = 1, n = 1, inner = 1;
};

AxisView axisView(const Tensor &t, int64_t axisAttr, DType dt) {
  AxisView v;
  v.x = t.to(dt);
  if (t.rank() == 0)
    return v;
  int64_t axis = normalizeAxis(axisAttr, t.rank(), "softmax axis");
  for (int64_t d = 0; d < axis; ++d)
    v.outer *= t.dim(d);
  v.n = t.dim(axis);
  for (int64_t d = axis + 1; d < t.rank(); ++d)
    v.inner *= t.dim(d);
  return v;
}

/// Calls f(base, stride) for every lane (a 1-D run along the axis).
template <typename F> void forEachLane(const AxisView &v, F f) {
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.inner; ++i)
      f(o * v.n * v.inner + i, v.inner);
}

template <typename T> T expOf(T v) {
  if constexpr (std::is_same_v<T, float>)
    return fastExp(v);
  else
    return std::exp(v);
}

/// Max of a contiguous run in eight fixed lanes (see laneSum in CpuKernels.h).
template <typename T> T laneMax(const T *p, int64_t n) {
  T acc[8];
  for (int k = 0; k < 8; ++k)
    acc[k] = -std::numeric_limits<T>::infinity();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k)
      acc[k] = p[i + k] > acc[k] ? p[i + k] : acc[k];
  T m = -std::numeric_limits<T>::infinity();
  for (int k = 0; k < 8; ++k)
    m = acc[k] > m ? acc[k] : m;
  for (; i < n; ++i)
    m = p[i] > m ? p[i] : m;
  return m;
}

/// dst[j] = exp(src[j] - m) for a contiguous lane; returns their sum.
template <bool Store, typename T> double expShiftSum(const T *src, T *dst, int64_t n, T m) {
  for (int64_t j = 0; j < n; ++j)
    dst[j] = expOf<T>(src[j] - m);
  return laneSum(dst, n);
}

template <bool Store, typename T>
double expShiftSumStrided(const T *src, T *dst, int64_t n, int64_t s, T m) {
  double sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    T e = expOf<T>(src[j * s] - m);
    if (Store)
      dst[j * s] = e;
    sum += (double)e;
  }
  return sum;
}

template <bool Log> void softmaxKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  const char *op = Log ? "log_softmax" : "softmax";
  expectArity(ins, 1, op);
  const Tensor &x = tensorArg(ins, 0, op);
  DType dt = floatResultType(x.dtype(), false);
  AxisView v = axisView(x, attrs.getInt("axis", -1), dt);
  Tensor out = Tensor::empty(dt, x.shape());
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T *src = v.x.data<T>();
      T *dst = out.data<T>();
      forEachLane(v, [&](int64_t base, int64_t s) {
        T m = -std::numeric_limits<T>::infinity();
        if (s == 1)
          m = laneMax(src + base, v.n);
        else
          for (int64_t j = 0; j < v.n; ++j)
            m = std::max(m, src[base + j * s]);
        if (!std::isfinite(m))
          m = std::isnan(m) ? m : T(0);
        double sum = s == 1 ? expShiftSum<!Log>(src + base, dst + base, v.n, m)
                            : expShiftSumStrided<!Log>(src + base, dst + base, v.n, s, m);
        if (Log) {
          T lse = m + (T)std::log(sum);
          for (int64_t j = 0; j < v.n; ++j)
            dst[base + j * s] = src[base + j * s] - lse;
        } else {
          T inv = (T)(1.0 / sum);
          for (int64_t j = 0; j < v.n; ++j)
            dst[base + j * s] *= inv;
        }
      });
    }
  });
  outs.emplace_back(out);
}

/// softmax_grad(y, g){axis} = y * (g - sum(g * y)); log_softmax_grad(y, g){axis} =
/// g - exp(y) * sum(g). y is the forward output.
template <bool Log> void softmaxGradKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  const char *op = Log ? "log_softmax_grad" : "softmax_grad";
  expectArity(ins, 2, op);
  const Tensor &y = tensorArg(ins, 0, op), &g = tensorArg(ins, 1, op);
  check(y.shape() == g.shape(),
        std::string("'") + op + "': " + y.typeString() + " vs gradient " + g.typeString());
  DType dt = floatResultType(widerDType(y.dtype(), g.dtype()), false);
  int64_t axis = attrs.getInt("axis", -1);
  AxisView vy = axisView(y, axis, dt), vg = axisView(g, axis, dt);
  Tensor out = Tensor::empty(dt, y.shape());
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T *py = vy.x.data<T>(), *pg = vg.x.data<T>();
      T *dst = out.data<T>();
      forEachLane(vy, [&](int64_t base, int64_t s) {
        double acc = 0;
        for (int64_t j = 0; j < vy.n; ++j)
          acc += Log ? pg[base + j * s] : pg[base + j * s] * py[base + j * s];
        for (int64_t j = 0; j < vy.n; ++j) {
          int64_t i = base + j * s;
          dst[i] = Log ? T(pg[i] - std::exp(py[i]) * acc) : T(py[i] * (pg[i] - acc));
        }
      });
    }
  });
  outs.emplace_back(out);
}

/// Checks logits [N, C] and labels [N]; returns the labels as int64.
std::vector<int64_t> checkedLabels(const Tensor &logits, const Tensor &labels, const char *op) {
  check(logits.rank() == 2,
        std::string("'") + op + "': logits must be [N, C], got " + logits.typeString());
  check(labels.rank() == 1 && labels.dim(0) == logits.dim(0) && !isFloat(labels.dtype()),
        std::string("'") + op + "': labels " + labels.typeString() + " do not match logits " +
            logits.typeString());
  Tensor l = labels.to(DType::I64);
  int64_t c = logits.dim(1);
  std::vector<int64_t> out(l.data<int64_t>(), l.data<int64_t>() + l.numel());
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i] < 0 || out[i] >= c)
      throw Error("label " + std::to_string(out[i]) + " at row " + std::to_string(i) +
                  " is out of range for " + std::to_string(c) + " classes");
  return out;
}

/// cross_entropy(logits [N, C], labels [N]) = mean_i(logsumexp(logits_i) - logits_i[label_i]).
void crossEntropyKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 2, "cross_entropy");
  const Tensor &logits = tensorArg(ins, 0, "cross_entropy"),
               &labels = tensorArg(ins, 1, "cross_entropy");
  std::vector<int64_t> lab = checkedLabels(logits, labels, "cross_entropy");
  DType dt = floatResultType(logits.dtype(), false);
  Tensor x = logits.to(dt);
  int64_t n = x.dim(0), c = x.dim(1);
  double total = 0;
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>) {
      for (int64_t i = 0; i < n; ++i) {
        const T *row = x.data<T>() + i * c;
        double m = -INFINITY;
        for (int64_t j = 0; j < c; ++j)
          m = std::max(m, (double)row[j]);
        double s = 0;
        for (int64_t j = 0; j < c; ++j)
          s += std::exp((double)row[j] - m);
        total += m + std::log(s) - (double)row[lab[i]];
      }
    }
  });
  outs.emplace_back(Tensor::scalar(dt, n ? total / (double)n : NAN));
}

/// cross_entropy_grad(logits, labels, g) = g * (softmax(logits) - onehot(labels)) / N.
void crossEntropyGradKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 3, "cross_entropy_grad");
  const Tensor &logits = tensorArg(ins, 0, "cross_entropy_grad");
  std::vector<int64_t> lab =
      checkedLabels(logits, tensorArg(ins, 1, "cross_entropy_grad"), "cross_entropy_grad");
  double g = tensorArg(ins, 2, "cross_entropy_grad").item();
  DType dt = floatResultType(logits.dtype(), false);
  Tensor out = run("softmax", {logits.to(dt)}, Attrs{{"axis", int64_t(-1)}});
  int64_t n = out.dim(0), c = out.dim(1);
  double scale = n ? g / (double)n : 0;
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>) {
      T *p = out.data<T>();
      for (int64_t i = 0; i < n; ++i) {
        p[i * c + lab[i]] -= T(1);
        for (int64_t j = 0; j < c; ++j)
          p[i * c + j] *= (T)scale;
      }
    }
  });
  outs.emplace_back(out);
}

/// mse(a, b) = mean((a - b)^2) over the broadcast shape, in the wider of the two dtypes (f32 for
/// two integer operands), as torch.nn.functional.mse_loss. Its operands are always tensors (sema
/// rejects numbers), so a 0-d f64 one is a genuine tensor: `sub` alone would read it as a Python
/// float and compute in the other operand's f32 where sema, the JIT and PyTorch give f64.
void mseKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 2, "mse");
  const Tensor &a = tensorArg(ins, 0, "mse"), &b = tensorArg(ins, 1, "mse");
  DType dt = floatResultType(widerDType(a.dtype(), b.dtype()), false);
  Tensor d = run("sub", {a.to(dt), b.to(dt)});
  outs.emplace_back(run("mean", {run("mul", {d, d})}));
}

// --- convolution ---------------------------------------------------------------------------
//
// Every conv and pool kernel takes a `layout` attribute for its activations (input, output and
// their gradients): "NCHW" (the default, the language's layout) or "NHWC" (what the optimizer's
// `layout` pass rewrites conv chains to, compiler/opt/Layout.cpp). Weights are OIHW in both.
// A convolution runs natively in one layout chosen by its geometry (runsNhwc): NCHW is im2col
// with one GEMM row per output channel; NHWC is one GEMM row per output pixel, the im2col rows
// contiguous runs of C channels (columns in (i, j, c) order, the weights repacked to OHWI) and
// the GEMM's output already the NHWC result. In the other layout it transposes around the
// native code: same bits either way.
// Pooling scans each window in the same order in both layouts: same bits too.

/// True for layout "NHWC", false for "NCHW" or no attribute; any other value is an error.
bool nhwcLayout(const Attrs &attrs, const char *op) {
  if (!attrs.has("layout"))
    return false;
  const std::string &l = attrs.getString("layout");
  check(l == "NCHW" || l == "NHWC",
        std::string("'") + op + "': layout must be \"NCHW\" or \"NHWC\", got \"" + l + "\"");
  return l == "NHWC";
}

/// An activation shape in `nhwc` layout as NCHW dims, and back.
Shape toNchw(const Shape &s, bool nhwc) {
  return nhwc && s.size() == 4 ? Shape{s[0], s[3], s[1], s[2]} : s;
}
Shape fromNchw(const Shape &s, bool nhwc) {
  return nhwc && s.size() == 4 ? Shape{s[0], s[2], s[3], s[1]} : s;
}

struct ConvGeom {
  int64_t n, c, h, w, o, kh, kw, stride, pad, oh, ow;
  bool nhwc;
  int64_t ckk() const { return c * kh * kw; }
  int64_t ohw() const { return oh * ow; }
  int64_t imageSize() const { return c * h * w; }
  Shape inShape() const { return fromNchw({n, c, h, w}, nhwc); }
  Shape outShape() const { return fromNchw({n, o, oh, ow}, nhwc); }
};

ConvGeom convGeometry(const Shape &xs, const Shape &w, const Attrs &attrs, const char *op) {
  bool nhwc = nhwcLayout(attrs, op);
  const char *layout = nhwc ? "NHWC" : "NCHW";
  check(xs.size() == 4,
        std::string("'") + op + "': input must be " + layout + ", got shape " + shapeString(xs));
  check(w.size() == 4,
        std::string("'") + op + "': weight must be OIHW, got shape " + shapeString(w));
  Shape x = toNchw(xs, nhwc);
  check(x[1] == w[1], std::string("'") + op + "': input has " + std::to_string(x[1]) +
                          " channels but the weight expects " + std::to_string(w[1]));
  ConvGeom g{x[0],
             x[1],
             x[2],
             x[3],
             w[0],
             w[2],
             w[3],
             attrs.getInt("stride", 1),
             attrs.getInt("padding", 0),
             0,
             0,
             nhwc};
  check(g.stride > 0 && g.pad >= 0,
        std::string("'") + op + "': stride must be positive and padding non-negative");
  int64_t hp = g.h + 2 * g.pad, wp = g.w + 2 * g.pad;
  check(hp >= g.kh && wp >= g.kw, std::string("'") + op + "': kernel " + shapeString(w) +
                                      " is larger than the padded input " + shapeString(xs));
  g.oh = (hp - g.kh) / g.stride + 1;
  g.ow = (wp - g.kw) / g.stride + 1;
  return g;
}

/// Checks that a conv gradient's `g` has the forward output's shape.
void checkOutputGradient(const ConvGeom &g, const Tensor &gin, const char *op) {
  check(gin.shape() == g.outShape(), std::string("'") + op + "': gradient " + gin.typeString() +
                                         " does not match the output shape " +
                                         shapeString(g.outShape()));
}

/// The output columns ox whose input column ox*s - p + j lies inside [0, w): [lo, hi).
std::pair<int64_t, int64_t> validColumns(const ConvGeom &g, int64_t j) {
  int64_t lo = std::max<int64_t>(0, (g.pad - j + g.stride - 1) / g.stride);
  int64_t hi =
      g.w - 1 + g.pad - j < 0 ? 0 : std::min<int64_t>(g.ow, (g.w - 1 + g.pad - j) / g.stride + 1);
  return {lo, std::max(lo, hi)};
}

/// col[(c*kh + i)*kw + j][oy*ow + ox] = x[c][oy*s - p + i][ox*s - p + j] (0 outside); rows of
/// `col` are `ld` apart, so several images can sit side by side for one GEMM.
template <typename T> void im2col(const ConvGeom &g, const T *x, T *col, int64_t ld) {
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        T *row = col + ((c * g.kh + i) * g.kw + j) * ld;
        auto [lo, hi] = validColumns(g, j);
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          T *dst = row + oy * g.ow;
          int64_t y = oy * g.stride - g.pad + i;
          if (y < 0 || y >= g.h) {
            std::fill(dst, dst + g.ow, T(0));
            continue;
          }
          int64_t base = (c * g.h + y) * g.w - g.pad + j; // + ox * stride stays inside the row
          std::fill(dst, dst + lo, T(0));
          for (int64_t ox = lo; ox < hi; ++ox)
            dst[ox] = x[base + ox * g.stride];
          std::fill(dst + hi, dst + g.ow, T(0));
        }
      }
}

/// The adjoint of im2col: adds every column entry back to its input pixel.
template <typename T> void col2im(const ConvGeom &g, const T *col, int64_t ld, T *x) {
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        const T *row = col + ((c * g.kh + i) * g.kw + j) * ld;
        auto [lo, hi] = validColumns(g, j);
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          int64_t y = oy * g.stride - g.pad + i;
          if (y < 0 || y >= g.h)
            continue;
          int64_t base = (c * g.h + y) * g.w - g.pad + j;
          for (int64_t ox = lo; ox < hi; ++ox)
            x[base + ox * g.stride] += row[oy * g.ow + ox];
        }
      }
}

/// NHWC im2col of one image: col[oy*ow + ox][(i*kw + j)*c + ch] = x[oy*s - p + i][ox*s - p + j][ch]
/// (0 outside). With Add, the adjoint: adds every entry back to its input pixel instead.
template <bool Add, typename T>
void im2colNhwc(const ConvGeom &g, std::conditional_t<Add, T, const T> *x,
                std::conditional_t<Add, const T, T> *col) {
  for (int64_t oy = 0; oy < g.oh; ++oy)
    for (int64_t ox = 0; ox < g.ow; ++ox)
      for (int64_t i = 0; i < g.kh; ++i)
        for (int64_t j = 0; j < g.kw; ++j) {
          auto *entry = col + ((oy * g.ow + ox) * g.kh * g.kw + i * g.kw + j) * g.c;
          int64_t y = oy * g.stride - g.pad + i, xx = ox * g.stride - g.pad + j;
          bool inside = y >= 0 && y < g.h && xx >= 0 && xx < g.w;
          auto *pixel = x + (y * g.w + xx) * g.c;
          if constexpr (Add) {
            if (inside)
              for (int64_t ch = 0; ch < g.c; ++ch)
                pixel[ch] += entry[ch];
          } else if (inside) {
            std::copy(pixel, pixel + g.c, entry);
          } else {
            std::fill(entry, entry + g.c, T(0));
          }
        }
}

/// OIHW weights repacked to OHWI, the NHWC im2col's column order; Unpack goes back.
template <bool Unpack, typename T> void repackOhwi(const ConvGeom &g, const T *src, T *dst) {
  for (int64_t f = 0; f < g.o; ++f)
    for (int64_t ch = 0; ch < g.c; ++ch)
      for (int64_t i = 0; i < g.kh; ++i)
        for (int64_t j = 0; j < g.kw; ++j) {
          int64_t oihw = ((f * g.c + ch) * g.kh + i) * g.kw + j,
                  ohwi = ((f * g.kh + i) * g.kw + j) * g.c + ch;
          if (Unpack)
            dst[oihw] = src[ohwi];
          else
            dst[ohwi] = src[oihw];
        }
}

DType convDType(const Tensor &a, const Tensor &b) {
  return floatResultType(widerDType(a.dtype(), b.dtype()), false);
}

/// Images per GEMM: enough for about 2048 output columns (measured: OpenBLAS slows down on
/// very wide GEMMs with the small M and K of early conv layers), at most 8M column entries.
int64_t imagesPerChunk(const ConvGeom &g) {
  int64_t byColumns = 2048 / std::max<int64_t>(1, g.ohw());
  int64_t byMemory = (int64_t(8) << 20) / std::max<int64_t>(1, g.ckk() * g.ohw());
  return std::max<int64_t>(1, std::min({g.n, byColumns, byMemory}));
}

/// [nb, o, ohw] (images of a contiguous NCHW-like tensor) <-> [o, nb * ohw] (one GEMM's layout).
template <typename T> void imagesToRows(const T *src, T *dst, int64_t nb, int64_t o, int64_t ohw) {
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t f = 0; f < o; ++f)
      std::copy(src + (b * o + f) * ohw, src + (b * o + f + 1) * ohw, dst + (f * nb + b) * ohw);
}
template <typename T> void rowsToImages(const T *src, T *dst, int64_t nb, int64_t o, int64_t ohw) {
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t f = 0; f < o; ++f)
      std::copy(src + (f * nb + b) * ohw, src + (f * nb + b + 1) * ohw, dst + (b * o + f) * ohw);
}

/// Calls f(b0, nb) for each chunk of images [b0, b0 + nb).
template <typename F> void forEachChunk(const ConvGeom &g, int64_t chunk, F f) {
  for (int64_t b0 = 0; b0 < g.n; b0 += chunk)
    f(b0, std::min(chunk, g.n - b0));
}

/// The layout a convolution runs in, chosen by its geometry alone: NHWC (one GEMM row per output
/// pixel) for a kernel larger than 1x1 with at least 32 output channels and 64 im2col columns,
/// else NCHW (one GEMM row per output channel). A convolution asked for in the other layout
/// transposes its activations in and out around the same code, so both layouts give the same bits
/// (tests/kernels) and a layout change never changes a program's output; the layout pass
/// (compiler/opt/Layout.cpp) saves exactly those transposes (it repeats this rule). Measured on one
/// thread (bench/RESULTS.md "Layout"): with 32+ outputs the NHWC GEMMs are 1.2-1.5x faster than the
/// NCHW ones even with the transposes, with 8-16 outputs several times slower; a 1x1
/// convolution is too cheap per element to pay for them.
bool runsNhwc(const ConvGeom &g) { return g.o >= 32 && g.kh * g.kw > 1 && g.ckk() >= 64; }

/// `t`, an activation in layout `fromNhwc`, in layout `toNhwc` (copied only when they differ).
Tensor inLayout(const Tensor &t, bool fromNhwc, bool toNhwc) {
  if (fromNhwc == toNhwc)
    return t;
  return t.transpose(toNhwc ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 3, 1, 2})
      .contiguous();
}

/// `g` as the convolution runs: in runsNhwc's layout.
ConvGeom runGeometry(const ConvGeom &g) {
  ConvGeom r = g;
  r.nhwc = runsNhwc(g);
  return r;
}

/// NCHW: per chunk of images, im2col side by side, one GEMM [o, ckk] x [ckk, nb * ohw].
template <typename T> void conv2dNchw(const ConvGeom &g, const T *x, const T *w, T *out) {
  int64_t chunk = imagesPerChunk(g);
  std::vector<T> col(g.ckk() * chunk * g.ohw()), rows(g.o * chunk * g.ohw());
  forEachChunk(g, chunk, [&](int64_t b0, int64_t nb) {
    int64_t ld = nb * g.ohw();
    for (int64_t b = 0; b < nb; ++b)
      im2col(g, x + (b0 + b) * g.imageSize(), col.data() + b * g.ohw(), ld);
    gemm(false, false, g.o, ld, g.ckk(), w, g.ckk(), col.data(), ld, T(0), rows.data(), ld);
    rowsToImages(rows.data(), out + b0 * g.o * g.ohw(), nb, g.o, g.ohw());
  });
}

/// NHWC: per chunk of images, one GEMM [nb * ohw, ckk] x [ckk, o] straight into the output.
template <typename T> void conv2dNhwc(const ConvGeom &g, const T *x, const T *w, T *out) {
  std::vector<T> wp(g.o * g.ckk());
  repackOhwi<false>(g, w, wp.data());
  int64_t chunk = imagesPerChunk(g);
  std::vector<T> col(g.ckk() * chunk * g.ohw());
  forEachChunk(g, chunk, [&](int64_t b0, int64_t nb) {
    for (int64_t b = 0; b < nb; ++b)
      im2colNhwc<false, T>(g, x + (b0 + b) * g.imageSize(), col.data() + b * g.ohw() * g.ckk());
    gemm(false, true, nb * g.ohw(), g.o, g.ckk(), col.data(), g.ckk(), wp.data(), g.ckk(), T(0),
         out + b0 * g.ohw() * g.o, g.o);
  });
}

/// conv2d(x, w){stride, padding, layout}.
void conv2dKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 2, "conv2d");
  const Tensor &xin = tensorArg(ins, 0, "conv2d"), &win = tensorArg(ins, 1, "conv2d");
  ConvGeom g = convGeometry(xin.shape(), win.shape(), attrs, "conv2d"), r = runGeometry(g);
  DType dt = convDType(xin, win);
  Tensor x = inLayout(xin.to(dt), g.nhwc, r.nhwc), w = win.to(dt);
  Tensor out = Tensor::empty(dt, r.outShape());
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>)
      (r.nhwc ? conv2dNhwc<T> : conv2dNchw<T>)(r, x.data<T>(), w.data<T>(), out.data<T>());
  });
  outs.emplace_back(inLayout(out, r.nhwc, g.nhwc));
}

/// conv2d_bias(x, w, bias){stride, padding, relu, layout}: relu?(conv2d(x, w) + bias), the
/// optimizer's rewrite of that subgraph (compiler/opt/LibraryFusion.cpp): the convolution, then
/// addBiasInPlace on its output.
void conv2dBiasKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 3, "conv2d_bias");
  Outputs conv;
  conv2dKernel(ins.first(2), attrs, conv);
  Tensor out = conv[0].tensor();
  addBiasInPlace(out, tensorArg(ins, 2, "conv2d_bias"), attrs.getBool("relu", false),
                 "conv2d_bias");
  outs.emplace_back(std::move(out));
}

/// NCHW: col = w^T g per chunk, then col2im.
template <typename T> void conv2dGradInputNchw(const ConvGeom &g, const T *gr, const T *w, T *dx) {
  int64_t chunk = imagesPerChunk(g);
  std::vector<T> col(g.ckk() * chunk * g.ohw()), rows(g.o * chunk * g.ohw());
  forEachChunk(g, chunk, [&](int64_t b0, int64_t nb) {
    int64_t ld = nb * g.ohw();
    imagesToRows(gr + b0 * g.o * g.ohw(), rows.data(), nb, g.o, g.ohw());
    gemm(true, false, g.ckk(), ld, g.o, w, g.ckk(), rows.data(), ld, T(0), col.data(), ld);
    for (int64_t b = 0; b < nb; ++b)
      col2im(g, col.data() + b * g.ohw(), ld, dx + (b0 + b) * g.imageSize());
  });
}

/// NHWC: col = g w_ohwi per chunk, then the adjoint im2col.
template <typename T> void conv2dGradInputNhwc(const ConvGeom &g, const T *gr, const T *w, T *dx) {
  std::vector<T> wp(g.o * g.ckk());
  repackOhwi<false>(g, w, wp.data());
  int64_t chunk = imagesPerChunk(g);
  std::vector<T> col(g.ckk() * chunk * g.ohw());
  forEachChunk(g, chunk, [&](int64_t b0, int64_t nb) {
    gemm(false, false, nb * g.ohw(), g.ckk(), g.o, gr + b0 * g.ohw() * g.o, g.o, wp.data(), g.ckk(),
         T(0), col.data(), g.ckk());
    for (int64_t b = 0; b < nb; ++b)
      im2colNhwc<true, T>(g, dx + (b0 + b) * g.imageSize(), col.data() + b * g.ohw() * g.ckk());
  });
}

/// conv2d_grad_input(g, w){stride, padding, input_shape, layout}.
void conv2dGradInputKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 2, "conv2d_grad_input", true);
  const Tensor &gin = tensorArg(ins, 0, "conv2d_grad_input"),
               &win = tensorArg(ins, 1, "conv2d_grad_input");
  ConvGeom g = convGeometry(shapeFromAttrOrInputs(attrs, "input_shape", ins, 2), win.shape(), attrs,
                            "conv2d_grad_input");
  checkOutputGradient(g, gin, "conv2d_grad_input");
  ConvGeom r = runGeometry(g);
  DType dt = convDType(gin, win);
  Tensor gr = inLayout(gin.to(dt), g.nhwc, r.nhwc), w = win.to(dt);
  Tensor dx = Tensor::zeros(dt, r.inShape());
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>)
      (r.nhwc ? conv2dGradInputNhwc<T> : conv2dGradInputNchw<T>)(r, gr.data<T>(), w.data<T>(),
                                                                 dx.data<T>());
  });
  outs.emplace_back(inLayout(dx, r.nhwc, g.nhwc));
}

/// NCHW: dW = sum over chunks of g col^T.
template <typename T> void conv2dGradWeightNchw(const ConvGeom &g, const T *x, const T *gr, T *dw) {
  int64_t chunk = imagesPerChunk(g);
  std::vector<T> col(g.ckk() * chunk * g.ohw()), rows(g.o * chunk * g.ohw());
  forEachChunk(g, chunk, [&](int64_t b0, int64_t nb) {
    int64_t ld = nb * g.ohw();
    for (int64_t b = 0; b < nb; ++b)
      im2col(g, x + (b0 + b) * g.imageSize(), col.data() + b * g.ohw(), ld);
    imagesToRows(gr + b0 * g.o * g.ohw(), rows.data(), nb, g.o, g.ohw());
    gemm(false, true, g.o, g.ckk(), ld, rows.data(), ld, col.data(), ld, T(1), dw, g.ckk());
  });
}

/// NHWC: dW_ohwi = sum over chunks of g^T col, then back to OIHW.
template <typename T> void conv2dGradWeightNhwc(const ConvGeom &g, const T *x, const T *gr, T *dw) {
  std::vector<T> dwp(g.o * g.ckk(), T(0));
  int64_t chunk = imagesPerChunk(g);
  std::vector<T> col(g.ckk() * chunk * g.ohw());
  forEachChunk(g, chunk, [&](int64_t b0, int64_t nb) {
    for (int64_t b = 0; b < nb; ++b)
      im2colNhwc<false, T>(g, x + (b0 + b) * g.imageSize(), col.data() + b * g.ohw() * g.ckk());
    gemm(true, false, g.o, g.ckk(), nb * g.ohw(), gr + b0 * g.ohw() * g.o, g.o, col.data(), g.ckk(),
         T(1), dwp.data(), g.ckk());
  });
  repackOhwi<true>(g, dwp.data(), dw);
}

/// conv2d_grad_weight(x, g){stride, padding, weight_shape, layout}.
void conv2dGradWeightKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 2, "conv2d_grad_weight", true);
  const Tensor &xin = tensorArg(ins, 0, "conv2d_grad_weight"),
               &gin = tensorArg(ins, 1, "conv2d_grad_weight");
  ConvGeom g = convGeometry(xin.shape(), shapeFromAttrOrInputs(attrs, "weight_shape", ins, 2),
                            attrs, "conv2d_grad_weight");
  checkOutputGradient(g, gin, "conv2d_grad_weight");
  ConvGeom r = runGeometry(g);
  DType dt = convDType(xin, gin);
  Tensor x = inLayout(xin.to(dt), g.nhwc, r.nhwc), gr = inLayout(gin.to(dt), g.nhwc, r.nhwc);
  Tensor dw = Tensor::zeros(dt, {g.o, g.c, g.kh, g.kw});
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>)
      (r.nhwc ? conv2dGradWeightNhwc<T> : conv2dGradWeightNchw<T>)(r, x.data<T>(), gr.data<T>(),
                                                                   dw.data<T>());
  });
  outs.emplace_back(dw);
}

// --- pooling -------------------------------------------------------------------------------

/// k x k windows with stride k; `ys`/`xs` step one row/column inside a window in either layout.
struct PoolGeom {
  int64_t n, c, h, w, k, oh, ow;
  bool nhwc;
  int64_t ys() const { return nhwc ? w * c : w; }
  int64_t xs() const { return nhwc ? c : 1; }
  Shape inShape() const { return fromNchw({n, c, h, w}, nhwc); }
  Shape outShape() const { return fromNchw({n, c, oh, ow}, nhwc); }
};

PoolGeom poolGeometry(const Shape &xs, const Attrs &attrs, const char *op) {
  bool nhwc = nhwcLayout(attrs, op);
  check(xs.size() == 4, std::string("'") + op + "': input must be " + (nhwc ? "NHWC" : "NCHW") +
                            ", got shape " + shapeString(xs));
  int64_t k = attrs.getInt("k");
  check(k > 0, std::string("'") + op + "': window must be positive, got " + std::to_string(k));
  Shape x = toNchw(xs, nhwc);
  return {x[0], x[1], x[2], x[3], k, x[2] / k, x[3] / k, nhwc};
}

/// Calls f(first input index of the window, output index) for every window, in memory order.
template <typename F> void forEachWindow(const PoolGeom &g, F f) {
  for (int64_t b = 0; b < g.n; ++b) {
    if (g.nhwc) {
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox)
          for (int64_t ch = 0; ch < g.c; ++ch)
            f(((b * g.h + oy * g.k) * g.w + ox * g.k) * g.c + ch,
              ((b * g.oh + oy) * g.ow + ox) * g.c + ch);
      continue;
    }
    for (int64_t ch = 0; ch < g.c; ++ch)
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox)
          f(((b * g.c + ch) * g.h + oy * g.k) * g.w + ox * g.k,
            ((b * g.c + ch) * g.oh + oy) * g.ow + ox);
  }
}

/// Index of the first maximum of the window starting at `at`; NaN wins.
template <typename T> int64_t windowArgmax(const PoolGeom &g, const T *x, int64_t at) {
  int64_t best = at;
  for (int64_t i = 0; i < g.k; ++i)
    for (int64_t j = 0; j < g.k; ++j) {
      int64_t here = at + i * g.ys() + j * g.xs();
      if (std::isnan(x[best]))
        return best;
      if (x[here] > x[best] || std::isnan(x[here]))
        best = here;
    }
  return best;
}

template <bool Max> void poolKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  const char *op = Max ? "max_pool2d" : "avg_pool2d";
  expectArity(ins, 1, op);
  const Tensor &xin = tensorArg(ins, 0, op);
  PoolGeom g = poolGeometry(xin.shape(), attrs, op);
  DType dt = floatResultType(xin.dtype(), false);
  Tensor x = xin.to(dt);
  Tensor out = Tensor::empty(dt, g.outShape());
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T *px = x.data<T>();
      T *po = out.data<T>();
      forEachWindow(g, [&](int64_t at, int64_t o) {
        if (Max) {
          po[o] = px[windowArgmax(g, px, at)];
          return;
        }
        double s = 0;
        for (int64_t i = 0; i < g.k; ++i)
          for (int64_t j = 0; j < g.k; ++j)
            s += px[at + i * g.ys() + j * g.xs()];
        po[o] = (T)(s / (double)(g.k * g.k));
      });
    }
  });
  outs.emplace_back(out);
}

void checkPooledGradient(const PoolGeom &g, const Tensor &gin, const char *op) {
  check(gin.shape() == g.outShape(), std::string("'") + op + "': gradient " + gin.typeString() +
                                         " does not match the pooled shape");
}

/// max_pool2d_grad(x, g){k, layout}: each window's gradient goes to its (first) maximum.
void maxPoolGradKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 2, "max_pool2d_grad");
  const Tensor &xin = tensorArg(ins, 0, "max_pool2d_grad"),
               &gin = tensorArg(ins, 1, "max_pool2d_grad");
  PoolGeom g = poolGeometry(xin.shape(), attrs, "max_pool2d_grad");
  checkPooledGradient(g, gin, "max_pool2d_grad");
  DType dt = floatResultType(widerDType(xin.dtype(), gin.dtype()), false);
  Tensor x = xin.to(dt), gr = gin.to(dt);
  Tensor dx = Tensor::zeros(dt, xin.shape());
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T *px = x.data<T>(), *pg = gr.data<T>();
      T *d = dx.data<T>();
      forEachWindow(g, [&](int64_t at, int64_t o) { d[windowArgmax(g, px, at)] += pg[o]; });
    }
  });
  outs.emplace_back(dx);
}

/// avg_pool2d_grad(g){k, input_shape, layout}: each window's gradient spread evenly (/k^2).
void avgPoolGradKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "avg_pool2d_grad", true);
  const Tensor &gin = tensorArg(ins, 0, "avg_pool2d_grad");
  Shape inShape = shapeFromAttrOrInputs(attrs, "input_shape", ins, 1);
  PoolGeom g = poolGeometry(inShape, attrs, "avg_pool2d_grad");
  checkPooledGradient(g, gin, "avg_pool2d_grad");
  DType dt = floatResultType(gin.dtype(), false);
  Tensor gr = gin.to(dt);
  Tensor dx = Tensor::zeros(dt, inShape);
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>) {
      T inv = T(1) / T(g.k * g.k);
      const T *pg = gr.data<T>();
      T *d = dx.data<T>();
      forEachWindow(g, [&](int64_t at, int64_t o) {
        for (int64_t i = 0; i < g.k; ++i)
          for (int64_t j = 0; j < g.k; ++j)
            d[at + i * g.ys() + j * g.xs()] = pg[o] * inv;
      });
    }
  });
  outs.emplace_back(dx);
}
} // namespace

void registerNNKernels() {
  registerKernel(OpKind::Softmax, Device::CPU, softmaxKernel<false>);
  registerKernel(OpKind::LogSoftmax, Device::CPU, softmaxKernel<true>);
  registerKernel(OpKind::SoftmaxGrad, Device::CPU, softmaxGradKernel<false>);
  registerKernel(OpKind::LogSoftmaxGrad, Device::CPU, softmaxGradKernel<true>);
  registerKernel(OpKind::CrossEntropy, Device::CPU, crossEntropyKernel);
  registerKernel(OpKind::CrossEntropyGrad, Device::CPU, crossEntropyGradKernel);
  registerKernel(OpKind::Mse, Device::CPU, mseKernel);
  registerKernel(OpKind::Conv2d, Device::CPU, conv2dKernel);
  registerKernel(OpKind::Conv2dBias, Device::CPU, conv2dBiasKernel);
  registerKernel(OpKind::Conv2dGradInput, Device::CPU, conv2dGradInputKernel);
  registerKernel(OpKind::Conv2dGradWeight, Device::CPU, conv2dGradWeightKernel);
  registerKernel(OpKind::MaxPool2d, Device::CPU, poolKernel<true>);
  registerKernel(OpKind::AvgPool2d, Device::CPU, poolKernel<false>);
  registerKernel(OpKind::MaxPool2dGrad, Device::CPU, maxPoolGradKernel);
  registerKernel(OpKind::AvgPool2dGrad, Device::CPU, avgPoolGradKernel);
}

DLM_FMA_VARIANT_END
} // namespace dlm::rt::cpu
