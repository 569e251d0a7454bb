//===- tests/kernels/KernelTest.cpp - CPU kernels against float64 references ---===//
//
// Every kernel is run on f32 and f64 (and integer dtypes where they apply) and compared with
// a straightforward float64 reference computed here element by element: broadcasting corner
// cases (size-1 dims, rank differences, 0-d), empty tensors and non-contiguous views included.
// Backward helpers are checked with the vector-Jacobian identity <J t, c> = <t, J^T c>, where
// J t comes from central differences of the forward kernel in f64.
//
//===----------------------------------------------------------------------===//
#include "runtime/Kernel.h"
#include "runtime/Random.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

using namespace dlm;
using namespace dlm::rt;

namespace {

std::mt19937 &rng() {
  static std::mt19937 g(20240607);
  return g;
}

Tensor randomTensor(DType dt, const Shape &shape, double lo = -2, double hi = 2) {
  Tensor t = Tensor::empty(dt, shape);
  std::uniform_real_distribution<double> u(lo, hi);
  dispatchDType(dt, [&]<typename T>() {
    for (int64_t i = 0; i < t.numel(); ++i) {
      double v = u(rng());
      if constexpr (std::is_same_v<T, bool>)
        t.data<T>()[i] = v > 0;
      else if constexpr (std::is_integral_v<T>)
        t.data<T>()[i] = (T)std::lround(v * 3);
      else
        t.data<T>()[i] = (T)v;
    }
  });
  return t;
}

/// The same values as a non-contiguous view: every other element of a buffer twice as large.
Tensor strided(const Tensor &t) {
  Shape big = t.shape();
  big.push_back(2);
  Tensor b = Tensor::zeros(t.dtype(), big);
  Shape st = b.strides();
  st.pop_back();
  Tensor v = b.view(t.shape(), st, 0);
  copyInto(v, t);
  EXPECT_TRUE(v.numel() <= 1 || !v.isContiguous());
  return v;
}

Shape unravel(int64_t flat, const Shape &shape) {
  Shape idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return idx;
}

/// The element of `t` that index `idx` of the broadcast shape reads.
double atBroadcast(const Tensor &t, const Shape &idx) {
  Shape ti(t.rank());
  size_t off = idx.size() - t.rank();
  for (int64_t d = 0; d < t.rank(); ++d)
    ti[d] = t.dim(d) == 1 ? 0 : idx[off + d];
  return t.getF64(ti);
}

double tolFor(DType dt) { return dt == DType::F32 ? 2e-5 : 1e-12; }

void expectClose(const Tensor &got, const Shape &shape,
                 const std::function<double(const Shape &)> &want, double tol,
                 const std::string &what) {
  ASSERT_EQ(got.shape(), shape) << what;
  for (int64_t i = 0; i < numelOf(shape); ++i) {
    Shape idx = unravel(i, shape);
    double w = want(idx), g = got.getF64(idx);
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << what << " at " << shapeString(idx);
      continue;
    }
    ASSERT_NEAR(g, w, tol * std::max(1.0, std::fabs(w))) << what << " at " << shapeString(idx);
  }
}

Attrs axesAttrs(std::vector<int64_t> axes, bool keepdims) {
  Attrs a;
  a.set("axes", axes).set("keepdims", keepdims);
  return a;
}

// --- elementwise -------------------------------------------------------------------------

struct BinCase {
  const char *op;
  std::function<double(double, double)> f;
  double lo, hi; // operand range (pow needs positive bases)
};

double pyMod(double a, double b) { return a - std::floor(a / b) * b; }

std::vector<BinCase> binaryCases() {
  return {{"add", [](double a, double b) { return a + b; }, -2, 2},
          {"sub", [](double a, double b) { return a - b; }, -2, 2},
          {"mul", [](double a, double b) { return a * b; }, -2, 2},
          {"div", [](double a, double b) { return a / b; }, 0.5, 2},
          {"maximum", [](double a, double b) { return std::max(a, b); }, -2, 2},
          {"minimum", [](double a, double b) { return std::min(a, b); }, -2, 2},
          {"pow", [](double a, double b) { return std::pow(a, b); }, 0.5, 2},
          {"floordiv", [](double a, double b) { return std::floor(a / b); }, 0.5, 3},
          {"mod", pyMod, 0.5, 3}};
}

const std::vector<std::pair<Shape, Shape>> kBroadcastPairs = {
    {{3, 4}, {3, 4}},   {{3, 4}, {4}},
    {{3, 1}, {1, 4}},   {{2, 3, 4}, {3, 1}},
    {{}, {2, 2}},       {{5}, {}},
    {{1}, {5}},         {{0, 3}, {3}},
    {{2, 0}, {1, 1}},   {{1, 1, 1}, {2, 1, 3}},
    {{4, 1, 2}, {3, 1}}};

TEST(Elementwise, BinaryOpsBroadcastAgainstReference) {
  for (const BinCase &c : binaryCases())
    for (DType dt : {DType::F32, DType::F64})
      for (auto &[sa, sb] : kBroadcastPairs)
        for (bool view : {false, true}) {
          Tensor a = randomTensor(dt, sa, c.lo, c.hi), b = randomTensor(dt, sb, c.lo, c.hi);
          if (view) {
            a = strided(a);
            b = strided(b);
          }
          Tensor out = run(c.op, {a, b});
          EXPECT_EQ(out.dtype(), dt);
          Shape shape = out.shape();
          expectClose(
              out, shape, [&](const Shape &i) { return c.f(atBroadcast(a, i), atBroadcast(b, i)); },
              tolFor(dt) * 10,
              std::string(c.op) + " " + shapeString(sa) + " with " + shapeString(sb));
        }
}

TEST(Elementwise, IntegerArithmeticFollowsPython) {
  Tensor a = Tensor::fromVector<int64_t>(DType::I64, {7, -7, 7, -7, 0});
  Tensor b = Tensor::fromVector<int64_t>(DType::I64, {2, 2, -2, -2, 3});
  std::vector<int64_t> fd = {3, -4, -4, 3, 0}, md = {1, 1, -1, -1, 0};
  Tensor q = run("floordiv", {a, b}), m = run("mod", {a, b});
  for (int64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(q.getI64({i}), fd[i]);
    EXPECT_EQ(m.getI64({i}), md[i]);
  }
  Tensor p =
      run("pow", {Tensor::fromVector<int32_t>(DType::I32, {2, 3, -2}), Tensor::scalarI64(3)});
  EXPECT_EQ(p.dtype(), DType::I32);
  EXPECT_EQ(p.getI64({2}), -8);
  // Float floordiv/mod take the divisor's sign.
  Tensor fm = run("mod", {Tensor::fromVector<double>(DType::F64, {-7.5}), Tensor::scalarF64(2)});
  EXPECT_EQ(fm.getF64({0}), 0.5);
}

TEST(Elementwise, IntegerErrorsAreReported) {
  Tensor a = Tensor::fromVector<int64_t>(DType::I64, {1, 2});
  std::vector<Value> outs;
  Status s = callKernel(
      "floordiv", {Value(a), Value(Tensor::fromVector<int64_t>(DType::I64, {1, 0}))}, {}, outs);
  EXPECT_EQ(s.message(), "integer division by zero in 'floordiv'");
  s = callKernel("mod", {Value(a), Value(Tensor::scalarI64(0))}, {}, outs);
  EXPECT_FALSE(s.ok());
  s = callKernel("pow", {Value(a), Value(Tensor::scalarI64(-1))}, {}, outs);
  EXPECT_EQ(s.message(), "integers to negative integer powers are not allowed");
}

TEST(Elementwise, DTypePromotion) {
  Tensor f32 = randomTensor(DType::F32, {3}), i64 = randomTensor(DType::I64, {3});
  Tensor i32 = randomTensor(DType::I32, {3}), b = randomTensor(DType::Bool, {3});
  EXPECT_EQ(run("mul", {f32, Tensor::scalarF64(0.5)}).dtype(), DType::F32); // scalar keeps f32
  EXPECT_EQ(run("add", {f32, randomTensor(DType::F64, {3})}).dtype(), DType::F64);
  EXPECT_EQ(run("add", {i32, Tensor::scalarF64(0.5)}).dtype(),
            DType::F32); // float scalar, int tensor
  EXPECT_EQ(run("add", {i32, Tensor::scalarI64(2)}).dtype(), DType::I32);
  EXPECT_EQ(run("add", {i32, i64}).dtype(), DType::I64);
  EXPECT_EQ(run("div", {i64, i64}).dtype(), DType::F32);
  EXPECT_EQ(run("div", {Tensor::scalarI64(1), Tensor::scalarI64(2)}).dtype(), DType::F64);
  EXPECT_EQ(run("div", {Tensor::scalarI64(1), Tensor::scalarI64(2)}).item(), 0.5);
  EXPECT_EQ(run("add", {b, b}).dtype(), DType::I64);
  EXPECT_EQ(run("lt", {f32, i64}).dtype(), DType::Bool);
  EXPECT_EQ(run("exp", {i64}).dtype(), DType::F32);
  EXPECT_EQ(run("exp", {Tensor::scalarI64(0)}).dtype(), DType::F64);
  EXPECT_EQ(run("neg", {i32}).dtype(), DType::I32);
}

TEST(Elementwise, ComparisonsAndLogic) {
  const std::vector<std::pair<const char *, std::function<bool(double, double)>>> cmps = {
      {"eq", std::equal_to<double>()}, {"ne", std::not_equal_to<double>()},
      {"lt", std::less<double>()},     {"le", std::less_equal<double>()},
      {"gt", std::greater<double>()},  {"ge", std::greater_equal<double>()}};
  for (auto &[op, f] : cmps)
    for (DType dt : {DType::F32, DType::I64}) {
      Tensor a = randomTensor(dt, {4, 3}, -1, 1), b = randomTensor(dt, {3}, -1, 1);
      Tensor out = run(op, {a, strided(b)});
      EXPECT_EQ(out.dtype(), DType::Bool);
      expectClose(
          out, {4, 3},
          [&](const Shape &i) { return (double)f(atBroadcast(a, i), atBroadcast(b, i)); }, 0, op);
    }
  Tensor x = randomTensor(DType::Bool, {5}), y = randomTensor(DType::Bool, {2, 5});
  expectClose(
      run("logical_and", {x, y}), {2, 5},
      [&](const Shape &i) { return (double)(atBroadcast(x, i) && atBroadcast(y, i)); }, 0, "and");
  expectClose(
      run("logical_or", {x, y}), {2, 5},
      [&](const Shape &i) { return (double)(atBroadcast(x, i) || atBroadcast(y, i)); }, 0, "or");
  expectClose(
      run("logical_not", {x}), {5}, [&](const Shape &i) { return (double)!x.getF64(i); }, 0, "not");
}

TEST(Elementwise, NaNPropagatesThroughMaximum) {
  Tensor a = Tensor::fromVector<double>(DType::F64, {NAN, 1.0}),
         b = Tensor::fromVector<double>(DType::F64, {0.0, NAN});
  Tensor m = run("maximum", {a, b});
  EXPECT_TRUE(std::isnan(m.getF64({0})) && std::isnan(m.getF64({1})));
}

TEST(Elementwise, UnaryOpsAgainstReference) {
  const std::vector<std::tuple<const char *, std::function<double(double)>, double, double>> ops = {
      {"neg", [](double v) { return -v; }, -3, 3},
      {"abs", [](double v) { return std::fabs(v); }, -3, 3},
      {"exp", [](double v) { return std::exp(v); }, -3, 3},
      {"log", [](double v) { return std::log(v); }, 0.1, 3},
      {"sqrt", [](double v) { return std::sqrt(v); }, 0, 3},
      {"sin", [](double v) { return std::sin(v); }, -3, 3},
      {"cos", [](double v) { return std::cos(v); }, -3, 3},
      {"tanh", [](double v) { return std::tanh(v); }, -5, 5},
      {"sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }, -30, 30},
      {"relu", [](double v) { return v > 0 ? v : 0; }, -3, 3}};
  for (auto &[op, f, lo, hi] : ops)
    for (DType dt : {DType::F32, DType::F64})
      for (Shape s : {Shape{}, Shape{0}, Shape{7}, Shape{3, 5}, Shape{2, 1, 33}})
        for (bool view : {false, true}) {
          Tensor x = randomTensor(dt, s, lo, hi);
          if (view)
            x = strided(x);
          expectClose(
              run(op, {x}), s, [&](const Shape &i) { return f(x.getF64(i)); }, tolFor(dt) * 10, op);
        }
  // Large contiguous inputs take the vectorised path.
  Tensor big = randomTensor(DType::F32, {10007}, -5, 5);
  expectClose(
      run("tanh", {big}), {10007}, [&](const Shape &i) { return std::tanh(big.getF64(i)); }, 1e-6,
      "tanh big");
}

TEST(Elementwise, WhereClipCast) {
  for (DType dt : {DType::F32, DType::F64}) {
    Tensor c = randomTensor(DType::Bool, {3, 1}), a = randomTensor(dt, {4}),
           b = randomTensor(dt, {3, 4});
    expectClose(
        run("where", {c, a, strided(b)}), {3, 4},
        [&](const Shape &i) { return atBroadcast(c, i) ? atBroadcast(a, i) : atBroadcast(b, i); },
        0, "where");
    Tensor x = randomTensor(dt, {2, 5});
    Tensor y = run("clip", {x, Tensor::scalarF64(-0.5), Tensor::scalarF64(0.7)});
    EXPECT_EQ(y.dtype(), dt);
    expectClose(
        y, {2, 5},
        [&](const Shape &i) {
          return (double)(dt == DType::F32 ? std::clamp((float)x.getF64(i), -0.5f, 0.7f)
                                           : std::clamp(x.getF64(i), -0.5, 0.7));
        },
        0, "clip");
  }
  Tensor x = Tensor::fromVector<double>(DType::F64, {-1.7, 2.2, 0.0});
  Tensor i = run("cast", {strided(x)}, Attrs{{"dtype", DType::I32}});
  EXPECT_EQ(i.dtype(), DType::I32);
  EXPECT_EQ(i.getI64({0}), -1);
  EXPECT_EQ(run("cast", {x}, Attrs{{"dtype", DType::Bool}}).getI64({2}), 0);
}

// --- reductions --------------------------------------------------------------------------

/// Reference reduction of x over `axes` (empty = all), folding with `f` from `init`.
Tensor reduceRef(const Tensor &x, std::vector<int64_t> axes, bool keepdims,
                 const std::function<double(const std::vector<double> &)> &f) {
  int64_t r = x.rank();
  std::vector<bool> red(r, axes.empty());
  for (int64_t a : axes)
    red[a < 0 ? a + r : a] = true;
  Shape out;
  for (int64_t d = 0; d < r; ++d)
    if (!red[d])
      out.push_back(x.dim(d));
    else if (keepdims)
      out.push_back(1);
  Tensor res = Tensor::empty(DType::F64, out);
  for (int64_t o = 0; o < res.numel(); ++o) {
    Shape oi = unravel(o, out);
    std::vector<double> vals;
    for (int64_t i = 0; i < x.numel(); ++i) {
      Shape xi = unravel(i, x.shape());
      bool match = true;
      size_t k = 0;
      for (int64_t d = 0; d < r && match; ++d) {
        if (!red[d])
          match = xi[d] == oi[k++];
        else if (keepdims)
          ++k;
      }
      if (match)
        vals.push_back(x.getF64(xi));
    }
    res.data<double>()[o] = f(vals);
  }
  return res;
}

TEST(Reduce, AllReductionsOverAxesAgainstReference) {
  auto sum = [](const std::vector<double> &v) {
    double s = 0;
    for (double x : v)
      s += x;
    return s;
  };
  const std::vector<std::pair<const char *, std::function<double(const std::vector<double> &)>>>
      ops = {{"sum", sum},
             {"mean", [&](const std::vector<double> &v) { return sum(v) / v.size(); }},
             {"max",
              [](const std::vector<double> &v) { return *std::max_element(v.begin(), v.end()); }},
             {"min",
              [](const std::vector<double> &v) { return *std::min_element(v.begin(), v.end()); }},
             {"logsumexp",
              [](const std::vector<double> &v) {
                double s = 0;
                for (double x : v)
                  s += std::exp(x);
                return std::log(s);
              }},
             {"norm", [](const std::vector<double> &v) {
                double s = 0;
                for (double x : v)
                  s += x * x;
                return std::sqrt(s);
              }}};
  const std::vector<std::vector<int64_t>> axesSets = {{}, {0}, {1}, {-1}, {0, 2}, {2, 0, 1}};
  for (auto &[op, f] : ops)
    for (DType dt : {DType::F32, DType::F64})
      for (auto &axes : axesSets)
        for (bool keep : {false, true})
          for (bool view : {false, true}) {
            Tensor x = randomTensor(dt, {3, 4, 5});
            if (view)
              x = strided(x);
            Tensor want = reduceRef(x, axes, keep, f);
            Tensor got = run(op, {x}, axesAttrs(axes, keep));
            EXPECT_EQ(got.dtype(), dt);
            expectClose(
                got, want.shape(), [&](const Shape &i) { return want.getF64(i); }, tolFor(dt) * 10,
                std::string(op) + " axes " + shapeString(axes));
          }
}

TEST(Reduce, IntegerSumsAndEmptyTensors) {
  Tensor x = Tensor::fromVector<int32_t>(DType::I32, {1, 2, 3, 4}, {2, 2});
  Tensor s = run("sum", {x}, axesAttrs({0}, false));
  EXPECT_EQ(s.dtype(), DType::I64);
  EXPECT_EQ(s.getI64({1}), 6);
  EXPECT_EQ(run("mean", {x}).dtype(), DType::F32);
  Tensor e = Tensor::zeros(DType::F32, {0, 3});
  EXPECT_EQ(run("sum", {e}).item(), 0.0);
  EXPECT_EQ(run("sum", {e}, axesAttrs({0}, false)).shape(), (Shape{3}));
  EXPECT_EQ(run("max", {e}, axesAttrs({1}, false)).shape(), (Shape{0}));
  std::vector<Value> outs;
  EXPECT_FALSE(callKernel("max", {Value(e)}, {}, outs).ok());
  EXPECT_FALSE(callKernel("sum", {Value(e)}, axesAttrs({2}, false), outs).ok());
}

TEST(Reduce, LogsumexpIsStable) {
  Tensor x = Tensor::fromVector<float>(DType::F32, {1000, 1000, -INFINITY});
  EXPECT_NEAR(run("logsumexp", {x}).item(), 1000 + std::log(2.0), 1e-3);
}

TEST(Reduce, ArgmaxFirstOfTies) {
  Tensor x = Tensor::fromVector<double>(DType::F64, {1, 5, 5, 2, 9, 0}, {2, 3});
  Tensor a = run("argmax", {x}, Attrs{{"axis", int64_t(1)}});
  EXPECT_EQ(a.dtype(), DType::I64);
  EXPECT_EQ(a.getI64({0}), 1);
  EXPECT_EQ(a.getI64({1}), 1);
  EXPECT_EQ(run("argmax", {x}).itemI64(), 4);
  EXPECT_EQ(run("argmax", {strided(x)}, Attrs{{"axis", int64_t(0)}, {"keepdims", true}}).shape(),
            (Shape{1, 3}));
  EXPECT_EQ(run("argmax", {x.transpose()}, Attrs{{"axis", int64_t(0)}}).getI64({1}), 1);
}

TEST(Reduce, SumToInvertsBroadcasting) {
  for (DType dt : {DType::F32, DType::F64}) {
    Tensor g = randomTensor(dt, {2, 3, 4});
    for (Shape target :
         {Shape{4}, Shape{3, 1}, Shape{1, 3, 4}, Shape{}, Shape{2, 1, 1}, Shape{2, 3, 4}}) {
      Tensor got = run("sum_to", {g}, Attrs{{"shape", target}});
      // <sum_to(g), t> = <g, broadcast(t)> for every t.
      Tensor t = randomTensor(dt, target);
      double lhs = 0, rhs = 0;
      for (int64_t i = 0; i < t.numel(); ++i)
        lhs += got.getF64(unravel(i, target)) * t.getF64(unravel(i, target));
      for (int64_t i = 0; i < g.numel(); ++i)
        rhs += g.getF64(unravel(i, g.shape())) * atBroadcast(t, unravel(i, g.shape()));
      EXPECT_NEAR(lhs, rhs, 1e-4) << shapeString(target);
      EXPECT_EQ(got.shape(), target);
    }
  }
  std::vector<Value> outs;
  EXPECT_FALSE(callKernel("sum_to", {Value(Tensor::zeros(DType::F32, {3}))},
                          Attrs{{"shape", Shape{2}}}, outs)
                   .ok());
}

TEST(Reduce, MaxGradRoutesToTheFirstArgmax) {
  Tensor x = Tensor::fromVector<double>(DType::F64, {1, 7, 7, 3, 0, -1}, {2, 3});
  Tensor g = Tensor::fromVector<double>(DType::F64, {10, 20});
  Tensor dx = run("max_grad", {x, g}, axesAttrs({1}, false));
  std::vector<double> want = {0, 10, 0, 20, 0, 0};
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(dx.data<double>()[i], want[i]);
  Tensor dmin = run("min_grad", {x.transpose(), g}, axesAttrs({0}, true));
  EXPECT_EQ(dmin.shape(), (Shape{3, 2}));
  EXPECT_EQ(dmin.getF64({0, 0}), 10);
  EXPECT_EQ(dmin.getF64({2, 1}), 20);
}

// --- matmul ------------------------------------------------------------------------------

Tensor matmulRef(const Tensor &a, const Tensor &b) {
  // Both at least 2-D here; batch dims broadcast.
  Shape ba(a.shape().begin(), a.shape().end() - 2), bb(b.shape().begin(), b.shape().end() - 2);
  size_t r = std::max(ba.size(), bb.size());
  Shape batch(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t x = i < r - ba.size() ? 1 : ba[i - (r - ba.size())];
    int64_t y = i < r - bb.size() ? 1 : bb[i - (r - bb.size())];
    batch[i] = std::max(x, y);
  }
  int64_t m = a.dim(a.rank() - 2), k = a.dim(a.rank() - 1), n = b.dim(b.rank() - 1);
  Shape out = batch;
  out.push_back(m);
  out.push_back(n);
  Tensor res = Tensor::zeros(DType::F64, out);
  for (int64_t o = 0; o < res.numel(); ++o) {
    Shape oi = unravel(o, out);
    double s = 0;
    for (int64_t p = 0; p < k; ++p) {
      Shape ai = oi, bi = oi;
      ai[r + 1] = p;
      bi[r] = p;
      s += atBroadcast(a, ai) * atBroadcast(b, bi);
    }
    res.data<double>()[o] = s;
  }
  return res;
}

TEST(Matmul, ShapesLayoutsAndDTypes) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{3, 4}, {4, 5}}, {{2, 3, 4}, {4, 5}}, {{2, 1, 3, 4}, {5, 4, 6}}, {{1, 4}, {4, 1}},
      {{0, 4}, {4, 3}}, {{3, 0}, {0, 2}},    {{4, 3, 2}, {4, 2, 5}},    {{1, 1, 1}, {3, 1, 2}}};
  for (DType dt : {DType::F32, DType::F64, DType::I64, DType::I32})
    for (auto &[sa, sb] : cases)
      for (bool view : {false, true}) {
        Tensor a = randomTensor(dt, sa), b = randomTensor(dt, sb);
        if (view) {
          a = strided(a);
          b = strided(b);
        }
        Tensor got = run("matmul", {a, b});
        EXPECT_EQ(got.dtype(), dt);
        Tensor want = matmulRef(a, b);
        expectClose(
            got, want.shape(), [&](const Shape &i) { return want.getF64(i); }, tolFor(dt) * 20,
            "matmul " + shapeString(sa) + " @ " + shapeString(sb));
      }
}

TEST(Matmul, TransposedViewsGoStraightToBlas) {
  for (DType dt : {DType::F32, DType::F64}) {
    Tensor x = randomTensor(dt, {7, 5}), w = randomTensor(dt, {3, 5});
    Tensor got = run("matmul", {x, w.transpose()});
    Tensor want = matmulRef(x, w.transpose().contiguous());
    expectClose(
        got, {7, 3}, [&](const Shape &i) { return want.getF64(i); }, tolFor(dt) * 20, "x @ w.T");
    Tensor got2 = run("matmul", {x.transpose(), randomTensor(dt, {7, 2})});
    EXPECT_EQ(got2.shape(), (Shape{5, 2}));
  }
}

TEST(Matmul, VectorsAndDot) {
  Tensor v = Tensor::fromVector<double>(DType::F64, {1, 2, 3});
  Tensor m = Tensor::fromVector<double>(DType::F64, {1, 0, 0, 1, 1, 1}, {3, 2});
  EXPECT_EQ(run("matmul", {v, m}).shape(), (Shape{2}));
  EXPECT_EQ(run("matmul", {v, m}).getF64({1}), 5.0);
  EXPECT_EQ(run("matmul", {m.transpose(), v}).shape(), (Shape{2}));
  Tensor d = run("dot", {v, v});
  EXPECT_EQ(d.rank(), 0);
  EXPECT_EQ(d.item(), 14.0);
  std::vector<Value> outs;
  Status s = callKernel(
      "matmul",
      {Value(Tensor::zeros(DType::F32, {3, 4})), Value(Tensor::zeros(DType::F32, {5, 2}))}, {},
      outs);
  EXPECT_EQ(s.message(), "cannot multiply f32[3, 4] by f32[5, 2]: inner dimensions 4 and 5 differ");
  EXPECT_FALSE(callKernel("dot", {Value(v), Value(Tensor::zeros(DType::F64, {4}))}, {}, outs).ok());
}

// --- shape ops ---------------------------------------------------------------------------

TEST(Shape, SliceFollowsPython) {
  Tensor x = Tensor::fromVector<int64_t>(DType::I64, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto slice = [&](int64_t b, int64_t e, int64_t s) {
    Tensor t = run("slice", {x}, Attrs{{"begin", Shape{b}}, {"end", Shape{e}}, {"step", Shape{s}}});
    std::vector<int64_t> v;
    for (int64_t i = 0; i < t.numel(); ++i)
      v.push_back(t.getI64({i}));
    return v;
  };
  EXPECT_EQ(slice(2, 5, 1), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(slice(-3, kSliceToEnd, 1), (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(slice(kSliceToEnd, kSliceToEnd, -1),
            (std::vector<int64_t>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(slice(8, 2, -3), (std::vector<int64_t>{8, 5}));
  EXPECT_EQ(slice(-100, 100, 4), (std::vector<int64_t>{0, 4, 8}));
  EXPECT_EQ(slice(5, 2, 1), (std::vector<int64_t>{}));
  // Dynamic bounds come from operands; 2-D slices are views.
  Tensor m = randomTensor(DType::F32, {4, 6});
  Tensor s = run("slice", {m, Tensor::scalarI64(1)},
                 Attrs{{"begin", Shape{kDynamicDim, 0}},
                       {"end", Shape{kSliceToEnd, kSliceToEnd}},
                       {"step", Shape{1, 2}}});
  EXPECT_EQ(s.shape(), (Shape{3, 3}));
  EXPECT_EQ(s.buffer(), m.buffer());
  EXPECT_EQ(s.getF64({2, 1}), m.getF64({3, 2}));
  std::vector<Value> outs;
  EXPECT_FALSE(callKernel("slice", {Value(x)}, Attrs{{"step", Shape{0}}}, outs).ok());
}

TEST(Shape, SliceGradIsTheAdjointOfSlice) {
  Tensor x = randomTensor(DType::F64, {5, 4});
  Attrs a{{"begin", Shape{1, kSliceToEnd}}, {"end", Shape{kSliceToEnd, 0}}, {"step", Shape{2, -1}}};
  Tensor y = run("slice", {x}, a);
  Tensor g = randomTensor(DType::F64, y.shape());
  Attrs ga = a;
  ga.set("input_shape", Shape{5, 4});
  Tensor dx = run("slice_grad", {g}, ga);
  double lhs = 0, rhs = 0;
  for (int64_t i = 0; i < y.numel(); ++i)
    lhs += y.getF64(unravel(i, y.shape())) * g.getF64(unravel(i, y.shape()));
  for (int64_t i = 0; i < x.numel(); ++i)
    rhs += x.getF64(unravel(i, x.shape())) * dx.getF64(unravel(i, x.shape()));
  EXPECT_NEAR(lhs, rhs, 1e-12);
}

TEST(Shape, IndexIsBoundsChecked) {
  Tensor x = Tensor::fromVector<double>(DType::F64, {0, 1, 2, 3, 4, 5}, {3, 2});
  Tensor r = run("index", {x, Tensor::scalarI64(-1)}, Attrs{{"axis", int64_t(0)}});
  EXPECT_EQ(r.shape(), (Shape{2}));
  EXPECT_EQ(r.getF64({0}), 4.0);
  EXPECT_EQ(r.buffer(), x.buffer());
  Tensor c = run("index", {x, Tensor::scalarI64(1)}, Attrs{{"axis", int64_t(1)}});
  EXPECT_EQ(c.getF64({2}), 5.0);
  Tensor gather = run("index", {x, Tensor::fromVector<int64_t>(DType::I64, {2, 0, 2})},
                      Attrs{{"axis", int64_t(0)}});
  EXPECT_EQ(gather.shape(), (Shape{3, 2}));
  EXPECT_EQ(gather.getF64({2, 1}), 5.0);
  std::vector<Value> outs;
  Status s = callKernel("index", {Value(x), Value(Tensor::scalarI64(3))},
                        Attrs{{"axis", int64_t(0)}}, outs);
  EXPECT_EQ(s.message(), "index 3 is out of range for axis 0 with size 3");
  EXPECT_FALSE(callKernel("index", {Value(x), Value(Tensor::scalarI64(-4))}, {}, outs).ok());
  EXPECT_FALSE(callKernel("index", {Value(x), Value(Tensor::scalarF64(1))}, {}, outs).ok());
}

TEST(Shape, IndexGradAccumulatesRepeats) {
  Tensor g = Tensor::fromVector<float>(DType::F32, {1, 2, 3, 4, 5, 6}, {3, 2});
  Tensor i = Tensor::fromVector<int64_t>(DType::I64, {1, -3, 1});
  Tensor dx = run("index_grad", {g, i}, Attrs{{"axis", int64_t(0)}, {"input_shape", Shape{3, 2}}});
  std::vector<double> want = {3, 4, 6, 8, 0, 0};
  for (int64_t k = 0; k < 6; ++k)
    EXPECT_EQ(dx.data<float>()[k], want[k]);
  Tensor d0 =
      run("index_grad", {Tensor::fromVector<float>(DType::F32, {7, 8}), Tensor::scalarI64(2)},
          Attrs{{"axis", int64_t(0)}, {"input_shape", Shape{3, 2}}});
  EXPECT_EQ(d0.getF64({2, 1}), 8.0);
}

TEST(Shape, ConcatStackSplit) {
  for (DType dt : {DType::F32, DType::I64}) {
    Tensor a = randomTensor(dt, {2, 3}), b = randomTensor(dt, {2, 1}), c = randomTensor(dt, {2, 0});
    Tensor cat = run("concat", {a, strided(b), c}, Attrs{{"axis", int64_t(-1)}});
    EXPECT_EQ(cat.shape(), (Shape{2, 4}));
    EXPECT_EQ(cat.getF64({1, 3}), b.getF64({1, 0}));
    EXPECT_EQ(cat.getF64({1, 2}), a.getF64({1, 2}));
    Tensor st = run("stack", {a, a.transpose().transpose()}, Attrs{{"axis", int64_t(1)}});
    EXPECT_EQ(st.shape(), (Shape{2, 2, 3}));
    EXPECT_EQ(st.getF64({1, 1, 2}), a.getF64({1, 2}));
    auto parts = runAll("split", {cat}, Attrs{{"axis", int64_t(1)}, {"sizes", Shape{1, 0, 3}}});
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[2].tensor().shape(), (Shape{2, 3}));
    EXPECT_EQ(parts[2].tensor().getF64({0, 2}), cat.getF64({0, 3}));
    auto chunks = runAll("split", {cat}, Attrs{{"axis", int64_t(1)}, {"chunks", int64_t(3)}});
    EXPECT_EQ(chunks.size(), 2u);
  }
  EXPECT_EQ(run("concat", {randomTensor(DType::I32, {2}), randomTensor(DType::F64, {1})}).dtype(),
            DType::F64);
  std::vector<Value> outs;
  Status s = callKernel(
      "concat",
      {Value(Tensor::zeros(DType::F32, {2, 3})), Value(Tensor::zeros(DType::F32, {3, 3}))},
      Attrs{{"axis", int64_t(1)}}, outs);
  EXPECT_EQ(s.message(), "'concat': cannot join f32[2, 3] with f32[3, 3] along axis 1");
  EXPECT_FALSE(callKernel("split", {Value(Tensor::zeros(DType::F32, {4}))},
                          Attrs{{"sizes", Shape{1, 2}}}, outs)
                   .ok());
}

// concat of contiguous operands of one dtype copies whole blocks (memcpy per index before the
// axis); it must place every element where the strided copy of a non-contiguous operand does.
TEST(Shape, ConcatContiguousBlocksMatchStridedCopy) {
  for (int64_t axis : {0, 1, 2}) {
    Shape sa{2, 3, 4}, sb{2, 3, 4}, sc{2, 3, 4};
    sb[axis] = 1;
    sc[axis] = 2;
    Tensor a = randomTensor(DType::F32, sa), b = randomTensor(DType::F32, sb),
           c = randomTensor(DType::F32, sc);
    Tensor fast = run("concat", {a, b, c}, Attrs{{"axis", axis}});
    Tensor slow = run("concat", {a, strided(b), c}, Attrs{{"axis", axis}});
    ASSERT_EQ(fast.shape(), slow.shape());
    for (int64_t k = 0; k < fast.numel(); ++k)
      EXPECT_EQ(fast.data<float>()[k], slow.data<float>()[k]);
  }
}

TEST(Shape, ReshapeTransposeSqueezeExpand) {
  Tensor x = randomTensor(DType::F32, {2, 3, 4});
  EXPECT_EQ(run("reshape", {x}, Attrs{{"shape", Shape{4, -1}}}).shape(), (Shape{4, 6}));
  EXPECT_EQ(
      run("reshape", {x, Tensor::scalarI64(6)}, Attrs{{"shape", Shape{kDynamicDim, -1}}}).shape(),
      (Shape{6, 4}));
  Tensor t = run("transpose", {x}, Attrs{{"perm", Shape{2, 0, 1}}});
  EXPECT_EQ(t.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(t.getF64({3, 1, 2}), x.getF64({1, 2, 3}));
  EXPECT_EQ(run("reshape", {t}, Attrs{{"shape", Shape{-1}}}).getF64({1}), x.getF64({0, 1, 0}));
  Tensor e = run("expand_dims", {x}, Attrs{{"axis", int64_t(-1)}});
  EXPECT_EQ(e.shape(), (Shape{2, 3, 4, 1}));
  EXPECT_EQ(run("squeeze", {e}).shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(run("squeeze", {e}, Attrs{{"axis", int64_t(3)}}).shape(), (Shape{2, 3, 4}));
  std::vector<Value> outs;
  EXPECT_FALSE(callKernel("squeeze", {Value(x)}, Attrs{{"axis", int64_t(0)}}, outs).ok());
  Tensor b = run("broadcast_to", {Tensor::fromVector<float>(DType::F32, {1, 2, 3})},
                 Attrs{{"shape", Shape{2, 3}}});
  EXPECT_EQ(b.getF64({1, 2}), 3.0);
  Tensor so = run("shape_of", {x});
  EXPECT_EQ(so.dtype(), DType::I64);
  EXPECT_EQ(so.getI64({2}), 4);
  EXPECT_EQ(run("zeros", {so}).shape(), (Shape{2, 3, 4})); // a shape tensor as the dims operand
}

// --- nn ----------------------------------------------------------------------------------

double dotAll(const Tensor &a, const Tensor &b) {
  double s = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    s += a.getF64(unravel(i, a.shape())) * b.getF64(unravel(i, b.shape()));
  return s;
}

/// Central-difference J t for y = f(x) in f64.
Tensor jvp(const std::function<Tensor(const Tensor &)> &f, const Tensor &x, const Tensor &t) {
  double eps = 1e-6;
  Tensor xp = run("add", {x, run("mul", {t, Tensor::scalarF64(eps)})});
  Tensor xm = run("sub", {x, run("mul", {t, Tensor::scalarF64(eps)})});
  return run("div", {run("sub", {f(xp), f(xm)}), Tensor::scalarF64(2 * eps)});
}

/// <J t, c> == <t, J^T c> with J^T c from the backward kernel.
void checkVjp(const std::function<Tensor(const Tensor &)> &f, const Tensor &x,
              const std::function<Tensor(const Tensor &)> &vjp, const std::string &what) {
  Tensor t = randomTensor(DType::F64, x.shape()), c = randomTensor(DType::F64, f(x).shape());
  double lhs = dotAll(jvp(f, x, t), c), rhs = dotAll(t, vjp(c));
  EXPECT_NEAR(lhs, rhs, 1e-6 * std::max(1.0, std::fabs(lhs))) << what;
}

TEST(NN, SoftmaxAndLogSoftmax) {
  for (DType dt : {DType::F32, DType::F64})
    for (int64_t axis : {0, 1, -1}) {
      Tensor x = randomTensor(dt, {3, 5}, -5, 5);
      Tensor lse = run("logsumexp", {x.to(DType::F64)}, axesAttrs({axis}, true));
      Tensor sm = run("softmax", {strided(x)}, Attrs{{"axis", axis}});
      Tensor lsm = run("log_softmax", {x}, Attrs{{"axis", axis}});
      expectClose(
          sm, {3, 5}, [&](const Shape &i) { return std::exp(x.getF64(i) - atBroadcast(lse, i)); },
          tolFor(dt) * 10, "softmax");
      expectClose(
          lsm, {3, 5}, [&](const Shape &i) { return x.getF64(i) - atBroadcast(lse, i); },
          tolFor(dt) * 10, "log_softmax");
    }
  Tensor big = Tensor::fromVector<float>(DType::F32, {1000, 0, -1000});
  Tensor s = run("softmax", {big});
  EXPECT_EQ(s.getF64({0}), 1.0);
  EXPECT_FALSE(std::isnan(run("log_softmax", {big}).getF64({2})));
}

TEST(NN, SoftmaxGradsSatisfyTheVjpIdentity) {
  Tensor x = randomTensor(DType::F64, {4, 3});
  for (int64_t axis : {0, 1}) {
    Attrs a{{"axis", axis}};
    checkVjp([&](const Tensor &v) { return run("softmax", {v}, a); }, x,
             [&](const Tensor &c) {
               return run("softmax_grad", {run("softmax", {x}, a), c}, a);
             },
             "softmax_grad");
    checkVjp([&](const Tensor &v) { return run("log_softmax", {v}, a); }, x,
             [&](const Tensor &c) {
               return run("log_softmax_grad", {run("log_softmax", {x}, a), c}, a);
             },
             "log_softmax_grad");
  }
}

TEST(NN, ActivationGrads) {
  Tensor x = randomTensor(DType::F64, {11});
  checkVjp([](const Tensor &v) { return run("tanh", {v}); }, x,
           [&](const Tensor &c) {
             return run("tanh_grad", {run("tanh", {x}), c});
           },
           "tanh_grad");
  checkVjp([](const Tensor &v) { return run("sigmoid", {v}); }, x,
           [&](const Tensor &c) {
             return run("sigmoid_grad", {run("sigmoid", {x}), c});
           },
           "sigmoid_grad");
  checkVjp([](const Tensor &v) { return run("relu", {v}); }, x,
           [&](const Tensor &c) {
             return run("relu_grad", {x, c});
           },
           "relu_grad");
  EXPECT_EQ(
      run("relu_grad", {randomTensor(DType::F32, {3}), Tensor::zeros(DType::F32, {3})}).dtype(),
      DType::F32);
}

TEST(NN, CrossEntropyAndItsGrad) {
  for (DType dt : {DType::F32, DType::F64}) {
    Tensor logits = randomTensor(dt, {4, 5}, -3, 3);
    Tensor labels = Tensor::fromVector<int64_t>(DType::I64, {0, 4, 2, 2});
    Tensor loss = run("cross_entropy", {logits, labels});
    EXPECT_EQ(loss.rank(), 0);
    EXPECT_EQ(loss.dtype(), dt);
    Tensor lse = run("logsumexp", {logits.to(DType::F64)}, axesAttrs({1}, false));
    double want = 0;
    for (int64_t i = 0; i < 4; ++i)
      want += lse.getF64({i}) - logits.getF64({i, labels.getI64({i})});
    EXPECT_NEAR(loss.item(), want / 4, tolFor(dt) * 10);
  }
  Tensor x = randomTensor(DType::F64, {3, 4});
  Tensor labels = Tensor::fromVector<int64_t>(DType::I64, {3, 0, 1});
  checkVjp(
      [&](const Tensor &v) {
        return run("cross_entropy", {v, labels});
      },
      x,
      [&](const Tensor &c) {
        return run("cross_entropy_grad", {x, labels, c});
      },
      "cross_entropy_grad");
  std::vector<Value> outs;
  Status s =
      callKernel("cross_entropy",
                 {Value(x), Value(Tensor::fromVector<int64_t>(DType::I64, {0, 4, 1}))}, {}, outs);
  EXPECT_EQ(s.message(), "label 4 at row 1 is out of range for 4 classes");
}

TEST(NN, Mse) {
  Tensor a = randomTensor(DType::F32, {3, 4}), b = randomTensor(DType::F32, {4});
  double want = 0;
  for (int64_t i = 0; i < 12; ++i) {
    Shape idx = unravel(i, {3, 4});
    want += std::pow(a.getF64(idx) - atBroadcast(b, idx), 2) / 12;
  }
  EXPECT_NEAR(run("mse", {a, b}).item(), want, 1e-5);
}

Tensor conv2dRef(const Tensor &x, const Tensor &w, int64_t s, int64_t p) {
  int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), wd = x.dim(3), o = w.dim(0), kh = w.dim(2),
          kw = w.dim(3);
  int64_t oh = (h + 2 * p - kh) / s + 1, ow = (wd + 2 * p - kw) / s + 1;
  Tensor out = Tensor::zeros(DType::F64, {n, o, oh, ow});
  for (int64_t b = 0; b < n; ++b)
    for (int64_t f = 0; f < o; ++f)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t z = 0; z < ow; ++z) {
          double acc = 0;
          for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                int64_t yy = y * s - p + i, zz = z * s - p + j;
                if (yy >= 0 && yy < h && zz >= 0 && zz < wd)
                  acc += x.getF64({b, ch, yy, zz}) * w.getF64({f, ch, i, j});
              }
          out.data<double>()[((b * o + f) * oh + y) * ow + z] = acc;
        }
  return out;
}

TEST(NN, Conv2dForwardAndGradients) {
  for (DType dt : {DType::F32, DType::F64})
    for (auto [s, p] : {std::pair<int64_t, int64_t>{1, 0}, {2, 1}, {1, 2}}) {
      Tensor x = randomTensor(dt, {2, 3, 7, 6}), w = randomTensor(dt, {4, 3, 3, 2});
      Attrs a{{"stride", s}, {"padding", p}};
      Tensor got = run("conv2d", {x, w}, a);
      Tensor want = conv2dRef(x, w, s, p);
      expectClose(
          got, want.shape(), [&](const Shape &i) { return want.getF64(i); }, tolFor(dt) * 20,
          "conv2d");
      // conv2d is bilinear: <conv(x, w), g> = <x, grad_input(g, w)> = <w, grad_weight(x, g)>.
      Tensor g = randomTensor(dt, got.shape());
      Attrs ai = a, aw = a;
      ai.set("input_shape", x.shape());
      aw.set("weight_shape", w.shape());
      Tensor dx = run("conv2d_grad_input", {g, w}, ai), dw = run("conv2d_grad_weight", {x, g}, aw);
      double base = dotAll(got, g);
      EXPECT_NEAR(dotAll(x, dx), base, 1e-3 * std::max(1.0, std::fabs(base)));
      EXPECT_NEAR(dotAll(w, dw), base, 1e-3 * std::max(1.0, std::fabs(base)));
    }
  // Several GEMM chunks (8M im2col entries: 2 images each) and an odd remainder.
  Tensor x = randomTensor(DType::F64, {3, 64, 70, 70}), w = randomTensor(DType::F64, {1, 64, 3, 3});
  Attrs a{{"stride", int64_t(1)}, {"padding", int64_t(1)}};
  Tensor got = run("conv2d", {x, w}, a), want = conv2dRef(x, w, 1, 1);
  expectClose(
      got, want.shape(), [&](const Shape &i) { return want.getF64(i); }, 1e-11, "conv2d chunks");
  Tensor g = randomTensor(DType::F64, got.shape());
  Attrs ai = a, aw = a;
  ai.set("input_shape", x.shape());
  aw.set("weight_shape", w.shape());
  double base = dotAll(got, g);
  EXPECT_NEAR(dotAll(x, run("conv2d_grad_input", {g, w}, ai)), base, 1e-9 * std::fabs(base));
  EXPECT_NEAR(dotAll(w, run("conv2d_grad_weight", {x, g}, aw)), base, 1e-9 * std::fabs(base));
  std::vector<Value> outs;
  Status s = callKernel("conv2d",
                        {Value(Tensor::zeros(DType::F32, {1, 2, 5, 5})),
                         Value(Tensor::zeros(DType::F32, {3, 4, 3, 3}))},
                        {}, outs);
  EXPECT_EQ(s.message(), "'conv2d': input has 2 channels but the weight expects 4");
  EXPECT_FALSE(callKernel("conv2d",
                          {Value(Tensor::zeros(DType::F32, {1, 1, 2, 2})),
                           Value(Tensor::zeros(DType::F32, {1, 1, 3, 3}))},
                          {}, outs)
                   .ok());
}

TEST(NN, PoolingForwardAndGradients) {
  for (DType dt : {DType::F32, DType::F64}) {
    Tensor x = randomTensor(dt, {2, 3, 5, 4});
    Tensor mp = run("max_pool2d", {strided(x)}, Attrs{{"k", int64_t(2)}});
    Tensor ap = run("avg_pool2d", {x}, Attrs{{"k", int64_t(2)}});
    EXPECT_EQ(mp.shape(), (Shape{2, 3, 2, 2}));
    expectClose(
        mp, mp.shape(),
        [&](const Shape &i) {
          double m = -INFINITY;
          for (int64_t a = 0; a < 2; ++a)
            for (int64_t b = 0; b < 2; ++b)
              m = std::max(m, x.getF64({i[0], i[1], i[2] * 2 + a, i[3] * 2 + b}));
          return m;
        },
        0, "max_pool2d");
    expectClose(
        ap, ap.shape(),
        [&](const Shape &i) {
          double m = 0;
          for (int64_t a = 0; a < 2; ++a)
            for (int64_t b = 0; b < 2; ++b)
              m += x.getF64({i[0], i[1], i[2] * 2 + a, i[3] * 2 + b}) / 4;
          return m;
        },
        tolFor(dt) * 10, "avg_pool2d");
  }
  Tensor x = randomTensor(DType::F64, {1, 2, 6, 6});
  Attrs k{{"k", int64_t(3)}};
  checkVjp([&](const Tensor &v) { return run("max_pool2d", {v}, k); }, x,
           [&](const Tensor &c) {
             return run("max_pool2d_grad", {x, c}, k);
           },
           "max_pool2d_grad");
  Attrs ka = k;
  ka.set("input_shape", x.shape());
  checkVjp([&](const Tensor &v) { return run("avg_pool2d", {v}, k); }, x,
           [&](const Tensor &c) { return run("avg_pool2d_grad", {c}, ka); }, "avg_pool2d_grad");
}

/// NCHW -> NHWC copy, for the layout tests.
Tensor nhwcOf(const Tensor &t) { return t.transpose({0, 2, 3, 1}).contiguous(); }

/// Same shape, dtype and bytes.
void expectSameBits(const Tensor &got, const Tensor &want, const std::string &what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  Tensor g = got.contiguous(), w = want.contiguous();
  EXPECT_EQ(std::memcmp(g.rawData(), w.rawData(), g.numel() * g.elementSize()), 0) << what;
}

// The NHWC kernels (what compiler/opt/Layout.cpp rewrites conv chains to) against the NCHW
// ones on the same numbers: bit for bit (kernels/cpu/NN.cpp: a convolution runs the same
// native code in both layouts, transposing around it; pooling scans each window in the same
// order, ties and NaN included), so the layout pass never changes a program's output.
TEST(NN, NhwcLayoutMatchesNchw) {
  struct Case {
    Shape x, w;
    int64_t s, p;
  };
  const Case cases[] = {{{2, 3, 7, 6}, {4, 3, 3, 2}, 1, 0},
                        {{2, 3, 7, 6}, {4, 3, 3, 3}, 2, 1},
                        {{3, 16, 5, 5}, {24, 16, 1, 1}, 1, 0},    // 1x1
                        {{2, 8, 6, 6}, {4, 8, 1, 1}, 2, 0},       // 1x1, strided
                        {{2, 128, 62, 62}, {2, 128, 3, 3}, 1, 1}, // two chunks of one image
                        {{2, 16, 9, 9}, {32, 16, 3, 3}, 1, 1},  // runs natively in NHWC (runsNhwc)
                        {{3, 64, 5, 5}, {40, 64, 1, 1}, 1, 0}}; // 1x1 with 40 outputs: runs NCHW
  for (DType dt : {DType::F32, DType::F64})
    for (const Case &c : cases) {
      std::string what =
          shapeString(c.x) + " * " + shapeString(c.w) + " " + std::string(dtypeName(dt));
      Tensor x = randomTensor(dt, c.x), w = randomTensor(dt, c.w);
      Attrs a{{"stride", c.s}, {"padding", c.p}}, an = a;
      an.set("layout", std::string("NHWC"));
      Tensor want = run("conv2d", {x, w}, a), got = run("conv2d", {nhwcOf(x), w}, an);
      expectSameBits(got, nhwcOf(want), "conv2d NHWC " + what);
      Tensor bias = randomTensor(dt, {1, c.w[0], 1, 1});
      Attrs ab = a, abn = an;
      ab.set("relu", true);
      abn.set("relu", true);
      Tensor wantB = run("conv2d_bias", {x, w, bias}, ab);
      Tensor gotB = run("conv2d_bias", {nhwcOf(x), w, nhwcOf(bias)}, abn);
      expectSameBits(gotB, nhwcOf(wantB), "conv2d_bias NHWC " + what);

      Tensor g = randomTensor(dt, want.shape());
      Attrs ai = a, ain = an, aw = a, awn = an;
      ai.set("input_shape", x.shape());
      ain.set("input_shape", nhwcOf(x).shape());
      aw.set("weight_shape", w.shape());
      awn.set("weight_shape", w.shape());
      Tensor dx = run("conv2d_grad_input", {g, w}, ai),
             dxn = run("conv2d_grad_input", {nhwcOf(g), w}, ain);
      expectSameBits(dxn, nhwcOf(dx), "conv2d_grad_input NHWC " + what);
      Tensor dw = run("conv2d_grad_weight", {x, g}, aw),
             dwn = run("conv2d_grad_weight", {nhwcOf(x), nhwcOf(g)}, awn);
      expectSameBits(dwn, dw, "conv2d_grad_weight NHWC " + what);
      // Both native layouts (kernels/cpu/NN.cpp runsNhwc) against the reference and the
      // bilinear identity <conv(x, w), g> = <x, grad_input(g, w)> = <w, grad_weight(x, g)>.
      if (x.numel() < 100000) {
        Tensor ref = conv2dRef(x, w, c.s, c.p);
        expectClose(
            want, ref.shape(), [&](const Shape &i) { return ref.getF64(i); }, tolFor(dt) * 20,
            "conv2d " + what);
      }
      double base = dotAll(want, g);
      EXPECT_NEAR(dotAll(x, dx), base, 1e-3 * std::max(1.0, std::fabs(base))) << what;
      EXPECT_NEAR(dotAll(w, dw), base, 1e-3 * std::max(1.0, std::fabs(base))) << what;
    }

  // Pooling: rounded values make ties, one NaN tests that NaN wins in both layouts.
  Tensor x = randomTensor(DType::F32, {2, 3, 7, 6}, -3, 3);
  for (int64_t i = 0; i < x.numel(); ++i)
    x.data<float>()[i] = std::floor(x.data<float>()[i]);
  x.data<float>()[17] = NAN;
  for (const char *op : {"max_pool2d", "avg_pool2d"}) {
    Attrs k{{"k", int64_t(2)}}, kn = k;
    kn.set("layout", std::string("NHWC"));
    Tensor want = run(op, {x}, k), got = run(op, {nhwcOf(x)}, kn);
    expectSameBits(got, nhwcOf(want), op);
    Tensor g = randomTensor(DType::F32, want.shape());
    Tensor dx, dxn;
    if (std::string(op) == "max_pool2d") {
      dx = run("max_pool2d_grad", {x, g}, k);
      dxn = run("max_pool2d_grad", {nhwcOf(x), nhwcOf(g)}, kn);
    } else {
      k.set("input_shape", x.shape());
      kn.set("input_shape", nhwcOf(x).shape());
      dx = run("avg_pool2d_grad", {g}, k);
      dxn = run("avg_pool2d_grad", {nhwcOf(g)}, kn);
    }
    expectSameBits(dxn, nhwcOf(dx), std::string(op) + " gradient");
  }

  std::vector<Value> outs;
  Status s = callKernel("max_pool2d", {Value(x)},
                        Attrs{{"k", int64_t(2)}, {"layout", std::string("NWHC")}}, outs);
  EXPECT_EQ(s.message(), "'max_pool2d': layout must be \"NCHW\" or \"NHWC\", got \"NWHC\"");
  s = callKernel("conv2d",
                 {Value(Tensor::zeros(DType::F32, {1, 5, 5, 2})),
                  Value(Tensor::zeros(DType::F32, {3, 4, 3, 3}))},
                 Attrs{{"layout", std::string("NHWC")}}, outs);
  EXPECT_EQ(s.message(), "'conv2d': input has 2 channels but the weight expects 4");
}

TEST(NN, DropoutIsSeededAndScaled) {
  seed(7);
  Tensor x = Tensor::fromVector<float>(DType::F32, std::vector<float>(10000, 1.0f));
  auto outs = runAll("dropout", {x}, Attrs{{"p", 0.25}});
  ASSERT_EQ(outs.size(), 1u); // one result, as the registry declares
  Tensor y = outs[0].tensor();
  Tensor mask = run("ne", {y, Tensor::scalarF64(0.0)});
  int kept = 0;
  for (int64_t i = 0; i < 10000; ++i) {
    bool k = mask.data<bool>()[i];
    kept += k;
    EXPECT_FLOAT_EQ(y.data<float>()[i], k ? 1.0f / 0.75f : 0.0f);
  }
  EXPECT_NEAR(kept / 10000.0, 0.75, 0.02);
  seed(7);
  Tensor again = run("dropout", {x}, Attrs{{"p", 0.25}});
  EXPECT_EQ(std::memcmp(again.rawData(), y.rawData(), 40000), 0);
  Tensor g = run("dropout_grad", {x, mask}, Attrs{{"p", 0.25}});
  EXPECT_EQ(std::memcmp(g.rawData(), y.rawData(), 40000), 0);
  EXPECT_EQ(run("dropout", {x}, Attrs{{"p", 0.0}}).getF64({5}), 1.0);
}

// --- creation ----------------------------------------------------------------------------

TEST(Create, ShapesFromAttrsAndOperands) {
  Tensor z = run("zeros", {Tensor::scalarI64(3)},
                 Attrs{{"shape", Shape{kDynamicDim, 2}}, {"dtype", DType::I64}});
  EXPECT_EQ(z.typeString(), "i64[3, 2]");
  EXPECT_EQ(run("ones", {}, Attrs{{"shape", Shape{2}}}).getF64({1}), 1.0);
  Tensor f = run("full", {Tensor::scalarF64(2.5)}, Attrs{{"shape", Shape{2, 2}}});
  EXPECT_EQ(f.dtype(), DType::F32);
  EXPECT_EQ(f.getF64({1, 1}), 2.5);
  Tensor e = run("eye", {}, Attrs{{"n", int64_t(3)}, {"dtype", DType::F64}});
  EXPECT_EQ(e.getF64({1, 1}), 1.0);
  EXPECT_EQ(e.getF64({1, 2}), 0.0);
  Tensor a = run("arange", {Tensor::scalarI64(5)},
                 Attrs{{"shape", Shape{kDynamicDim}}, {"dtype", DType::I64}});
  EXPECT_EQ(a.getI64({4}), 4);
  Tensor c = run("const", {},
                 Attrs{{"value", std::vector<double>{1, 2, 3, 4}},
                       {"shape", Shape{2, 2}},
                       {"dtype", DType::F64}});
  EXPECT_EQ(c.getF64({1, 0}), 3.0);
  EXPECT_EQ(run("const", {}, Attrs{{"value", int64_t(3)}}).typeString(), "i64[]");
  EXPECT_EQ(run("const", {}, Attrs{{"value", 0.5}}).typeString(), "f64[]");
  std::vector<Value> outs;
  EXPECT_FALSE(callKernel("zeros", {}, Attrs{{"shape", Shape{-3}}}, outs).ok());
}

TEST(Create, RandomIsReproducible) {
  runAll("seed", {Tensor::scalarI64(123)});
  Tensor a = run("randn", {}, Attrs{{"shape", Shape{5, 7}}});
  Tensor u = run("rand", {}, Attrs{{"shape", Shape{9}}, {"dtype", DType::F64}});
  runAll("seed", {Tensor::scalarI64(123)});
  Tensor b = run("randn", {}, Attrs{{"shape", Shape{5, 7}}});
  Tensor v = run("rand", {}, Attrs{{"shape", Shape{9}}, {"dtype", DType::F64}});
  EXPECT_EQ(std::memcmp(a.rawData(), b.rawData(), 35 * 4), 0);
  EXPECT_EQ(std::memcmp(u.rawData(), v.rawData(), 9 * 8), 0);
  // Element i of a call uses word i % 4 of counter start + i / 4 (docs/runtime.md).
  seed(123);
  RandomRange r = reserveRandom(35);
  EXPECT_EQ(r.start, 0u);
  auto w = philox4x32(0, 123);
  double u1 = ((double)w[0] + 1.0) / 4294967296.0, u2 = w[1] / 4294967296.0;
  EXPECT_EQ(a.data<float>()[0], (float)(std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2)));
}

TEST(KernelTable, EveryOpOfTheVocabularyHasACpuKernel) {
  const char *ops[] = {"add",
                       "sub",
                       "mul",
                       "div",
                       "floordiv",
                       "mod",
                       "pow",
                       "maximum",
                       "minimum",
                       "eq",
                       "ne",
                       "lt",
                       "le",
                       "gt",
                       "ge",
                       "logical_and",
                       "logical_or",
                       "neg",
                       "abs",
                       "exp",
                       "log",
                       "sqrt",
                       "sin",
                       "cos",
                       "tanh",
                       "sigmoid",
                       "relu",
                       "logical_not",
                       "where",
                       "clip",
                       "cast",
                       "sum",
                       "mean",
                       "max",
                       "min",
                       "logsumexp",
                       "argmax",
                       "norm",
                       "matmul",
                       "dot",
                       "reshape",
                       "transpose",
                       "concat",
                       "stack",
                       "split",
                       "broadcast_to",
                       "slice",
                       "index",
                       "expand_dims",
                       "squeeze",
                       "sum_to",
                       "shape_of",
                       "softmax",
                       "log_softmax",
                       "cross_entropy",
                       "mse",
                       "conv2d",
                       "max_pool2d",
                       "avg_pool2d",
                       "dropout",
                       "const",
                       "zeros",
                       "ones",
                       "full",
                       "eye",
                       "arange",
                       "randn",
                       "rand",
                       "seed",
                       "relu_grad",
                       "sigmoid_grad",
                       "tanh_grad",
                       "softmax_grad",
                       "log_softmax_grad",
                       "cross_entropy_grad",
                       "conv2d_grad_input",
                       "conv2d_grad_weight",
                       "max_pool2d_grad",
                       "avg_pool2d_grad",
                       "slice_grad",
                       "index_grad",
                       "dropout_grad",
                       "max_grad",
                       "min_grad",
                       "print",
                       "save",
                       "load",
                       "assert"};
  for (const char *op : ops)
    EXPECT_NE(findKernel(op), nullptr) << op;
}

TEST(KernelTable, AssertFailsWithItsMessage) {
  std::vector<Value> outs;
  EXPECT_TRUE(callKernel("assert", {Value(Tensor::scalarBool(true))}, {}, outs).ok());
  Status s = callKernel("assert", {Value(Tensor::scalarBool(false))},
                        Attrs{{"message", std::string("loss is finite")}}, outs);
  EXPECT_EQ(s.message(), "assertion failed: loss is finite");
}

} // namespace

namespace {
/// The vectorised f32 exp/tanh/sigmoid stay within a few ulp of float64 over their whole range.
TEST(Elementwise, FastF32MathIsAccurateEverywhere) {
  std::vector<float> xs;
  for (float v = -110.0f; v <= 110.0f; v += 0.0137f)
    xs.push_back(v);
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-8f, 0.6249f, 0.6251f, 88.3f, 88.8f, -87.5f,
                  -103.0f, -120.0f, INFINITY, -INFINITY, NAN})
    xs.push_back(v);
  Tensor x = Tensor::fromVector<float>(DType::F32, xs);
  Tensor e = run("exp", {x}), t = run("tanh", {x}), s = run("sigmoid", {x});
  auto ulps = [](float got, double want) {
    if (std::isnan(want))
      return std::isnan(got) ? 0.0 : 1e9;
    if (std::isinf((float)want))
      return got == (float)want ? 0.0 : 1e9;
    double ulp = std::max(
        (double)std::nextafter((float)std::fabs(want), INFINITY) - std::fabs((float)want), 1.4e-45);
    return std::fabs(got - want) / ulp;
  };
  double worstE = 0, worstT = 0, worstS = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    double v = xs[i];
    worstE = std::max(worstE, ulps(e.data<float>()[i], std::exp(v)));
    worstT = std::max(worstT, ulps(t.data<float>()[i], std::tanh(v)));
    worstS = std::max(worstS, ulps(s.data<float>()[i], 1.0 / (1.0 + std::exp(-v))));
  }
  EXPECT_LE(worstE, 4.0);
  EXPECT_LE(worstT, 4.0);
  EXPECT_LE(worstS, 4.0);
}
} // namespace

namespace {
/// Gradient helpers whose input shape has symbolic dims take them from trailing operands.
TEST(Shape, GradShapesWithSymbolicDims) {
  Tensor g = Tensor::fromVector<float>(DType::F32, {1, 2}, Shape{1, 2});
  Tensor dx = run("index_grad", {g, Tensor::scalarI64(1), Tensor::scalarI64(3)},
                  Attrs{{"axis", int64_t(0)}, {"input_shape", Shape{kDynamicDim, 2}}});
  EXPECT_EQ(dx.shape(), (Shape{3, 2}));
  EXPECT_EQ(dx.getF64({1, 1}), 2.0);
  // slice_grad: the input's dims come before the dynamic bounds.
  Tensor sg = run(
      "slice_grad",
      {Tensor::fromVector<float>(DType::F32, {5, 6}), Tensor::scalarI64(4), Tensor::scalarI64(2)},
      Attrs{{"input_shape", Shape{kDynamicDim}},
            {"begin", Shape{kDynamicDim}},
            {"end", Shape{kSliceToEnd}},
            {"step", Shape{1}}});
  EXPECT_EQ(sg.shape(), (Shape{4}));
  EXPECT_EQ(sg.getF64({3}), 6.0);
  EXPECT_EQ(sg.getF64({1}), 0.0);
  Tensor ap = run("avg_pool2d_grad",
                  {run("ones", {}, Attrs{{"shape", Shape{1, 1, 1, 1}}}), Tensor::scalarI64(1)},
                  Attrs{{"k", int64_t(2)}, {"input_shape", Shape{kDynamicDim, 1, 2, 2}}});
  EXPECT_EQ(ap.getF64({0, 0, 1, 1}), 0.25);
}
} // namespace
