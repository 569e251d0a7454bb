//===- compiler/ir/RuntimeAttrs.h - Node attributes for the kernels -------===//
//
// The runtime's kernels take their attributes as rt::Attrs (runtime/Kernel.h). Both places that
// call kernels from a graph convert them the same way: constant folding (compiler/opt), which
// evaluates nodes at compile time, and the graph executor's engine (compiler/engine).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_IR_RUNTIMEATTRS_H
#define DLM_COMPILER_IR_RUNTIMEATTRS_H

#include "compiler/ir/Graph.h"
#include "runtime/Kernel.h"

namespace dlm::graph {

/// Converts one attribute value to the runtime's form. Shapes become int lists in which a
/// symbolic dim is rt::kDynamicDim (given at run time by the op's trailing int operands) and
/// reshape's inferred dim is -1.
rt::Attr convertAttr(const AttrValue &value);

/// Every attribute of `n`, converted.
rt::Attrs runtimeAttrs(const Node &n);

} // namespace dlm::graph

#endif // DLM_COMPILER_IR_RUNTIMEATTRS_H
