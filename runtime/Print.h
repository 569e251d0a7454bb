//===- runtime/Print.h - Printing values like Python and NumPy -----------===//
//
// `print` shows language scalars the way Python does (`3`, `0.1`, `1e-05`, `True`) and
// tensors the way NumPy's repr does:
//
//   "tensor(" + numpy.array2string(a, separator=', ', prefix='tensor(') + ", dtype=f64" + ")"
//
// (the dtype suffix only when the dtype is not f32), with NumPy's defaults: precision 8,
// floatmode 'maxprec', summarisation above 1000 elements with 3 edge items, line width 75.
// Floats use the shortest round-trip digits of their own type (as NumPy's Dragon4 does), cut
// to 8 digits when longer. tests/runtime/print_check.py compares against NumPy itself.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_PRINT_H
#define DLM_RUNTIME_PRINT_H

#include "runtime/Kernel.h"

#include <functional>
#include <string>
#include <string_view>

namespace dlm::rt {

/// Python's repr of a float ("0.1", "1e-05", "3.0", "inf", "nan").
std::string formatPythonFloat(double v);
/// A 0-d tensor as a Python scalar: int (i32/i64), float (f32/f64), bool ("True").
std::string formatScalar(const Tensor &t);
/// numpy.array2string(a, separator=', ', prefix=prefix) with NumPy's default options.
std::string arrayToString(const Tensor &t, std::string_view prefix);
/// The tensor's printed form: "tensor([1., 2.])", "tensor([1, 2], dtype=i64)".
std::string formatTensor(const Tensor &t);

/// Formats print's operands like Python's print: separated by one space. A string prints
/// as is; a tensor prints as a scalar when `isScalar[i]` (a language int/float/bool) and as a
/// tensor otherwise. Without flags, 0-d i64/f64/bool tensors count as scalars (that is how
/// the graph passes int, float and bool).
std::string formatPrintLine(std::span<const Value> values,
                            const std::vector<int64_t> &isScalar = {});

/// Where `print` writes its lines (with the trailing newline). Default: stdout, flushed per
/// line. The REPL installs its own; passing an empty function restores the default.
void setPrintSink(std::function<void(std::string_view)> sink);
/// Writes text through the current sink.
void writeOutput(std::string_view text);

} // namespace dlm::rt

#endif // DLM_RUNTIME_PRINT_H
