//===- compiler/frontend/ASTDumper.h - The --emit=ast text form -----------===//
//
// A stable, deterministic, indented dump of a Module: one node per line, its kind, its
// salient fields, and its source range as <line:col-line:col> (1-based, end exclusive).
// A child that plays a named role is prefixed with it (`cond:`, `default:`, `kwarg 'axis':`).
// Lines deeper than 100 levels are indented 100 levels and say how many more (`+7902 Name`),
// so a 300 000-term chain dumps in linear space. Golden tests pin this format; docs/testing.md
// describes it.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_FRONTEND_ASTDUMPER_H
#define DLM_COMPILER_FRONTEND_ASTDUMPER_H

#include "compiler/frontend/AST.h"
#include "compiler/support/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

namespace dlm {

/// Prints `module` (locations resolved through `diag`'s SourceMgr).
void dumpAST(const Module &module, const DiagnosticEngine &diag, llvm::raw_ostream &os);

/// Prints one subtree at the given indentation level (for debugging and tests).
void dumpNode(const Node *node, const DiagnosticEngine &diag, llvm::raw_ostream &os,
              unsigned indent = 0);

} // namespace dlm

#endif // DLM_COMPILER_FRONTEND_ASTDUMPER_H
