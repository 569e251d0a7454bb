//===- repl/Repl.h - The interactive dlm session --------------------------===//
//
// `dlm` with no arguments: each input is parsed, checked, compiled and run in one persistent
// session (docs/repl.md describes how state is kept between inputs).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_REPL_REPL_H
#define DLM_REPL_REPL_H

namespace dlm {
/// Runs the REPL on standard input; returns 0, or 1 if any input failed (piped stdin).
int runRepl(const char *argv0);
} // namespace dlm

#endif // DLM_REPL_REPL_H
