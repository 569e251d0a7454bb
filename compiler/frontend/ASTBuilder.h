//===- compiler/frontend/ASTBuilder.h - ANTLR parse tree to AST -----------===//
//
// Converts a syntactically valid parse tree into the AST. The grammar writes operator chains
// as loops; the builder folds them (left for binary operators, right for `**` and `if`-`else`)
// without recursion, so a long chain costs no stack. It reports the errors the grammar cannot
// express: integer literals beyond int64, bad escapes, chained comparisons, invalid
// assignment targets, keyword arguments out of order, unknown annotation types and
// dimensions. Internal to the frontend.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_FRONTEND_ASTBUILDER_H
#define DLM_COMPILER_FRONTEND_ASTBUILDER_H

#include "compiler/frontend/AST.h"
#include "compiler/frontend/Diagnostics.h"
#include "compiler/frontend/SourceText.h"

#include "DlmParser.h"

namespace dlm {

class ASTBuilder {
  using P = grammar::DlmParser;

public:
  ASTBuilder(DiagnosticEngine &diag, const SourceText &text, Module &module)
      : diag(diag), text(text), module(module) {}

  /// Fills the module's body; returns false if anything was reported.
  bool buildFile(P::FileContext *file);

private:
  template <typename T, typename... Args> T *make(Args &&...args) {
    return module.getContext().create<T>(std::forward<Args>(args)...);
  }
  SourceRange rangeOf(antlr4::ParserRuleContext *ctx) const;
  SourceRange rangeOf(antlr4::Token *token) const;
  SourceRange rangeOf(antlr4::tree::ParseTree *node) const;
  bool error(SourceRange range, const llvm::Twine &message);

  // statements
  Stmt *buildStmt(P::StmtContext *ctx);
  Stmt *buildSmallStmt(P::SmallStmtContext *ctx);
  Stmt *buildImport(P::ImportStmtContext *ctx);
  Stmt *buildExprStmt(P::ExprStmtContext *ctx);
  Stmt *buildFuncDef(P::FuncDefContext *ctx);
  Param *buildParam(P::ParamContext *ctx);
  Stmt *buildIf(P::IfStmtContext *ctx);
  Stmt *buildWhile(P::WhileStmtContext *ctx);
  Stmt *buildFor(P::ForStmtContext *ctx);
  Body buildBlock(P::BlockContext *ctx);
  bool checkTarget(Expr *target);

  // annotations
  TypeExpr *buildAnnotation(P::AnnotationContext *ctx);
  TypeExpr *buildNamedAnnotation(P::NamedAnnotationContext *ctx);
  TypeExpr *buildTensorAnnotation(P::NamedAnnotationContext *ctx);

  // expressions
  Expr *buildTestList(P::TestListContext *ctx);
  Expr *buildTest(P::TestContext *ctx);
  Expr *buildOrTest(P::OrTestContext *ctx);
  Expr *buildAndTest(P::AndTestContext *ctx);
  Expr *buildNotTest(P::NotTestContext *ctx);
  Expr *buildComparison(P::ComparisonContext *ctx);
  Expr *buildArith(P::ArithContext *ctx);
  Expr *buildTerm(P::TermContext *ctx);
  Expr *buildFactor(P::FactorContext *ctx);
  Expr *buildPower(P::PowerContext *ctx);
  Expr *buildAtomExpr(P::AtomExprContext *ctx);
  Expr *buildCall(Expr *callee, P::CallTrailerContext *ctx);
  Expr *buildSubscript(Expr *value, P::SubscriptTrailerContext *ctx);
  Expr *buildSlice(P::SubscriptContext *ctx);
  Expr *buildAtom(P::AtomContext *ctx);
  Expr *buildInt(antlr4::Token *token);
  Expr *buildFloat(antlr4::Token *token);
  Expr *buildString(P::StringAtomContext *ctx);
  bool decodeString(antlr4::Token *token, std::string &out);
  /// Folds a grammar loop `operand (operator operand)*` to the left; `combine(op, lhs, rhs)`
  /// makes one node.
  template <typename Operand, typename Combine>
  Expr *foldLeft(antlr4::ParserRuleContext *ctx, Expr *(ASTBuilder::*build)(Operand *), Combine combine);
  Expr *makeBinary(antlr4::Token *op, Expr *lhs, Expr *rhs);
  Expr *applyPrefix(const std::vector<antlr4::tree::TerminalNode *> &ops, UnaryOp op, Expr *operand);

  DiagnosticEngine &diag;
  const SourceText &text;
  Module &module;
  bool ok = true;
};

} // namespace dlm

#endif // DLM_COMPILER_FRONTEND_ASTBUILDER_H
