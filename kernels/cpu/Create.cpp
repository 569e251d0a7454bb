//===- kernels/cpu/Create.cpp - Creation ops and the RNG ops -------------===//
//
// Shapes come from the `shape` attribute, whose kDynamicDim entries are filled from the
// trailing integer operands (zeros(B, 10) where B is only known at run time). The default
// dtype is f32. randn/rand draw from the process-wide Philox stream (runtime/Random.h).
//
//===----------------------------------------------------------------------===//
#include "kernels/cpu/CpuKernels.h"
#include "runtime/Random.h"

namespace dlm::rt::cpu {
namespace {

/// const{value}: a Tensor attribute, flat floats with {shape, dtype}, or a scalar (int -> i64,
/// float -> f64, bool -> bool 0-d) or a string (a string value).
void constKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 0, "const");
  const Attr *v = attrs.find("value");
  check(v != nullptr, "missing attribute 'value'");
  if (auto *t = std::get_if<Tensor>(v))
    return (void)outs.emplace_back(*t);
  if (auto *i = std::get_if<int64_t>(v))
    return (void)outs.emplace_back(Tensor::scalarI64(*i));
  if (auto *d = std::get_if<double>(v)) {
    if (attrs.has("dtype"))
      return (void)outs.emplace_back(Tensor::scalar(attrs.getDType("dtype"), *d));
    return (void)outs.emplace_back(Tensor::scalarF64(*d));
  }
  if (auto *b = std::get_if<bool>(v))
    return (void)outs.emplace_back(Tensor::scalarBool(*b));
  if (auto *s = std::get_if<std::string>(v))
    return (void)outs.emplace_back(*s);
  std::vector<double> flat = attrs.getFloats("value");
  Shape shape = attrs.getInts("shape", {(int64_t)flat.size()});
  outs.emplace_back(Tensor::fromVector<double>(attrs.getDType("dtype", DType::F32), flat, shape));
}

Tensor filled(DType dt, const Shape &shape, double value) {
  Tensor t = Tensor::empty(dt, shape);
  dispatchDType(dt, [&]<typename T>() {
    T v = (T)value;
    T *p = t.data<T>();
    for (int64_t i = 0, n = t.numel(); i < n; ++i)
      p[i] = v;
  });
  return t;
}

template <int Value> void constantKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  Shape shape = shapeFromAttrOrInputs(attrs, "shape", ins, 0);
  outs.emplace_back(filled(attrs.getDType("dtype", DType::F32), shape, Value));
}

/// full(value, dims...){shape, dtype}: the dtype defaults to the value's (f32 for a float).
void fullKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  expectArity(ins, 1, "full", true);
  const Tensor &v = tensorArg(ins, 0, "full");
  check(v.numel() == 1, "full: fill value must be a single number, got " + v.typeString());
  DType dt = attrs.getDType("dtype", DType::F32);
  Shape shape = shapeFromAttrOrInputs(attrs, "shape", ins, 1);
  Tensor out = Tensor::empty(dt, shape);
  copyInto(out, v.reshape({}));
  outs.emplace_back(out);
}

void eyeKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  int64_t n = attrs.has("n") ? attrs.getInt("n") : intOperand(ins, 0, "eye");
  check(n >= 0, "eye: size must be non-negative, got " + std::to_string(n));
  Tensor t = Tensor::zeros(attrs.getDType("dtype", DType::F32), {n, n});
  dispatchDType(t.dtype(), [&]<typename T>() {
    for (int64_t i = 0; i < n; ++i)
      t.data<T>()[i * n + i] = T(1);
  });
  outs.emplace_back(t);
}

/// arange(dims){shape, dtype}: 0, 1, ..., n-1 where shape = [n].
void arangeKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  Shape shape = shapeFromAttrOrInputs(attrs, "shape", ins, 0);
  check(shape.size() == 1 && shape[0] >= 0,
        "arange: length must be one non-negative int, got " + shapeString(shape));
  Tensor t = Tensor::empty(attrs.getDType("dtype", DType::F32), shape);
  dispatchDType(t.dtype(), [&]<typename T>() {
    for (int64_t i = 0; i < shape[0]; ++i)
      t.data<T>()[i] = (T)i;
  });
  outs.emplace_back(t);
}

template <bool Normal> void randomKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  const char *op = Normal ? "randn" : "rand";
  Shape shape = shapeFromAttrOrInputs(attrs, "shape", ins, 0);
  DType dt = attrs.getDType("dtype", DType::F32);
  check(isFloat(dt),
        std::string(op) + ": dtype must be f32 or f64, got " + std::string(dtypeName(dt)));
  Tensor t = Tensor::empty(dt, shape);
  if (Normal)
    fillNormal(t);
  else
    fillUniform(t);
  outs.emplace_back(t);
}

/// randperm(dims){shape, dtype}: a random permutation of 0 .. n-1 (i64 by default), shape [n].
/// A Fisher-Yates shuffle drawing one word of the stream per swap: position i (from n-1 down
/// to 1) swaps with j = floor(word * (i + 1) / 2^32), so the same seed gives the same
/// permutation on every engine (the bias of that mapping is below (i + 1) / 2^32).
void randpermKernel(Inputs ins, const Attrs &attrs, Outputs &outs) {
  Shape shape = shapeFromAttrOrInputs(attrs, "shape", ins, 0);
  check(shape.size() == 1 && shape[0] >= 0,
        "randperm: length must be one non-negative int, got " + shapeString(shape));
  check(shape[0] <= (int64_t(1) << 32),
        "randperm: length " + std::to_string(shape[0]) + " is too large (at most 2^32)");
  DType dt = attrs.getDType("dtype", DType::I64);
  check(isInteger(dt), "randperm: dtype must be i32 or i64, got " + std::string(dtypeName(dt)));
  int64_t n = shape[0];
  std::vector<int64_t> perm(n);
  for (int64_t i = 0; i < n; ++i)
    perm[i] = i;
  if (n > 1) {
    RandomRange r = reserveRandom(uint64_t(n - 1));
    for (int64_t i = n - 1, k = 0; i > 0; --i, ++k) {
      auto j = int64_t((uint64_t(r.word(uint64_t(k))) * uint64_t(i + 1)) >> 32);
      std::swap(perm[i], perm[j]);
    }
  }
  outs.emplace_back(Tensor::fromVector<int64_t>(dt, perm, shape));
}

/// seed(n): restarts the stream. No results.
void seedKernel(Inputs ins, const Attrs &attrs, Outputs &) {
  int64_t n = attrs.has("n") ? attrs.getInt("n") : intOperand(ins, 0, "seed");
  seed((uint64_t)n);
}

} // namespace

void registerCreateKernels() {
  registerKernel(OpKind::Const, Device::CPU, constKernel);
  registerKernel(OpKind::Zeros, Device::CPU, constantKernel<0>);
  registerKernel(OpKind::Ones, Device::CPU, constantKernel<1>);
  registerKernel(OpKind::Full, Device::CPU, fullKernel);
  registerKernel(OpKind::Eye, Device::CPU, eyeKernel);
  registerKernel(OpKind::Arange, Device::CPU, arangeKernel);
  registerKernel(OpKind::Randn, Device::CPU, randomKernel<true>);
  registerKernel(OpKind::Rand, Device::CPU, randomKernel<false>);
  registerKernel(OpKind::Randperm, Device::CPU, randpermKernel);
  registerKernel(OpKind::Seed, Device::CPU, seedKernel);
}

} // namespace dlm::rt::cpu
