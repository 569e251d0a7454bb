//===- tests/embed/EntryTest.cpp - Defs compiled for a host, on both engines ===//
//
// compiler/driver/Entry.h below the public API: a def, its gradient and value_and_grad compiled
// as entry graphs and called on tensors, on the JIT and on the graph executor (which must
// agree), with symbolic dims from annotations, tuples, scalars, a run-time error and compile
// errors in the command line's words.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Entry.h"
#include "runtime/Tensor.h"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using namespace dlm;

const char *kModel = R"(def predict(w, b, x: Tensor[B, 3]):
    return x @ w + b

def loss(params, x: Tensor[B, 3], y: Tensor[B, 2]):
    w, b = params
    d = predict(w, b, x) - y
    return sum(d * d)

def scale(x, k: float, n: int):
    return x * k, n + 1

def pick(x: Tensor[N], i: int):
    return x[i]

print("the script itself never runs")
)";

EntrySpec call(const char *def) {
  EntrySpec spec;
  spec.def = def;
  return spec;
}

rt::Tensor tensor(std::vector<float> v, rt::Shape shape) {
  return rt::Tensor::fromVector(DType::F32, v, shape);
}

dlm_tensor *handle(const rt::Tensor &t) { return reinterpret_cast<dlm_tensor *>(t.get()); }

rt::Tensor adopt(dlm_tensor *t) { return rt::Tensor::adopt(reinterpret_cast<rt::TensorImpl *>(t)); }

class EntryTest : public ::testing::TestWithParam<EntryOptions::Engine> {
protected:
  void SetUp() override {
    std::string diagnostics;
    program = LoadedProgram::loadSources({{"model.dlm", kModel, 1}}, diagnostics);
    ASSERT_TRUE(program) << diagnostics;
    options.engine = GetParam();
    options.objectCache = false;
  }

  std::unique_ptr<EntryPoint> compile(const EntrySpec &spec, const std::vector<Type> &args) {
    std::string diagnostics;
    auto entry =
        program->compile(spec, LoadedProgram::paramTypes(*program->findDef(spec.def), args), {},
                         options, diagnostics);
    EXPECT_TRUE(entry) << diagnostics;
    return entry;
  }

  std::unique_ptr<LoadedProgram> program;
  EntryOptions options;
};

TEST_P(EntryTest, ListsDefsWithSignatures) {
  ASSERT_EQ(program->defs().size(), 4u);
  EXPECT_EQ(program->defs()[0].signature, "predict(w, b, x: Tensor[B, 3])");
  EXPECT_EQ(program->defs()[3].signature, "pick(x: Tensor[N], i: int)");
  EXPECT_EQ(program->defs()[1].line, 4u);
}

TEST_P(EntryTest, CallsADefWithASymbolicBatch) {
  Type w = Type::tensor(DType::F32, {Dim::fixed(3), Dim::fixed(2)});
  Type b = Type::tensor(DType::F32, {Dim::fixed(2)});
  Type x = Type::tensor(DType::F32, {Dim::fixed(4), Dim::fixed(3)});
  auto entry = compile(call("predict"), {w, b, x});
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->params[2].str(), "f32[B, 3]");
  EXPECT_EQ(entry->result.str(), "f32[B, 2]");
  rt::Tensor tw = tensor({1, 0, 0, 1, 1, 1}, {3, 2}), tb = tensor({10, 20}, {2});
  for (int64_t rows : {1, 5}) { // one compiled entry for every batch size
    std::vector<float> xs(rows * 3);
    for (size_t i = 0; i < xs.size(); ++i)
      xs[i] = float(i);
    rt::Tensor tx = tensor(xs, {rows, 3});
    dlm_tensor *args[] = {handle(tw), handle(tb), handle(tx)}, *out = nullptr;
    std::string error;
    ASSERT_TRUE(entry->call(args, &out, error)) << error;
    rt::Tensor y = adopt(out);
    ASSERT_EQ(y.shape(), (rt::Shape{rows, 2}));
    for (int64_t r = 0; r < rows; ++r) {
      EXPECT_EQ(y.getF64({r, 0}), xs[r * 3] + xs[r * 3 + 2] + 10);
      EXPECT_EQ(y.getF64({r, 1}), xs[r * 3 + 1] + xs[r * 3 + 2] + 20);
    }
  }
}

TEST_P(EntryTest, ValueAndGradOfATupleArgument) {
  Type w = Type::tensor(DType::F32, {Dim::fixed(3), Dim::fixed(2)});
  Type b = Type::tensor(DType::F32, {Dim::fixed(2)});
  Type x = Type::tensor(DType::F32, {Dim::fixed(1), Dim::fixed(3)});
  Type y = Type::tensor(DType::F32, {Dim::fixed(1), Dim::fixed(2)});
  EntrySpec spec{"loss", EntrySpec::Kind::ValueAndGrad, {0}, false};
  auto entry = compile(spec, {Type::tuple({w, b}), x, y});
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->result.str(), "(f32[], (f32[3, 2], f32[2]))");
  ASSERT_EQ(entry->numArgs, 4u);
  ASSERT_EQ(entry->numResults, 3u);
  rt::Tensor tw = tensor({1, 0, 0, 1, 1, 1}, {3, 2}), tb = tensor({0, 0}, {2});
  rt::Tensor tx = tensor({1, 2, 3}, {1, 3}), ty = tensor({1, 1}, {1, 2});
  dlm_tensor *args[] = {handle(tw), handle(tb), handle(tx), handle(ty)}, *out[3] = {};
  std::string error;
  ASSERT_TRUE(entry->call(args, out, error)) << error;
  rt::Tensor value = adopt(out[0]), gw = adopt(out[1]), gb = adopt(out[2]);
  // predict = [1 + 3, 2 + 3] = [4, 5]; d = [3, 4]; loss = 25; dL/db = 2d; dL/dw = x^T 2d.
  EXPECT_EQ(value.item(), 25.0);
  EXPECT_EQ(gb.getF64({0}), 6.0);
  EXPECT_EQ(gb.getF64({1}), 8.0);
  EXPECT_EQ(gw.getF64({2, 1}), 24.0);
}

TEST_P(EntryTest, ScalarsInAndOut) {
  Type x = Type::tensor(DType::F32, {Dim::fixed(2)});
  auto entry = compile(call("scale"), {x, Type::floatTy(), Type::intTy()});
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->result.str(), "(f32[2], int)");
  rt::Tensor tx = tensor({1, 2}, {2}), k = rt::Tensor::scalarF64(0.5),
             n = rt::Tensor::scalarI64(41);
  dlm_tensor *args[] = {handle(tx), handle(k), handle(n)}, *out[2] = {};
  std::string error;
  ASSERT_TRUE(entry->call(args, out, error)) << error;
  rt::Tensor scaled = adopt(out[0]), next = adopt(out[1]);
  EXPECT_EQ(scaled.getF64({1}), 1.0);
  EXPECT_EQ(next.dtype(), DType::I64);
  EXPECT_EQ(next.itemI64(), 42);
}

TEST_P(EntryTest, RunTimeErrorsPointIntoTheProgram) {
  Type x = Type::tensor(DType::F32, {Dim::fixed(3)});
  auto entry = compile(call("pick"), {x, Type::intTy()});
  ASSERT_TRUE(entry);
  rt::Tensor tx = tensor({1, 2, 3}, {3}), i = rt::Tensor::scalarI64(7);
  dlm_tensor *args[] = {handle(tx), handle(i)}, *out = nullptr;
  std::string error;
  ASSERT_FALSE(entry->call(args, &out, error));
  EXPECT_EQ(out, nullptr);
  EXPECT_NE(error.find("model.dlm:13:12: error: index 7 is out of range for axis 0 with size 3"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("    return x[i]\n"), std::string::npos) << error;
}

TEST_P(EntryTest, CompileErrorsInTheCommandLinesWords) {
  Type x = Type::tensor(DType::F32, {Dim::fixed(4), Dim::fixed(5)});
  Type w = Type::tensor(DType::F32, {Dim::fixed(3), Dim::fixed(2)});
  std::string diagnostics;
  auto entry = program->compile(call("predict"), {w, w, x}, {}, options, diagnostics);
  EXPECT_FALSE(entry);
  EXPECT_NE(diagnostics.find("error: argument 'x' of 'predict' does not match its annotation "
                             "Tensor[B, 3]: dim 1 is 5, expected 3"),
            std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("1 error generated"), std::string::npos) << diagnostics;
}

INSTANTIATE_TEST_SUITE_P(Engines, EntryTest,
                         ::testing::Values(EntryOptions::Engine::JIT, EntryOptions::Engine::Graph),
                         [](const auto &info) {
                           return info.param == EntryOptions::Engine::JIT ? "jit" : "graph";
                         });

TEST(LoadedProgram, ReportsCompileErrorsAsTheCommandLine) {
  std::string diagnostics;
  auto program =
      LoadedProgram::loadSources({{"bad.dlm", "def f(x):\n    return x +\n", 1}}, diagnostics);
  EXPECT_FALSE(program);
  EXPECT_EQ(diagnostics, "bad.dlm:2:15: error: expected expression after '+'\n"
                         "    return x +\n"
                         "              ^\n"
                         "1 error generated\n");
}

TEST(LoadedProgram, CountsLinesFromTheFirstLine) {
  std::string diagnostics;
  auto program =
      LoadedProgram::loadSources({{"model.py", "def f(x):\n    return y\n", 41}}, diagnostics);
  EXPECT_FALSE(program);
  EXPECT_NE(diagnostics.find("model.py:42:12: error:"), std::string::npos) << diagnostics;
}

} // namespace
