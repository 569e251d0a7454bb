//===- compiler/ir/RuntimeAttrs.cpp - Node attributes for the kernels -----===//
#include "compiler/ir/RuntimeAttrs.h"

#include <type_traits>

namespace dlm::graph {

namespace {

std::vector<int64_t> convertShape(const Shape &shape) {
  std::vector<int64_t> dims;
  dims.reserve(shape.size());
  for (const Dim &d : shape) {
    if (d.isStatic())
      dims.push_back(d.size());
    else
      dims.push_back(isInferDim(d) ? -1 : rt::kDynamicDim);
  }
  return dims;
}

} // namespace

rt::Attr convertAttr(const AttrValue &value) {
  return std::visit(
      [](const auto &v) -> rt::Attr {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Shape>) {
          return convertShape(v);
        } else if constexpr (std::is_same_v<T, std::vector<Shape>>) {
          std::vector<std::vector<int64_t>> shapes;
          for (const Shape &s : v)
            shapes.push_back(convertShape(s));
          return shapes;
        } else {
          return v;
        }
      },
      value);
}

rt::Attrs runtimeAttrs(const Node &n) {
  rt::Attrs attrs;
  for (const auto &[name, value] : n.attrs)
    attrs.set(name, convertAttr(value));
  return attrs;
}

} // namespace dlm::graph
