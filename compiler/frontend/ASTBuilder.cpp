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

antlr4::Token *firstToken(ParseTree *node) {
  if (auto *terminal = dynamic_cast<TerminalNode *>(node))
    return terminal->getSymbol();
  return static_cast<antlr4::ParserRuleContext *>(node)->getStart();
}

BinaryOp binaryOpOf(size_t tokenType) {
  switch (tokenType) {
  case P::PLUS:
  case P::PLUS_ASSIGN: return BinaryOp::Add;
  case P::MINUS:
  case P::MINUS_ASSIGN: return BinaryOp::Sub;
  case P::STAR:
  case P::STAR_ASSIGN: return BinaryOp::Mul;
  case P::SLASH:
  case P::SLASH_ASSIGN: return BinaryOp::Div;
  case P::DSLASH: return BinaryOp::FloorDiv;
  case P::PERCENT: return BinaryOp::Mod;
  case P::POW: return BinaryOp::Pow;
  case P::AT: return BinaryOp::MatMul;
  case P::LT: return BinaryOp::Lt;
  case P::LE: return BinaryOp::Le;
  case P::GT: return BinaryOp::Gt;
  case P::GE: return BinaryOp::Ge;
  case P::EQ: return BinaryOp::Eq;
  default: return BinaryOp::Ne;
  }
}

/// The single child of a chain rule that matched just its operand (`x` as an orTest is an
/// andTest is a notTest ...), or null. The common case, so it avoids the generated accessors,
/// which dynamic_cast every child.
template <typename Child> Child *onlyChild(antlr4::ParserRuleContext *ctx) {
  return ctx->children.size() == 1 ? static_cast<Child *>(ctx->children[0]) : nullptr;
}

SourceRange join(SourceRange first, SourceRange last) { return SourceRange(first.Start, last.End); }

/// What an invalid assignment target is, for "cannot assign to ...".
const char *targetDescription(const Expr *e) {
  switch (e->getKind()) {
  case NodeKind::Call: return "a function call";
  case NodeKind::Subscript: return "a subscript (tensors and tuples are values; build a new one)";
  case NodeKind::Attribute: return "an attribute";
  case NodeKind::IntLiteral:
  case NodeKind::FloatLiteral:
  case NodeKind::BoolLiteral:
  case NodeKind::StringLiteral: return "a literal";
  case NodeKind::List: return "a list";
  case NodeKind::Tuple: return "an empty tuple";
  default: return "an expression";
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

SourceRange ASTBuilder::rangeOf(antlr4::ParserRuleContext *ctx) const {
  return SourceRange(text.getRange(ctx->getStart()->getStartIndex(), ctx->getStart()->getStopIndex()).Start,
                     text.getRange(ctx->getStop()->getStartIndex(), ctx->getStop()->getStopIndex()).End);
}

SourceRange ASTBuilder::rangeOf(antlr4::Token *token) const {
  return text.getRange(token->getStartIndex(), token->getStopIndex());
}

SourceRange ASTBuilder::rangeOf(ParseTree *node) const {
  if (auto *terminal = dynamic_cast<TerminalNode *>(node))
    return rangeOf(terminal->getSymbol());
  return rangeOf(static_cast<antlr4::ParserRuleContext *>(node));
}

bool ASTBuilder::error(SourceRange range, const llvm::Twine &message) {
  ok = false;
  return diag.error(range, message);
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

bool ASTBuilder::buildFile(P::FileContext *file) {
  for (P::StmtContext *stmt : file->stmt())
    module.getBody().push_back(buildStmt(stmt));
  return ok;
}

Stmt *ASTBuilder::buildStmt(P::StmtContext *ctx) {
  if (P::SimpleStmtContext *simple = ctx->simpleStmt())
    return buildSmallStmt(simple->smallStmt());
  P::CompoundStmtContext *compound = ctx->compoundStmt();
  if (P::FuncDefContext *def = compound->funcDef())
    return buildFuncDef(def);
  if (P::IfStmtContext *ifStmt = compound->ifStmt())
    return buildIf(ifStmt);
  if (P::WhileStmtContext *whileStmt = compound->whileStmt())
    return buildWhile(whileStmt);
  return buildFor(compound->forStmt());
}

Stmt *ASTBuilder::buildSmallStmt(P::SmallStmtContext *ctx) {
  SourceRange range = rangeOf(ctx);
  if (auto *import = dynamic_cast<P::ImportStmtContext *>(ctx))
    return buildImport(import);
  if (auto *ret = dynamic_cast<P::ReturnStmtContext *>(ctx))
    return make<ReturnStmt>(range, ret->testList() ? buildTestList(ret->testList()) : nullptr);
  if (dynamic_cast<P::PassStmtContext *>(ctx))
    return make<PassStmt>(range);
  if (dynamic_cast<P::BreakStmtContext *>(ctx))
    return make<BreakStmt>(range);
  if (dynamic_cast<P::ContinueStmtContext *>(ctx))
    return make<ContinueStmt>(range);
  if (auto *assert = dynamic_cast<P::AssertStmtContext *>(ctx)) {
    std::vector<P::TestContext *> tests = assert->test();
    return make<AssertStmt>(range, buildTest(tests[0]), tests.size() > 1 ? buildTest(tests[1]) : nullptr);
  }
  return buildExprStmt(static_cast<P::ExprStmtContext *>(ctx));
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
  Expr *defaultValue = ctx->test() ? buildTest(ctx->test()) : nullptr;
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
    auto *elif = make<IfStmt>(range, buildTest((*it)->test()), std::move(thenBody), std::move(elseBody),
                              /*elif=*/true);
    elseBody = Body{elif};
  }
  Expr *cond = buildTest(ctx->test());
  Body thenBody = buildBlock(ctx->block());
  SourceRange range = join(rangeOf(ctx->IF()->getSymbol()),
                           (elseBody.empty() ? thenBody : elseBody).back()->getRange());
  return make<IfStmt>(range, cond, std::move(thenBody), std::move(elseBody), /*elif=*/false);
}

Stmt *ASTBuilder::buildWhile(P::WhileStmtContext *ctx) {
  Expr *cond = buildTest(ctx->test());
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
  if (P::SimpleStmtContext *simple = ctx->simpleStmt())
    return Body{buildSmallStmt(simple->smallStmt())};
  Body body;
  for (P::StmtContext *stmt : ctx->stmt())
    body.push_back(buildStmt(stmt));
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
      {"int", ScalarTypeKind::Int}, {"float", ScalarTypeKind::Float},
      {"bool", ScalarTypeKind::Bool}, {"str", ScalarTypeKind::Str}};
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
  if (auto *only = onlyChild<P::TestContext>(ctx))
    return buildTest(only);
  std::vector<P::TestContext *> tests = ctx->test();
  if (tests.size() == 1 && ctx->COMMA().empty())
    return buildTest(tests[0]);
  std::vector<Expr *> elements;
  for (P::TestContext *test : tests)
    elements.push_back(buildTest(test));
  return make<TupleExpr>(rangeOf(ctx), std::move(elements));
}

Expr *ASTBuilder::buildTest(P::TestContext *ctx) {
  if (auto *only = onlyChild<P::OrTestContext>(ctx))
    return buildOrTest(only);
  // children: value0 [IF cond0 ELSE value1 [IF cond1 ELSE value2 ...]]; folds to the right.
  std::vector<P::OrTestContext *> parts = ctx->orTest();
  Expr *result = buildOrTest(parts.back());
  for (size_t i = parts.size() - 1; i >= 2; i -= 2) {
    Expr *cond = buildOrTest(parts[i - 1]);
    Expr *thenValue = buildOrTest(parts[i - 2]);
    result = make<IfExpExpr>(join(thenValue->getRange(), result->getRange()), cond, thenValue, result);
  }
  return result;
}

template <typename Operand, typename Combine>
Expr *ASTBuilder::foldLeft(antlr4::ParserRuleContext *ctx, Expr *(ASTBuilder::*build)(Operand *),
                           Combine combine) {
  // children alternate operand, operator, operand, ... (a flat list however long the chain)
  Expr *result = (this->*build)(static_cast<Operand *>(ctx->children[0]));
  for (size_t i = 1; i + 1 < ctx->children.size(); i += 2) {
    Expr *rhs = (this->*build)(static_cast<Operand *>(ctx->children[i + 1]));
    result = combine(firstToken(ctx->children[i]), result, rhs);
  }
  return result;
}

Expr *ASTBuilder::makeBinary(antlr4::Token *op, Expr *lhs, Expr *rhs) {
  return make<BinaryExpr>(join(lhs->getRange(), rhs->getRange()), binaryOpOf(op->getType()), rangeOf(op),
                          lhs, rhs);
}

Expr *ASTBuilder::buildOrTest(P::OrTestContext *ctx) {
  return foldLeft(ctx, &ASTBuilder::buildAndTest, [&](antlr4::Token *, Expr *lhs, Expr *rhs) -> Expr * {
    return make<BoolOpExpr>(join(lhs->getRange(), rhs->getRange()), BoolOpKind::Or, lhs, rhs);
  });
}

Expr *ASTBuilder::buildAndTest(P::AndTestContext *ctx) {
  return foldLeft(ctx, &ASTBuilder::buildNotTest, [&](antlr4::Token *, Expr *lhs, Expr *rhs) -> Expr * {
    return make<BoolOpExpr>(join(lhs->getRange(), rhs->getRange()), BoolOpKind::And, lhs, rhs);
  });
}

Expr *ASTBuilder::applyPrefix(const std::vector<TerminalNode *> &ops, UnaryOp op, Expr *operand) {
  for (auto it = ops.rbegin(); it != ops.rend(); ++it)
    operand = make<UnaryExpr>(join(rangeOf((*it)->getSymbol()), operand->getRange()), op, operand);
  return operand;
}

Expr *ASTBuilder::buildNotTest(P::NotTestContext *ctx) {
  if (auto *only = onlyChild<P::ComparisonContext>(ctx))
    return buildComparison(only);
  return applyPrefix(ctx->NOT(), UnaryOp::Not, buildComparison(ctx->comparison()));
}

Expr *ASTBuilder::buildComparison(P::ComparisonContext *ctx) {
  if (auto *only = onlyChild<P::ArithContext>(ctx))
    return buildArith(only);
  std::vector<P::ArithContext *> operands = ctx->arith();
  Expr *lhs = buildArith(operands[0]);
  if (operands.size() == 1)
    return lhs;
  std::vector<P::CompOpContext *> ops = ctx->compOp();
  if (ops.size() > 1)
    error(rangeOf(ops[1]), "chained comparisons are not supported; write 'a " + ops[0]->getText() +
                               " b and b " + ops[1]->getText() + " c'");
  return makeBinary(ops[0]->getStart(), lhs, buildArith(operands[1]));
}

Expr *ASTBuilder::buildArith(P::ArithContext *ctx) {
  return foldLeft(ctx, &ASTBuilder::buildTerm,
                  [&](antlr4::Token *op, Expr *lhs, Expr *rhs) { return makeBinary(op, lhs, rhs); });
}

Expr *ASTBuilder::buildTerm(P::TermContext *ctx) {
  return foldLeft(ctx, &ASTBuilder::buildFactor,
                  [&](antlr4::Token *op, Expr *lhs, Expr *rhs) { return makeBinary(op, lhs, rhs); });
}

Expr *ASTBuilder::buildFactor(P::FactorContext *ctx) {
  if (auto *only = onlyChild<P::PowerContext>(ctx))
    return buildPower(only);
  return applyPrefix(ctx->MINUS(), UnaryOp::Neg, buildPower(ctx->power()));
}

Expr *ASTBuilder::buildPower(P::PowerContext *ctx) {
  if (auto *only = onlyChild<P::AtomExprContext>(ctx))
    return buildAtomExpr(only);
  // children: atomExpr (POW MINUS* atomExpr)*. Split into operands, the '**' tokens and the
  // minus signs in front of each operand; then fold from the right:
  // a ** -b ** c == a ** (-(b ** c)).
  std::vector<P::AtomExprContext *> operands;
  std::vector<antlr4::Token *> pows;
  std::vector<std::vector<TerminalNode *>> minuses(1);
  for (ParseTree *child : ctx->children) {
    if (auto *operand = dynamic_cast<P::AtomExprContext *>(child)) {
      operands.push_back(operand);
      continue;
    }
    auto *terminal = static_cast<TerminalNode *>(child);
    if (terminal->getSymbol()->getType() == P::POW) {
      pows.push_back(terminal->getSymbol());
      minuses.emplace_back();
    } else {
      minuses.back().push_back(terminal);
    }
  }
  Expr *result = buildAtomExpr(operands.back());
  for (size_t i = operands.size() - 1; i >= 1; --i) {
    result = applyPrefix(minuses[i], UnaryOp::Neg, result);
    Expr *base = buildAtomExpr(operands[i - 1]);
    result = make<BinaryExpr>(join(base->getRange(), result->getRange()), BinaryOp::Pow,
                              rangeOf(pows[i - 1]), base, result);
  }
  return result;
}

Expr *ASTBuilder::buildAtomExpr(P::AtomExprContext *ctx) {
  // children: atom trailer*
  Expr *result = buildAtom(static_cast<P::AtomContext *>(ctx->children[0]));
  for (size_t i = 1; i < ctx->children.size(); ++i) {
    auto *trailer = static_cast<P::TrailerContext *>(ctx->children[i]);
    if (auto *call = dynamic_cast<P::CallTrailerContext *>(trailer)) {
      result = buildCall(result, call);
    } else if (auto *sub = dynamic_cast<P::SubscriptTrailerContext *>(trailer)) {
      result = buildSubscript(result, sub);
    } else {
      auto *attr = static_cast<P::AttributeTrailerContext *>(trailer);
      result = make<AttributeExpr>(join(result->getRange(), rangeOf(attr)), result, attr->NAME()->getText(),
                                   rangeOf(attr->NAME()->getSymbol()));
    }
  }
  return result;
}

Expr *ASTBuilder::buildCall(Expr *callee, P::CallTrailerContext *ctx) {
  std::vector<Expr *> args;
  std::vector<KeywordArg> kwargs;
  llvm::StringSet<> names;
  if (ctx->argList()) {
    for (P::ArgumentContext *arg : ctx->argList()->argument()) {
      Expr *value = buildTest(arg->test());
      if (!arg->ASSIGN()) {
        if (!kwargs.empty())
          error(value->getRange(), "positional argument follows keyword argument");
        args.push_back(value);
        continue;
      }
      std::string name = arg->NAME()->getText();
      SourceRange nameRange = rangeOf(arg->NAME()->getSymbol());
      if (!names.insert(name).second)
        error(nameRange, "keyword argument '" + name + "' repeated");
      kwargs.push_back(KeywordArg{name, nameRange, value});
    }
  }
  return make<CallExpr>(join(callee->getRange(), rangeOf(ctx)), callee, std::move(args), std::move(kwargs));
}

Expr *ASTBuilder::buildSubscript(Expr *value, P::SubscriptTrailerContext *ctx) {
  std::vector<Expr *> indices;
  for (P::SubscriptContext *item : ctx->subscriptList()->subscript())
    indices.push_back(item->sliceTail() ? buildSlice(item) : buildTest(item->test()));
  return make<SubscriptExpr>(join(value->getRange(), rangeOf(ctx)), value, std::move(indices));
}

Expr *ASTBuilder::buildSlice(P::SubscriptContext *ctx) {
  P::SliceTailContext *tail = ctx->sliceTail();
  Expr *lower = ctx->test() ? buildTest(ctx->test()) : nullptr;
  Expr *upper = tail->upper ? buildTest(tail->upper) : nullptr;
  Expr *step = tail->step ? buildTest(tail->step) : nullptr;
  return make<SliceExpr>(rangeOf(ctx), lower, upper, step);
}

Expr *ASTBuilder::buildAtom(P::AtomContext *ctx) {
  // The first token tells the labelled alternative apart (cheaper than dynamic_cast).
  antlr4::Token *first = ctx->getStart();
  switch (first->getType()) {
  case P::NAME: return make<NameExpr>(rangeOf(first), first->getText());
  case P::INT: return buildInt(first);
  case P::FLOAT: return buildFloat(first);
  case P::STRING: return buildString(static_cast<P::StringAtomContext *>(ctx));
  case P::TRUE:
  case P::FALSE: return make<BoolLiteralExpr>(rangeOf(first), first->getType() == P::TRUE);
  case P::LBRACK: {
    std::vector<Expr *> elements;
    for (P::TestContext *test : static_cast<P::ListAtomContext *>(ctx)->test())
      elements.push_back(buildTest(test));
    return make<ListExpr>(rangeOf(ctx), std::move(elements));
  }
  default: break;
  }
  auto *paren = static_cast<P::ParenAtomContext *>(ctx);
  if (!paren->testList())
    return make<TupleExpr>(rangeOf(ctx), std::vector<Expr *>{});
  Expr *inner = buildTestList(paren->testList());
  if (auto *tuple = llvm::dyn_cast<TupleExpr>(inner)) // the parentheses belong to the tuple
    return make<TupleExpr>(rangeOf(ctx), tuple->getElements());
  return inner;
}

Expr *ASTBuilder::buildInt(antlr4::Token *token) {
  std::string spelling = token->getText();
  int64_t value = 0;
  if (llvm::StringRef(spelling).getAsInteger(10, value))
    error(rangeOf(token), "integer literal '" + spelling + "' does not fit in a 64-bit int");
  return make<IntLiteralExpr>(rangeOf(token), value);
}

Expr *ASTBuilder::buildFloat(antlr4::Token *token) {
  std::string spelling = token->getText();
  double value = std::strtod(spelling.c_str(), nullptr);
  if (std::isinf(value))
    error(rangeOf(token), "floating-point literal '" + spelling + "' is out of range");
  return make<FloatLiteralExpr>(rangeOf(token), value);
}

Expr *ASTBuilder::buildString(P::StringAtomContext *ctx) {
  std::string value;
  for (TerminalNode *piece : ctx->STRING())
    decodeString(piece->getSymbol(), value);
  return make<StringLiteralExpr>(rangeOf(ctx), std::move(value));
}

bool ASTBuilder::decodeString(antlr4::Token *token, std::string &out) {
  std::string spelling = token->getText();
  llvm::StringRef body = spelling;
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
    case 'n': out += '\n'; break;
    case 't': out += '\t'; break;
    case 'r': out += '\r'; break;
    case '0': out += '\0'; break;
    case '\\': out += '\\'; break;
    case '\'': out += '\''; break;
    case '"': out += '"'; break;
    case '\n': break; // a backslash-newline continues the literal on the next line
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
