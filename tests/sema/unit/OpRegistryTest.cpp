//===- tests/sema/unit/OpRegistryTest.cpp - Op entries and type rules ------===//
//
// Every op of docs/ops.md has a registry entry, and the rules sema relies on give the documented
// types and messages (matmul inner dims, reshape element counts, bad axes, ...).
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/OpRegistry.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

using namespace dlm;

namespace {
Type f32(Shape s) { return Type::tensor(DType::F32, std::move(s)); }
Shape dims(std::initializer_list<int64_t> ds) {
  Shape s;
  for (int64_t d : ds)
    s.push_back(Dim::fixed(d));
  return s;
}

struct Result {
  Type type;
  std::string error;
};
Result run(const char *op, std::vector<Type> operands, Attrs attrs = {}) {
  DimContext dc;
  const OpInfo *info = OpRegistry::get().lookup(op);
  EXPECT_NE(info, nullptr) << op;
  std::string error;
  int culprit = -1;
  Type t = OpRegistry::get().infer(*info, operands, attrs, dc, error, culprit);
  return {t, error};
}
} // namespace

TEST(OpRegistry, EveryDocumentedOpHasAnEntry) {
  std::ifstream in(std::string(DLM_SOURCE_DIR) + "/docs/ops.md");
  ASSERT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  // Only the table rows before the graph-only control-flow row name registry ops; in each row's
  // second cell every identifier inside backticks, outside {attributes} and (operands), is an op.
  text = text.substr(0, text.find("| control flow"));
  std::regex row("\\n\\| [^|]+ \\| ([^\\n]*) \\|");
  std::regex span("`([^`]*)`");
  std::regex braces("\\{[^}]*\\}|\\([^)]*\\)");
  std::regex ident("[a-z_][a-z_0-9]*");
  size_t checked = 0;
  for (auto r = std::sregex_iterator(text.begin(), text.end(), row); r != std::sregex_iterator();
       ++r) {
    std::string cell = (*r)[1];
    for (auto sp = std::sregex_iterator(cell.begin(), cell.end(), span);
         sp != std::sregex_iterator(); ++sp) {
      std::string names = std::regex_replace(std::string((*sp)[1]), braces, " ");
      for (auto id = std::sregex_iterator(names.begin(), names.end(), ident);
           id != std::sregex_iterator(); ++id) {
        if ((*id)[0] == "shape") // prose: "back to `shape`", an attribute
          continue;
        EXPECT_NE(OpRegistry::get().lookup((*id)[0].str()), nullptr)
            << "no registry entry for " << (*id)[0];
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 60u);
}

TEST(OpRegistry, Facts) {
  const OpInfo *add = OpRegistry::get().lookup("add");
  ASSERT_TRUE(add);
  EXPECT_TRUE(add->elementwise);
  EXPECT_TRUE(add->differentiable);
  EXPECT_EQ(add->kind, OpKind::Add);
  EXPECT_EQ(OpRegistry::get().lookup("matmul")->cost, CostClass::Expensive);
  EXPECT_TRUE(OpRegistry::get().lookup("print")->sideEffects);
  EXPECT_FALSE(OpRegistry::get().lookup("argmax")->differentiable);
  EXPECT_TRUE(OpRegistry::get().lookup("concat")->variadic);
  EXPECT_EQ(OpRegistry::get().lookup("nonexistent"), nullptr);
}

TEST(OpRegistry, Elementwise) {
  EXPECT_EQ(run("add", {f32(dims({3, 4})), f32(dims({4}))}).type.str(), "f32[3, 4]");
  EXPECT_EQ(run("mul", {f32(dims({3})), Type::floatTy()}).type.str(), "f32[3]");
  EXPECT_EQ(run("add", {Type::intTy(), Type::intTy()}).type, Type::intTy());
  EXPECT_EQ(run("div", {Type::intTy(), Type::intTy()}).type, Type::floatTy());
  EXPECT_EQ(run("div", {Type::tensor(DType::I64, dims({2})), Type::intTy()}).type.str(), "f32[2]");
  EXPECT_EQ(run("lt", {f32(dims({2})), Type::floatTy()}).type.str(), "bool[2]");
  EXPECT_EQ(run("exp", {Type::tensor(DType::I32, dims({2}))}).type.str(), "f32[2]");
  EXPECT_EQ(run("add", {f32(dims({3, 4})), f32(dims({5}))}).error,
            "cannot broadcast f32[3, 4] with f32[5]");
}

TEST(OpRegistry, Matmul) {
  EXPECT_EQ(run("matmul", {f32(dims({8, 4})), f32(dims({4, 5}))}).type.str(), "f32[8, 5]");
  EXPECT_EQ(run("matmul", {f32(dims({4})), f32(dims({4, 5}))}).type.str(), "f32[5]");
  EXPECT_EQ(run("matmul", {f32(dims({2, 8, 4})), f32(dims({4, 5}))}).type.str(), "f32[2, 8, 5]");
  EXPECT_EQ(run("matmul", {f32(dims({3, 4})), f32(dims({5, 6}))}).error,
            "matmul: 4 columns on the left vs 5 rows on the right (f32[3, 4] @ f32[5, 6])");
}

TEST(OpRegistry, Reductions) {
  Attrs a{{"axes", std::vector<int64_t>{1}}, {"keepdims", true}};
  EXPECT_EQ(run("sum", {f32(dims({3, 4}))}, a).type.str(), "f32[3, 1]");
  EXPECT_EQ(run("sum", {f32(dims({3, 4}))}).type.str(), "f32[]");
  EXPECT_EQ(run("mean", {Type::tensor(DType::I64, dims({3}))}).type.str(), "f32[]");
  Attrs bad{{"axes", std::vector<int64_t>{2}}};
  EXPECT_EQ(run("sum", {f32(dims({3, 4}))}, bad).error,
            "axis 2 is out of range for f32[3, 4] (rank 2)");
}

TEST(OpRegistry, Reshape) {
  Attrs ok{{"shape", Shape{Dim::fixed(4), inferDim()}}};
  EXPECT_EQ(run("reshape", {f32(dims({2, 6}))}, ok).type.str(), "f32[4, 3]");
  Attrs bad{{"shape", dims({5, 3})}};
  EXPECT_EQ(run("reshape", {f32(dims({3, 4}))}, bad).error,
            "cannot reshape f32[3, 4] (12 elements) to [5, 3] (15 elements)");
  Attrs sym{{"shape", Shape{Dim::symbol("B"), Dim::fixed(28), Dim::fixed(28)}}};
  EXPECT_EQ(run("reshape", {f32({Dim::symbol("B"), Dim::fixed(784)})}, sym).type.str(),
            "f32[B, 28, 28]");
  Attrs flat{{"shape", Shape{inferDim(), Dim::fixed(784)}}};
  EXPECT_EQ(
      run("reshape", {f32({Dim::symbol("B"), Dim::fixed(28), Dim::fixed(28)})}, flat).type.str(),
      "f32[B, 784]");
}

TEST(OpRegistry, ShapeOps) {
  EXPECT_EQ(run("transpose", {f32(dims({2, 3}))}).type.str(), "f32[3, 2]");
  Attrs axis0{{"axis", int64_t(0)}};
  EXPECT_EQ(run("concat", {f32(dims({2, 3})), f32(dims({4, 3}))}, axis0).type.str(), "f32[6, 3]");
  EXPECT_EQ(run("stack", {f32(dims({3})), f32(dims({3}))}, axis0).type.str(), "f32[2, 3]");
  Attrs split{{"axis", int64_t(0)}, {"sizes", std::vector<int64_t>{2, 2}}};
  EXPECT_EQ(run("split", {f32(dims({4, 3}))}, split).type.str(), "(f32[2, 3], f32[2, 3])");
  Attrs sl{{"begin", std::vector<int64_t>{1, 0}},
           {"end", std::vector<int64_t>{kSliceToEnd, 3}},
           {"step", std::vector<int64_t>{1, 2}}};
  EXPECT_EQ(run("slice", {f32(dims({5, 4}))}, sl).type.str(), "f32[4, 2]");
}

TEST(OpRegistry, NN) {
  Attrs conv{{"stride", int64_t(1)}, {"padding", int64_t(1)}};
  EXPECT_EQ(run("conv2d", {f32(dims({8, 1, 28, 28})), f32(dims({16, 1, 3, 3}))}, conv).type.str(),
            "f32[8, 16, 28, 28]");
  EXPECT_EQ(
      run("cross_entropy", {f32(dims({8, 10})), Type::tensor(DType::I64, dims({8}))}).type.str(),
      "f32[]");
  EXPECT_NE(run("cross_entropy", {f32(dims({8, 10})), f32(dims({8}))}).error, "");
}
