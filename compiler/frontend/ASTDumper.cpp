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
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '"':
      out += "\\\"";
      break;
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

/// Levels of indentation printed as spaces; deeper lines say their depth instead (a chain
/// `a + b + ...` of 300 000 terms nests that deep, and spaces would make the dump quadratic).
constexpr unsigned kMaxIndentLevels = 100;

/// Prints a tree without recursion: a stack of lines still to print, children pushed in
/// reverse so they come out in source order.
class Dumper {
public:
  Dumper(const DiagnosticEngine &diag, llvm::raw_ostream &os) : diag(diag), os(os) {}

  void dump(const Node *root, unsigned indent);

private:
  /// One line to print: a node (with its role, if any), or a header such as `body:` that
  /// groups the statements after it.
  struct Item {
    std::string role;
    const Node *node; ///< null for a header
    unsigned indent;
  };

  void line(const Item &item);
  void children(const Node *node, unsigned indent);
  void body(llvm::StringRef role, const Body &stmts, unsigned indent);
  void child(llvm::StringRef role, const Node *node, unsigned indent) {
    if (node)
      pending.push_back({role.str(), node, indent});
  }
  std::string describe(const Node *node);
  std::string describeTensor(const TensorTypeExpr *tensor);
  std::string location(SourceRange range);

  const DiagnosticEngine &diag;
  llvm::raw_ostream &os;
  std::vector<Item> stack;   ///< lines still to print, the next one last
  std::vector<Item> pending; ///< children of the node being printed, in source order
};

std::string Dumper::location(SourceRange range) {
  auto [beginLine, beginCol] = diag.getLineAndColumn(range.Start);
  auto [endLine, endCol] = diag.getLineAndColumn(range.End);
  return "<" + std::to_string(beginLine) + ":" + std::to_string(beginCol) + "-" +
         std::to_string(endLine) + ":" + std::to_string(endCol) + ">";
}

void Dumper::line(const Item &item) {
  if (item.indent > kMaxIndentLevels)
    os.indent(kMaxIndentLevels * 2) << "+" << item.indent - kMaxIndentLevels << " ";
  else
    os.indent(item.indent * 2);
  std::string content = item.node ? describe(item.node) : "";
  if (!item.role.empty())
    os << item.role << (content.empty() ? ":" : ": ");
  os << content;
  if (item.node)
    os << " " << location(item.node->getRange());
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
  case NodeKind::FunctionDef:
    return kind + " '" + llvm::cast<FunctionDefStmt>(node)->getName().str() + "'";
  case NodeKind::Param:
    return kind + " '" + llvm::cast<Param>(node)->getName().str() + "'";
  case NodeKind::AugAssign:
    return kind + " '" + binaryOpSpelling(llvm::cast<AugAssignStmt>(node)->getOp()).str() + "='";
  case NodeKind::If:
    return llvm::cast<IfStmt>(node)->isElif() ? kind + " elif" : kind;
  case NodeKind::Name:
    return kind + " '" + llvm::cast<NameExpr>(node)->getName().str() + "'";
  case NodeKind::IntLiteral:
    return kind + " " + std::to_string(llvm::cast<IntLiteralExpr>(node)->getValue());
  case NodeKind::FloatLiteral:
    return kind + " " + formatDouble(llvm::cast<FloatLiteralExpr>(node)->getValue());
  case NodeKind::BoolLiteral:
    return kind + (llvm::cast<BoolLiteralExpr>(node)->getValue() ? " True" : " False");
  case NodeKind::StringLiteral:
    return kind + " " + quoteString(llvm::cast<StringLiteralExpr>(node)->getValue());
  case NodeKind::Binary:
    return kind + " '" + binaryOpSpelling(llvm::cast<BinaryExpr>(node)->getOp()).str() + "'";
  case NodeKind::BoolOp:
    return kind + (llvm::cast<BoolOpExpr>(node)->getOp() == BoolOpKind::And ? " and" : " or");
  case NodeKind::Unary:
    return kind + (llvm::cast<UnaryExpr>(node)->getOp() == UnaryOp::Neg ? " '-'" : " not");
  case NodeKind::Attribute:
    return kind + " '" + llvm::cast<AttributeExpr>(node)->getName().str() + "'";
  case NodeKind::ScalarType:
    return kind + " " + scalarTypeName(llvm::cast<ScalarTypeExpr>(node)->getScalarKind()).str();
  case NodeKind::TensorType:
    return describeTensor(llvm::cast<TensorTypeExpr>(node));
  default:
    return kind;
  }
}

void Dumper::dump(const Node *root, unsigned indent) {
  stack.push_back({"", root, indent});
  while (!stack.empty()) {
    Item item = std::move(stack.back());
    stack.pop_back();
    line(item);
    if (!item.node)
      continue;
    children(item.node, item.indent + 1);
    stack.insert(stack.end(), std::make_move_iterator(pending.rbegin()),
                 std::make_move_iterator(pending.rend()));
    pending.clear();
  }
}

void Dumper::body(llvm::StringRef role, const Body &stmts, unsigned indent) {
  if (stmts.empty())
    return;
  pending.push_back({role.str(), nullptr, indent});
  for (const Stmt *stmt : stmts)
    pending.push_back({"", stmt, indent + 1});
}

void Dumper::children(const Node *node, unsigned indent) {
  switch (node->getKind()) {
  case NodeKind::FunctionDef: {
    const auto *def = llvm::cast<FunctionDefStmt>(node);
    for (const Param *param : def->getParams())
      child("", param, indent);
    child("returns", def->getReturnAnnotation(), indent);
    return body("body", def->getBody(), indent);
  }
  case NodeKind::Param:
    child("type", llvm::cast<Param>(node)->getAnnotation(), indent);
    return child("default", llvm::cast<Param>(node)->getDefault(), indent);
  case NodeKind::Assign:
    child("target", llvm::cast<AssignStmt>(node)->getTarget(), indent);
    child("type", llvm::cast<AssignStmt>(node)->getAnnotation(), indent);
    return child("value", llvm::cast<AssignStmt>(node)->getValue(), indent);
  case NodeKind::AugAssign:
    child("target", llvm::cast<AugAssignStmt>(node)->getTarget(), indent);
    return child("value", llvm::cast<AugAssignStmt>(node)->getValue(), indent);
  case NodeKind::For:
    child("target", llvm::cast<ForStmt>(node)->getTarget(), indent);
    child("iterable", llvm::cast<ForStmt>(node)->getIterable(), indent);
    return body("body", llvm::cast<ForStmt>(node)->getBody(), indent);
  case NodeKind::If:
    child("cond", llvm::cast<IfStmt>(node)->getCond(), indent);
    body("then", llvm::cast<IfStmt>(node)->getThenBody(), indent);
    return body("else", llvm::cast<IfStmt>(node)->getElseBody(), indent);
  case NodeKind::While:
    child("cond", llvm::cast<WhileStmt>(node)->getCond(), indent);
    return body("body", llvm::cast<WhileStmt>(node)->getBody(), indent);
  case NodeKind::Assert:
    child("cond", llvm::cast<AssertStmt>(node)->getCond(), indent);
    return child("message", llvm::cast<AssertStmt>(node)->getMessage(), indent);
  case NodeKind::IfExp:
    child("then", llvm::cast<IfExpExpr>(node)->getThenValue(), indent);
    child("cond", llvm::cast<IfExpExpr>(node)->getCond(), indent);
    return child("else", llvm::cast<IfExpExpr>(node)->getElseValue(), indent);
  case NodeKind::Call: {
    const auto *call = llvm::cast<CallExpr>(node);
    child("callee", call->getCallee(), indent);
    for (const Expr *arg : call->getArgs())
      child("", arg, indent);
    for (const KeywordArg &kwarg : call->getKeywordArgs())
      child("kwarg '" + kwarg.name + "'", kwarg.value, indent);
    return;
  }
  case NodeKind::Slice:
    child("lower", llvm::cast<SliceExpr>(node)->getLower(), indent);
    child("upper", llvm::cast<SliceExpr>(node)->getUpper(), indent);
    return child("step", llvm::cast<SliceExpr>(node)->getStep(), indent);
  default:
    break;
  }
  forEachChild(node, [&](const Node *c) { child("", c, indent); });
}

} // namespace

void dumpNode(const Node *node, const DiagnosticEngine &diag, llvm::raw_ostream &os,
              unsigned indent) {
  Dumper(diag, os).dump(node, indent);
}

void dumpAST(const Module &module, const DiagnosticEngine &diag, llvm::raw_ostream &os) {
  os << "Module '" << module.getName() << "'\n";
  for (const Stmt *stmt : module.getBody())
    dumpNode(stmt, diag, os, 1);
}

} // namespace dlm
