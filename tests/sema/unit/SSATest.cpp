//===- tests/sema/unit/SSATest.cpp - The typed SSA API, printer, verifier --===//
//
// Builds small programs by hand with the API lowering also uses, checks the printed form
// (stable numbering, regions, header values, locations with their call chains) and that the
// verifier rejects a block without its terminator and a use outside the scope of its definition.
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/SSA.h"

#include "compiler/support/Diagnostics.h"

#include <gtest/gtest.h>

using namespace dlm;
using namespace dlm::ssa;

namespace {

Value *emitConst(Block &b, int64_t v) {
  b.ops.push_back(std::make_unique<Operation>(ssa::OpKind::Builtin, llvm::SMRange()));
  Operation &op = *b.ops.back();
  op.parent = &b;
  op.info = OpRegistry::get().lookup("const");
  op.attrs["value"] = v;
  return op.addResult(Type::intTy());
}

Operation &emitOp(Block &b, ssa::OpKind kind, std::vector<Value *> operands) {
  b.ops.push_back(std::make_unique<Operation>(kind, llvm::SMRange()));
  Operation &op = *b.ops.back();
  op.parent = &b;
  op.operands = std::move(operands);
  return op;
}

std::string printed(const Program &p) {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(p, os);
  return s;
}

/// main: %0 = const 1; %1 = if %c { yield %0 } else { %3 = const 2; yield %3 }; return
struct IfProgram {
  Program p;
  Operation *ifOp;
  Block *elseBlock;
  IfProgram() {
    Function &f = p.addFunction("main", {});
    Block &entry = f.entry();
    Value *one = emitConst(entry, 1);
    entry.ops.push_back(std::make_unique<Operation>(ssa::OpKind::Builtin, llvm::SMRange()));
    Operation &cmp = *entry.ops.back();
    cmp.info = OpRegistry::get().lookup("lt");
    cmp.operands = {one, one};
    Value *c = cmp.addResult(Type::boolTy());
    Operation &ifo = emitOp(entry, ssa::OpKind::If, {c});
    Block &thenB = *ifo.addRegion().block;
    elseBlock = ifo.addRegion().block.get();
    emitOp(thenB, ssa::OpKind::Yield, {one});
    Value *two = emitConst(*elseBlock, 2);
    emitOp(*elseBlock, ssa::OpKind::Yield, {two});
    ifo.addResult(Type::intTy());
    ifOp = &ifo;
    emitOp(entry, ssa::OpKind::Return, {});
  }
};

} // namespace

TEST(SSA, PrintsRegionsWithStableNumbers) {
  IfProgram prog;
  EXPECT_EQ(printed(prog.p), "func @main() -> none {\n"
                             "  %0 = const {value = 1} : int\n"
                             "  %1 = lt %0, %0 : bool\n"
                             "  %2 = if %1 : int {\n"
                             "    yield %0\n"
                             "  } else {\n"
                             "    %3 = const {value = 2} : int\n"
                             "    yield %3\n"
                             "  }\n"
                             "  return\n"
                             "}\n");
  EXPECT_EQ(verify(prog.p), "");
}

TEST(SSA, VerifierWantsTerminators) {
  IfProgram prog;
  prog.elseBlock->ops.pop_back(); // drop the else-branch's yield
  EXPECT_NE(verify(prog.p).find("does not end in 'yield'"), std::string::npos);
}

TEST(SSA, VerifierChecksScopes) {
  IfProgram prog;
  // Use the else-branch's %3 after the if: it is out of scope there.
  Value *inner = prog.elseBlock->ops.front()->result();
  Block &entry = prog.p.main()->entry();
  entry.ops.insert(entry.ops.end() - 1,
                   std::make_unique<Operation>(ssa::OpKind::Tuple, llvm::SMRange()));
  entry.ops[entry.ops.size() - 2]->operands = {inner};
  EXPECT_NE(verify(prog.p).find("uses a value that is not defined before it"), std::string::npos);
}

TEST(SSA, WhileHeaderValues) {
  Program p;
  Function &f = p.addFunction("main", {});
  Block &entry = f.entry();
  Value *zero = emitConst(entry, 0);
  Operation &w = emitOp(entry, ssa::OpKind::While, {zero});
  w.carried.push_back(std::make_unique<Value>(Type::intTy(), nullptr, 0, llvm::SMRange()));
  Value *i = w.carried[0].get();
  Block &cond = *w.addRegion().block;
  cond.ops.push_back(std::make_unique<Operation>(ssa::OpKind::Builtin, llvm::SMRange()));
  cond.ops.back()->info = OpRegistry::get().lookup("lt");
  cond.ops.back()->operands = {i, zero};
  Value *c = cond.ops.back()->addResult(Type::boolTy());
  emitOp(cond, ssa::OpKind::Condition, {c});
  Block &body = *w.addRegion().block;
  emitOp(body, ssa::OpKind::Yield, {i});
  w.addResult(Type::intTy());
  emitOp(entry, ssa::OpKind::Return, {});
  EXPECT_EQ(verify(p), "");
  EXPECT_NE(printed(p).find("%1 = while iter (%2 = %0) : int {"), std::string::npos);
  EXPECT_NE(printed(p).find("} do {\n    yield %2\n  }"), std::string::npos);
}

TEST(SSA, PrintLocsShowsInlinedCallChains) {
  // An op autodiff copied out of f's body (f.dlm) at a call in g (g.dlm), itself copied in at
  // main's call (main.dlm) prints its position, the op it is the gradient of, and both calls.
  DiagnosticEngine diags(llvm::nulls());
  unsigned fBuf = diags.addBuffer("def f(x):\n    return sin(x)\n", "f.dlm");
  unsigned gBuf = diags.addBuffer("def g(x):\n    return f(x)\n", "g.dlm");
  unsigned mainBuf = diags.addBuffer("y = 1\nz = g(y)\n", "main.dlm");
  auto at = [&](unsigned buf, unsigned line, unsigned col) {
    llvm::SMLoc loc = diags.getSourceMgr().FindLocForLineAndColumn(buf, line, col);
    return llvm::SMRange(loc, loc);
  };
  Program p;
  Function &f = p.addFunction("main", at(mainBuf, 1, 1));
  Value *one = emitConst(f.entry(), 1);
  f.entry().ops.back()->loc = at(mainBuf, 1, 5);
  Operation &copied = emitOp(f.entry(), ssa::OpKind::Tuple, {one});
  copied.addResult(Type::tuple({Type::intTy()}));
  copied.loc = at(fBuf, 2, 12);
  copied.gradOf = "sin";
  const InlineSite *outer = p.addSite(at(mainBuf, 2, 5), "g", nullptr);
  copied.inlinedAt = p.addSite(at(gBuf, 2, 12), "f", outer);
  emitOp(f.entry(), ssa::OpKind::Return, {}).loc = at(mainBuf, 2, 1);
  std::string s;
  llvm::raw_string_ostream os(s);
  PrintOptions options;
  options.printLocs = true;
  options.diags = &diags;
  print(p, os, options);
  EXPECT_EQ(s, "func @main() -> none {\n"
               "  %0 = const {value = 1} : int loc(\"main.dlm\":1:5)\n"
               "  %1 = tuple %0 : (int,) loc(\"f.dlm\":2:12 grad_of \"sin\" in \"f\" at "
               "\"g.dlm\":2:12 in \"g\" at \"main.dlm\":2:5)\n"
               "  return loc(\"main.dlm\":2:1)\n"
               "}\n");
}
