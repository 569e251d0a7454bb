//===- repl/SavedValues.h - Session variables kept as data ----------------===//
//
// A top-level variable outlives the input that assigned it as data, never as the code that
// computed it: tensors and tuples of tensors in a safetensors file written by the language's
// own `save`, numbers and bools as literals read back from a one-element file. This file
// writes the `save` that ends an input and, once the input has run, the right-hand side that
// restores the variable at the start of the next program: `load(FILE, like=zeros((2, 3),
// dtype=f32))` with the exact dtype and shape, or `3.5` (docs/repl.md "How state is kept").
//
//===----------------------------------------------------------------------===//
#ifndef DLM_REPL_SAVEDVALUES_H
#define DLM_REPL_SAVEDVALUES_H

#include "compiler/driver/Compilation.h" // Type, as sema reports it

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace dlm::repl {

/// The statement that saves variable `name`, of type `type`, to `file`; empty when a value of
/// that type is not kept (a string, none, a tuple mixing numbers and tensors).
std::string saveStatement(llvm::StringRef name, const Type &type, llvm::StringRef file);

/// The expression that gives back the value saved in `file` by saveStatement; nullopt when the
/// file does not hold one of `type`.
std::optional<std::string> restoreExpression(const Type &type, llvm::StringRef file);

} // namespace dlm::repl

#endif // DLM_REPL_SAVEDVALUES_H
