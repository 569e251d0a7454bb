//===- kernels/cpu/Shape.cpp - Shape ops: views, joins, indexing ---------===//
//
// reshape (of a contiguous operand), transpose, broadcast_to, slice, expand_dims, squeeze,
// split and a 0-d index return views that share the operand's buffer: kernel outputs may
// alias inputs, and no kernel writes into an input, so sharing is safe. concat, stack and a
// tensor index (gather) copy.
//
// slice{begin, end, step}: per-dimension lists (shorter lists leave the remaining dimensions
// whole) with Python's slice semantics — negative values count from the end, out-of-range
// bounds clamp. An omitted bound is kSliceToEnd (from/to the end in the step's direction); a
// kDynamicDim entry takes the next trailing integer operand (begin entries, then end, then
// step, in order).
//
//===----------------------------------------------------------------------===//
#include "kernels/cpu/CpuKernels.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace dlm::rt::cpu {
namespace {

void reshapeKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  const Tensor &x = tensorArg(ins, 0, "reshape");
  outs.emplace_back(x.reshape(shapeFromAttrOrInputs(attrs, "shape", ins, 1)));
}

void transposeKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "transpose");
  outs.emplace_back(tensorArg(ins, 0, "transpose").transpose(attrs.getInts("perm", {})));
}

void broadcastToKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  const Tensor &x = tensorArg(ins, 0, "broadcast_to");
  outs.emplace_back(x.broadcastTo(shapeFromAttrOrInputs(attrs, "shape", ins, 1)));
}

void shapeOfKernel(Inputs ins, const Attrs &, Outputs &outs) {
  expectArity(ins, 1, "shape_of");
  const Tensor &x = tensorArg(ins, 0, "shape_of");
  outs.emplace_back(Tensor::fromVector<int64_t>(DType::I64, x.shape(), Shape{x.rank()}));
}

/// Python's slice.indices for one dimension: the first index and the element count.
std::pair<int64_t, int64_t> sliceIndices(int64_t begin, int64_t end, int64_t step, int64_t n) {
  check(step != 0, "slice step cannot be zero");
  int64_t lower = step > 0 ? 0 : -1, upper = step > 0 ? n : n - 1;
  auto clampIndex = [&](int64_t v) {
    if (v < 0) {
      v = v < -n ? lower : v + n;
      return std::max(v, lower);
    }
    return std::min(v, upper);
  };
  int64_t s = clampIndex(begin), e = clampIndex(end);
  int64_t len = step > 0 ? (e > s ? (e - s + step - 1) / step : 0)
                         : (s > e ? (s - e + (-step) - 1) / (-step) : 0);
  return {s, len};
}

/// The slice view of x; dynamic bounds come from operands `firstBound` on.
Tensor sliceView(const Tensor &x, const Attrs &attrs, Inputs ins, size_t firstBound) {
  std::vector<int64_t> begin = attrs.getInts("begin", {}), end = attrs.getInts("end", {}),
                       step = attrs.getInts("step", {});
  size_t next = firstBound;
  for (auto *list : {&begin, &end, &step})
    for (int64_t &v : *list)
      if (v == kDynamicDim) {
        check(next < ins.size(), "slice: missing operand for a dynamic bound");
        v = intOperand(ins, next++, "slice");
      }
  int64_t r = x.rank();
  if ((int64_t)begin.size() > r || (int64_t)end.size() > r || (int64_t)step.size() > r)
    throw Error("slice of " + x.typeString() + " has more bounds than dimensions");
  Shape shape = x.shape(), strides = x.strides();
  int64_t offset = x.offset();
  for (int64_t d = 0; d < r; ++d) {
    int64_t st = d < (int64_t)step.size() ? step[d] : 1;
    int64_t b = d < (int64_t)begin.size() ? begin[d] : kSliceToEnd;
    int64_t e = d < (int64_t)end.size() ? end[d] : kSliceToEnd;
    if (b == kSliceToEnd)
      b = st > 0 ? 0 : INT64_MAX;
    if (e == kSliceToEnd)
      e = st > 0 ? INT64_MAX : INT64_MIN;
    auto [s, len] = sliceIndices(b, e, st, x.dim(d));
    if (len > 0)
      offset += s * x.strides()[d];
    shape[d] = len;
    strides[d] = x.strides()[d] * st;
  }
  return x.view(shape, strides, offset);
}

void sliceKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  outs.emplace_back(sliceView(tensorArg(ins, 0, "slice"), attrs, ins, 1));
}

/// slice_grad(g){input_shape, begin, end, step}: g placed into zeros of the input's shape.
void sliceGradKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  const Tensor &g = tensorArg(ins, 0, "slice_grad");
  // Trailing operands: the input's symbolic dims first, then the dynamic slice bounds.
  Shape inShape = shapeFromAttrOrInputs(attrs, "input_shape", ins, 1);
  size_t dynamicDims = 0;
  for (int64_t d : attrs.getInts("input_shape"))
    dynamicDims += d == kDynamicDim;
  Tensor out = Tensor::zeros(g.dtype(), inShape);
  Tensor window = sliceView(out, attrs, ins, 1 + dynamicDims);
  if (window.shape() != g.shape())
    throw Error("slice_grad: gradient " + g.typeString() + " does not match the slice " +
                shapeString(window.shape()));
  copyInto(window, g);
  outs.emplace_back(out);
}

int64_t checkedIndex(int64_t i, int64_t size, int64_t axis) {
  if (i < -size || i >= size)
    throw Error("index " + std::to_string(i) + " is out of range for axis " + std::to_string(axis) +
                " with size " + std::to_string(size));
  return i < 0 ? i + size : i;
}

/// The integer index operand as normalised int64 values.
std::vector<int64_t> indexValues(const Tensor &i, int64_t size, int64_t axis) {
  if (!isInteger(i.dtype()))
    throw Error("index must be an integer tensor, got " + i.typeString());
  Tensor c = i.to(DType::I64);
  std::vector<int64_t> v(c.numel());
  for (size_t k = 0; k < v.size(); ++k)
    v[k] = checkedIndex(c.data<int64_t>()[k], size, axis);
  return v;
}

constexpr char kIndex[] = "index", kGather[] = "gather";

/// x.take(i, axis). A 0-d i removes the axis and returns a view; an n-d i replaces the axis by
/// i's shape (a gather copy). Indices are bounds-checked, negative ones count from the end.
/// index{axis}(x, i) and gather{axis}(x, i) both run this.
template <const char *Op> void takeKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 2, Op);
  const Tensor &x = tensorArg(ins, 0, Op), &i = tensorArg(ins, 1, Op);
  if (x.rank() == 0)
    throw Error(std::string(Op) + ": cannot index a 0-d tensor");
  int64_t axis = normalizeAxis(attrs.getInt("axis", 0), x.rank(), "index axis");
  if (i.rank() == 0 && isInteger(i.dtype())) { // x[t] in a loop: a view, no index vector
    outs.emplace_back(x.select(axis, checkedIndex(i.itemI64(), x.dim(axis), axis)));
    return;
  }
  std::vector<int64_t> idx = indexValues(i, x.dim(axis), axis);
  Tensor out = Tensor::empty(x.dtype(), takeShape(x.shape(), i.shape(), axis));
  // View out as [pre, n_idx, post] and copy one x slice per index.
  Shape pre(x.shape().begin(), x.shape().begin() + axis);
  Shape post(x.shape().begin() + axis + 1, x.shape().end());
  Shape o3 = {numelOf(pre), (int64_t)idx.size(), numelOf(post)};
  Tensor o = out.reshape(o3);
  if (x.isContiguous() && o3[0] == 1) {
    // Whole rows (axis 0 of a contiguous tensor, e.g. shuffling a data set): one memcpy each.
    size_t row = size_t(o3[2]) * x.elementSize();
    const char *src = static_cast<const char *>(x.rawData());
    char *dst = static_cast<char *>(o.rawData());
    for (size_t k = 0; k < idx.size(); ++k)
      std::memcpy(dst + k * row, src + size_t(idx[k]) * row, row);
    outs.emplace_back(out);
    return;
  }
  for (size_t k = 0; k < idx.size(); ++k) {
    Shape srcShape = pre, srcStrides(x.strides().begin(), x.strides().begin() + axis);
    srcShape.insert(srcShape.end(), post.begin(), post.end());
    srcStrides.insert(srcStrides.end(), x.strides().begin() + axis + 1, x.strides().end());
    Tensor src = x.view(srcShape, srcStrides, x.offset() + idx[k] * x.strides()[axis]);
    Tensor dst = o.view({o3[0], o3[2]}, {o3[1] * o3[2], 1}, (int64_t)k * o3[2]);
    copyInto(dst, src.reshape({o3[0], o3[2]}));
  }
  outs.emplace_back(out);
}

/// index_grad(g, i){axis, input_shape}: zeros of the input's shape with g's slices added at
/// the indexed positions (repeated indices accumulate).
void indexGradKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 2, "index_grad", true);
  const Tensor &g = tensorArg(ins, 0, "index_grad"), &i = tensorArg(ins, 1, "index_grad");
  Shape inShape = shapeFromAttrOrInputs(attrs, "input_shape", ins, 2);
  int64_t r = (int64_t)inShape.size();
  check(r > 0, "index_grad: input_shape must have rank >= 1");
  int64_t axis = normalizeAxis(attrs.getInt("axis", 0), r, "index axis");
  std::vector<int64_t> idx = indexValues(i, inShape[axis], axis);
  Shape pre(inShape.begin(), inShape.begin() + axis),
      post(inShape.begin() + axis + 1, inShape.end());
  int64_t np = numelOf(pre), nq = numelOf(post), n = inShape[axis];
  check(g.numel() == np * (int64_t)idx.size() * nq,
        "index_grad: gradient " + g.typeString() + " does not match the indexed shape");
  Tensor gc = g.contiguous();
  Tensor out = Tensor::zeros(g.dtype(), inShape);
  dispatchDType(g.dtype(), [&]<typename T>() {
    const T *src = gc.data<T>();
    T *dst = out.data<T>();
    for (int64_t p = 0; p < np; ++p)
      for (size_t k = 0; k < idx.size(); ++k)
        for (int64_t q = 0; q < nq; ++q) {
          T &d = dst[(p * n + idx[k]) * nq + q];
          d = T(d + src[(p * (int64_t)idx.size() + (int64_t)k) * nq + q]);
        }
  });
  outs.emplace_back(out);
}

/// concat of contiguous operands of the result's dtype: per index of the dims before the axis,
/// one memcpy of each operand's block (an autodiff stack entry joined in a loop: no strided
/// walk, no allocation per operand).
void concatContiguous(const std::vector<Tensor> &xs, int64_t axis, const Tensor &out) {
  int64_t outer = 1, inner = (int64_t)out.elementSize();
  for (int64_t d = 0; d < axis; ++d)
    outer *= out.dim(d);
  for (int64_t d = axis + 1; d < out.rank(); ++d)
    inner *= out.dim(d);
  char *dst = static_cast<char *>(out.rawData());
  int64_t row = out.dim(axis) * inner, at = 0;
  for (const Tensor &x : xs) {
    int64_t block = x.dim(axis) * inner;
    const char *src = static_cast<const char *>(x.rawData());
    for (int64_t o = 0; o < outer && block > 0; ++o)
      std::memcpy(dst + o * row + at, src + o * block, block);
    at += block;
  }
}

/// Copies the operands side by side along `axis` (all ranks equal, other dims equal).
Tensor concatTensors(const std::vector<Tensor> &xs, int64_t axisAttr, const char *op) {
  // (Messages are built only on failure: concat runs in loops.)
  if (xs.empty())
    throw Error(std::string("'") + op + "' needs at least one tensor");
  int64_t r = xs[0].rank();
  if (r == 0)
    throw Error(std::string("'") + op + "' cannot join 0-d tensors");
  int64_t axis = normalizeAxis(axisAttr, r, "concat axis");
  DType dt = xs[0].dtype();
  Shape shape = xs[0].shape();
  shape[axis] = 0;
  bool contiguous = true;
  for (const Tensor &x : xs) {
    bool same = x.rank() == r;
    for (int64_t d = 0; same && d < r; ++d)
      same = d == axis || x.dim(d) == xs[0].dim(d);
    if (!same)
      throw Error(std::string("'") + op + "': cannot join " + xs[0].typeString() + " with " +
                  x.typeString() + " along axis " + std::to_string(axis));
    shape[axis] += x.dim(axis);
    dt = widerDType(dt, x.dtype());
    contiguous = contiguous && x.isContiguous() && x.device() == Device::CPU;
  }
  Tensor out = Tensor::empty(dt, shape);
  if (contiguous &&
      std::all_of(xs.begin(), xs.end(), [&](const Tensor &x) { return x.dtype() == dt; })) {
    concatContiguous(xs, axis, out);
    return out;
  }
  int64_t at = 0;
  for (const Tensor &x : xs) {
    Shape strides = out.strides();
    Tensor dst = out.view(x.shape(), strides, at * strides[axis]);
    copyInto(dst, x);
    at += x.dim(axis);
  }
  return out;
}

std::vector<Tensor> allTensors(Inputs ins, const char *op) {
  std::vector<Tensor> xs;
  for (size_t i = 0; i < ins.size(); ++i)
    xs.push_back(tensorArg(ins, i, op));
  return xs;
}

void concatKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  outs.emplace_back(concatTensors(allTensors(ins, "concat"), attrs.getInt("axis", 0), "concat"));
}

Tensor expandDims(const Tensor &x, int64_t axisAttr) {
  int64_t axis = normalizeAxis(axisAttr, x.rank() + 1, "expand_dims axis");
  Shape shape = x.shape(), strides = x.strides();
  shape.insert(shape.begin() + axis, 1);
  strides.insert(strides.begin() + axis, 0);
  return x.view(shape, strides, x.offset());
}

void stackKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  std::vector<Tensor> xs = allTensors(ins, "stack");
  check(!xs.empty(), "'stack' needs at least one tensor");
  for (const Tensor &x : xs)
    check(x.shape() == xs[0].shape(),
          "'stack': cannot stack " + xs[0].typeString() + " with " + x.typeString());
  int64_t axis = normalizeAxis(attrs.getInt("axis", 0), xs[0].rank() + 1, "stack axis");
  for (Tensor &x : xs)
    x = expandDims(x, axis);
  outs.emplace_back(concatTensors(xs, axis, "stack"));
}

void expandDimsKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "expand_dims");
  outs.emplace_back(expandDims(tensorArg(ins, 0, "expand_dims"), attrs.getInt("axis")));
}

/// squeeze{axis}: removes the given size-1 axes (int or list), or every size-1 axis.
void squeezeKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "squeeze");
  const Tensor &x = tensorArg(ins, 0, "squeeze");
  std::vector<bool> drop(x.rank(), false);
  if (attrs.has("axis")) {
    for (int64_t a : attrs.getInts("axis")) {
      int64_t n = normalizeAxis(a, x.rank(), "squeeze axis");
      check(x.dim(n) == 1, "cannot squeeze axis " + std::to_string(a) + " of " + x.typeString() +
                               ": its size is not 1");
      drop[n] = true;
    }
  } else {
    for (int64_t d = 0; d < x.rank(); ++d)
      drop[d] = x.dim(d) == 1;
  }
  Shape shape, strides;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (!drop[d]) {
      shape.push_back(x.dim(d));
      strides.push_back(x.strides()[d]);
    }
  outs.emplace_back(x.view(shape, strides, x.offset()));
}

/// split{axis, sizes} (sizes sum to the axis length) or split{axis, chunks} (torch.chunk:
/// pieces of ceil(n / chunks)): one view per piece.
void splitKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "split");
  const Tensor &x = tensorArg(ins, 0, "split");
  check(x.rank() > 0, "cannot split a 0-d tensor");
  int64_t axis = normalizeAxis(attrs.getInt("axis", 0), x.rank(), "split axis");
  int64_t n = x.dim(axis);
  std::vector<int64_t> sizes;
  if (attrs.has("sizes")) {
    sizes = attrs.getInts("sizes");
    int64_t total = 0;
    for (int64_t s : sizes) {
      check(s >= 0, "split sizes must not be negative");
      total += s;
    }
    check(total == n, "split sizes " + shapeString(sizes) + " do not add up to " +
                          std::to_string(n) + ", the size of axis " + std::to_string(axis) +
                          " of " + x.typeString());
  } else {
    int64_t chunks = attrs.getInt("chunks");
    check(chunks > 0, "split into " + std::to_string(chunks) + " chunks");
    int64_t each = (n + chunks - 1) / chunks;
    for (int64_t at = 0; at < n; at += each)
      sizes.push_back(std::min(each, n - at));
  }
  int64_t at = 0;
  for (int64_t s : sizes) {
    Shape shape = x.shape();
    shape[axis] = s;
    outs.emplace_back(
        x.view(shape, x.strides(), x.offset() + (s > 0 ? at * x.strides()[axis] : 0)));
    at += s;
  }
}

} // namespace

void registerShapeKernels() {
  registerKernel(OpKind::Reshape, Device::CPU, reshapeKernel);
  registerKernel(OpKind::Transpose, Device::CPU, transposeKernel);
  registerKernel(OpKind::BroadcastTo, Device::CPU, broadcastToKernel);
  registerKernel(OpKind::ShapeOf, Device::CPU, shapeOfKernel);
  registerKernel(OpKind::Slice, Device::CPU, sliceKernel);
  registerKernel(OpKind::SliceGrad, Device::CPU, sliceGradKernel);
  registerKernel(OpKind::Index, Device::CPU, takeKernel<kIndex>);
  registerKernel(OpKind::Gather, Device::CPU, takeKernel<kGather>);
  registerKernel(OpKind::IndexGrad, Device::CPU, indexGradKernel);
  registerKernel(OpKind::Concat, Device::CPU, concatKernel);
  registerKernel(OpKind::Stack, Device::CPU, stackKernel);
  registerKernel(OpKind::ExpandDims, Device::CPU, expandDimsKernel);
  registerKernel(OpKind::Squeeze, Device::CPU, squeezeKernel);
  registerKernel(OpKind::Split, Device::CPU, splitKernel);
}

} // namespace dlm::rt::cpu
