//===- compiler/frontend/ASTBuilder.h - ANTLR parse tree to AST -----------===//
//
// Converts a syntactically valid parse tree into the AST. Operator chains are nested to the
// left in the parse tree (`expr` is left-recursive); the builder unwinds them, and runs of
// prefix operators, with loops, so a long chain costs no stack. It reports the errors the grammar
// cannot express: integer literals beyond int64, bad escapes, chained comparisons, invalid
// assignment targets, keyword arguments out of order, unknown annotation types and
// dimensions. Internal to the frontend.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_FRONTEND_ASTBUILDER_H
#define DLM_COMPILER_FRONTEND_ASTBUILDER_H

#include "compiler/frontend/AST.h"
#include "compiler/support/Diagnostics.h"
#include "compiler/support/SourceText.h"

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
  /// A token's source text, straight from the buffer (ANTLR's getText() converts from UTF-32).
  llvm::StringRef textOf(antlr4::Token *token) const;
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
  /// Any expression; iterative along left-nested chains (`a + b + ...`, `f(x)[i].y`).
  Expr *buildExpr(P::ExprContext *ctx);
  /// A primary or a run of prefix operators (`not`, `-`) in front of an expression.
  Expr *buildPrefixed(P::ExprContext *ctx);
  /// Applies the operator or trailer of `ctx` (a continuing alternative) to `lhs`, the
  /// already built left operand.
  Expr *extend(Expr *lhs, P::ExprContext *ctx);
  Expr *buildCall(Expr *callee, P::ExprContext *ctx);
  Expr *buildSubscript(Expr *value, P::ExprContext *ctx);
  Expr *buildSlice(P::SubscriptContext *ctx);
  Expr *buildAtom(P::ExprContext *ctx);
  Expr *buildInt(antlr4::Token *token);
  Expr *buildFloat(antlr4::Token *token);
  Expr *buildString(P::ExprContext *ctx);
  bool decodeString(antlr4::Token *token, std::string &out);
  Expr *makeBinary(antlr4::Token *op, Expr *lhs, Expr *rhs);
  /// Reports `-not x`, `a == not b` and the like, which Python's grammar rejects.
  void checkNotOperand(antlr4::Token *op, P::ExprContext *operand);
  static bool isUnparenthesizedNot(P::ExprContext *ctx);
  static bool isComparison(P::ExprContext *ctx);

  DiagnosticEngine &diag;
  const SourceText &text;
  Module &module;
  bool ok = true;
};

} // namespace dlm

#endif // DLM_COMPILER_FRONTEND_ASTBUILDER_H
