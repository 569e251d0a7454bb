//===- compiler/frontend/AST.h - dlm's abstract syntax tree ---------------===//
//
// The AST the parser produces and sema consumes: one node class per construct of the language
// (docs/language.md), each with the source range it was parsed from. ANTLR's parse tree never
// leaves the frontend; this is the only tree later stages see.
//
// Ownership: every node is allocated by, and owned by, the ASTContext of its Module. Nodes
// refer to their children with plain pointers, which stay valid for as long as the context
// lives, so sema can keep `const Expr *` keys and destroying a tree never recurses (nodes are
// freed from a flat list). Children are never null unless documented as optional.
//
// RTTI is LLVM-style: every node has a NodeKind and a static classof, so llvm::isa, cast and
// dyn_cast work on Node, Stmt, Expr and TypeExpr pointers.
//
// Depth: the parser guarantees that no tree is deeper than kMaxNestingDepth nodes, not
// counting left-nested binary-operator chains (it reports "too deeply nested" instead), so
// recursive walkers are safe on the compiler's large-stack thread (compiler/driver/CrashGuard.h)
// as long as they follow the left operands of BinaryExpr chains with a loop.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_FRONTEND_AST_H
#define DLM_COMPILER_FRONTEND_AST_H

#include "runtime/DType.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dlm {

/// A half-open source range [Start, End) in a buffer of the DiagnosticEngine's SourceMgr.
/// Convert to line:col with DiagnosticEngine::getLineAndColumn.
using SourceRange = llvm::SMRange;

/// The deepest tree the parser builds (expression, statement and annotation nodes counted
/// together along one root-to-leaf path). Deeper input is reported as "too deeply nested".
/// The left operand of a BinaryExpr counts at its operator's depth, so a chain
/// `a + b - c + ...` of any length is accepted: it nests to the left as deep as it is long,
/// and every walker follows such left spines with a loop instead of recursion (the AST
/// builder, the dumper, Sema::binary).
constexpr unsigned kMaxNestingDepth = 10000;

/// Every node kind. The order matters: each abstract class covers a contiguous range.
enum class NodeKind : uint8_t {
  // --- statements ---
  FirstStmt,
  Import = FirstStmt,
  FunctionDef,
  Assign,
  AugAssign,
  If,
  While,
  For,
  Break,
  Continue,
  Return,
  Pass,
  Assert,
  ExprStmt,
  LastStmt = ExprStmt,
  // --- expressions ---
  FirstExpr,
  Name = FirstExpr,
  IntLiteral,
  FloatLiteral,
  BoolLiteral,
  StringLiteral,
  Tuple,
  List,
  Binary,
  BoolOp,
  Unary,
  IfExp,
  Call,
  Attribute,
  Subscript,
  Slice,
  LastExpr = Slice,
  // --- type annotations ---
  FirstType,
  ScalarType = FirstType,
  TensorType,
  TupleType,
  LastType = TupleType,
  // --- others ---
  Param,
  Module,
};

/// The spelling of a kind as the AST dump prints it ("FunctionDef", "Binary", ...).
llvm::StringRef nodeKindName(NodeKind kind);

/// Base of every node: a kind and a source range.
class Node {
public:
  virtual ~Node() = default;
  NodeKind getKind() const { return kind; }
  SourceRange getRange() const { return range; }
  llvm::SMLoc getBeginLoc() const { return range.Start; }
  llvm::SMLoc getEndLoc() const { return range.End; }

protected:
  Node(NodeKind kind, SourceRange range) : kind(kind), range(range) {}

private:
  NodeKind kind;
  SourceRange range;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr : public Node {
public:
  static bool classof(const Node *n) {
    return n->getKind() >= NodeKind::FirstExpr && n->getKind() <= NodeKind::LastExpr;
  }

protected:
  using Node::Node;
};

/// A variable, function or module name: `x`, `relu`, `nn`.
class NameExpr : public Expr {
public:
  NameExpr(SourceRange r, std::string name) : Expr(NodeKind::Name, r), name(std::move(name)) {}
  llvm::StringRef getName() const { return name; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Name; }

private:
  std::string name;
};

/// A decimal integer literal; always fits int64 (larger literals are a diagnostic).
class IntLiteralExpr : public Expr {
public:
  IntLiteralExpr(SourceRange r, int64_t value) : Expr(NodeKind::IntLiteral, r), value(value) {}
  int64_t getValue() const { return value; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::IntLiteral; }

private:
  int64_t value;
};

/// A floating-point literal: `1.0`, `.5`, `1e-3`.
class FloatLiteralExpr : public Expr {
public:
  FloatLiteralExpr(SourceRange r, double value) : Expr(NodeKind::FloatLiteral, r), value(value) {}
  double getValue() const { return value; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::FloatLiteral; }

private:
  double value;
};

/// `True` or `False`.
class BoolLiteralExpr : public Expr {
public:
  BoolLiteralExpr(SourceRange r, bool value) : Expr(NodeKind::BoolLiteral, r), value(value) {}
  bool getValue() const { return value; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::BoolLiteral; }

private:
  bool value;
};

/// A string literal with its escapes decoded; adjacent literals are concatenated.
class StringLiteralExpr : public Expr {
public:
  StringLiteralExpr(SourceRange r, std::string value)
      : Expr(NodeKind::StringLiteral, r), value(std::move(value)) {}
  llvm::StringRef getValue() const { return value; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::StringLiteral; }

private:
  std::string value;
};

/// `(a, b)`, `a, b`, `()`, `(a,)`. A parenthesised single expression is not a tuple.
class TupleExpr : public Expr {
public:
  TupleExpr(SourceRange r, std::vector<Expr *> elements)
      : Expr(NodeKind::Tuple, r), elements(std::move(elements)) {}
  const std::vector<Expr *> &getElements() const { return elements; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Tuple; }

private:
  std::vector<Expr *> elements;
};

/// `[a, b]`: the contents of tensor literals (`tensor([[1.0, 2.0], [3.0, 4.0]])`).
class ListExpr : public Expr {
public:
  ListExpr(SourceRange r, std::vector<Expr *> elements)
      : Expr(NodeKind::List, r), elements(std::move(elements)) {}
  const std::vector<Expr *> &getElements() const { return elements; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::List; }

private:
  std::vector<Expr *> elements;
};

/// Binary operators, arithmetic and comparison.
enum class BinaryOp : uint8_t {
  Add,      // +
  Sub,      // -
  Mul,      // *
  Div,      // /
  FloorDiv, // //
  Mod,      // %
  Pow,      // **
  MatMul,   // @
  Lt,       // <
  Le,       // <=
  Gt,       // >
  Ge,       // >=
  Eq,       // ==
  Ne,       // !=
};

/// The operator's spelling: "+", "//", "<=", ...
llvm::StringRef binaryOpSpelling(BinaryOp op);
/// True for < <= > >= == !=.
bool isComparison(BinaryOp op);

/// `lhs op rhs`. Chained comparisons (`a < b < c`) are rejected by the parser.
class BinaryExpr : public Expr {
public:
  BinaryExpr(SourceRange r, BinaryOp op, SourceRange opRange, Expr *lhs, Expr *rhs)
      : Expr(NodeKind::Binary, r), op(op), opRange(opRange), lhs(lhs), rhs(rhs) {}
  BinaryOp getOp() const { return op; }
  /// The range of the operator token itself, for diagnostics ("cannot broadcast" at '+').
  SourceRange getOpRange() const { return opRange; }
  Expr *getLHS() const { return lhs; }
  Expr *getRHS() const { return rhs; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Binary; }

private:
  BinaryOp op;
  SourceRange opRange;
  Expr *lhs;
  Expr *rhs;
};

enum class BoolOpKind : uint8_t { And, Or };

/// `a and b`, `a or b` (short-circuiting). Chains are left-nested: `a or b or c` is
/// `(a or b) or c`.
class BoolOpExpr : public Expr {
public:
  BoolOpExpr(SourceRange r, BoolOpKind op, Expr *lhs, Expr *rhs)
      : Expr(NodeKind::BoolOp, r), op(op), lhs(lhs), rhs(rhs) {}
  BoolOpKind getOp() const { return op; }
  Expr *getLHS() const { return lhs; }
  Expr *getRHS() const { return rhs; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::BoolOp; }

private:
  BoolOpKind op;
  Expr *lhs;
  Expr *rhs;
};

enum class UnaryOp : uint8_t { Neg, Not };

/// `-x`, `not x`.
class UnaryExpr : public Expr {
public:
  UnaryExpr(SourceRange r, UnaryOp op, Expr *operand)
      : Expr(NodeKind::Unary, r), op(op), operand(operand) {}
  UnaryOp getOp() const { return op; }
  Expr *getOperand() const { return operand; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Unary; }

private:
  UnaryOp op;
  Expr *operand;
};

/// `thenValue if cond else elseValue`.
class IfExpExpr : public Expr {
public:
  IfExpExpr(SourceRange r, Expr *cond, Expr *thenValue, Expr *elseValue)
      : Expr(NodeKind::IfExp, r), cond(cond), thenValue(thenValue), elseValue(elseValue) {}
  Expr *getCond() const { return cond; }
  Expr *getThenValue() const { return thenValue; }
  Expr *getElseValue() const { return elseValue; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::IfExp; }

private:
  Expr *cond;
  Expr *thenValue;
  Expr *elseValue;
};

/// One `name=value` argument of a call.
struct KeywordArg {
  std::string name;
  SourceRange nameRange;
  Expr *value;
};

/// `callee(args..., name=value...)`. Positional arguments always precede keyword ones (the
/// parser rejects the other order). Method sugar `x.sum(axis=0)` stays a Call whose callee is
/// an AttributeExpr; sema decides what it means.
class CallExpr : public Expr {
public:
  CallExpr(SourceRange r, Expr *callee, std::vector<Expr *> args, std::vector<KeywordArg> kwargs)
      : Expr(NodeKind::Call, r), callee(callee), args(std::move(args)), kwargs(std::move(kwargs)) {}
  Expr *getCallee() const { return callee; }
  const std::vector<Expr *> &getArgs() const { return args; }
  const std::vector<KeywordArg> &getKeywordArgs() const { return kwargs; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Call; }

private:
  Expr *callee;
  std::vector<Expr *> args;
  std::vector<KeywordArg> kwargs;
};

/// `value.name`: `x.shape`, `x.T`, `nn.linear`, `x.sum` (as a callee).
class AttributeExpr : public Expr {
public:
  AttributeExpr(SourceRange r, Expr *value, std::string name, SourceRange nameRange)
      : Expr(NodeKind::Attribute, r), value(value), name(std::move(name)), nameRange(nameRange) {}
  Expr *getValue() const { return value; }
  llvm::StringRef getName() const { return name; }
  SourceRange getNameRange() const { return nameRange; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Attribute; }

private:
  Expr *value;
  std::string name;
  SourceRange nameRange;
};

/// `lower:upper:step` inside a subscript; every part is optional (null when absent). Only
/// ever appears as an index of a SubscriptExpr.
class SliceExpr : public Expr {
public:
  SliceExpr(SourceRange r, Expr *lower, Expr *upper, Expr *step)
      : Expr(NodeKind::Slice, r), lower(lower), upper(upper), step(step) {}
  Expr *getLower() const { return lower; }
  Expr *getUpper() const { return upper; }
  Expr *getStep() const { return step; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Slice; }

private:
  Expr *lower;
  Expr *upper;
  Expr *step;
};

/// `value[i]`, `value[:, 0:3]`, `t[0]`: one index item per comma-separated position, each an
/// expression or a SliceExpr.
class SubscriptExpr : public Expr {
public:
  SubscriptExpr(SourceRange r, Expr *value, std::vector<Expr *> indices)
      : Expr(NodeKind::Subscript, r), value(value), indices(std::move(indices)) {}
  Expr *getValue() const { return value; }
  const std::vector<Expr *> &getIndices() const { return indices; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Subscript; }

private:
  Expr *value;
  std::vector<Expr *> indices;
};

//===----------------------------------------------------------------------===//
// Type annotations
//===----------------------------------------------------------------------===//

class TypeExpr : public Node {
public:
  static bool classof(const Node *n) {
    return n->getKind() >= NodeKind::FirstType && n->getKind() <= NodeKind::LastType;
  }

protected:
  using Node::Node;
};

enum class ScalarTypeKind : uint8_t { Int, Float, Bool, Str };

/// `int`, `float`, `bool`, `str`.
class ScalarTypeExpr : public TypeExpr {
public:
  ScalarTypeExpr(SourceRange r, ScalarTypeKind scalar)
      : TypeExpr(NodeKind::ScalarType, r), scalar(scalar) {}
  ScalarTypeKind getScalarKind() const { return scalar; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::ScalarType; }

private:
  ScalarTypeKind scalar;
};

/// The spelling of a scalar type: "int", "float", "bool", "str".
llvm::StringRef scalarTypeName(ScalarTypeKind kind);

/// One dimension of a Tensor annotation: a constant size or a symbolic name (`B`, `N`).
struct DimExpr {
  SourceRange range;
  std::optional<int64_t> size; ///< set for a constant dimension
  std::string symbol;          ///< set (capitalised) for a symbolic dimension

  bool isSymbolic() const { return !size.has_value(); }
};

/// `Tensor`, `Tensor[784, 10]`, `Tensor[B, 784]`, `Tensor[f64, N]`. Without brackets neither
/// dtype nor shape is constrained; with brackets the rank is the number of dims.
class TensorTypeExpr : public TypeExpr {
public:
  TensorTypeExpr(SourceRange r, std::optional<DType> dtype, bool hasShape,
                 std::vector<DimExpr> dims)
      : TypeExpr(NodeKind::TensorType, r), dtype(dtype), shaped(hasShape), dims(std::move(dims)) {}
  /// The dtype if the annotation names one.
  std::optional<DType> getDType() const { return dtype; }
  /// False for a bare `Tensor` or `Tensor[f64]` (any shape); true when dims are given.
  bool hasShape() const { return shaped; }
  const std::vector<DimExpr> &getDims() const { return dims; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::TensorType; }

private:
  std::optional<DType> dtype;
  bool shaped;
  std::vector<DimExpr> dims;
};

/// `(Tensor, Tensor[10])` or `tuple[Tensor, int]`, nested freely.
class TupleTypeExpr : public TypeExpr {
public:
  TupleTypeExpr(SourceRange r, std::vector<TypeExpr *> elements)
      : TypeExpr(NodeKind::TupleType, r), elements(std::move(elements)) {}
  const std::vector<TypeExpr *> &getElements() const { return elements; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::TupleType; }

private:
  std::vector<TypeExpr *> elements;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class Stmt : public Node {
public:
  static bool classof(const Node *n) {
    return n->getKind() >= NodeKind::FirstStmt && n->getKind() <= NodeKind::LastStmt;
  }

protected:
  using Node::Node;
};

/// A sequence of statements (a function body, a branch, a loop body). Never empty in parsed
/// code except an else-body that was not written.
using Body = std::vector<Stmt *>;

/// `import nn` (a stdlib module) or `import path/to/file` (relative to the importing file;
/// `.dlm` is implied). The name is used as written; sema resolves it.
class ImportStmt : public Stmt {
public:
  ImportStmt(SourceRange r, std::string name, bool isPath)
      : Stmt(NodeKind::Import, r), name(std::move(name)), path(isPath) {}
  /// "nn" or "path/to/file".
  llvm::StringRef getName() const { return name; }
  /// True when the import is a relative path (it contains '/' or starts with '.').
  bool isPath() const { return path; }
  /// The name the module is bound to: the last path component ("file" for "path/to/file").
  llvm::StringRef getBindingName() const;
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Import; }

private:
  std::string name;
  bool path;
};

/// One parameter of a function: `x`, `x: Tensor[B, 784]`, `lr=0.1`, `lr: float = 0.1`.
class Param : public Node {
public:
  Param(SourceRange r, std::string name, TypeExpr *annotation, Expr *defaultValue)
      : Node(NodeKind::Param, r), name(std::move(name)), annotation(annotation),
        defaultValue(defaultValue) {}
  llvm::StringRef getName() const { return name; }
  /// Null when the parameter is not annotated.
  TypeExpr *getAnnotation() const { return annotation; }
  /// Null when the parameter has no default. Parameters with defaults come last.
  Expr *getDefault() const { return defaultValue; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Param; }

private:
  std::string name;
  TypeExpr *annotation;
  Expr *defaultValue;
};

/// `def name(params) -> ret: body`.
class FunctionDefStmt : public Stmt {
public:
  FunctionDefStmt(SourceRange r, std::string name, SourceRange nameRange,
                  std::vector<Param *> params, TypeExpr *returnAnnotation, Body body)
      : Stmt(NodeKind::FunctionDef, r), name(std::move(name)), nameRange(nameRange),
        params(std::move(params)), returnAnnotation(returnAnnotation), body(std::move(body)) {}
  llvm::StringRef getName() const { return name; }
  SourceRange getNameRange() const { return nameRange; }
  const std::vector<Param *> &getParams() const { return params; }
  /// Null when the return type is not annotated.
  TypeExpr *getReturnAnnotation() const { return returnAnnotation; }
  const Body &getBody() const { return body; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::FunctionDef; }

private:
  std::string name;
  SourceRange nameRange;
  std::vector<Param *> params;
  TypeExpr *returnAnnotation;
  Body body;
};

/// `target = value` or `name: annotation = value`. The target is a NameExpr or a TupleExpr
/// whose elements are targets (nested unpacking `(a, (b, c)) = t`); the parser rejects
/// anything else, and an annotated assignment always has a NameExpr target.
class AssignStmt : public Stmt {
public:
  AssignStmt(SourceRange r, Expr *target, Expr *value, TypeExpr *annotation = nullptr)
      : Stmt(NodeKind::Assign, r), target(target), value(value), annotation(annotation) {}
  Expr *getTarget() const { return target; }
  Expr *getValue() const { return value; }
  /// The declared type of `x: T = v`; null for a plain assignment.
  TypeExpr *getAnnotation() const { return annotation; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Assign; }

private:
  Expr *target;
  Expr *value;
  TypeExpr *annotation;
};

/// `name op= value` for += -= *= /=; the op is the arithmetic BinaryOp (Add, Sub, Mul, Div).
class AugAssignStmt : public Stmt {
public:
  AugAssignStmt(SourceRange r, NameExpr *target, BinaryOp op, SourceRange opRange, Expr *value)
      : Stmt(NodeKind::AugAssign, r), target(target), op(op), opRange(opRange), value(value) {}
  NameExpr *getTarget() const { return target; }
  BinaryOp getOp() const { return op; }
  SourceRange getOpRange() const { return opRange; }
  Expr *getValue() const { return value; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::AugAssign; }

private:
  NameExpr *target;
  BinaryOp op;
  SourceRange opRange;
  Expr *value;
};

/// `if cond: then else: else`. `elif` is an IfStmt that is the only statement of the
/// else-body, with isElif() set on it (so dumps and printers can show `elif`).
class IfStmt : public Stmt {
public:
  IfStmt(SourceRange r, Expr *cond, Body thenBody, Body elseBody, bool elif)
      : Stmt(NodeKind::If, r), cond(cond), thenBody(std::move(thenBody)),
        elseBody(std::move(elseBody)), elif (elif) {}
  Expr *getCond() const { return cond; }
  const Body &getThenBody() const { return thenBody; }
  /// Empty when there is no else/elif.
  const Body &getElseBody() const { return elseBody; }
  /// True when this statement was written as `elif` of an enclosing IfStmt.
  bool isElif() const { return elif; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::If; }

private:
  Expr *cond;
  Body thenBody;
  Body elseBody;
  bool elif;
};

/// `while cond: body`.
class WhileStmt : public Stmt {
public:
  WhileStmt(SourceRange r, Expr *cond, Body body)
      : Stmt(NodeKind::While, r), cond(cond), body(std::move(body)) {}
  Expr *getCond() const { return cond; }
  const Body &getBody() const { return body; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::While; }

private:
  Expr *cond;
  Body body;
};

/// `for target in iterable: body`. The target is a NameExpr (or a TupleExpr of targets);
/// the iterable is any expression — the language allows a `range(...)` call or a tuple, which
/// sema checks.
class ForStmt : public Stmt {
public:
  ForStmt(SourceRange r, Expr *target, Expr *iterable, Body body)
      : Stmt(NodeKind::For, r), target(target), iterable(iterable), body(std::move(body)) {}
  Expr *getTarget() const { return target; }
  Expr *getIterable() const { return iterable; }
  const Body &getBody() const { return body; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::For; }

private:
  Expr *target;
  Expr *iterable;
  Body body;
};

class BreakStmt : public Stmt {
public:
  explicit BreakStmt(SourceRange r) : Stmt(NodeKind::Break, r) {}
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Break; }
};

class ContinueStmt : public Stmt {
public:
  explicit ContinueStmt(SourceRange r) : Stmt(NodeKind::Continue, r) {}
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Continue; }
};

/// `return`, `return x`, `return a, b` (the value is then a TupleExpr).
class ReturnStmt : public Stmt {
public:
  ReturnStmt(SourceRange r, Expr *value) : Stmt(NodeKind::Return, r), value(value) {}
  /// Null for a bare `return`.
  Expr *getValue() const { return value; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Return; }

private:
  Expr *value;
};

class PassStmt : public Stmt {
public:
  explicit PassStmt(SourceRange r) : Stmt(NodeKind::Pass, r) {}
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Pass; }
};

/// `assert cond` or `assert cond, message`.
class AssertStmt : public Stmt {
public:
  AssertStmt(SourceRange r, Expr *cond, Expr *message)
      : Stmt(NodeKind::Assert, r), cond(cond), message(message) {}
  Expr *getCond() const { return cond; }
  /// Null when no message is given.
  Expr *getMessage() const { return message; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::Assert; }

private:
  Expr *cond;
  Expr *message;
};

/// An expression evaluated for its effect: `print(x)`.
class ExprStmt : public Stmt {
public:
  ExprStmt(SourceRange r, Expr *expr) : Stmt(NodeKind::ExprStmt, r), expr(expr) {}
  Expr *getExpr() const { return expr; }
  static bool classof(const Node *n) { return n->getKind() == NodeKind::ExprStmt; }

private:
  Expr *expr;
};

//===----------------------------------------------------------------------===//
// Context and module
//===----------------------------------------------------------------------===//

/// Owns every node of one module. Nodes are created with create<T>(...) and live until the
/// context is destroyed; destruction is flat (no recursion over the tree).
class ASTContext {
public:
  ASTContext() = default;
  ASTContext(const ASTContext &) = delete;
  ASTContext &operator=(const ASTContext &) = delete;

  template <typename T, typename... Args> T *create(Args &&...args) {
    auto node = std::make_unique<T>(std::forward<Args>(args)...);
    T *raw = node.get();
    nodes.push_back(std::move(node));
    return raw;
  }
  size_t getNumNodes() const { return nodes.size(); }

private:
  std::vector<std::unique_ptr<Node>> nodes;
};

/// One parsed .dlm file: its top-level statements in source order (imports, function
/// definitions and script statements interleaved as written) and the context owning them.
class Module : public Node {
public:
  Module(SourceRange r, std::string name, unsigned bufferID)
      : Node(NodeKind::Module, r), name(std::move(name)), bufferID(bufferID) {}
  /// The file name the module was parsed from, as given to the parser.
  llvm::StringRef getName() const { return name; }
  /// The DiagnosticEngine SourceMgr buffer holding the source.
  unsigned getBufferID() const { return bufferID; }
  const Body &getBody() const { return body; }
  Body &getBody() { return body; }
  ASTContext &getContext() { return context; }

  /// The top-level statements of one kind, in order (imports, function definitions).
  template <typename T> std::vector<T *> getStmtsOfKind() const {
    std::vector<T *> out;
    for (Stmt *s : body)
      if (auto *t = llvm::dyn_cast<T>(s))
        out.push_back(t);
    return out;
  }
  std::vector<ImportStmt *> getImports() const { return getStmtsOfKind<ImportStmt>(); }
  std::vector<FunctionDefStmt *> getFunctions() const { return getStmtsOfKind<FunctionDefStmt>(); }

  /// Appends the top-level statements of `part`, a buffer parsed on its own, and keeps its
  /// nodes alive: a program given in pieces (the REPL's definitions, restored variables and
  /// input, compiler/driver/Compilation.h) is one module whose statements come from several
  /// buffers, each with its own positions.
  void append(std::unique_ptr<Module> part);
  /// Whether some of the module's statements come from buffer `bufferID` (its own, or an
  /// appended part's): sema treats all of them as the main file.
  bool hasBuffer(unsigned bufferID) const;

  static bool classof(const Node *n) { return n->getKind() == NodeKind::Module; }

private:
  std::string name;
  unsigned bufferID;
  Body body;
  ASTContext context;
  std::vector<std::unique_ptr<Module>> parts;
};

/// Calls `fn` on every direct child of `node` in source order: statements of bodies,
/// expressions, annotations, parameters, keyword-argument values. Absent optional children
/// are skipped. Walkers that must not recurse (the tree may be up to kMaxNestingDepth deep)
/// build their own stack on top of this.
void forEachChild(const Node *node, llvm::function_ref<void(const Node *)> fn);

} // namespace dlm

#endif // DLM_COMPILER_FRONTEND_AST_H
