//===- compiler/ir/FusedOp.cpp - Printing a `fused` node's body ----------===//
#include "compiler/ir/FusedOp.h"

#include "compiler/ir/OpRegistry.h"

namespace dlm {

std::string printFusedBody(const std::vector<FusedStatement> &body, size_t numInputs) {
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (i)
      out += "; ";
    out += "%" + std::to_string(numInputs + i) + " = " + opString(body[i].op) + "(";
    for (size_t k = 0; k < body[i].operands.size(); ++k)
      out += (k ? ", %" : "%") + std::to_string(body[i].operands[k]);
    out += ") : " + std::string(dtypeName(body[i].dtype));
  }
  return out;
}

} // namespace dlm
