//===- kernels/cpu/Reduce.cpp - Reductions over axes ---------------------===//
//
// Every reduction views its operand as a [outer, inner] matrix: the kept axes (in order) are
// moved before the reduced ones and the result made contiguous, then each row is reduced
// front to back. The fixed order makes results deterministic (the same on every run and
// thread count); f32 sums accumulate in double. Reducing the leading axes of a contiguous
// tensor (a bias gradient: sum over the batch) skips the copy and accumulates whole rows.
//
// Attributes: `axes` (int list; absent or empty = all axes), `keepdims` (bool). argmax takes
// `axis` (absent = over the flattened tensor).
//
//===----------------------------------------------------------------------===//
#include "kernels/cpu/CpuKernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlm::rt::cpu {
namespace {

/// The layout of one reduction.
struct ReducePlan {
  std::vector<int64_t> perm; ///< Kept axes, then reduced axes.
  std::vector<bool> reduced; ///< Per axis of the operand.
  Shape outShape;            ///< The result's shape (keepdims honoured).
  int64_t outer = 1, inner = 1;
};

ReducePlan planReduce(const Tensor &x, std::vector<int64_t> axes, bool keepdims, const char *op) {
  int64_t r = x.rank();
  ReducePlan p;
  p.reduced.assign(r, axes.empty());
  for (int64_t a : axes) {
    int64_t n = normalizeAxis(a, r, "reduction axis");
    if (r == 0) // (messages built only on failure: sum_to runs in every gradient loop step)
      throw Error(std::string("'") + op + "': cannot reduce a 0-d tensor over axis " +
                  std::to_string(a));
    if (p.reduced[n])
      throw Error(std::string("'") + op + "': repeated axis " + std::to_string(a));
    p.reduced[n] = true;
  }
  for (int64_t i = 0; i < r; ++i) {
    if (!p.reduced[i]) {
      p.perm.push_back(i);
      p.outer *= x.dim(i);
      p.outShape.push_back(x.dim(i));
    } else if (keepdims) {
      p.outShape.push_back(1);
    }
  }
  for (int64_t i = 0; i < r; ++i)
    if (p.reduced[i]) {
      p.perm.push_back(i);
      p.inner *= x.dim(i);
    }
  return p;
}

/// The operand laid out as contiguous [outer, inner] rows.
Tensor rows(const Tensor &x, const ReducePlan &p) { return x.transpose(p.perm).contiguous(); }

ReducePlan planFromAttrs(const Tensor &x, const Attrs &attrs, const char *op) {
  return planReduce(x, attrs.getInts("axes", {}), attrs.getBool("keepdims", false), op);
}

/// True when the reduced axes are exactly a leading prefix of a contiguous operand.
bool reducesLeadingAxes(const Tensor &x, const ReducePlan &p) {
  if (!x.isContiguous())
    return false;
  size_t k = 0;
  while (k < p.reduced.size() && p.reduced[k])
    ++k;
  for (size_t i = k; i < p.reduced.size(); ++i)
    if (p.reduced[i])
      return false;
  return k > 0 && k < p.reduced.size();
}

template <typename T>
using AccOf = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;

/// sum (or mean when `mean`) of the rows, into an `outDType` tensor.
Tensor sumRows(const Tensor &x, const ReducePlan &p, DType outDType, bool mean) {
  Tensor out = Tensor::empty(outDType, p.outShape);
  dispatchDType(x.dtype(), [&]<typename T>() {
    using Acc = AccOf<T>;
    std::vector<Acc> acc(p.outer, Acc(0));
    if (reducesLeadingAxes(x, p)) {
      const T *src = x.data<T>();
      for (int64_t i = 0; i < p.inner; ++i)
        for (int64_t j = 0; j < p.outer; ++j)
          acc[j] += (Acc)src[i * p.outer + j];
    } else {
      Tensor xr = rows(x, p);
      const T *src = xr.data<T>();
      for (int64_t j = 0; j < p.outer; ++j) {
        if constexpr (std::is_floating_point_v<T>) {
          acc[j] = laneSum(src + j * p.inner, p.inner);
          continue;
        }
        Acc s = 0;
        for (int64_t i = 0; i < p.inner; ++i)
          s += (Acc)src[j * p.inner + i];
        acc[j] = s;
      }
    }
    dispatchDType(outDType, [&]<typename O>() {
      O *o = out.data<O>();
      for (int64_t j = 0; j < p.outer; ++j)
        o[j] = mean ? (O)((double)acc[j] / (double)p.inner) : (O)acc[j];
    });
  });
  return out;
}

void sumKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "sum");
  const Tensor &x = tensorArg(ins, 0, "sum");
  ReducePlan p = planFromAttrs(x, attrs, "sum");
  DType dt = isFloat(x.dtype()) ? x.dtype() : DType::I64;
  outs.emplace_back(sumRows(x, p, dt, false));
}

void meanKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "mean");
  const Tensor &x = tensorArg(ins, 0, "mean");
  ReducePlan p = planFromAttrs(x, attrs, "mean");
  outs.emplace_back(sumRows(x, p, floatResultType(x.dtype(), false), true));
}

/// max / min: NaN wins (like NumPy); an empty reduction is an error.
template <bool IsMax> void extremumKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  const char *op = IsMax ? "max" : "min";
  expectArity(ins, 1, op);
  const Tensor &x = tensorArg(ins, 0, op);
  ReducePlan p = planFromAttrs(x, attrs, op);
  check(p.inner > 0 || p.outer == 0,
        std::string("'") + op + "' of an empty slice of " + x.typeString() + " has no identity");
  Tensor xr = rows(x, p);
  Tensor out = Tensor::empty(x.dtype(), p.outShape);
  dispatchDType(x.dtype(), [&]<typename T>() {
    const T *src = xr.data<T>();
    T *o = out.data<T>();
    for (int64_t j = 0; j < p.outer; ++j) {
      const T *row = src + j * p.inner;
      T best = row[0];
      for (int64_t i = 1; i < p.inner; ++i) {
        T v = row[i];
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(best))
            break;
          if (std::isnan(v)) {
            best = v;
            break;
          }
        }
        if (IsMax ? v > best : v < best)
          best = v;
      }
      o[j] = best;
    }
  });
  outs.emplace_back(out);
}

/// log(sum(exp(x))) computed as m + log(sum(exp(x - m))) with m the row max.
void logsumexpKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "logsumexp");
  const Tensor &x = tensorArg(ins, 0, "logsumexp");
  ReducePlan p = planFromAttrs(x, attrs, "logsumexp");
  DType dt = floatResultType(x.dtype(), false);
  Tensor xr = rows(x.to(dt), p);
  Tensor out = Tensor::empty(dt, p.outShape);
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T *src = xr.data<T>();
      T *o = out.data<T>();
      for (int64_t j = 0; j < p.outer; ++j) {
        const T *row = src + j * p.inner;
        double m = -INFINITY; // the row max, NaN if the row has one (the result is NaN then)
        for (int64_t i = 0; i < p.inner && m == m; ++i)
          m = row[i] < m ? m : (double)row[i];
        if (!std::isfinite(m)) {
          o[j] = (T)m;
          continue;
        }
        double s = 0;
        for (int64_t i = 0; i < p.inner; ++i)
          s += std::exp((double)row[i] - m);
        o[j] = (T)(m + std::log(s));
      }
    }
  });
  outs.emplace_back(out);
}

/// The L2 norm over the axes.
void normKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "norm");
  const Tensor &x = tensorArg(ins, 0, "norm");
  ReducePlan p = planFromAttrs(x, attrs, "norm");
  DType dt = floatResultType(x.dtype(), false);
  Tensor xr = rows(x.to(dt), p);
  Tensor out = Tensor::empty(dt, p.outShape);
  dispatchDType(dt, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T *src = xr.data<T>();
      for (int64_t j = 0; j < p.outer; ++j) {
        double s = 0;
        for (int64_t i = 0; i < p.inner; ++i)
          s += (double)src[j * p.inner + i] * src[j * p.inner + i];
        out.data<T>()[j] = (T)std::sqrt(s);
      }
    }
  });
  outs.emplace_back(out);
}

/// Index of the first extremum of each row (NaN counts as the extremum, like NumPy).
template <bool IsMax, typename T> int64_t argExtremum(const T *row, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(row[best]))
        return best;
      if (std::isnan(row[i]))
        return i;
    }
    if (IsMax ? row[i] > row[best] : row[i] < row[best])
      best = i;
  }
  return best;
}

void argmaxKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "argmax");
  const Tensor &x = tensorArg(ins, 0, "argmax");
  bool keepdims = attrs.getBool("keepdims", false);
  Tensor src = x;
  std::vector<int64_t> axes;
  if (attrs.has("axis")) {
    axes = {attrs.getInt("axis")};
  } else {
    src = x.reshape({-1});
  }
  ReducePlan p = planReduce(src, axes, keepdims && attrs.has("axis"), "argmax");
  if (!attrs.has("axis") && keepdims)
    p.outShape = Shape(x.rank(), 1);
  check(p.inner > 0 || p.outer == 0, "'argmax' of an empty slice of " + x.typeString());
  Tensor xr = rows(src, p);
  Tensor out = Tensor::empty(DType::I64, p.outShape);
  dispatchDType(x.dtype(), [&]<typename T>() {
    for (int64_t j = 0; j < p.outer; ++j)
      out.data<int64_t>()[j] = argExtremum<true>(xr.data<T>() + j * p.inner, p.inner);
  });
  outs.emplace_back(out);
}

/// sum_to{shape}(x): sums x (a broadcast result) back down to `shape` — the gradient of
/// broadcasting. Leading extra axes and axes where `shape` has 1 are reduced.
void sumToKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  const Tensor &x = tensorArg(ins, 0, "sum_to");
  Shape target = shapeFromAttrOrInputs(attrs, "shape", ins, 1);
  int64_t r = x.rank(), tr = (int64_t)target.size();
  auto fail = [&] {
    throw Error("cannot sum " + x.typeString() + " down to shape " + shapeString(target));
  };
  if (tr > r)
    fail();
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < r; ++i) {
    int64_t ti = i - (r - tr);
    if (ti < 0) {
      axes.push_back(i);
    } else if (target[ti] != x.dim(i)) {
      if (target[ti] != 1)
        fail();
      axes.push_back(i);
    }
  }
  if (axes.empty()) {
    outs.emplace_back(x);
    return;
  }
  ReducePlan p = planReduce(x, axes, false, "sum_to");
  DType dt = isFloat(x.dtype()) ? x.dtype() : DType::I64;
  outs.emplace_back(sumRows(x, p, dt, false).reshape(target));
}

/// max_grad(x, g){axes, keepdims} / min_grad: g flows to the first arg-extremum of each
/// reduced slice of x; everything else gets 0. A middle operand (the forward result) is
/// accepted and ignored, so (x, y, g) works too.
template <bool IsMax> void extremumGradKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  const char *op = IsMax ? "max_grad" : "min_grad";
  check(ins.size() == 2 || ins.size() == 3,
        std::string("'") + op + "' expects (x, g) or (x, y, g)");
  const Tensor &x = tensorArg(ins, 0, op);
  const Tensor &g = tensorArg(ins, ins.size() - 1, op);
  ReducePlan p = planFromAttrs(x, attrs, op);
  check(g.numel() == p.outer, std::string("'") + op + "': gradient " + g.typeString() +
                                  " does not match the reduction of " + x.typeString());
  DType dt = floatResultType(g.dtype(), false);
  Tensor xr = rows(x, p);
  Tensor gc = g.to(dt);
  // The gradient in the permuted [kept..., reduced...] layout, then permuted back.
  Shape permShape;
  for (int64_t a : p.perm)
    permShape.push_back(x.dim(a));
  Tensor gp = Tensor::zeros(dt, permShape);
  dispatchDType(x.dtype(), [&]<typename T>() {
    dispatchDType(dt, [&]<typename G>() {
      for (int64_t j = 0; j < p.outer && p.inner > 0; ++j) {
        int64_t at = argExtremum<IsMax>(xr.data<T>() + j * p.inner, p.inner);
        gp.data<G>()[j * p.inner + at] = gc.data<G>()[j];
      }
    });
  });
  std::vector<int64_t> inverse(p.perm.size());
  for (size_t i = 0; i < p.perm.size(); ++i)
    inverse[p.perm[i]] = (int64_t)i;
  outs.emplace_back(gp.transpose(inverse).contiguous());
}

} // namespace

void registerReduceKernels() {
  registerKernel(OpKind::Sum, Device::CPU, sumKernel);
  registerKernel(OpKind::Mean, Device::CPU, meanKernel);
  registerKernel(OpKind::Max, Device::CPU, extremumKernel<true>);
  registerKernel(OpKind::Min, Device::CPU, extremumKernel<false>);
  registerKernel(OpKind::Logsumexp, Device::CPU, logsumexpKernel);
  registerKernel(OpKind::Norm, Device::CPU, normKernel);
  registerKernel(OpKind::Argmax, Device::CPU, argmaxKernel);
  registerKernel(OpKind::SumTo, Device::CPU, sumToKernel);
  registerKernel(OpKind::MaxGrad, Device::CPU, extremumGradKernel<true>);
  registerKernel(OpKind::MinGrad, Device::CPU, extremumGradKernel<false>);
}

} // namespace dlm::rt::cpu
