//===- compiler/ir/NodeFacts.cpp - What passes and engines read alike -----===//
#include "compiler/ir/NodeFacts.h"

#include <algorithm>

namespace dlm::graph {

std::optional<size_t> accumulatorOperand(const Graph &g, const Node &n) {
  if (n.op != OpKind::MatmulBias || n.inputs.size() != 3 || n.numResults() != 1)
    return std::nullopt;
  const Type &addend = g.typeOf(n.inputs[2]), &result = n.results[0];
  if (!addend.isTensor() || !result.isTensor() || !isFloat(result.dtype()) ||
      addend.dtype() != result.dtype() || addend.shape() != result.shape())
    return std::nullopt;
  return 2;
}

std::optional<std::vector<int64_t>> staticSliceStart(const Node &n, const Shape &whole,
                                                     const Shape &window) {
  auto ints = [&](const char *name) -> const std::vector<int64_t> * {
    const AttrValue *a = n.attr(name);
    return a ? std::get_if<std::vector<int64_t>>(a) : nullptr;
  };
  const std::vector<int64_t> *begin = ints("begin"), *end = ints("end"), *step = ints("step");
  size_t rank = whole.size();
  if (!begin || !end || !step || begin->size() != rank || end->size() != rank ||
      step->size() != rank || window.size() != rank)
    return std::nullopt;
  std::vector<int64_t> start;
  for (size_t d = 0; d < rank; ++d) {
    int64_t first = (*begin)[d];
    if ((*step)[d] != 1 || first == kDynamicIndex || (*end)[d] == kDynamicIndex ||
        !whole[d].isStatic() || !window[d].isStatic())
      return std::nullopt;
    int64_t size = whole[d].size(), len = window[d].size();
    if (first == kSliceToEnd)
      first = 0;
    if (first < 0)
      first += size;
    first = std::clamp<int64_t>(first, 0, size);
    if (first + len > size)
      return std::nullopt;
    start.push_back(len > 0 ? first : 0);
  }
  return start;
}

} // namespace dlm::graph
