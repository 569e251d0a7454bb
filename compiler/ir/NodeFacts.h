//===- compiler/ir/NodeFacts.h - What passes and engines read alike -------===//
//
// Facts about one node, from its op, attributes and types, that the optimizer and the code
// generators must agree on: the memory planner and the JIT on which operand a matmul_bias may
// accumulate into in place, concat-grads and the JIT's direct slices on where a static slice
// window starts. They live with the IR so that neither side depends on the other.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_IR_NODEFACTS_H
#define DLM_COMPILER_IR_NODEFACTS_H

#include "compiler/ir/Graph.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace dlm::graph {

/// The operand of `n` its result may be accumulated into, in place, when the operand dies at
/// n: matmul_bias's addend (operand 2) of the result's float dtype and shape (a gradient
/// accumulator, acc' = acc + h.T @ dz). The plan takes its buffer for the result, and the
/// engines write the sum over it when they hold it alone at run time (docs/runtime.md).
std::optional<size_t> accumulatorOperand(const Graph &g, const Node &n);

/// The start index in each dim of the window a `slice`/`slice_grad` node `n` (its begin, end and
/// step attributes) cuts from a tensor of static shape `whole`, the window having static shape
/// `window`: Python's clamping of `begin` done at compile time as the kernels do it at run time
/// (an empty window starts at 0). nullopt when a step is not 1, a bound is dynamic or a dim is
/// not static. The JIT's direct slice calls and concat-grads' tiling test both read it.
std::optional<std::vector<int64_t>> staticSliceStart(const Node &n, const Shape &whole,
                                                     const Shape &window);

} // namespace dlm::graph

#endif // DLM_COMPILER_IR_NODEFACTS_H
