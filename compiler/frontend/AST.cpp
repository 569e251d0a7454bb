//===- compiler/frontend/AST.cpp - Names and spellings of AST nodes -------===//
//
// The small tables that map AST enums to their spellings (used by the dump and by
// diagnostics of later stages).
//
//===----------------------------------------------------------------------===//
#include "compiler/frontend/AST.h"

namespace dlm {

llvm::StringRef nodeKindName(NodeKind kind) {
  switch (kind) {
  case NodeKind::Import: return "Import";
  case NodeKind::FunctionDef: return "FunctionDef";
  case NodeKind::Assign: return "Assign";
  case NodeKind::AugAssign: return "AugAssign";
  case NodeKind::If: return "If";
  case NodeKind::While: return "While";
  case NodeKind::For: return "For";
  case NodeKind::Break: return "Break";
  case NodeKind::Continue: return "Continue";
  case NodeKind::Return: return "Return";
  case NodeKind::Pass: return "Pass";
  case NodeKind::Assert: return "Assert";
  case NodeKind::ExprStmt: return "ExprStmt";
  case NodeKind::Name: return "Name";
  case NodeKind::IntLiteral: return "IntLiteral";
  case NodeKind::FloatLiteral: return "FloatLiteral";
  case NodeKind::BoolLiteral: return "BoolLiteral";
  case NodeKind::StringLiteral: return "StringLiteral";
  case NodeKind::Tuple: return "Tuple";
  case NodeKind::List: return "List";
  case NodeKind::Binary: return "Binary";
  case NodeKind::BoolOp: return "BoolOp";
  case NodeKind::Unary: return "Unary";
  case NodeKind::IfExp: return "IfExp";
  case NodeKind::Call: return "Call";
  case NodeKind::Attribute: return "Attribute";
  case NodeKind::Subscript: return "Subscript";
  case NodeKind::Slice: return "Slice";
  case NodeKind::ScalarType: return "ScalarType";
  case NodeKind::TensorType: return "TensorType";
  case NodeKind::TupleType: return "TupleType";
  case NodeKind::Param: return "Param";
  case NodeKind::Module: return "Module";
  }
  return "?";
}

llvm::StringRef binaryOpSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::FloorDiv: return "//";
  case BinaryOp::Mod: return "%";
  case BinaryOp::Pow: return "**";
  case BinaryOp::MatMul: return "@";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  }
  return "?";
}

bool isComparison(BinaryOp op) { return op >= BinaryOp::Lt; }

llvm::StringRef scalarTypeName(ScalarTypeKind kind) {
  switch (kind) {
  case ScalarTypeKind::Int: return "int";
  case ScalarTypeKind::Float: return "float";
  case ScalarTypeKind::Bool: return "bool";
  case ScalarTypeKind::Str: return "str";
  }
  return "?";
}

llvm::StringRef ImportStmt::getBindingName() const {
  llvm::StringRef full = name;
  size_t slash = full.rfind('/');
  return slash == llvm::StringRef::npos ? full : full.substr(slash + 1);
}

} // namespace dlm
