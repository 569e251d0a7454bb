//===- compiler/sema/SemaImpl.h - The analyser's state (private) -----------===//
//
// Shared by Sema.cpp (modules, diagnostics, entry), SemaCalls.cpp (specialisation, calls, grad),
// SemaStmts.cpp (statements, joins, exit flags), SemaLoops.cpp, SemaExpr.cpp (expressions) and
// SemaBuiltins.cpp (built-in functions). Not included outside compiler/sema.
//
// Environment: a function's variables live in one flat map (Python scoping: if/while bodies do
// not open scopes). At a branch the map is copied, each side is analysed, and the join yields
// the variables whose values differ. The exit transform uses four hidden variables: `$ret`
// (returned), `$retval`, `$brk` (broke out of the innermost loop) and `$cont`; while any of them
// may be set, the rest of a statement list is guarded by `if not (flags)`.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_SEMA_SEMAIMPL_H
#define DLM_COMPILER_SEMA_SEMAIMPL_H

#include "compiler/sema/Sema.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <map>
#include <set>
#include <variant>

namespace dlm::sema {

using ssa::Block;
using ssa::Function;
using ssa::Operation;
using ssa::OpKind;
using ssa::Value;

struct ModuleInfo;

/// A def of some module, as a compile-time function value.
struct FnCallable : Callable {
  ModuleInfo *module;
  const FunctionDefStmt *def;
  std::string qualifiedName;
  FnCallable(ModuleInfo *m, const FunctionDefStmt *d, std::string q)
      : module(m), def(d), qualifiedName(std::move(q)) {}
  std::string describe() const override { return "fn " + qualifiedName; }
};

/// A built-in used as a value (`act=relu`).
struct BuiltinCallable : Callable {
  std::string name;
  explicit BuiltinCallable(std::string n) : name(std::move(n)) {}
  std::string describe() const override { return "fn " + name; }
};

/// grad(f, argnums) / value_and_grad(f, argnums).
struct GradCallable : Callable {
  std::shared_ptr<const Callable> inner;
  std::vector<int64_t> argnums;
  bool argnumsIsTuple = false;
  bool withValue = false;
  llvm::SMRange loc;
  std::string describe() const override;
};

/// checkpoint(f).
struct CheckpointCallable : Callable {
  std::shared_ptr<const Callable> inner;
  std::string describe() const override { return "checkpoint(" + inner->describe() + ")"; }
};

/// What a name is bound to in a function's environment.
struct Binding {
  /// The SSA value; null for compile-time-only bindings (functions, modules) and for an
  /// undefined hidden variable (`$retval` before any return).
  Value *value = nullptr;
  Type type;
  /// For a module name.
  ModuleInfo *module = nullptr;
  /// Where the name was last assigned (for notes).
  llvm::SMRange defLoc;
  /// A bool known at compile time and not yet materialised (exit flags): -1 none, 0, 1.
  int8_t flag = -1;
  /// A dtype name used as a value (`dtype=f64`).
  std::optional<DType> dtype;
};

using Env = std::map<std::string, Binding>;

struct ModuleInfo {
  Module *ast = nullptr;
  std::unique_ptr<Module> owned;
  /// "" for the main file, else the name it was imported under ("nn").
  std::string name;
  std::string path;
  std::map<std::string, const FunctionDefStmt *> functions;
  std::map<std::string, std::shared_ptr<FnCallable>> callables;
  std::map<std::string, ModuleInfo *> imports;
};

/// A value under construction, with what expression it came from (for carets and notes).
struct Operand {
  Value *value = nullptr;
  Type type;
  const Expr *expr = nullptr;
  /// Function values (no SSA value).
  std::shared_ptr<const Callable> callee;
  ModuleInfo *module = nullptr;
  std::optional<DType> dtype;

  bool isError() const { return type.isError() && !callee && !module && !dtype; }
};

/// Constant value of an SSA value produced by `const`.
using Const = std::variant<std::monostate, int64_t, double, bool, std::string>;

/// A call's arguments after evaluation, bound to parameter names.
struct CallArgs {
  const CallExpr *call = nullptr;
  llvm::SMRange loc;
  std::string calleeName;
  std::vector<Operand> positional;
  std::vector<std::pair<const KeywordArg *, Operand>> keywords;
};

class Sema {
public:
  Sema(DiagnosticEngine &diags, const SemaOptions &options);
  std::unique_ptr<ssa::Program> run(Module &main);

  // --- diagnostics (buffered so loop iterations that are redone report once) ---
  void error(llvm::SMRange r, const std::string &msg);
  void note(llvm::SMRange r, const std::string &msg);
  void pushDiagBuffer();
  void popDiagBuffer(bool keep);
  /// Notes where the names among `exprs` were last assigned.
  void noteDefinitions(const std::vector<const Expr *> &exprs);
  /// Whether the last error's notes already say which argument `v` came from.
  bool tracedByLastError(const Value *v) const;

  // --- modules (Sema.cpp), functions and calls (SemaCalls.cpp) ---
  ModuleInfo *loadModule(const ImportStmt &imp, ModuleInfo &importer);
  /// The file a path import is relative to: the importing module's, or for the main file the
  /// buffer holding the import.
  std::string importingFile(const ImportStmt &imp, const ModuleInfo &importer) const;
  void collectModule(ModuleInfo &m);
  Function *specialise(std::shared_ptr<const FnCallable> fn, const std::vector<Operand> &args,
                       const std::vector<bool> &given, llvm::SMRange callLoc);
  Operand callUser(std::shared_ptr<const FnCallable> fn, CallArgs &args);
  Operand callCallable(const std::shared_ptr<const Callable> &c, CallArgs &args);
  /// A `call` of `f` with its runtime operands.
  Operand emitCall(Function *f, std::vector<Value *> operands, llvm::SMRange loc);
  Operand callGrad(const GradCallable &g, CallArgs &args);
  /// A Function that computes `c` at the argument types; null after an error.
  Function *materialise(const std::shared_ptr<const Callable> &c, CallArgs &args);
  bool checkAnnotation(const TypeExpr *ann, const Type &actual, std::map<std::string, Dim> &syms,
                       std::string &why);
  std::string annotationStr(const TypeExpr *ann);

  // --- statements and control flow (SemaStmts.cpp, SemaLoops.cpp) ---
  void analyseBody(const Body &stmts, size_t from = 0);
  void analyseStmt(const Stmt &s);
  void analyseAssign(const Expr &target, Operand value, llvm::SMRange stmtLoc);
  void analyseIf(const IfStmt &s);
  void analyseWhile(const WhileStmt &s);
  void analyseFor(const ForStmt &s);
  void analyseRangeFor(const ForStmt &s, const CallExpr &range);
  void analyseLoop(const struct LoopSpec &spec);
  /// Type-checks defs that were never called, at the types of their annotations.
  void checkUncalled();
  /// Specialises the embedding API's entry def at its parameter types (Program::entry).
  void specialiseEntry(const SemaOptions::Entry &entry);
  void analyseTupleFor(const ForStmt &s, const Operand &tuple, size_t from);
  void analyseReturn(const ReturnStmt &s);
  /// Emits an `if` on `cond`; `thenFn`/`elseFn` analyse the branches into the environment;
  /// variables are joined afterwards. `thenName`/`elseName` name the branches in join errors.
  void emitIf(Value *cond, llvm::SMRange loc, const std::function<void()> &thenFn,
              const std::function<void()> &elseFn, const char *thenName = "then-branch",
              const char *elseName = "else-branch");
  /// Flags (`$ret`, `$brk`, `$cont`) that are set for sure / may be set.
  bool exitCertain() const;
  bool exitPossible() const;
  Value *notExitFlags(llvm::SMRange loc);
  bool checkCondition(const Operand &c, const char *what);
  /// In the branch of a guard taken when some exit flag is set: pins that flag when it is the
  /// only one that can be.
  void knowExited();
  /// In the branch of a guard taken when no exit flag is set: pins them all to false.
  void knowNotExited();

  // --- expressions (SemaExpr.cpp) ---
  Operand expr(const Expr &e);
  Operand name(const NameExpr &e);
  Operand binary(const BinaryExpr &e);
  Operand binaryOp(BinaryOp op, Operand lhs, Operand rhs, llvm::SMRange loc, llvm::SMRange opLoc);
  Operand boolArith(BinaryOp op, Operand lhs, Operand rhs, llvm::SMRange loc, llvm::SMRange opLoc);
  Operand tupleArith(BinaryOp op, const Operand &lhs, const Operand &rhs, llvm::SMRange loc,
                     llvm::SMRange opLoc);
  /// `op` applied to each leaf of a (nested) tuple, or to `x` itself.
  Operand mapLeaves(dlm::OpKind op, const Operand &x, llvm::SMRange loc);
  Operand boolOp(const BoolOpExpr &e);
  Operand unary(const UnaryExpr &e);
  Operand ifExp(const IfExpExpr &e);
  Operand call(const CallExpr &e);
  Operand attribute(const AttributeExpr &e);
  Operand subscript(const SubscriptExpr &e);
  Operand tupleIndex(const Operand &t, const Expr &index, llvm::SMRange loc);
  Operand tensorIndex(const Operand &t, const SubscriptExpr &e);
  Operand tupleExpr(const std::vector<Operand> &elems, llvm::SMRange loc);
  Operand getElement(const Operand &tuple, size_t i, llvm::SMRange loc);
  Operand shapeOf(const Operand &x, llvm::SMRange loc);
  Operand dimOf(const Operand &x, size_t axis, llvm::SMRange loc);
  /// Looks up a name; null when undefined (after reporting with suggestions).
  const Binding *lookup(llvm::StringRef n, llvm::SMRange loc, bool report = true);
  std::vector<std::string> visibleNames() const;

  // --- builtins (SemaBuiltins.cpp) ---
  static bool isBuiltin(llvm::StringRef n);
  static std::vector<std::string> builtinNames();
  Operand callBuiltin(const std::string &n, CallArgs &args);
  /// `x.method(...)` for a built-in taking a tensor first; empty Operand + false if unknown.
  bool isMethod(llvm::StringRef n) const;

  // --- SSA emission helpers ---
  Operation *emit(OpKind kind, llvm::SMRange loc, std::vector<Value *> operands = {});
  /// Runs the type rule of `op` and emits it; reports errors at `loc` (or at the culprit
  /// operand's expression).
  Operand emitOp(dlm::OpKind op, std::vector<Operand> operands, Attrs attrs, llvm::SMRange loc,
                 std::vector<Value *> extra = {});
  /// The same for the op a builtin's name (program text) names.
  Operand emitOp(const std::string &opName, std::vector<Operand> operands, Attrs attrs,
                 llvm::SMRange loc, std::vector<Value *> extra = {});
  Operand constant(Const c, llvm::SMRange loc);
  Value *constValue(Const c, llvm::SMRange loc) { return constant(std::move(c), loc).value; }
  static Const constOf(const Value *v);
  static std::optional<int64_t> intConst(const Operand &o);
  /// The symbolic dim an int value stands for (`x.shape[0]` where dim 0 is B), if any.
  std::optional<Dim> dimOfInt(const Value *v) const;
  /// Specialisation key of one argument.
  std::string argKey(const Operand &o) const;
  /// Int parameters that stand for a symbolic dim of the caller (`n = x.shape[0]` passed in).
  llvm::DenseMap<const Value *, Dim> intDims;
  Operand poison(const Expr *e = nullptr) {
    Operand o;
    o.expr = e;
    return o;
  }
  Value *undef(const Type &t, llvm::SMRange loc);

  DiagnosticEngine &diags;
  SemaOptions options;
  std::unique_ptr<ssa::Program> program;
  const OpRegistry &registry = OpRegistry::get();

  // Per-function state; saved and restored around specialisation.
  Env env;
  Block *cur = nullptr;
  ModuleInfo *module = nullptr;
  Function *function = nullptr;
  /// Depth of loops in the function being analysed (`break` needs one).
  int loopDepth = 0;
  /// False while analysing the top-level statements (`main`).
  bool inFunction = false;

  // Whole-run state.
  std::vector<std::unique_ptr<ModuleInfo>> modules;
  std::map<std::string, ModuleInfo *> modulesByPath;
  std::vector<ModuleInfo *> loading;
  /// Specialisation cache: key (def + argument types) -> function.
  std::map<std::string, Function *> specialisations;
  std::map<std::string, unsigned> nameCounts;
  /// Defs specialised at least once.
  std::set<const FunctionDefStmt *> specialisedDefs;
  /// Defs being specialised (recursion is an error).
  std::vector<const FunctionDefStmt *> active;
  /// One call being specialised: where it is, what it calls ("nn.linear"), the caller's
  /// arguments by parameter, and the callee's values that stand for them. An error inside the
  /// callee is reported at the user's call and names the arguments it involves
  /// (docs/sema.md "Errors inside called functions").
  struct CallFrame {
    llvm::SMRange loc;
    std::string name;
    const FunctionDefStmt *def = nullptr;
    std::vector<Operand> args;
    std::vector<bool> given;
    /// Callee values (block arguments, static constants) -> parameter index.
    std::map<const Value *, size_t> params;
  };
  /// The calls being specialised, outermost first.
  std::vector<CallFrame> callChain;
  /// Reports an error about `blamed` (the operands at fault, with their SSA values): inside a
  /// called library function the notes then say which of the user's arguments they came from.
  void error(llvm::SMRange r, const std::string &msg, const std::vector<Operand> &blamed);
  /// Whether `loc` is in the main file (any of its buffers, for a program given in parts).
  bool isMainCode(llvm::SMLoc loc) const;
  /// Fills program->topLevel from the environment main ends with.
  void recordTopLevel();
  /// The argument of the user's call at callChain[user] that `v` (a value of the innermost
  /// callee, used there as `usedAs`) has its type from: its range and a note saying so. Adds
  /// the innermost callee's parameter it went through to `traced`.
  std::optional<std::pair<llvm::SMRange, std::string>>
  traceArgument(const Value *v, size_t user, const Expr *usedAs,
                std::set<const Value *> &traced) const;
  /// Where each specialised function returns its value (for grad's scalar check).
  llvm::DenseMap<const Function *, llvm::SMRange> returnLocs;
  /// Names a module resolves outside any function's environment (defs, imports, builtins).
  std::map<std::string, Binding> globals;
  /// Variables assigned at the top level of the main file (a note when a def uses one).
  std::set<std::string> mainNames;
  /// Names defined only on some paths, for a better message when they are used.
  std::map<std::string, std::string> partialNames;

  using NoteList = std::vector<std::pair<llvm::SMRange, std::string>>;
  struct PendingDiag {
    DiagKind kind;
    llvm::SMRange range;
    std::string message;
    /// For an error inside a function reached from the main file's code through a library
    /// (another file): the arguments of the user's call it involves, then "inside 'nn.mlp'"
    /// notes from that call in to the error's own position; reported right after the error.
    NoteList inside;
    /// "'f' called here" notes, innermost first, out to the top level; reported after the
    /// error's own notes.
    NoteList callers;
    /// Values whose argument `inside` names (their "defined here" notes would repeat it).
    std::set<const Value *> traced;
  };
  std::vector<std::vector<PendingDiag>> diagStack;
  std::set<std::pair<const char *, std::string>> reported;
};

/// Removes pure structural ops (const, tuple, get, dim, undef) whose results are unused.
void removeUnusedConstants(ssa::Program &program);

/// Arguments fixed at compile time — functions, modules, dtypes, none, and int/bool/str
/// constants: part of the specialisation key, never block arguments.
bool isStaticArg(const Operand &o);

/// Edit-distance suggestion among `candidates`; empty when none is close.
std::string closestName(llvm::StringRef n, const std::vector<std::string> &candidates);

/// Hidden variables of the exit transform and loops start with '$'.
inline bool isHiddenName(const std::string &n) { return !n.empty() && n[0] == '$'; }
/// The names bound by an assignment or loop target.
void collectTargetNames(const Expr *target, std::set<std::string> &out);
/// Names assigned anywhere in `body` (nested bodies included, nested defs excluded).
void collectAssigned(const Body &body, std::set<std::string> &out);
/// Whether `body` contains break/continue of this loop level, or return at any depth.
bool containsExit(const Body &body, NodeKind kind, bool nestedLoops);

} // namespace dlm::sema

#endif // DLM_COMPILER_SEMA_SEMAIMPL_H
