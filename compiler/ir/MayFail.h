//===- compiler/ir/MayFail.h - Which graph nodes may raise a run-time error ===//
//
// A run-time error (an index out of range, a broadcast of run-time shapes that do not match, a
// failed assert) is observable: the program stops there, after every effect before it in program
// order and before every effect after it (docs/ir.md "Program order"). So lowering orders the
// nodes that may fail with the side effects, dead-code elimination keeps them, and licm never
// computes them where the program would not. Nodes that certainly succeed stay free.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_IR_MAYFAIL_H
#define DLM_COMPILER_IR_MAYFAIL_H

#include "compiler/ir/Graph.h"

#include <cstdint>
#include <map>
#include <utility>

namespace dlm::graph {

/// Switch, Merge, Enter, Exit, NextIteration, LoopCond: the TensorFlow control-flow primitives
/// (ops/Ops.def `ControlFlow`).
bool isControlFlow(const Node &n);

/// Int values known to lie in [first, second] whenever they exist.
using IntRanges = std::map<ValueRef, std::pair<int64_t, int64_t>>;

/// True unless `n` certainly succeeds at run time. Never fail: control-flow primitives,
/// Identity, `after`, const, shape_of, transpose, a slice with constant steps, autodiff's stack
/// reads, a stack push of a static-shaped value, an index inside a static dim (by a constant, a
/// counter in range, or by `j % c` for a constant 0 < c <= the dim), an elementwise op whose
/// operands surely broadcast (one tensor, 0-d ones, no run-time dim against another dim but a
/// static 1) unless it is an integer division by a non-constant or zero divisor or an integer power
/// by a non-constant or negative exponent, a matmul of rank 1 or 2 whose contracted dims are
/// static and equal. Cannot fail once their operand and result types are static (their shapes
/// checked at compile time; ops/Ops.def `FailsOnlyOnShapes`): matmul, reductions, reshapes,
/// creation ops, the shape-preserving gradient ops. Everything else may: an index by a run-time
/// int, cross_entropy (labels are checked at run time), any other shape check left to run time,
/// and an op without a registry entry. `counters` bounds some int values (lowering's loop
/// counters): an index by one of them whose range lies inside the dim cannot fail either.
bool mayFail(const Graph &g, const Node &n, const IntRanges *counters = nullptr);

} // namespace dlm::graph

#endif // DLM_COMPILER_IR_MAYFAIL_H
