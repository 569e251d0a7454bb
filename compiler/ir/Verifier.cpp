//===- compiler/ir/Verifier.cpp - Structural checks on the graph IR -------===//
//
// Checks, in order: frames (parents defined earlier, unique names), then per node its op entry
// (operand count, attribute names and kinds), its edges (targets exist, frames agree), the
// control-flow rules of its op, and its result types against the registry's type rule; finally
// that the only cycles are loop back edges. Every violation is reported; a node whose edges are
// broken is not type-checked (its operand types are unknown).
//
//===----------------------------------------------------------------------===//
#include "compiler/ir/Verifier.h"

#include "compiler/ir/Dlmir.h"
#include "compiler/support/Diagnostics.h"

#include <set>

namespace dlm::graph {
namespace {

bool holds(AttrKind kind, const AttrValue &v) {
  switch (kind) {
  case AttrKind::Int:
    return std::holds_alternative<int64_t>(v);
  case AttrKind::Float:
    return std::holds_alternative<double>(v);
  case AttrKind::Bool:
    return std::holds_alternative<bool>(v);
  case AttrKind::Str:
    return std::holds_alternative<std::string>(v);
  case AttrKind::Ints:
    return std::holds_alternative<std::vector<int64_t>>(v);
  case AttrKind::Floats:
    return std::holds_alternative<std::vector<double>>(v);
  case AttrKind::DType:
    return std::holds_alternative<DType>(v);
  case AttrKind::DTypes:
    return std::holds_alternative<std::vector<DType>>(v);
  case AttrKind::Shape:
    return std::holds_alternative<Shape>(v);
  case AttrKind::Shapes:
    return std::holds_alternative<std::vector<Shape>>(v);
  }
  return false;
}

/// A const's `value` is an int, float, bool or str scalar, or a flat list of floats (a tensor
/// literal with `shape` and `dtype`), whatever kind the entry lists; the type rule reads it.
bool isConstValue(const Node &n, const std::string &attr) {
  return n.op == OpKind::Const && attr == "value";
}

/// Attributes an op's type rule reads without a default, which a node must therefore carry:
/// shapes, lists of shapes and of dtypes everywhere; a const's `value`, and `shape` and `dtype`
/// too when the value is a tensor literal (a float list).
bool isRequiredAttr(const Node &n, const AttrSpec &spec) {
  if (spec.kind == AttrKind::Shape || spec.kind == AttrKind::Shapes ||
      spec.kind == AttrKind::DTypes)
    return n.op != OpKind::Const || n.attrAs<std::vector<double>>("value");
  if (n.op == OpKind::Const)
    return spec.name == "value" || (spec.name == "dtype" && n.attrAs<std::vector<double>>("value"));
  return false;
}

bool isBoolScalar(const Type &t) {
  return t.isTensor() && t.dtype() == DType::Bool && t.rank() == 0;
}

/// The language type a 0-d graph tensor stood for before lowering (i64 -> int, f64 -> float,
/// bool -> bool), so registry rules see scalars the way sema did.
Type asLanguageScalar(const Type &t) {
  if (!t.isTensor() || t.rank() != 0)
    return t;
  switch (t.dtype()) {
  case DType::I64:
    return Type::intTy();
  case DType::F64:
    return Type::floatTy();
  case DType::Bool:
    return Type::boolTy();
  default:
    return t;
  }
}

class Verifier {
public:
  Verifier(const Graph &g, DiagnosticEngine &diag, NodeLocator locate)
      : g(g), diag(diag), locate(locate) {}

  bool run() {
    checkFrames();
    for (const Node &n : g.nodes()) {
      checkNode(n);
      if (n.loc.inlinedAt > g.numCallSites())
        fail(n.id, "location inlined at call site " + std::to_string(n.loc.inlinedAt) +
                       ", but the graph has " + std::to_string(g.numCallSites()));
    }
    if (ok)
      checkDevices();
    checkCycles();
    return ok;
  }

private:
  std::string name(NodeId id) const { return "%" + std::to_string(id); }
  std::string frameName(FrameId f) const {
    return f == kRootFrame ? std::string("the root frame") : "frame '@" + g.frame(f).name + "'";
  }

  void fail(NodeId id, const std::string &msg) {
    ok = false;
    llvm::SMLoc at = locate ? locate(id) : llvm::SMLoc();
    if (at.isValid()) {
      diag.error(at, msg);
      return;
    }
    const Node &n = g.node(id);
    std::string where;
    if (n.loc.isKnown())
      where = " (from " + std::string(n.loc.file) + ":" + std::to_string(n.loc.line) + ":" +
              std::to_string(n.loc.col) + ")";
    diag.error("invalid graph: " + name(id) + " '" + opString(n.op) + "'" + where + ": " + msg);
  }

  void checkFrames() {
    std::set<std::string> seen;
    for (FrameId f = 1; f < g.numFrames(); ++f) {
      const Frame &fr = g.frame(f);
      std::string what;
      if (fr.parent >= f)
        what = "frame '@" + fr.name + "' must be nested in a frame defined before it";
      else if (fr.name.empty() || !seen.insert(fr.name).second)
        what = "frame name '@" + fr.name + "' is empty or not unique";
      else if (fr.parallelIterations < 1)
        what = "frame '@" + fr.name + "' needs parallel_iterations >= 1";
      if (!what.empty()) {
        ok = false;
        diag.error("invalid graph: " + what);
      }
    }
  }

  /// The frame in which `producer`'s outputs (and completion) are seen: an Exit delivers to the
  /// parent of the frame it runs in.
  FrameId producedIn(const Node &producer) const {
    if (producer.op == OpKind::Exit && producer.frame != kRootFrame)
      return g.frame(producer.frame).parent;
    return producer.frame;
  }
  /// The frame in which `user` reads its inputs: an Enter reads from its frame's parent.
  FrameId consumedIn(const Node &user) const {
    if (user.op == OpKind::Enter && user.frame != kRootFrame)
      return g.frame(user.frame).parent;
    return user.frame;
  }

  void checkNode(const Node &n) {
    if (n.frame >= g.numFrames()) {
      fail(n.id, "frame index out of range");
      return;
    }
    const OpInfo &info = n.info();
    bool edgesOk = checkOperandsAndAttrs(n, info) && checkEdges(n);
    if (!edgesOk)
      return;
    checkControlFlow(n);
    checkTypes(n, info);
  }

  bool checkOperandsAndAttrs(const Node &n, const OpInfo &info) {
    size_t count = n.inputs.size();
    bool countOk = info.variadic ? count >= info.minOperands() : count == info.operands.size();
    if (!countOk) {
      fail(n.id, "'" + opString(n.op) + "' expects " + (info.variadic ? "at least " : "") +
                     std::to_string(info.variadic ? info.minOperands() : info.operands.size()) +
                     " operand(s), found " + std::to_string(count));
      return false;
    }
    bool attrsOk = true;
    for (const AttrSpec &spec : info.attrs) {
      if (isRequiredAttr(n, spec) && !n.attrs.count(spec.name)) {
        fail(n.id, "'" + opString(n.op) + "' needs the attribute '" + spec.name + "'");
        attrsOk = false;
      }
    }
    for (const auto &[attrName, value] : n.attrs) {
      const AttrSpec *spec = info.findAttr(attrName);
      if (!spec) {
        fail(n.id, "op '" + opString(n.op) + "' has no attribute '" + attrName + "'");
        attrsOk = false;
      } else if (!holds(spec->kind, value) && !isConstValue(n, attrName)) {
        fail(n.id, "attribute '" + attrName + "' of '" + opString(n.op) +
                       "' has the wrong kind: " + attrStr(value));
        attrsOk = false;
      }
    }
    return attrsOk;
  }

  bool checkEdges(const Node &n) {
    bool edgesOk = true;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      ValueRef v = n.inputs[i];
      if (v.node >= g.numNodes() || v.port >= g.node(v.node).results.size()) {
        fail(n.id, "operand #" + std::to_string(i) + " refers to a value that does not exist");
        edgesOk = false;
        continue;
      }
      edgesOk &= checkFrameCrossing(n, g.node(v.node), "operand #" + std::to_string(i));
    }
    for (NodeId c : n.controlInputs) {
      if (c >= g.numNodes() || c == n.id) {
        fail(n.id, "control input " + name(c) + " is not another node of the graph");
        edgesOk = false;
        continue;
      }
      if (g.node(c).op == OpKind::Switch) {
        fail(n.id, "control input " + name(c) +
                       " is a Switch, whose outputs differ in "
                       "liveness; take the control edge from an Identity of one output");
        edgesOk = false;
        continue;
      }
      edgesOk &= checkFrameCrossing(n, g.node(c), "control input " + name(c));
    }
    return edgesOk;
  }

  bool checkFrameCrossing(const Node &user, const Node &producer, const std::string &what) {
    FrameId from = producedIn(producer), to = consumedIn(user);
    if (from == to)
      return true;
    std::string hint;
    if (user.op == OpKind::NextIteration || producer.op == OpKind::NextIteration)
      hint = "; NextIteration stays in its frame";
    else if (g.frameWithin(to, from))
      hint = "; values enter a frame only through Enter";
    else if (g.frameWithin(from, to))
      hint = "; values leave a frame only through Exit";
    else
      hint = "; values move between frames only through Exit and Enter";
    fail(user.id, what + " (" + name(producer.id) + " '" + opString(producer.op) + "') is in " +
                      frameName(from) + " but used in " + frameName(to) + hint);
    return false;
  }

  void checkControlFlow(const Node &n) {
    if ((n.op == OpKind::Enter || n.op == OpKind::Exit || n.op == OpKind::NextIteration ||
         n.op == OpKind::LoopCond) &&
        n.frame == kRootFrame) {
      fail(n.id, "'" + opString(n.op) + "' must be in a loop frame, not the root frame");
      return;
    }
    if (n.op == OpKind::Merge)
      checkMerge(n);
    for (ValueRef v : n.inputs) {
      const Node &p = g.node(v.node);
      if (p.op == OpKind::NextIteration && n.op != OpKind::Merge)
        fail(n.id, "the output of NextIteration " + name(p.id) + " may only feed a Merge");
    }
  }

  void checkMerge(const Node &n) {
    unsigned enters = 0, nexts = 0;
    for (ValueRef v : n.inputs) {
      OpKind op = g.node(v.node).op;
      enters += op == OpKind::Enter;
      nexts += op == OpKind::NextIteration;
    }
    if (nexts == 0)
      return; // a conditional Merge: any inputs
    if (enters == 0 || enters + nexts != n.inputs.size())
      fail(n.id, "a loop Merge takes one Enter and NextIteration inputs only, found " +
                     std::to_string(enters) + " Enter, " + std::to_string(nexts) +
                     " NextIteration and " + std::to_string(n.inputs.size() - enters - nexts) +
                     " other input(s)");
  }

  void checkTypes(const Node &n, const OpInfo &info) {
    std::vector<Type> operands;
    for (ValueRef v : n.inputs)
      operands.push_back(g.typeOf(v));
    for (size_t i = 0; i < n.results.size(); ++i)
      if (!n.results[i].isTensor() && n.results[i].kind() != Type::Kind::Str)
        return fail(n.id, "result #" + std::to_string(i) + " has type " + n.results[i].str() +
                              "; graph values are tensors or str");
    if (n.op == OpKind::Merge)
      return checkSameTypes(n, operands);
    if (n.op == OpKind::Switch || n.op == OpKind::LoopCond) {
      const Type &pred = operands[n.op == OpKind::Switch ? 1 : 0];
      if (!isBoolScalar(pred))
        return fail(n.id, "the predicate of '" + opString(n.op) + "' must be bool[], found " +
                              pred.str());
    }
    std::string viaScalars = inferMismatch(n, info, operands, true);
    if (viaScalars.empty())
      return;
    // A 0-d tensor that really was a tensor (not a lowered scalar) follows tensor promotion.
    if (inferMismatch(n, info, operands, false).empty())
      return;
    fail(n.id, viaScalars);
  }

  void checkSameTypes(const Node &n, const std::vector<Type> &operands) {
    if (n.results.size() != 1)
      return fail(n.id, "'Merge' has one result, found " + std::to_string(n.results.size()));
    for (size_t i = 0; i < operands.size(); ++i)
      if (!typesCompatible(operands[i], n.results[0]))
        return fail(n.id, "input #" + std::to_string(i) + " of 'Merge' has type " +
                              operands[i].str() + " but the Merge gives " + n.results[0].str());
  }

  /// Runs the op's type rule; returns "" when the node's results agree with it, else why not.
  std::string inferMismatch(const Node &n, const OpInfo &info, const std::vector<Type> &operands,
                            bool scalars) {
    std::vector<Type> in;
    for (const Type &t : operands)
      in.push_back(scalars ? asLanguageScalar(t) : t);
    DimContext dims;
    std::string error;
    int culprit = -1;
    Type result = OpRegistry::get().infer(info, in, n.attrs, dims, error, culprit);
    if (!error.empty())
      return error;
    std::vector<Type> expected = graphTypes(result);
    if (expected.size() != n.results.size())
      return "'" + opString(n.op) + "' gives " + std::to_string(expected.size()) +
             " result(s), found " + std::to_string(n.results.size());
    for (size_t i = 0; i < expected.size(); ++i)
      if (!typesCompatible(expected[i], n.results[i]))
        return "result #" + std::to_string(i) + " of '" + opString(n.op) + "' has type " +
               n.results[i].str() + " but its operands give " + expected[i].str();
    return "";
  }

  /// Placement (docs/cuda.md): once any node has a device every node has one, and a data edge
  /// between devices is a Send -> Recv pair whose attributes name the two devices. Host values
  /// (0-d tensors, str) are in host memory on every device and cross freely; so do control edges,
  /// which carry no value.
  void checkDevices() {
    bool placed = false;
    for (const Node &n : g.nodes())
      placed |= !n.device.empty();
    for (const Node &n : g.nodes()) {
      if (placed && n.device.empty())
        fail(n.id, "node has no device in a placed graph");
      for (size_t i = 0; i < n.inputs.size(); ++i)
        checkTransfer(n, g.node(n.inputs[i].node), i);
    }
  }

  static bool isHostValue(const Type &t) { return !t.isTensor() || t.rank() == 0; }

  void checkTransfer(const Node &user, const Node &producer, size_t operand) {
    std::string what = "operand #" + std::to_string(operand) + " (" + name(producer.id) + " '" +
                       opString(producer.op) + "')";
    if (producer.op == OpKind::Send && user.op != OpKind::Recv)
      return fail(user.id, what + " is a Send, which only a Recv may read");
    if (user.op == OpKind::Recv && producer.op != OpKind::Send)
      return fail(user.id, what + " is not a Send; a Recv reads a Send");
    if (user.op == OpKind::Recv) {
      const std::string *to = producer.attrAs<std::string>("to");
      const std::string *from = user.attrAs<std::string>("from");
      if (to && *to != user.device)
        fail(user.id, "Recv on '" + user.device + "' reads " + what + " sending to '" + *to + "'");
      if (from && *from != producer.device)
        fail(user.id, "Recv from '" + *from + "' reads " + what + " on '" + producer.device + "'");
      return;
    }
    if (producer.device == user.device || user.device.empty() || producer.device.empty() ||
        isHostValue(g.typeOf(user.inputs[operand])))
      return;
    fail(user.id, what + " is on '" + producer.device + "' but used on '" + user.device +
                      "'; a value moves between devices only through Send and Recv");
  }

  void checkCycles() {
    if (!ok || g.topologicalOrder())
      return;
    NodeId first = firstNodeOnCycle();
    fail(first, "cycle through " + name(first) + " '" + opString(g.node(first).op) +
                    "' that does not pass through NextIteration");
  }

  /// Smallest NodeId that lies on a cycle of non-back edges (Kahn's leftover nodes include
  /// nodes downstream of a cycle; pick one that reaches itself).
  NodeId firstNodeOnCycle() const {
    size_t n = g.numNodes();
    std::vector<std::vector<NodeId>> preds(n);
    for (const Node &node : g.nodes()) {
      auto add = [&](NodeId from) {
        if (!(node.op == OpKind::Merge && g.node(from).op == OpKind::NextIteration))
          preds[node.id].push_back(from);
      };
      for (ValueRef v : node.inputs)
        add(v.node);
      for (NodeId c : node.controlInputs)
        add(c);
    }
    for (NodeId start = 0; start < n; ++start) {
      std::vector<bool> seen(n, false);
      std::vector<NodeId> stack(preds[start].begin(), preds[start].end());
      while (!stack.empty()) {
        NodeId cur = stack.back();
        stack.pop_back();
        if (cur == start)
          return start;
        if (seen[cur])
          continue;
        seen[cur] = true;
        stack.insert(stack.end(), preds[cur].begin(), preds[cur].end());
      }
    }
    return 0;
  }

  const Graph &g;
  DiagnosticEngine &diag;
  NodeLocator locate;
  bool ok = true;
};

} // namespace

bool verifyGraph(const Graph &g, DiagnosticEngine &diag, NodeLocator locate) {
  return Verifier(g, diag, locate).run();
}

} // namespace dlm::graph
