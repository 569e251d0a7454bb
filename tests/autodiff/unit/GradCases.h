//===- tests/autodiff/unit/GradCases.h - One small program per gradient rule ===//
//
// The cases the gradient tests share: for every differentiable op of the registry (and the
// backward helpers, stack ops and control-flow primitives that only derivatives use), one or
// more bodies applying it to named inputs. GradCheckTest checks each numerically in f64;
// GradDTypeTest runs each with its inputs in every dtype the type rules accept. Both check
// their programs with checkSource.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_TESTS_AUTODIFF_GRADCASES_H
#define DLM_TESTS_AUTODIFF_GRADCASES_H

#include "compiler/sema/SSA.h"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace dlm {

class DiagnosticEngine;

struct GradInput {
  std::string name;
  std::string init;      ///< a dlm expression (random, f64)
  std::string direction; ///< a dlm expression of the same type
  std::string shape;     ///< its dims ("3, 4"); empty for a number (a `float`)
  bool positive = false; ///< the body needs it > 0 (a logarithm, a root, a divisor)
};

struct GradCase {
  std::string op; ///< the registry op this case checks
  std::vector<GradInput> inputs;
  std::string body; ///< the op applied to the inputs
  std::string cShape;
  int order = 1; ///< 2: the check runs on a gradient of the body
  double eps = 1e-6;
  double tol = 1e-6;
  std::string prelude = ""; ///< lines at the start of f (e.g. seed for dropout)
};

/// GoogleTest's name for a case in a failure message: `op: body`.
void PrintTo(const GradCase &c, std::ostream *os);

/// Every case, in a fixed order.
std::vector<GradCase> gradCases();

/// Parses and checks `source` (named `name` in diagnostics) with the stdlib; the typed program,
/// or null after an error (reported to `diags`).
std::unique_ptr<ssa::Program> checkSource(DiagnosticEngine &diags, const std::string &source,
                                          const std::string &name);

/// The defs a case's program needs: the helpers its body may call (`inner`, `looped`,
/// `nested`, `branchy`), `f1(inputs..., c)` = sum(body * c) and `f(inputs..., c)`, which is f1
/// for a first-order case and sum(grad(f1)(...) * input 0) for a second-order one.
std::string caseFunctions(const GradCase &c);

} // namespace dlm

#endif // DLM_TESTS_AUTODIFF_GRADCASES_H
