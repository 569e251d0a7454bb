//===- compiler/frontend/ASTBuilder.cpp - ANTLR parse tree to AST ---------===//
#include "compiler/frontend/ASTBuilder.h"

#include "llvm/ADT/StringSet.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace dlm {

using P = grammar::DlmParser;
using antlr4::tree::ParseTree;
using antlr4::tree::TerminalNode;

namespace {

BinaryOp binaryOpOf(size_t tokenType) {
  switch (tokenType) {
  case P::PLUS:
  case P::PLUS_ASSIGN:
    return BinaryOp::Add;
  case P::MINUS:
  case P::MINUS_ASSIGN:
    return BinaryOp::Sub;
  case P::STAR:
  case P::STAR_ASSIGN:
    return BinaryOp::Mul;
  case P::SLASH:
  case P::SLASH_ASSIGN:
    return BinaryOp::Div;
  case P::DSLASH:
    return BinaryOp::FloorDiv;
  case P::PERCENT:
    return BinaryOp::Mod;
  case P::POW:
    return BinaryOp::Pow;
  case P::AT:
    return BinaryOp::MatMul;
  case P::LT:
    return BinaryOp::Lt;
  case P::LE:
    return BinaryOp::Le;
  case P::GT:
    return BinaryOp::Gt;
  case P::GE:
    return BinaryOp::Ge;
  case P::EQ:
    return BinaryOp::Eq;
  default:
    return BinaryOp::Ne;
  }
}

SourceRange join(SourceRange first, SourceRange last) { return SourceRange(first.Start, last.End); }

/// What an invalid assignment target is, for "cannot assign to ...".
const char *targetDescription(const Expr *e) {
  switch (e->getKind()) {
  case NodeKind::Call:
    return "a function call";
  case NodeKind::Subscript:
    return "a subscript (tensors and tuples are values; build a new one)";
  case NodeKind::Attribute:
    return "an attribute";
  case NodeKind::IntLiteral:
  case NodeKind::FloatLiteral:
  case NodeKind::BoolLiteral:
  case NodeKind::StringLiteral:
    return "a literal";
  case NodeKind::List:
    return "a list";
  case NodeKind::Tuple:
    return "an empty tuple";
  default:
    return "an expression";
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

SourceRange ASTBuilder::rangeOf(antlr4::ParserRuleContext *ctx) const {
  return SourceRange(
      text.getRange(ctx->getStart()->getStartIndex(), ctx->getStart()->getStopIndex()).Start,
      text.getRange(ctx->getStop()->getStartIndex(), ctx->getStop()->getStopIndex()).End);
}

SourceRange ASTBuilder::rangeOf(antlr4::Token *token) const {
  return text.getRange(token->getStartIndex(), token->getStopIndex());
}

llvm::StringRef ASTBuilder::textOf(antlr4::Token *token) const {
  SourceRange range = rangeOf(token);
  return llvm::StringRef(range.Start.getPointer(),
                         range.End.getPointer() - range.Start.getPointer());
}

bool ASTBuilder::error(SourceRange range, const llvm::Twine &message) {
  ok = false;
  return diag.error(range, message);
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

bool ASTBuilder::buildFile(P::FileContext *file) {
  // children: (NEWLINE | stmt)* EOF
  for (ParseTree *child : file->children)
    if (auto *stmt = dynamic_cast<P::StmtContext *>(child))
      module.getBody().push_back(buildStmt(stmt));
  return ok;
}

Stmt *ASTBuilder::buildStmt(P::StmtContext *ctx) {
  // children: smallStmt NEWLINE | funcDef | ifStmt | whileStmt | forStmt. The first token tells
  // which (cheaper than the generated accessors, which dynamic_cast every child).
  ParseTree *inner = ctx->children[0];
  switch (ctx->getStart()->getType()) {
  case P::DEF:
    return buildFuncDef(static_cast<P::FuncDefContext *>(inner));
  case P::IF:
    return buildIf(static_cast<P::IfStmtContext *>(inner));
  case P::WHILE:
    return buildWhile(static_cast<P::WhileStmtContext *>(inner));
  case P::FOR:
    return buildFor(static_cast<P::ForStmtContext *>(inner));
  default:
    return buildSmallStmt(static_cast<P::SmallStmtContext *>(inner));
  }
}

Stmt *ASTBuilder::buildSmallStmt(P::SmallStmtContext *ctx) {
  SourceRange range = rangeOf(ctx);
  switch (ctx->getStart()->getType()) {
  case P::IMPORT:
    return buildImport(static_cast<P::ImportStmtContext *>(ctx));
  case P::RETURN: {
    auto *ret = static_cast<P::ReturnStmtContext *>(ctx);
    return make<ReturnStmt>(range, ret->testList() ? buildTestList(ret->testList()) : nullptr);
  }
  case P::PASS:
    return make<PassStmt>(range);
  case P::BREAK:
    return make<BreakStmt>(range);
  case P::CONTINUE:
    return make<ContinueStmt>(range);
  case P::ASSERT: {
    std::vector<P::ExprContext *> exprs = static_cast<P::AssertStmtContext *>(ctx)->expr();
    return make<AssertStmt>(range, buildExpr(exprs[0]),
                            exprs.size() > 1 ? buildExpr(exprs[1]) : nullptr);
  }
  default:
    return buildExprStmt(static_cast<P::ExprStmtContext *>(ctx));
  }
}

Stmt *ASTBuilder::buildImport(P::ImportStmtContext *ctx) {
  P::ImportNameContext *nameCtx = ctx->importName();
  std::string name;
  if (nameCtx->STRING()) {
    decodeString(nameCtx->STRING()->getSymbol(), name);
  } else {
    for (ParseTree *child : nameCtx->children)
      name += child->getText(); // parts, dots and slashes exactly as written
  }
  if (name.empty())
    error(rangeOf(nameCtx), "empty import path");
  bool isPath = name.find('/') != std::string::npos || name.front() == '.';
  return make<ImportStmt>(rangeOf(ctx), std::move(name), isPath);
}

Stmt *ASTBuilder::buildExprStmt(P::ExprStmtContext *ctx) {
  std::vector<P::TestListContext *> lists = ctx->testList();
  SourceRange range = rangeOf(ctx);
  Expr *first = buildTestList(lists[0]);
  if (lists.size() == 1)
    return make<ExprStmt>(range, first);
  Expr *value = buildTestList(lists[1]);
  if (P::AugOpContext *aug = ctx->augOp()) {
    auto *target = llvm::dyn_cast<NameExpr>(first);
    if (!target) {
      error(first->getRange(), "the target of '" + aug->getText() + "' must be a name");
      target = make<NameExpr>(first->getRange(), "<error>");
    }
    return make<AugAssignStmt>(range, target, binaryOpOf(aug->getStart()->getType()), rangeOf(aug),
                               value);
  }
  TypeExpr *annotation = ctx->annotation() ? buildAnnotation(ctx->annotation()) : nullptr;
  if (annotation && !llvm::isa<NameExpr>(first))
    error(first->getRange(), "only a single name can be annotated");
  else
    checkTarget(first);
  return make<AssignStmt>(range, first, value, annotation);
}

bool ASTBuilder::checkTarget(Expr *target) {
  if (llvm::isa<NameExpr>(target))
    return true;
  auto *tuple = llvm::dyn_cast<TupleExpr>(target);
  if (!tuple || tuple->getElements().empty())
    return error(target->getRange(), llvm::Twine("cannot assign to ") + targetDescription(target));
  bool allValid = true;
  for (Expr *element : tuple->getElements())
    allValid &= checkTarget(element);
  return allValid;
}

Stmt *ASTBuilder::buildFuncDef(P::FuncDefContext *ctx) {
  std::vector<Param *> params;
  llvm::StringSet<> seen;
  bool sawDefault = false;
  if (ctx->params()) {
    for (P::ParamContext *paramCtx : ctx->params()->param()) {
      Param *param = buildParam(paramCtx);
      if (!seen.insert(param->getName()).second)
        error(param->getRange(), "duplicate parameter '" + param->getName() + "'");
      if (sawDefault && !param->getDefault())
        error(param->getRange(), "parameter '" + param->getName() +
                                     "' without a default follows a parameter with a default");
      sawDefault |= param->getDefault() != nullptr;
      params.push_back(param);
    }
  }
  TypeExpr *ret = ctx->annotation() ? buildAnnotation(ctx->annotation()) : nullptr;
  Body body = buildBlock(ctx->block());
  SourceRange range = join(rangeOf(ctx->DEF()->getSymbol()), body.back()->getRange());
  return make<FunctionDefStmt>(range, ctx->NAME()->getText(), rangeOf(ctx->NAME()->getSymbol()),
                               std::move(params), ret, std::move(body));
}

Param *ASTBuilder::buildParam(P::ParamContext *ctx) {
  TypeExpr *annotation = ctx->annotation() ? buildAnnotation(ctx->annotation()) : nullptr;
  Expr *defaultValue = ctx->expr() ? buildExpr(ctx->expr()) : nullptr;
  return make<Param>(rangeOf(ctx), ctx->NAME()->getText(), annotation, defaultValue);
}

Stmt *ASTBuilder::buildIf(P::IfStmtContext *ctx) {
  Body elseBody;
  if (ctx->elseClause())
    elseBody = buildBlock(ctx->elseClause()->block());
  // elif chains nest from the last one outwards: each becomes the else-body of the previous.
  std::vector<P::ElifClauseContext *> elifs = ctx->elifClause();
  for (auto it = elifs.rbegin(); it != elifs.rend(); ++it) {
    Body thenBody = buildBlock((*it)->block());
    SourceRange range = join(rangeOf((*it)->ELIF()->getSymbol()),
                             (elseBody.empty() ? thenBody : elseBody).back()->getRange());
    auto *elif =
        make<IfStmt>(range, buildExpr((*it)->expr()), std::move(thenBody), std::move(elseBody),
                     /*elif=*/true);
    elseBody = Body{elif};
  }
  Expr *cond = buildExpr(ctx->expr());
  Body thenBody = buildBlock(ctx->block());
  SourceRange range = join(rangeOf(ctx->IF()->getSymbol()),
                           (elseBody.empty() ? thenBody : elseBody).back()->getRange());
  return make<IfStmt>(range, cond, std::move(thenBody), std::move(elseBody), /*elif=*/false);
}

Stmt *ASTBuilder::buildWhile(P::WhileStmtContext *ctx) {
  Expr *cond = buildExpr(ctx->expr());
  Body body = buildBlock(ctx->block());
  SourceRange range = join(rangeOf(ctx->WHILE()->getSymbol()), body.back()->getRange());
  return make<WhileStmt>(range, cond, std::move(body));
}

Stmt *ASTBuilder::buildFor(P::ForStmtContext *ctx) {
  std::vector<P::TestListContext *> lists = ctx->testList();
  Expr *target = buildTestList(lists[0]);
  checkTarget(target);
  Expr *iterable = buildTestList(lists[1]);
  Body body = buildBlock(ctx->block());
  SourceRange range = join(rangeOf(ctx->FOR()->getSymbol()), body.back()->getRange());
  return make<ForStmt>(range, target, iterable, std::move(body));
}

Body ASTBuilder::buildBlock(P::BlockContext *ctx) {
  // children: smallStmt NEWLINE | NEWLINE INDENT stmt+ DEDENT
  if (ctx->getStart()->getType() != P::NEWLINE)
    return Body{buildSmallStmt(static_cast<P::SmallStmtContext *>(ctx->children[0]))};
  Body body;
  for (size_t i = 2; i + 1 < ctx->children.size(); ++i)
    body.push_back(buildStmt(static_cast<P::StmtContext *>(ctx->children[i])));
  return body;
}

//===----------------------------------------------------------------------===//
// Annotations
//===----------------------------------------------------------------------===//

TypeExpr *ASTBuilder::buildAnnotation(P::AnnotationContext *ctx) {
  if (auto *named = dynamic_cast<P::NamedAnnotationContext *>(ctx))
    return buildNamedAnnotation(named);
  auto *tuple = static_cast<P::TupleAnnotationContext *>(ctx);
  std::vector<P::AnnotationContext *> elements = tuple->annotation();
  if (elements.size() == 1 && tuple->COMMA().empty())
    return buildAnnotation(elements[0]); // (T) is T
  std::vector<TypeExpr *> types;
  for (P::AnnotationContext *element : elements)
    types.push_back(buildAnnotation(element));
  return make<TupleTypeExpr>(rangeOf(ctx), std::move(types));
}

TypeExpr *ASTBuilder::buildNamedAnnotation(P::NamedAnnotationContext *ctx) {
  std::string name = ctx->NAME()->getText();
  SourceRange range = rangeOf(ctx);
  if (name == "Tensor")
    return buildTensorAnnotation(ctx);
  if (name == "tuple") {
    std::vector<TypeExpr *> types;
    for (P::AnnotationArgContext *arg : ctx->annotationArg()) {
      if (arg->INT())
        error(rangeOf(arg), "expected a type in 'tuple[...]', found an integer");
      else
        types.push_back(buildAnnotation(arg->annotation()));
    }
    return make<TupleTypeExpr>(range, std::move(types));
  }
  static const std::pair<const char *, ScalarTypeKind> scalars[] = {
      {"int", ScalarTypeKind::Int},
      {"float", ScalarTypeKind::Float},
      {"bool", ScalarTypeKind::Bool},
      {"str", ScalarTypeKind::Str}};
  for (const auto &[spelling, kind] : scalars) {
    if (name != spelling)
      continue;
    if (ctx->LBRACK())
      error(range, "type '" + name + "' takes no parameters");
    return make<ScalarTypeExpr>(range, kind);
  }
  error(rangeOf(ctx->NAME()->getSymbol()),
        "unknown type '" + name + "' (expected int, float, bool, str, Tensor or a tuple)");
  return make<TupleTypeExpr>(range, std::vector<TypeExpr *>{});
}

TypeExpr *ASTBuilder::buildTensorAnnotation(P::NamedAnnotationContext *ctx) {
  std::optional<DType> dtype;
  std::vector<DimExpr> dims;
  std::vector<P::AnnotationArgContext *> args = ctx->annotationArg();
  for (size_t i = 0; i < args.size(); ++i) {
    SourceRange range = rangeOf(args[i]);
    if (TerminalNode *size = args[i]->INT()) {
      int64_t value = 0;
      if (llvm::StringRef(size->getText()).getAsInteger(10, value))
        error(range, "dimension '" + size->getText() + "' is too large");
      dims.push_back(DimExpr{range, value, ""});
      continue;
    }
    auto *named = dynamic_cast<P::NamedAnnotationContext *>(args[i]->annotation());
    std::string name = named && !named->LBRACK() ? named->NAME()->getText() : "";
    if (std::optional<DType> parsed = parseDType(name)) {
      if (i != 0)
        error(range, "the dtype '" + name + "' must come first in a Tensor annotation");
      dtype = parsed;
    } else if (!name.empty() && std::isupper(static_cast<unsigned char>(name[0]))) {
      dims.push_back(DimExpr{range, std::nullopt, name});
    } else {
      error(range, "expected a dimension (an integer or a capitalised name like 'B') or a dtype "
                   "(f32, f64, i32, i64, bool)");
    }
  }
  bool hasShape = !dims.empty();
  return make<TensorTypeExpr>(rangeOf(ctx), dtype, hasShape, std::move(dims));
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Expr *ASTBuilder::buildTestList(P::TestListContext *ctx) {
  // children: expr (COMMA expr)* COMMA?; one expression without a comma is not a tuple
  if (ctx->children.size() == 1)
    return buildExpr(static_cast<P::ExprContext *>(ctx->children[0]));
  std::vector<Expr *> elements;
  for (size_t i = 0; i < ctx->children.size(); i += 2)
    elements.push_back(buildExpr(static_cast<P::ExprContext *>(ctx->children[i])));
  return make<TupleExpr>(rangeOf(ctx), std::move(elements));
}

Expr *ASTBuilder::buildExpr(P::ExprContext *ctx) {
  // A chain `a + b - c ...` (and `f(x)[i].y ...`) is nested to the left in the parse tree:
  // walk down its left spine with a loop, then apply the operators from the innermost out.
  std::vector<P::ExprContext *> spine;
  for (; ctx->lhs; ctx = ctx->lhs)
    spine.push_back(ctx);
  Expr *result = buildPrefixed(ctx);
  for (auto it = spine.rbegin(); it != spine.rend(); ++it)
    result = extend(result, *it);
  return result;
}

Expr *ASTBuilder::buildPrefixed(P::ExprContext *ctx) {
  // `not not -x`: prefix operators nest to the right; a loop again, not recursion.
  std::vector<P::ExprContext *> prefixes;
  for (; ctx->op && !ctx->lhs; ctx = ctx->rhs)
    prefixes.push_back(ctx);
  Expr *result = ctx->lhs ? buildExpr(ctx) : buildAtom(ctx);
  for (auto it = prefixes.rbegin(); it != prefixes.rend(); ++it) {
    bool isNot = (*it)->op->getType() == P::NOT;
    if (!isNot)
      checkNotOperand((*it)->op, (*it)->rhs);
    result = make<UnaryExpr>(join(rangeOf((*it)->op), result->getRange()),
                             isNot ? UnaryOp::Not : UnaryOp::Neg, result);
  }
  return result;
}

bool ASTBuilder::isUnparenthesizedNot(P::ExprContext *ctx) {
  return ctx && !ctx->lhs && ctx->op && ctx->op->getType() == P::NOT;
}

void ASTBuilder::checkNotOperand(antlr4::Token *op, P::ExprContext *operand) {
  // The grammar accepts a prefix operator anywhere an operand goes; Python (and dlm) only
  // after 'and', 'or', 'not', 'if' and 'else', since 'not' binds more loosely than the rest.
  if (isUnparenthesizedNot(operand))
    error(rangeOf(operand->op), "'not' after '" + textOf(op) + "' needs parentheses: write '" +
                                    textOf(op) + " (not ...)'");
}

bool ASTBuilder::isComparison(P::ExprContext *ctx) {
  if (!ctx->lhs)
    return false;
  switch (ctx->op->getType()) {
  case P::LT:
  case P::LE:
  case P::GT:
  case P::GE:
  case P::EQ:
  case P::NE:
    return true;
  default:
    return false;
  }
}

Expr *ASTBuilder::extend(Expr *lhs, P::ExprContext *ctx) {
  antlr4::Token *op = ctx->op;
  switch (op->getType()) {
  case P::LPAREN:
    return buildCall(lhs, ctx);
  case P::LBRACK:
    return buildSubscript(lhs, ctx);
  case P::DOT: {
    antlr4::Token *name = static_cast<TerminalNode *>(ctx->children[2])->getSymbol();
    return make<AttributeExpr>(join(lhs->getRange(), rangeOf(name)), lhs, textOf(name).str(),
                               rangeOf(name));
  }
  case P::AND:
  case P::OR: {
    Expr *rhs = buildExpr(ctx->rhs);
    return make<BoolOpExpr>(join(lhs->getRange(), rhs->getRange()),
                            op->getType() == P::AND ? BoolOpKind::And : BoolOpKind::Or, lhs, rhs);
  }
  case P::IF: {
    // `then if cond else rest`; `rest` may itself be a conditional (right associative)
    if (ctx->cond->lhs && ctx->cond->op->getType() == P::IF)
      error(rangeOf(ctx->cond), "a conditional expression as a condition needs parentheses");
    Expr *cond = buildExpr(ctx->cond);
    Expr *elseValue = buildExpr(ctx->rhs);
    return make<IfExpExpr>(join(lhs->getRange(), elseValue->getRange()), cond, lhs, elseValue);
  }
  default:
    break;
  }
  if (isComparison(ctx) && isComparison(ctx->lhs) && !isComparison(ctx->lhs->lhs)) {
    std::string first = textOf(ctx->lhs->op).str(), second = textOf(op).str();
    error(rangeOf(op), "chained comparisons are not supported; write 'a " + first + " b and b " +
                           second + " c'");
  }
  checkNotOperand(op, ctx->rhs);
  return makeBinary(op, lhs, buildExpr(ctx->rhs));
}

Expr *ASTBuilder::makeBinary(antlr4::Token *op, Expr *lhs, Expr *rhs) {
  return make<BinaryExpr>(join(lhs->getRange(), rhs->getRange()), binaryOpOf(op->getType()),
                          rangeOf(op), lhs, rhs);
}

Expr *ASTBuilder::buildCall(Expr *callee, P::ExprContext *ctx) {
  // children: lhs '(' argList? ')'
  std::vector<Expr *> args;
  std::vector<KeywordArg> kwargs;
  llvm::StringSet<> names;
  SourceRange range = join(callee->getRange(), rangeOf(ctx->getStop()));
  if (ctx->children.size() == 3)
    return make<CallExpr>(range, callee, std::move(args), std::move(kwargs));
  auto *argList = static_cast<P::ArgListContext *>(ctx->children[2]);
  // argList children: argument (',' argument)* ','?; argument: NAME '=' expr | expr
  for (size_t i = 0; i < argList->children.size(); i += 2) {
    auto *arg = static_cast<P::ArgumentContext *>(argList->children[i]);
    Expr *value = buildExpr(static_cast<P::ExprContext *>(arg->children.back()));
    if (arg->children.size() == 1) {
      if (!kwargs.empty())
        error(value->getRange(), "positional argument follows keyword argument");
      args.push_back(value);
      continue;
    }
    antlr4::Token *nameToken = arg->getStart();
    std::string name = textOf(nameToken).str();
    SourceRange nameRange = rangeOf(nameToken);
    if (!names.insert(name).second)
      error(nameRange, "keyword argument '" + name + "' repeated");
    kwargs.push_back(KeywordArg{std::move(name), nameRange, value});
  }
  return make<CallExpr>(range, callee, std::move(args), std::move(kwargs));
}

Expr *ASTBuilder::buildSubscript(Expr *value, P::ExprContext *ctx) {
  // children: lhs '[' subscriptList ']'; subscriptList: subscript (',' subscript)* ','?
  auto *list = static_cast<P::SubscriptListContext *>(ctx->children[2]);
  std::vector<Expr *> indices;
  for (size_t i = 0; i < list->children.size(); i += 2) {
    auto *item = static_cast<P::SubscriptContext *>(list->children[i]);
    if (item->children.size() == 1 && item->getStart()->getType() != P::COLON)
      indices.push_back(buildExpr(static_cast<P::ExprContext *>(item->children[0])));
    else
      indices.push_back(buildSlice(item));
  }
  return make<SubscriptExpr>(join(value->getRange(), rangeOf(ctx->getStop())), value,
                             std::move(indices));
}

Expr *ASTBuilder::buildSlice(P::SubscriptContext *ctx) {
  // children: expr sliceTail | sliceTail
  auto *tail = static_cast<P::SliceTailContext *>(ctx->children.back());
  Expr *lower = ctx->children.size() == 2
                    ? buildExpr(static_cast<P::ExprContext *>(ctx->children[0]))
                    : nullptr;
  Expr *upper = tail->upper ? buildExpr(tail->upper) : nullptr;
  Expr *step = tail->step ? buildExpr(tail->step) : nullptr;
  return make<SliceExpr>(rangeOf(ctx), lower, upper, step);
}

Expr *ASTBuilder::buildAtom(P::ExprContext *ctx) {
  // A primary: the first token tells the alternative apart.
  antlr4::Token *first = ctx->getStart();
  switch (first->getType()) {
  case P::NAME:
    return make<NameExpr>(rangeOf(first), textOf(first).str());
  case P::INT:
    return buildInt(first);
  case P::FLOAT:
    return buildFloat(first);
  case P::STRING:
    return buildString(ctx);
  case P::TRUE:
  case P::FALSE:
    return make<BoolLiteralExpr>(rangeOf(first), first->getType() == P::TRUE);
  case P::LBRACK: {
    // children: '[' (expr (',' expr)* ','?)? ']'
    std::vector<Expr *> elements;
    for (size_t i = 1; i + 1 < ctx->children.size(); i += 2)
      elements.push_back(buildExpr(static_cast<P::ExprContext *>(ctx->children[i])));
    return make<ListExpr>(rangeOf(ctx), std::move(elements));
  }
  default:
    break;
  }
  // children: '(' testList? ')'
  if (ctx->children.size() == 2)
    return make<TupleExpr>(rangeOf(ctx), std::vector<Expr *>{});
  Expr *inner = buildTestList(static_cast<P::TestListContext *>(ctx->children[1]));
  if (auto *tuple = llvm::dyn_cast<TupleExpr>(inner)) // the parentheses belong to the tuple
    return make<TupleExpr>(rangeOf(ctx), tuple->getElements());
  return inner;
}

Expr *ASTBuilder::buildInt(antlr4::Token *token) {
  llvm::StringRef spelling = textOf(token);
  int64_t value = 0;
  if (spelling.getAsInteger(10, value))
    error(rangeOf(token), "integer literal '" + spelling + "' does not fit in a 64-bit int");
  return make<IntLiteralExpr>(rangeOf(token), value);
}

Expr *ASTBuilder::buildFloat(antlr4::Token *token) {
  std::string spelling = textOf(token).str(); // strtod needs the terminating NUL
  double value = std::strtod(spelling.c_str(), nullptr);
  if (std::isinf(value))
    error(rangeOf(token), "floating-point literal '" + spelling + "' is out of range");
  return make<FloatLiteralExpr>(rangeOf(token), value);
}

Expr *ASTBuilder::buildString(P::ExprContext *ctx) {
  // children: STRING+ (adjacent literals concatenate)
  std::string value;
  for (ParseTree *piece : ctx->children)
    decodeString(static_cast<TerminalNode *>(piece)->getSymbol(), value);
  return make<StringLiteralExpr>(rangeOf(ctx), std::move(value));
}

bool ASTBuilder::decodeString(antlr4::Token *token, std::string &out) {
  llvm::StringRef body = textOf(token);
  size_t quotes = body.starts_with("\"\"\"") || body.starts_with("'''") ? 3 : 1;
  body = body.drop_front(quotes).drop_back(quotes);
  const char *bodyStart = rangeOf(token).Start.getPointer() + quotes;
  bool valid = true;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      out += body[i];
      continue;
    }
    char escape = body[++i];
    switch (escape) {
    case 'n':
      out += '\n';
      break;
    case 't':
      out += '\t';
      break;
    case 'r':
      out += '\r';
      break;
    case '0':
      out += '\0';
      break;
    case '\\':
      out += '\\';
      break;
    case '\'':
      out += '\'';
      break;
    case '"':
      out += '"';
      break;
    case '\n':
      break; // a backslash-newline continues the literal on the next line
    case 'x':
      if (i + 2 < body.size() && std::isxdigit(static_cast<unsigned char>(body[i + 1])) &&
          std::isxdigit(static_cast<unsigned char>(body[i + 2]))) {
        out += static_cast<char>(std::stoi(body.substr(i + 1, 2).str(), nullptr, 16));
        i += 2;
        break;
      }
      [[fallthrough]];
    default: {
      llvm::SMLoc at = llvm::SMLoc::getFromPointer(bodyStart + i - 1);
      error(SourceRange(at, llvm::SMLoc::getFromPointer(bodyStart + i + 1)),
            "unknown escape sequence '\\" + llvm::Twine(escape) + "'");
      valid = false;
    }
    }
  }
  return valid;
}

} // namespace dlm
