//===- compiler/frontend/ASTDumper.cpp - The --emit=ast text form ---------===//
#include "compiler/frontend/ASTDumper.h"

#include <charconv>

namespace dlm {

namespace {

/// Shortest text that reads back as the same double, always with a '.' or an exponent.
std::string formatDouble(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, end);
  if (text.find_first_of(".en") == std::string::npos) // not "1.5", "1e+20", "inf", "nan"
    text += ".0";
  return text;
}

std::string quoteString(llvm::StringRef value) {
  std::string out = "\"";
  for (unsigned char c : value) {
    switch (c) {
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    case '\\': out += "\\\\"; break;
    case '"': out += "\\\""; break;
    default:
      if (c < 0x20 || c == 0x7f) {
        static const char hex[] = "0123456789abcdef";
        out += "\\x";
        out += hex[c >> 4];
        out += hex[c & 15];
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

class Dumper {
public:
  Dumper(const DiagnosticEngine &diag, llvm::raw_ostream &os, unsigned indent)
      : diag(diag), os(os), indent(indent) {}

  void dump(const Node *node, llvm::StringRef role = "");

private:
  void line(llvm::StringRef role, const llvm::Twine &text, const Node *node);
  void children(const Node *node);
  void body(llvm::StringRef role, const Body &stmts);
  void child(llvm::StringRef role, const Node *node) {
    if (node)
      dump(node, role);
  }
  std::string describe(const Node *node);
  std::string describeTensor(const TensorTypeExpr *tensor);
  std::string location(SourceRange range);

  const DiagnosticEngine &diag;
  llvm::raw_ostream &os;
  unsigned indent;
};

std::string Dumper::location(SourceRange range) {
  auto [beginLine, beginCol] = diag.getLineAndColumn(range.Start);
  auto [endLine, endCol] = diag.getLineAndColumn(range.End);
  return "<" + std::to_string(beginLine) + ":" + std::to_string(beginCol) + "-" +
         std::to_string(endLine) + ":" + std::to_string(endCol) + ">";
}

void Dumper::line(llvm::StringRef role, const llvm::Twine &text, const Node *node) {
  os.indent(indent * 2);
  std::string content = text.str();
  if (!role.empty())
    os << role << (content.empty() ? ":" : ": ");
  os << content;
  if (node)
    os << " " << location(node->getRange());
  os << "\n";
}

std::string Dumper::describeTensor(const TensorTypeExpr *tensor) {
  std::string text = "TensorType";
  if (tensor->getDType())
    text += " " + std::string(dtypeName(*tensor->getDType()));
  if (!tensor->hasShape())
    return text;
  text += " [";
  for (size_t i = 0; i < tensor->getDims().size(); ++i) {
    const DimExpr &dim = tensor->getDims()[i];
    text += (i ? ", " : "") + (dim.isSymbolic() ? dim.symbol : std::to_string(*dim.size));
  }
  return text + "]";
}

std::string Dumper::describe(const Node *node) {
  std::string kind = nodeKindName(node->getKind()).str();
  switch (node->getKind()) {
  case NodeKind::Import: {
    const auto *import = llvm::cast<ImportStmt>(node);
    return kind + " '" + import->getName().str() + "'" + (import->isPath() ? " path" : "");
  }
  case NodeKind::FunctionDef: return kind + " '" + llvm::cast<FunctionDefStmt>(node)->getName().str() + "'";
  case NodeKind::Param: return kind + " '" + llvm::cast<Param>(node)->getName().str() + "'";
  case NodeKind::AugAssign:
    return kind + " '" + binaryOpSpelling(llvm::cast<AugAssignStmt>(node)->getOp()).str() + "='";
  case NodeKind::If: return llvm::cast<IfStmt>(node)->isElif() ? kind + " elif" : kind;
  case NodeKind::Name: return kind + " '" + llvm::cast<NameExpr>(node)->getName().str() + "'";
  case NodeKind::IntLiteral: return kind + " " + std::to_string(llvm::cast<IntLiteralExpr>(node)->getValue());
  case NodeKind::FloatLiteral: return kind + " " + formatDouble(llvm::cast<FloatLiteralExpr>(node)->getValue());
  case NodeKind::BoolLiteral: return kind + (llvm::cast<BoolLiteralExpr>(node)->getValue() ? " True" : " False");
  case NodeKind::StringLiteral: return kind + " " + quoteString(llvm::cast<StringLiteralExpr>(node)->getValue());
  case NodeKind::Binary: return kind + " '" + binaryOpSpelling(llvm::cast<BinaryExpr>(node)->getOp()).str() + "'";
  case NodeKind::BoolOp: return kind + (llvm::cast<BoolOpExpr>(node)->getOp() == BoolOpKind::And ? " and" : " or");
  case NodeKind::Unary: return kind + (llvm::cast<UnaryExpr>(node)->getOp() == UnaryOp::Neg ? " '-'" : " not");
  case NodeKind::Attribute: return kind + " '" + llvm::cast<AttributeExpr>(node)->getName().str() + "'";
  case NodeKind::ScalarType: return kind + " " + scalarTypeName(llvm::cast<ScalarTypeExpr>(node)->getScalarKind()).str();
  case NodeKind::TensorType: return describeTensor(llvm::cast<TensorTypeExpr>(node));
  default: return kind;
  }
}

void Dumper::dump(const Node *node, llvm::StringRef role) {
  line(role, describe(node), node);
  ++indent;
  children(node);
  --indent;
}

void Dumper::body(llvm::StringRef role, const Body &stmts) {
  if (stmts.empty())
    return;
  line(role, "", nullptr);
  ++indent;
  for (const Stmt *stmt : stmts)
    dump(stmt);
  --indent;
}

void Dumper::children(const Node *node) {
  switch (node->getKind()) {
  case NodeKind::FunctionDef: {
    const auto *def = llvm::cast<FunctionDefStmt>(node);
    for (const Param *param : def->getParams())
      dump(param);
    child("returns", def->getReturnAnnotation());
    return body("body", def->getBody());
  }
  case NodeKind::Param:
    child("type", llvm::cast<Param>(node)->getAnnotation());
    return child("default", llvm::cast<Param>(node)->getDefault());
  case NodeKind::Assign:
    child("target", llvm::cast<AssignStmt>(node)->getTarget());
    child("type", llvm::cast<AssignStmt>(node)->getAnnotation());
    return child("value", llvm::cast<AssignStmt>(node)->getValue());
  case NodeKind::AugAssign:
    child("target", llvm::cast<AugAssignStmt>(node)->getTarget());
    return child("value", llvm::cast<AugAssignStmt>(node)->getValue());
  case NodeKind::For:
    child("target", llvm::cast<ForStmt>(node)->getTarget());
    child("iterable", llvm::cast<ForStmt>(node)->getIterable());
    return body("body", llvm::cast<ForStmt>(node)->getBody());
  case NodeKind::If:
    child("cond", llvm::cast<IfStmt>(node)->getCond());
    body("then", llvm::cast<IfStmt>(node)->getThenBody());
    return body("else", llvm::cast<IfStmt>(node)->getElseBody());
  case NodeKind::While:
    child("cond", llvm::cast<WhileStmt>(node)->getCond());
    return body("body", llvm::cast<WhileStmt>(node)->getBody());
  case NodeKind::Assert:
    child("cond", llvm::cast<AssertStmt>(node)->getCond());
    return child("message", llvm::cast<AssertStmt>(node)->getMessage());
  case NodeKind::IfExp:
    child("then", llvm::cast<IfExpExpr>(node)->getThenValue());
    child("cond", llvm::cast<IfExpExpr>(node)->getCond());
    return child("else", llvm::cast<IfExpExpr>(node)->getElseValue());
  case NodeKind::Call: {
    const auto *call = llvm::cast<CallExpr>(node);
    child("callee", call->getCallee());
    for (const Expr *arg : call->getArgs())
      dump(arg);
    for (const KeywordArg &kwarg : call->getKeywordArgs())
      dump(kwarg.value, "kwarg '" + kwarg.name + "'");
    return;
  }
  case NodeKind::Slice:
    child("lower", llvm::cast<SliceExpr>(node)->getLower());
    child("upper", llvm::cast<SliceExpr>(node)->getUpper());
    return child("step", llvm::cast<SliceExpr>(node)->getStep());
  default: break;
  }
  forEachChild(node, [&](const Node *c) { dump(c); });
}

} // namespace

void dumpNode(const Node *node, const DiagnosticEngine &diag, llvm::raw_ostream &os, unsigned indent) {
  Dumper(diag, os, indent).dump(node);
}

void dumpAST(const Module &module, const DiagnosticEngine &diag, llvm::raw_ostream &os) {
  os << "Module '" << module.getName() << "'\n";
  for (const Stmt *stmt : module.getBody())
    dumpNode(stmt, diag, os, 1);
}

} // namespace dlm
