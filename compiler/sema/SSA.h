//===- compiler/sema/SSA.h - Typed SSA over structured control flow --------===//
//
// What sema produces and lowering consumes (docs/sema.md is the reference for the printed form).
// A Program is a list of Functions: `main` (the top-level statements of the script) and one
// Function per specialisation of a `def` at the argument types of a call site. A Function's body
// is a Region; a Region holds one Block; a Block has arguments (Values) and a list of Operations.
// Control flow is structured: `if`, `while` and `for` are Operations that own Regions, and values
// flow out of them as the op's results (joins) — there are no branches and no phis. Every Value
// has a Type; every Operation has a source range.
//
// Op kinds:
//   Builtin   an op of the registry (compiler/ir/OpRegistry.h), `info` set; attributes in `attrs`
//   Tuple     (a, b, ...) -> one tuple value
//   Get       t[index] of a tuple value, attribute `index`
//   Dim       the run-time size of dim `axis` of a tensor (an int); only for symbolic dims
//   Undef     a placeholder of the result type on paths where a variable (e.g. a return value
//             carried out of a loop) has no value yet; never read on those paths
//   Call      calls `callee` (a specialised Function) with the operands
//   Grad      `grad`/`value_and_grad` of `callee` at the operands; attributes `argnums` (ints)
//             and `with_value` (bool)
//   If        operand: the condition (bool or bool[]); regions: then, else; each ends in Yield
//   While     operands: initial values of the carried variables; `carried` are the loop's
//             header values, visible in both regions; region 0 (cond) ends in Condition,
//             region 1 (body) ends in Yield of the next carried values; results are the
//             carried values when the condition is false
//   For       operands: lo, hi, step, then initial carried values; `carried` holds the
//             induction variable first, then the carried variables; region 0 (body) ends in
//             Yield of the next carried values
//   Yield     ends a region: the values it gives to the enclosing op
//   Condition ends a While's cond region: operand 0 is the condition (bool or bool[])
//   Return    ends a Function: its operand (if any) is the function's result
//
// Exit flags: `break`, `continue` and `return` inside loops never appear; sema has turned them
// into bool variables carried like any other (TorchScript's exit transform), so every region has
// a single exit.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_SEMA_SSA_H
#define DLM_COMPILER_SEMA_SSA_H

#include "compiler/ir/OpRegistry.h"
#include "compiler/ir/Type.h"

#include "llvm/Support/SMLoc.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dlm {

class DiagnosticEngine;

namespace ssa {

class Operation;
class Block;
class Function;

/// A call whose callee's body was copied in place of the call (compiler/autodiff flattens a
/// differentiated function): where the call is, the callee's name as written (`nn.linear`),
/// and the call site the call itself was copied through (null when it was not). Lowering turns
/// a chain into graph call sites (docs/runtime.md "Where a run-time error points").
struct InlineSite {
  llvm::SMRange call;
  std::string function;
  const InlineSite *parent = nullptr;
};
class Region;
class Function;

/// An SSA value: an op result or a block argument. Values are numbered only when printed.
class Value {
public:
  Value(Type type, Operation *def, unsigned index, llvm::SMRange loc)
      : type(std::move(type)), def(def), index(index), loc(loc) {}
  Type type;
  /// The defining op; null for a block argument (or a While/For header value).
  Operation *def;
  /// Result index in `def`, or argument index in its block / header.
  unsigned index;
  /// Where the value was defined (the expression or the assigned name).
  llvm::SMRange loc;
  /// The source variable it was first bound to, if any (a hint for readers and lowering).
  std::string name;
};

enum class OpKind : uint8_t {
  Builtin,
  Tuple,
  Get,
  Dim,
  Undef,
  Call,
  Grad,
  If,
  While,
  For,
  Yield,
  Condition,
  Return
};

/// Printed mnemonic of a kind ("tuple", "get", "call", ...); Builtin prints the registry name.
const char *opKindName(OpKind kind);

class Block {
public:
  std::vector<std::unique_ptr<Value>> args;
  std::vector<std::unique_ptr<Operation>> ops;
  /// The op owning the region this block belongs to; null for a function body.
  Operation *parentOp = nullptr;

  Value *addArg(Type type, llvm::SMRange loc);
  /// The terminator (Yield, Condition or Return), or null while the block is being built.
  Operation *terminator() const;
};

/// A region: exactly one block (structured control flow needs no more).
class Region {
public:
  Region() : block(std::make_unique<Block>()) {}
  std::unique_ptr<Block> block;
};

class Operation {
public:
  Operation(OpKind kind, llvm::SMRange loc) : kind(kind), loc(loc) {}
  OpKind kind;
  llvm::SMRange loc;
  /// Registry entry; set iff kind == Builtin.
  const OpInfo *info = nullptr;
  std::vector<Value *> operands;
  std::vector<std::unique_ptr<Value>> results;
  Attrs attrs;
  std::vector<std::unique_ptr<Region>> regions;
  /// Header values of While/For, visible in every region of the op.
  std::vector<std::unique_ptr<Value>> carried;
  /// Callee of Call and Grad.
  Function *callee = nullptr;
  /// The block this op is in.
  Block *parent = nullptr;
  /// Set by compiler/autodiff on the ops a gradient rule emits: the registry name of the
  /// forward op whose gradient they compute (`loc` is that op's), so run-time errors and dumps
  /// say "in the gradient of 'sigmoid' at lstm.dlm:9:13". Empty for every other op.
  std::string gradOf;
  /// Set by compiler/autodiff on the ops it copies out of an inlined call's body (a
  /// differentiated function is flattened): the innermost such call. Null for sema's ops.
  const InlineSite *inlinedAt = nullptr;

  /// Printed op name: the registry name or opKindName(kind).
  std::string name() const;
  /// What a Call or Grad op calls, as the source spells it: `nn.linear`, `grad(loss_fn)`,
  /// `value_and_grad(loss_fn)` (the names of inlined-call notes).
  std::string calleeName() const;
  Value *result(size_t i = 0) const { return results[i].get(); }
  Value *addResult(Type type);
  Region &addRegion();
};

/// One specialisation of a def (or `main`): parameters are the body block's arguments.
class Function {
public:
  /// Unique printed name: `main`, `mlp`, `nn.linear`, `f.1` (second specialisation of f).
  std::string name;
  llvm::SMRange loc;
  Type resultType = Type::none();
  Region body;
  /// Parameter names (the block arguments' names, kept for printing and lowering).
  std::vector<std::string> paramNames;
  /// True when the function is reached through checkpoint(f): its intermediates are recomputed.
  bool isCheckpointed = false;

  /// The name as the source spells it: `name` without a specialisation's `.N` suffix.
  std::string sourceName() const;

  Block &entry() { return *body.block; }
  const Block &entry() const { return *body.block; }
};

/// A name bound at the end of main's top-level statements (Program::topLevel).
struct TopLevelName {
  /// What the name holds: a value (a tensor, number, string, tuple, or none), or a function,
  /// module or dtype bound to it (`g = f`, `m = nn`, `t = f64`).
  enum class Kind : uint8_t { Value, Function, Module, DType };
  std::string name;
  Kind kind = Kind::Value;
  Type type = Type::none(); ///< of a Value
  llvm::SMRange loc;        ///< where it was last assigned
};

/// A whole program: `main` first, then specialised functions in the order they were created.
class Program {
public:
  std::vector<std::unique_ptr<Function>> functions;
  /// The variables visible after main's last statement, by name, as dlm's scoping leaves them
  /// (docs/language.md): what the REPL keeps between inputs.
  std::vector<TopLevelName> topLevel;
  /// The source of fresh symbolic dims; lowering continues the numbering.
  DimContext dims;
  /// The def specialised for a host program to call (SemaOptions::entry), else null.
  Function *entry = nullptr;

  Function *main() const { return functions.empty() ? nullptr : functions.front().get(); }
  Function *lookup(llvm::StringRef name) const;
  Function &addFunction(std::string name, llvm::SMRange loc);

  /// The chain `inner` (innermost first, null = empty) followed by `outer`: the site of an op
  /// with chain `inner` once the body holding it is copied in place of a call at `outer`.
  /// Sites are owned by the program and shared (equal requests give the same site).
  const InlineSite *appendSite(const InlineSite *inner, const InlineSite *outer);
  /// A new site: a call at `call` of `function`, itself inside the body copied at `parent`.
  const InlineSite *addSite(llvm::SMRange call, std::string function, const InlineSite *parent);

private:
  std::deque<InlineSite> sites; // deque: sites never move, ops point at them
  std::map<std::pair<const InlineSite *, const InlineSite *>, const InlineSite *> appended;
};

struct PrintOptions {
  /// Print `loc("file":line:col)` after every op; needs `diags` to resolve locations.
  bool printLocs = false;
  const DiagnosticEngine *diags = nullptr;
};

/// Prints the program in the form documented in docs/sema.md. Values are numbered from %0 in
/// each function, in program order, so the output is stable.
void print(const Program &program, llvm::raw_ostream &os, const PrintOptions &options = {});
void print(const Function &function, llvm::raw_ostream &os, const PrintOptions &options = {});

/// Checks structural invariants (terminators, operand dominance within the structured nesting,
/// result counts); returns an empty string when valid, else a description of the first problem.
std::string verify(const Program &program);

} // namespace ssa
} // namespace dlm

#endif // DLM_COMPILER_SEMA_SSA_H
