//===- compiler/frontend/AST.cpp - Names and spellings of AST nodes -------===//
//
// The small tables that map AST enums to their spellings (used by the dump and by
// diagnostics of later stages).
//
//===----------------------------------------------------------------------===//
#include "compiler/frontend/AST.h"

#include "llvm/ADT/STLExtras.h"

namespace dlm {

llvm::StringRef nodeKindName(NodeKind kind) {
  switch (kind) {
  case NodeKind::Import:
    return "Import";
  case NodeKind::FunctionDef:
    return "FunctionDef";
  case NodeKind::Assign:
    return "Assign";
  case NodeKind::AugAssign:
    return "AugAssign";
  case NodeKind::If:
    return "If";
  case NodeKind::While:
    return "While";
  case NodeKind::For:
    return "For";
  case NodeKind::Break:
    return "Break";
  case NodeKind::Continue:
    return "Continue";
  case NodeKind::Return:
    return "Return";
  case NodeKind::Pass:
    return "Pass";
  case NodeKind::Assert:
    return "Assert";
  case NodeKind::ExprStmt:
    return "ExprStmt";
  case NodeKind::Name:
    return "Name";
  case NodeKind::IntLiteral:
    return "IntLiteral";
  case NodeKind::FloatLiteral:
    return "FloatLiteral";
  case NodeKind::BoolLiteral:
    return "BoolLiteral";
  case NodeKind::StringLiteral:
    return "StringLiteral";
  case NodeKind::Tuple:
    return "Tuple";
  case NodeKind::List:
    return "List";
  case NodeKind::Binary:
    return "Binary";
  case NodeKind::BoolOp:
    return "BoolOp";
  case NodeKind::Unary:
    return "Unary";
  case NodeKind::IfExp:
    return "IfExp";
  case NodeKind::Call:
    return "Call";
  case NodeKind::Attribute:
    return "Attribute";
  case NodeKind::Subscript:
    return "Subscript";
  case NodeKind::Slice:
    return "Slice";
  case NodeKind::ScalarType:
    return "ScalarType";
  case NodeKind::TensorType:
    return "TensorType";
  case NodeKind::TupleType:
    return "TupleType";
  case NodeKind::Param:
    return "Param";
  case NodeKind::Module:
    return "Module";
  }
  return "?";
}

llvm::StringRef binaryOpSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::FloorDiv:
    return "//";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::Pow:
    return "**";
  case BinaryOp::MatMul:
    return "@";
  case BinaryOp::Lt:
    return "<";
  case BinaryOp::Le:
    return "<=";
  case BinaryOp::Gt:
    return ">";
  case BinaryOp::Ge:
    return ">=";
  case BinaryOp::Eq:
    return "==";
  case BinaryOp::Ne:
    return "!=";
  }
  return "?";
}

bool isComparison(BinaryOp op) { return op >= BinaryOp::Lt; }

llvm::StringRef scalarTypeName(ScalarTypeKind kind) {
  switch (kind) {
  case ScalarTypeKind::Int:
    return "int";
  case ScalarTypeKind::Float:
    return "float";
  case ScalarTypeKind::Bool:
    return "bool";
  case ScalarTypeKind::Str:
    return "str";
  }
  return "?";
}

llvm::StringRef ImportStmt::getBindingName() const {
  llvm::StringRef full = name;
  size_t slash = full.rfind('/');
  return slash == llvm::StringRef::npos ? full : full.substr(slash + 1);
}

void Module::append(std::unique_ptr<Module> part) {
  body.insert(body.end(), part->body.begin(), part->body.end());
  parts.push_back(std::move(part));
}

bool Module::hasBuffer(unsigned id) const {
  return id == bufferID ||
         llvm::any_of(parts, [&](const std::unique_ptr<Module> &p) { return p->hasBuffer(id); });
}

} // namespace dlm

namespace dlm {

namespace {

void forEachInBody(const Body &body, llvm::function_ref<void(const Node *)> fn) {
  for (const Stmt *stmt : body)
    fn(stmt);
}

void forEachOfExpr(const Expr *e, llvm::function_ref<void(const Node *)> fn) {
  auto visit = [&](const Node *child) {
    if (child)
      fn(child);
  };
  switch (e->getKind()) {
  case NodeKind::Tuple:
    for (const Expr *element : llvm::cast<TupleExpr>(e)->getElements())
      visit(element);
    return;
  case NodeKind::List:
    for (const Expr *element : llvm::cast<ListExpr>(e)->getElements())
      visit(element);
    return;
  case NodeKind::Binary:
    visit(llvm::cast<BinaryExpr>(e)->getLHS());
    visit(llvm::cast<BinaryExpr>(e)->getRHS());
    return;
  case NodeKind::BoolOp:
    visit(llvm::cast<BoolOpExpr>(e)->getLHS());
    visit(llvm::cast<BoolOpExpr>(e)->getRHS());
    return;
  case NodeKind::Unary:
    return visit(llvm::cast<UnaryExpr>(e)->getOperand());
  case NodeKind::IfExp: {
    const auto *ifExp = llvm::cast<IfExpExpr>(e);
    visit(ifExp->getThenValue());
    visit(ifExp->getCond());
    return visit(ifExp->getElseValue());
  }
  case NodeKind::Call: {
    const auto *call = llvm::cast<CallExpr>(e);
    visit(call->getCallee());
    for (const Expr *arg : call->getArgs())
      visit(arg);
    for (const KeywordArg &kwarg : call->getKeywordArgs())
      visit(kwarg.value);
    return;
  }
  case NodeKind::Attribute:
    return visit(llvm::cast<AttributeExpr>(e)->getValue());
  case NodeKind::Subscript:
    visit(llvm::cast<SubscriptExpr>(e)->getValue());
    for (const Expr *index : llvm::cast<SubscriptExpr>(e)->getIndices())
      visit(index);
    return;
  case NodeKind::Slice:
    visit(llvm::cast<SliceExpr>(e)->getLower());
    visit(llvm::cast<SliceExpr>(e)->getUpper());
    return visit(llvm::cast<SliceExpr>(e)->getStep());
  default:
    return; // leaves
  }
}

void forEachOfStmt(const Stmt *s, llvm::function_ref<void(const Node *)> fn) {
  auto visit = [&](const Node *child) {
    if (child)
      fn(child);
  };
  switch (s->getKind()) {
  case NodeKind::FunctionDef: {
    const auto *def = llvm::cast<FunctionDefStmt>(s);
    for (const Param *param : def->getParams())
      visit(param);
    visit(def->getReturnAnnotation());
    return forEachInBody(def->getBody(), fn);
  }
  case NodeKind::Assign:
    visit(llvm::cast<AssignStmt>(s)->getTarget());
    visit(llvm::cast<AssignStmt>(s)->getAnnotation());
    return visit(llvm::cast<AssignStmt>(s)->getValue());
  case NodeKind::AugAssign:
    visit(llvm::cast<AugAssignStmt>(s)->getTarget());
    return visit(llvm::cast<AugAssignStmt>(s)->getValue());
  case NodeKind::If:
    visit(llvm::cast<IfStmt>(s)->getCond());
    forEachInBody(llvm::cast<IfStmt>(s)->getThenBody(), fn);
    return forEachInBody(llvm::cast<IfStmt>(s)->getElseBody(), fn);
  case NodeKind::While:
    visit(llvm::cast<WhileStmt>(s)->getCond());
    return forEachInBody(llvm::cast<WhileStmt>(s)->getBody(), fn);
  case NodeKind::For:
    visit(llvm::cast<ForStmt>(s)->getTarget());
    visit(llvm::cast<ForStmt>(s)->getIterable());
    return forEachInBody(llvm::cast<ForStmt>(s)->getBody(), fn);
  case NodeKind::Return:
    return visit(llvm::cast<ReturnStmt>(s)->getValue());
  case NodeKind::Assert:
    visit(llvm::cast<AssertStmt>(s)->getCond());
    return visit(llvm::cast<AssertStmt>(s)->getMessage());
  case NodeKind::ExprStmt:
    return visit(llvm::cast<ExprStmt>(s)->getExpr());
  default:
    return; // import, break, continue, pass
  }
}

} // namespace

void forEachChild(const Node *node, llvm::function_ref<void(const Node *)> fn) {
  if (const auto *e = llvm::dyn_cast<Expr>(node))
    return forEachOfExpr(e, fn);
  if (const auto *s = llvm::dyn_cast<Stmt>(node))
    return forEachOfStmt(s, fn);
  if (const auto *param = llvm::dyn_cast<Param>(node)) {
    if (param->getAnnotation())
      fn(param->getAnnotation());
    if (param->getDefault())
      fn(param->getDefault());
    return;
  }
  if (const auto *tuple = llvm::dyn_cast<TupleTypeExpr>(node))
    for (const TypeExpr *element : tuple->getElements())
      fn(element);
  if (const auto *module = llvm::dyn_cast<Module>(node))
    forEachInBody(module->getBody(), fn);
}

} // namespace dlm
