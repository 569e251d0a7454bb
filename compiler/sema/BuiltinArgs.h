//===- compiler/sema/BuiltinArgs.h - Binding the arguments of built-ins ---===//
//
// Internal to compiler/sema. What every built-in of SemaBuiltins.cpp does with its arguments
// before its op is emitted: bind them to its parameters, turn constant ones into attributes
// (ints, axes, bools, dtypes, shapes) with located errors, flatten and re-nest tuples.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_SEMA_BUILTINARGS_H
#define DLM_SEMA_BUILTINARGS_H

#include "compiler/sema/SemaImpl.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dlm::sema {

/// Parameters of a built-in: a trailing '=' marks an optional one; "*name" takes the remaining
/// positional arguments.
using Params = std::vector<std::string>;

/// A call's arguments by parameter name; `rest` takes a "*name" parameter's.
struct Bound {
  std::map<std::string, Operand> args;
  std::vector<Operand> rest;
  const Operand *get(const std::string &n) const {
    auto it = args.find(n);
    return it == args.end() ? nullptr : &it->second;
  }
};

/// Binds the call's positional and keyword arguments to `params`; reports arity and keyword
/// errors (once for all built-ins) and returns false after one.
bool bindBuiltin(Sema &s, CallArgs &a, const Params &params, Bound &out);

/// Where to point at argument `o`: its expression, else the call.
llvm::SMRange where(const Operand &o, const CallArgs &a);

/// An error about the argument `o`: at its expression, naming the user's argument it came from
/// when the call is inside a library function.
void errorAt(Sema &s, const Operand &o, const CallArgs &a, const std::string &message);

/// What `o` is, for a message: its type, or "a function", "a module", "a dtype".
std::string describeOperand(const Operand &o);

/// A constant int argument (an attribute).
std::optional<int64_t> constInt(Sema &s, const CallArgs &a, const Operand &o, const char *what);

/// The constant `axis=` argument of a call that defaults it to 0; nullopt after an error.
std::optional<int64_t> optionalAxis(Sema &s, const CallArgs &a, const Bound &b);

/// The constant ints of an int or a tuple of ints (`axis=1`, `axis=(0, 1)`).
std::optional<std::vector<int64_t>> constInts(Sema &s, const CallArgs &a, const Operand &o,
                                              const char *what);

/// A constant bool argument; constFloat: a constant number; nullopt after an error.
std::optional<bool> constBool(Sema &s, const CallArgs &a, const Operand &o, const char *what);

std::optional<double> constFloat(Sema &s, const CallArgs &a, const Operand &o, const char *what);

/// The `dtype=` argument, `otherwise` when absent; nullopt after an error.
std::optional<DType> dtypeArg(Sema &s, const CallArgs &a, const Bound &b, DType otherwise);

/// Dims given as ints (`zeros(2, n)`) or one tuple (`zeros(x.shape)`): a constant is a static
/// dim, the size of a symbolic dim (`x.shape[0]`) is that symbol, any other run-time int a fresh
/// symbol; the non-constant ones are returned as operands. `allowInfer` accepts one -1.
bool shapeArgs(Sema &s, const CallArgs &a, std::vector<Operand> dims, Shape &shape,
               std::vector<Value *> &dynamic, bool allowInfer);

/// Leaves of a tensor or nested tuple of tensors, in order.
void flatten(Sema &s, const Operand &o, llvm::SMRange loc, std::vector<Operand> &out);

/// The leaf types of a (nested) tuple type, in order.
void flattenTypes(const Type &t, std::vector<Type> &out);

/// Rebuilds a value of type `like` from the flat tuple `flat`, starting at leaf `next`.
Operand renest(Sema &s, const Type &like, const Operand &flat, size_t &next, llvm::SMRange loc);
/// `leaves`, one value per leaf of `like` from `next` on, nested as `like` is.
Operand renestLeaves(Sema &s, const Type &like, const std::vector<Operand> &leaves, size_t &next,
                     llvm::SMRange loc);

} // namespace dlm::sema

#endif // DLM_SEMA_BUILTINARGS_H
