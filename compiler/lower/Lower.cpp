//===- compiler/lower/Lower.cpp - Typed SSA -> dataflow graph -------------===//
//
// The scheme is documented in Lower.h and docs/ir.md "Lowering". The walk is one recursive
// descent over the structured SSA:
//   1. A Scope maps SSA values to graph values (a list: tuples are flattened). A lookup that
//      misses asks the parent scope and converts the answer at the boundary it crosses: a
//      branch boundary puts it through the If's Switch (one per outer value, shared by both
//      branches), a loop boundary through a constant Enter (one per outer value and loop).
//   2. A Context is where nodes go: the frame, the pivot that input-less nodes hang from, the
//      side-effect token (the node the next side effect and the next node that may fail must
//      follow) and the nodes that may fail since the last side effect (which the next side
//      effect must follow): docs/ir.md "Program order".
//   3. If, While and For build their control-flow nodes, lower their regions in child scopes
//      and contexts, and bind their results to Merge or Exit outputs. Calls lower the callee's
//      body in a fresh scope (no captures) but the caller's context: inlining.
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lower.h"

#include "compiler/autodiff/Autodiff.h"
#include "compiler/ir/MayFail.h"
#include "compiler/ir/Verifier.h"
#include "compiler/support/Diagnostics.h"
#include "runtime/Promotion.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

namespace dlm::lower {
namespace {

using namespace graph;
using Values = std::vector<ValueRef>;

/// Switches made for one If, shared by its two branches: outer value -> Switch node.
struct IfRecord {
  ValueRef pred;
  FrameId frame;
  llvm::SMRange loc;
  CallSiteId site = kNoCallSite; ///< the If's inlined-call chain (Location::inlinedAt)
  std::map<ValueRef, NodeId> switches;
};

/// Constant Enters made for one loop: outer value -> Enter node.
struct LoopRecord {
  FrameId frame;
  llvm::SMRange loc;
  CallSiteId site = kNoCallSite; ///< the loop's inlined-call chain (Location::inlinedAt)
  std::map<ValueRef, NodeId> invariants;
};

struct Scope {
  enum class Boundary : uint8_t { None, Then, Else, Loop };
  explicit Scope(Scope *parent = nullptr, Boundary boundary = Boundary::None,
                 IfRecord *ifRecord = nullptr, LoopRecord *loopRecord = nullptr)
      : parent(parent), boundary(boundary), ifRecord(ifRecord), loopRecord(loopRecord) {}
  Scope *parent = nullptr;
  Boundary boundary = Boundary::None;
  IfRecord *ifRecord = nullptr;
  LoopRecord *loopRecord = nullptr;
  llvm::DenseMap<const ssa::Value *, Values> values;
};

struct Context {
  FrameId frame = kRootFrame;
  /// The value whose liveness the region's input-less nodes inherit (a Switch output in a
  /// branch, a Merge or Switch output in a loop); none at the top level.
  std::optional<ValueRef> pivotSource;
  /// In a branch: the If whose predicate's own Switch gives the pivot source (made on demand).
  IfRecord *branchOf = nullptr;
  bool thenSide = false;
  std::optional<NodeId> pivot;

  bool hasPivot() const { return pivotSource || branchOf; }
  /// The op owning the region (If, While, For): where the region's helper nodes point.
  llvm::SMRange loc;
  CallSiteId site = kNoCallSite;
  /// The last side effect (or token node) of this region, and its value when it has one.
  std::optional<NodeId> token;
  std::optional<ValueRef> tokenValue;
  /// Nodes that may fail (or joins of them) since the last side effect.
  std::vector<NodeId> failures;
  /// Where a region without a token yet finds it: the enclosing region, through a constant
  /// Enter of `enterLoop` when that is set (the cond and body of a loop without side effects).
  Context *outer = nullptr;
  LoopRecord *enterLoop = nullptr;
};

/// The nodes of `failures` that no other one depends on within an iteration (loop back edges
/// are not followed): a node that follows those follows them all.
std::vector<NodeId> failureSinks(const Graph &g, const std::vector<NodeId> &failures) {
  if (failures.size() < 2)
    return failures;
  NodeId oldest = *std::min_element(failures.begin(), failures.end());
  std::vector<bool> reached(g.numNodes() - oldest, false); // ancestors of a failure, by id - oldest
  std::vector<NodeId> work;
  auto reach = [&](NodeId p) {
    if (p >= oldest && !reached[p - oldest]) {
      reached[p - oldest] = true;
      work.push_back(p);
    }
  };
  auto reachInputs = [&](NodeId id) {
    const Node &n = g.node(id);
    for (ValueRef in : n.inputs)
      if (!(n.op == OpKind::Merge && g.node(in.node).op == OpKind::NextIteration))
        reach(in.node);
    for (NodeId c : n.controlInputs)
      reach(c);
  };
  for (NodeId f : failures)
    reachInputs(f);
  while (!work.empty()) {
    NodeId id = work.back();
    work.pop_back();
    reachInputs(id);
  }
  std::vector<NodeId> sinks;
  for (NodeId f : failures)
    if (!reached[f - oldest] && std::find(sinks.begin(), sinks.end(), f) == sinks.end())
      sinks.push_back(f);
  return sinks;
}

class Lowering {
public:
  Lowering(DiagnosticEngine &diags, const LowerOptions &options)
      : diags(diags), options(options),
        differentiator(options.differentiator ? *options.differentiator : ownDifferentiator) {}

  std::optional<Graph> run(const ssa::Program &program) {
    const ssa::Function *main = options.entry ? program.entry : program.main();
    if (!main) {
      diags.error("no program to lower");
      return std::nullopt;
    }
    Scope scope;
    Context ctx;
    inlineStack.push_back(main);
    if (options.entry && !bindArgs(*main, scope, ctx))
      return std::nullopt;
    lowerBlock(main->entry(), scope, ctx);
    if (!failed && options.entry)
      emitRetvals(*main, scope, ctx);
    if (failed)
      return std::nullopt;
    return std::move(g);
  }

private:
  // --- Entry graphs ----------------------------------------------------------------------
  /// Binds the entry's parameters to `arg` nodes, one per leaf, numbered in order.
  bool bindArgs(const ssa::Function &entry, Scope &scope, Context &ctx) {
    int64_t index = 0;
    for (const auto &param : entry.entry().args) {
      Values leaves;
      for (const Type &t : graphTypes(param->type)) {
        if (!t.isTensor()) {
          diags.error(param->loc, "a " + t.str() + " cannot be passed in from the host");
          return false;
        }
        Attrs attrs;
        attrs.emplace("index", index++);
        attrs.emplace("dtype", t.dtype());
        attrs.emplace("shape", t.shape());
        leaves.push_back(
            Graph::value(emit(ctx, OpKind::Arg, {}, {t}, param->loc, std::move(attrs))));
      }
      scope.values[param.get()] = std::move(leaves);
    }
    return true;
  }

  /// Hands every leaf of the entry's result to the caller through `retval` nodes.
  void emitRetvals(const ssa::Function &entry, Scope &scope, Context &ctx) {
    const ssa::Operation *ret = entry.entry().terminator();
    if (!ret || ret->operands.empty())
      return;
    int64_t index = 0;
    for (ValueRef v : lookup(ret->operands[0], scope)) {
      if (!g.typeOf(v).isTensor()) {
        failed = true;
        diags.error(ret->loc, "a " + g.typeOf(v).str() + " cannot be returned to the host");
        return;
      }
      Attrs attrs;
      attrs.emplace("index", index++);
      emit(ctx, OpKind::Retval, {v}, {}, ret->loc, std::move(attrs));
    }
  }

  // --- Nodes -----------------------------------------------------------------------------
  /// A position in the op being lowered (its inlined-call chain is `opSite`).
  Location location(llvm::SMRange range) { return location(range, opSite); }

  Location location(llvm::SMRange range, CallSiteId site) {
    if (!range.Start.isValid() || !diags.findBuffer(range.Start))
      return Location{{}, 0, 0, site};
    auto [line, col] = diags.getLineAndColumn(range.Start);
    llvm::StringRef file = diags.getBufferName(range.Start);
    return Location{std::string_view(file.data(), file.size()), line, col, site};
  }

  /// The graph call site of an op copied by autodiff out of inlined calls (its chain `s`,
  /// innermost first) inside the calls lowering is inlining now (`callSite`).
  CallSiteId graphSite(const ssa::InlineSite *s) {
    if (!s)
      return callSite;
    auto [it, fresh] = siteMemo.try_emplace({s, callSite}, kNoCallSite);
    if (fresh)
      it->second = g.internCallSite(s->function, location(s->call, graphSite(s->parent)));
    return it->second;
  }

  static bool isInvariant(const Graph &g, ValueRef v) {
    const Node &n = g.node(v.node);
    const bool *c = n.attrAs<bool>("is_constant");
    return n.op == OpKind::Enter && c && *c;
  }

  /// The pivot node of `ctx`, made on first use: an Identity of the region's pivot source, so
  /// control edges never leave a Switch (whose two outputs differ in liveness).
  NodeId pivotOf(Context &ctx) {
    if (ctx.pivot)
      return *ctx.pivot;
    ValueRef source = ctx.pivotSource ? *ctx.pivotSource : predicateSwitch(ctx);
    ctx.pivot = g.addNode(OpKind::Identity, {source}, {g.typeOf(source)}, ctx.frame,
                          location(ctx.loc, ctx.site))
                    .id;
    return *ctx.pivot;
  }

  /// Output of Switch(pred, pred) on the context's side of its If.
  ValueRef predicateSwitch(Context &ctx) {
    Scope probe(nullptr, ctx.thenSide ? Scope::Boundary::Then : Scope::Boundary::Else,
                ctx.branchOf);
    return crossBoundary(ctx.branchOf->pred, probe);
  }

  /// Adds a node in ctx's frame. A node inside a branch or loop whose inputs are all absent or
  /// loop invariants would run regardless of the branch or iteration: it gets a control edge
  /// from the pivot (TensorFlow's rule for while/cond bodies).
  NodeId emit(Context &ctx, OpKind op, Values inputs, std::vector<Type> results, llvm::SMRange loc,
              Attrs attrs = {}) {
    bool needsPivot = ctx.hasPivot();
    for (ValueRef in : inputs)
      needsPivot &= isInvariant(g, in);
    std::optional<NodeId> pivot;
    if (needsPivot)
      pivot = pivotOf(ctx);
    Node &n = g.addNode(op, std::move(inputs), std::move(results), ctx.frame, location(loc));
    n.attrs = std::move(attrs);
    if (pivot)
      n.controlInputs.push_back(*pivot);
    NodeId id = n.id;
    noteTokenFollowed(id);
    if (!opInfo(op).sideEffects && mayFail(g, n, &counterRanges))
      orderFailure(ctx, id);
    return id;
  }

  ValueRef constant(Context &ctx, AttrValue value, Type type, llvm::SMRange loc) {
    Attrs attrs;
    attrs.emplace("value", std::move(value));
    return Graph::value(emit(ctx, OpKind::Const, {}, {std::move(type)}, loc, std::move(attrs)));
  }

  static Type boolScalar() { return Type::tensor(DType::Bool, {}); }
  static Type i64Scalar() { return Type::tensor(DType::I64, {}); }

  // --- Side effects and failures (docs/ir.md "Program order") ----------------------------
  /// `node` follows the region's last side effect and every node that may fail since; it is
  /// the new token.
  void chainEffect(Context &ctx, NodeId node) {
    if (ctx.token)
      g.addControlInput(node, *ctx.token);
    for (NodeId f : failureSinks(g, ctx.failures))
      if (!reads(node, f))
        g.addControlInput(node, f);
    ctx.failures.clear();
    ctx.token = node;
    ctx.tokenValue.reset();
    newestToken.resize(g.numNodes(), 0);
    newestToken[node] = node + 1;
  }

  /// `node` may fail: it follows the last side effect (unless its operands already do) and the
  /// next side effect follows it. Nodes that may fail are not ordered among themselves.
  void orderFailure(Context &ctx, NodeId node) {
    std::optional<NodeId> token = effectToken(ctx);
    if (token && newestToken[node] != *token + 1) {
      g.addControlInput(node, *token);
      newestToken[node] = *token + 1;
    }
    ctx.failures.push_back(node);
  }

  bool reads(NodeId n, NodeId producer) const {
    const std::vector<ValueRef> &in = g.node(n).inputs;
    return std::any_of(in.begin(), in.end(), [&](ValueRef v) { return v.node == producer; });
  }

  /// Records the newest token node `id` depends on through its operands (kept for the nodes
  /// `emit` makes; others count as following none, which only costs a redundant edge).
  void noteTokenFollowed(NodeId id) {
    newestToken.resize(g.numNodes(), 0);
    for (ValueRef in : g.node(id).inputs)
      newestToken[id] = std::max(newestToken[id], newestToken[in.node]);
  }

  /// The region's token, made on first use in a loop without side effects: a constant Enter
  /// of the enclosing region's token value. None before the program's first side effect.
  std::optional<NodeId> effectToken(Context &ctx) {
    if (ctx.token || !ctx.outer || !effectToken(*ctx.outer))
      return ctx.token;
    if (!ctx.enterLoop) {
      ctx.token = ctx.outer->token;
      ctx.tokenValue = ctx.outer->tokenValue;
      return ctx.token;
    }
    setToken(ctx, Graph::value(invariantEnter(tokenValue(*ctx.outer, ctx.loc), *ctx.enterLoop)));
    return ctx.token;
  }

  /// A token value that follows every side effect of ctx so far and every node that may fail
  /// since the last one: what a loop with side effects carries in and out of each iteration.
  ValueRef orderedTokenValue(Context &ctx, llvm::SMRange loc) {
    if (!ctx.failures.empty()) {
      ValueRef v = constant(ctx, true, boolScalar(), loc);
      chainEffect(ctx, v.node);
      ctx.tokenValue = v;
    }
    return tokenValue(ctx, loc);
  }

  /// `Identity(v) ctrl(after, failures)`: the bool[] token v once `after` and every node of
  /// `failures` have run.
  ValueRef identityAfter(ValueRef v, std::optional<NodeId> after,
                         const std::vector<NodeId> &failures, FrameId frame, llvm::SMRange loc) {
    NodeId id = g.addNode(OpKind::Identity, {v}, {boolScalar()}, frame, location(loc)).id;
    if (after)
      g.addControlInput(id, *after);
    for (NodeId f : failureSinks(g, failures))
      g.addControlInput(id, f);
    return Graph::value(id);
  }

  /// The token v once every node of `failures` has run (v itself when there are none).
  ValueRef afterFailures(ValueRef v, const std::vector<NodeId> &failures, FrameId frame,
                         llvm::SMRange loc) {
    return failures.empty() ? v : identityAfter(v, std::nullopt, failures, frame, loc);
  }

  /// A bool[] value that is available once every side effect of ctx so far has run.
  ValueRef tokenValue(Context &ctx, llvm::SMRange loc) {
    if (ctx.tokenValue)
      return *ctx.tokenValue;
    ValueRef v = constant(ctx, true, boolScalar(), loc);
    if (ctx.token)
      g.addControlInput(v.node, *ctx.token);
    ctx.token = v.node;
    ctx.tokenValue = v;
    return v;
  }

  void setToken(Context &ctx, ValueRef v) {
    ctx.token = v.node;
    ctx.tokenValue = v;
  }

  bool hasSideEffects(const ssa::Block &b) {
    for (const auto &op : b.ops) {
      if (op->kind == ssa::OpKind::Builtin && op->info->sideEffects)
        return true;
      // A derivative runs its function's forward pass, prints included.
      bool call = op->kind == ssa::OpKind::Call || op->kind == ssa::OpKind::Grad;
      if (call && op->callee && calleeHasSideEffects(op->callee))
        return true;
      for (const auto &r : op->regions)
        if (hasSideEffects(*r->block))
          return true;
    }
    return false;
  }

  bool calleeHasSideEffects(const ssa::Function *f) {
    auto it = effectsCache.find(f);
    if (it != effectsCache.end())
      return it->second;
    effectsCache[f] = false; // a recursive call adds nothing new (and is rejected later)
    bool result = hasSideEffects(f->entry());
    effectsCache[f] = result;
    return result;
  }

  // --- Values ----------------------------------------------------------------------------
  Values lookup(const ssa::Value *v, Scope &scope) {
    auto it = scope.values.find(v);
    if (it != scope.values.end())
      return it->second;
    assert(scope.parent && "SSA value used outside the scope that defines it");
    Values outer = lookup(v, *scope.parent);
    Values inner;
    for (ValueRef o : outer)
      inner.push_back(crossBoundary(o, scope));
    scope.values[v] = inner;
    return inner;
  }

  /// The constant Enter of `outer` into the loop of `rec` (one per value and loop).
  NodeId invariantEnter(ValueRef outer, LoopRecord &rec) {
    auto [it, inserted] = rec.invariants.try_emplace(outer, 0);
    if (inserted) {
      Node &n = g.addNode(OpKind::Enter, {outer}, {g.typeOf(outer)}, rec.frame,
                          location(rec.loc, rec.site));
      n.attrs.emplace("is_constant", true);
      it->second = n.id;
    }
    return it->second;
  }

  ValueRef crossBoundary(ValueRef outer, Scope &scope) {
    if (scope.boundary == Scope::Boundary::Loop)
      return Graph::value(invariantEnter(outer, *scope.loopRecord));
    IfRecord &rec = *scope.ifRecord;
    auto [it, inserted] = rec.switches.try_emplace(outer, 0);
    if (inserted) {
      const Type &t = g.typeOf(outer);
      it->second = g.addNode(OpKind::Switch, {outer, rec.pred}, {t, t}, rec.frame,
                             location(rec.loc, rec.site))
                       .id;
    }
    return Graph::value(it->second, scope.boundary == Scope::Boundary::Then ? 1 : 0);
  }

  Values lookupAll(const std::vector<ssa::Value *> &vs, Scope &scope, size_t from = 0,
                   size_t to = SIZE_MAX) {
    Values out;
    for (size_t i = from; i < vs.size() && i < to; ++i)
      for (ValueRef r : lookup(vs[i], scope))
        out.push_back(r);
    return out;
  }

  /// Binds SSA values (each flattened by its type) to consecutive graph values.
  void bind(const std::vector<const ssa::Value *> &vs, const Values &flat, Scope &scope) {
    size_t at = 0;
    for (const ssa::Value *v : vs) {
      size_t n = graphTypes(v->type).size();
      scope.values[v] = Values(flat.begin() + at, flat.begin() + at + n);
      at += n;
    }
    assert(at == flat.size() && "flattened value count mismatch");
  }

  template <typename Ptr> static std::vector<const ssa::Value *> raw(const std::vector<Ptr> &vs) {
    std::vector<const ssa::Value *> out;
    for (const auto &v : vs)
      out.push_back(&*v);
    return out;
  }

  std::vector<Type> flatTypes(const std::vector<const ssa::Value *> &vs) {
    std::vector<Type> out;
    for (const ssa::Value *v : vs)
      for (Type &t : graphTypes(v->type))
        out.push_back(std::move(t));
    return out;
  }

  // --- Ops -------------------------------------------------------------------------------
  void lowerBlock(const ssa::Block &block, Scope &scope, Context &ctx) {
    for (const auto &op : block.ops) {
      if (failed)
        return;
      lowerOp(*op, scope, ctx);
    }
  }

  /// Lowers a region's ops and returns the graph values of its terminator's operands (what it
  /// yields, or its condition); nullopt after an error.
  std::optional<Values> lowerRegion(const ssa::Region &region, Scope &scope, Context &ctx) {
    lowerBlock(*region.block, scope, ctx);
    if (failed)
      return std::nullopt;
    const ssa::Operation *term = region.block->terminator();
    return term ? lookupAll(term->operands, scope) : Values{};
  }

  /// Lowers `op` with its nodes placed at its source position and inlined-call chain.
  void lowerOp(const ssa::Operation &op, Scope &scope, Context &ctx) {
    CallSiteId outer = opSite;
    opSite = graphSite(op.inlinedAt);
    lowerOpKind(op, scope, ctx);
    opSite = outer;
  }

  void lowerOpKind(const ssa::Operation &op, Scope &scope, Context &ctx) {
    switch (op.kind) {
    case ssa::OpKind::Builtin:
      return lowerBuiltin(op, scope, ctx);
    case ssa::OpKind::Tuple:
      return bind({op.result()}, lookupAll(op.operands, scope), scope);
    case ssa::OpKind::Get:
      return lowerGet(op, scope);
    case ssa::OpKind::Dim:
      return lowerDim(op, scope, ctx);
    case ssa::OpKind::Undef:
      return lowerUndef(op, scope, ctx);
    case ssa::OpKind::Call:
      return lowerCall(op, scope, ctx);
    case ssa::OpKind::Grad: {
      // compiler/autodiff builds the derivative as a function of the callee's parameters.
      const ssa::Function *derivative = differentiator.derivative(op);
      if (!derivative) {
        failed = true;
        return;
      }
      return lowerCall(op, scope, ctx, derivative);
    }
    case ssa::OpKind::If:
      return lowerIf(op, scope, ctx);
    case ssa::OpKind::While:
      return lowerWhile(op, scope, ctx);
    case ssa::OpKind::For:
      return lowerFor(op, scope, ctx);
    case ssa::OpKind::Yield:
    case ssa::OpKind::Condition:
    case ssa::OpKind::Return:
      return; // read by the op that owns the region
    }
  }

  void lowerBuiltin(const ssa::Operation &op, Scope &scope, Context &ctx) {
    std::vector<const ssa::Value *> results = raw(op.results);
    Values inputs = castToComputeDType(op, lookupAll(op.operands, scope), ctx);
    NodeId id = emit(ctx, op.info->kind, std::move(inputs), flatTypes(results), op.loc, op.attrs);
    if (!op.gradOf.empty())
      g.node(id).loc.gradOf = g.internFile(op.gradOf);
    if (op.info->sideEffects)
      chainEffect(ctx, id);
    Values outs;
    for (uint32_t i = 0; i < g.node(id).numResults(); ++i)
      outs.push_back(Graph::value(id, i));
    bind(results, outs, scope);
  }

  /// A Python scalar lowers to a 0-d tensor, so the graph reads every 0-d f64/i64/bool as one
  /// and compares in the wider dtype (runtime/Promotion.h). Where PyTorch's rule on the
  /// operands as sema types them computes in another dtype (a genuine 0-d f64 tensor, or
  /// `f32[] <= 0.1`), the two promoted operands are cast to that dtype first.
  Values castToComputeDType(const ssa::Operation &op, Values inputs, Context &ctx) {
    if (std::optional<DType> want = unaryComputeDType(op))
      return {castTo(op, inputs[0], *want, ctx)};
    size_t first = op.info->kind == OpKind::Where ? 1 : 0;
    if (op.operands.size() != first + 2)
      return inputs;
    auto rankOf = [](const Type &t) { return t.isTensor() ? int64_t(t.rank()) : int64_t(-1); };
    const Type &a = op.operands[first]->type, &b = op.operands[first + 1]->type;
    std::optional<DType> want =
        explicitComputeDType(op.info->name, a.dtype(), rankOf(a), b.dtype(), rankOf(b));
    for (size_t i = first; want && i < first + 2; ++i)
      inputs[i] = castTo(op, inputs[i], *want, ctx);
    return inputs;
  }

  /// The ops that always give floats (exp, sqrt, ...) read a 0-d i64/bool as a Python number and
  /// compute in f64 (the kernels' floatResultType), where PyTorch, and sema, give f32 for a 0-d
  /// integer *tensor* (`sqrt(sum(tensor([1, 2, 3])))`): the operand is cast to the result's
  /// dtype first. Without the cast the graph executor printed a Python float at -O0.
  static std::optional<DType> unaryComputeDType(const ssa::Operation &op) {
    if (op.operands.size() != 1 || op.results.size() != 1 ||
        !op.info->has(opflag::Elementwise | opflag::FloatResult))
      return std::nullopt;
    const Type &in = op.operands[0]->type, &out = op.result()->type;
    if (!in.isTensor() || in.rank() != 0 || isFloat(in.dtype()) || !out.isTensor() ||
        !isFloat(out.dtype()))
      return std::nullopt;
    DType computed =
        runtimeOperandRank(in.dtype(), 0) == OperandRank::Scalar ? DType::F64 : DType::F32;
    return computed == out.dtype() ? std::nullopt : std::optional<DType>(out.dtype());
  }

  ValueRef castTo(const ssa::Operation &op, ValueRef v, DType dtype, Context &ctx) {
    const Type &t = g.typeOf(v);
    if (t.dtype() == dtype)
      return v;
    Attrs attrs;
    attrs.emplace("dtype", dtype);
    NodeId cast = emit(ctx, OpKind::Cast, {v}, {Type::tensor(dtype, t.shape())}, op.loc, attrs);
    if (!op.gradOf.empty())
      g.node(cast).loc.gradOf = g.internFile(op.gradOf);
    return Graph::value(cast);
  }

  void lowerGet(const ssa::Operation &op, Scope &scope) {
    const ssa::Value *tuple = op.operands[0];
    Values flat = lookup(tuple, scope);
    int64_t index = std::get<int64_t>(op.attrs.at("index"));
    size_t offset = 0;
    for (int64_t i = 0; i < index; ++i)
      offset += graphTypes(tuple->type.elements()[i]).size();
    size_t n = graphTypes(tuple->type.elements()[index]).size();
    scope.values[op.result()] = Values(flat.begin() + offset, flat.begin() + offset + n);
  }

  /// x.shape[axis] at run time: index(shape_of(x), axis).
  void lowerDim(const ssa::Operation &op, Scope &scope, Context &ctx) {
    ValueRef x = lookup(op.operands[0], scope)[0];
    size_t rank = g.typeOf(x).rank();
    NodeId shape = emit(ctx, OpKind::ShapeOf, {x},
                        {Type::tensor(DType::I64, {Dim::fixed(int64_t(rank))})}, op.loc);
    ValueRef axis = constant(ctx, op.attrs.at("axis"), i64Scalar(), op.loc);
    Attrs attrs;
    attrs.emplace("axis", int64_t{0});
    NodeId dim =
        emit(ctx, OpKind::Index, {Graph::value(shape), axis}, {i64Scalar()}, op.loc, attrs);
    scope.values[op.result()] = {Graph::value(dim)};
  }

  /// A placeholder of the right dtype and rank; the paths that reach it never read it.
  void lowerUndef(const ssa::Operation &op, Scope &scope, Context &ctx) {
    Values outs;
    for (const Type &t : graphTypes(op.result()->type)) {
      if (!t.isTensor()) {
        outs.push_back(constant(ctx, std::string(), t, op.loc));
        continue;
      }
      Shape zeros;
      for (const Dim &d : t.shape())
        zeros.push_back(d.isStatic() ? d : Dim::fixed(0));
      Attrs attrs;
      attrs.emplace("shape", zeros);
      attrs.emplace("dtype", t.dtype());
      outs.push_back(Graph::value(emit(ctx, OpKind::Zeros, {}, {t}, op.loc, attrs)));
    }
    scope.values[op.result()] = outs;
  }

  void lowerCall(const ssa::Operation &op, Scope &scope, Context &ctx,
                 const ssa::Function *callee = nullptr) {
    if (!callee)
      callee = op.callee;
    for (const ssa::Function *f : inlineStack) {
      if (f != callee)
        continue;
      failed = true;
      diags.error(op.loc, "recursive call to '" + callee->name +
                              "' cannot be lowered to a graph (calls are inlined)");
      return;
    }
    Scope calleeScope; // a def sees only its parameters
    bind(raw(callee->entry().args), lookupAll(op.operands, scope), calleeScope);
    inlineStack.push_back(callee);
    CallSiteId caller = callSite;
    // An entry's own call (the host's, written by the embedding API) is no call site: the def
    // the host calls is where its run-time errors point, as if it were the program.
    if (!(options.entry && inlineStack.size() == 2))
      callSite = g.internCallSite(op.calleeName(), location(op.loc));
    lowerBlock(callee->entry(), calleeScope, ctx);
    callSite = caller;
    inlineStack.pop_back();
    if (failed)
      return;
    const ssa::Operation *ret = callee->entry().terminator();
    Values result =
        ret && !ret->operands.empty() ? lookup(ret->operands[0], calleeScope) : Values{};
    bind(raw(op.results), result, scope);
  }

  // --- if ----------------------------------------------------------------------------------
  void lowerIf(const ssa::Operation &op, Scope &scope, Context &ctx) {
    IfRecord rec;
    rec.pred = lookup(op.operands[0], scope)[0];
    rec.frame = ctx.frame;
    rec.loc = op.loc;
    rec.site = opSite;
    bool effects = false;
    for (const auto &r : op.regions)
      effects |= hasSideEffects(*r->block);
    Values branchResults[2];
    ValueRef branchTokens[2];
    Context sides[2];
    for (int side = 0; side < 2; ++side) {
      bool isThen = side == 0;
      Scope bs(&scope, isThen ? Scope::Boundary::Then : Scope::Boundary::Else, &rec, nullptr);
      Context &bctx = sides[side];
      bctx.frame = ctx.frame;
      bctx.branchOf = &rec;
      bctx.thenSide = isThen;
      bctx.loc = op.loc;
      bctx.site = opSite;
      bctx.token = ctx.token;
      bctx.outer = &ctx;
      if (effects) // the branch's first effect follows what may fail before the `if`
        bctx.failures = ctx.failures;
      if (size_t(side) < op.regions.size()) {
        std::optional<Values> yielded = lowerRegion(*op.regions[side], bs, bctx);
        if (!yielded)
          return;
        branchResults[side] = std::move(*yielded);
      }
      if (effects) {
        // The branch's token: live iff the branch ran, after its last side effect — or, for a
        // side without effects, after the side effect before the `if`: otherwise the Merge
        // could fire from that side early and let a later effect overtake an earlier one.
        // It follows what may fail since, too.
        branchTokens[side] = identityAfter(Graph::value(pivotOf(bctx)), bctx.token, bctx.failures,
                                           ctx.frame, op.loc);
      }
    }
    std::vector<const ssa::Value *> results = raw(op.results);
    std::vector<Type> types = flatTypes(results);
    Values merged;
    for (size_t i = 0; i < types.size(); ++i)
      merged.push_back(
          Graph::value(g.addNode(OpKind::Merge, {branchResults[1][i], branchResults[0][i]},
                                 {types[i]}, ctx.frame, location(op.loc))
                           .id));
    bind(results, merged, scope);
    if (effects) {
      setToken(ctx, Graph::value(g.addNode(OpKind::Merge, {branchTokens[1], branchTokens[0]},
                                           {boolScalar()}, ctx.frame, location(op.loc))
                                     .id));
      ctx.failures.clear();
      return;
    }
    joinBranchFailures(sides, ctx, op);
  }

  /// An `if` without side effects whose branches may fail: the next side effect follows a
  /// Merge of one token per branch, live iff that branch ran, after what may fail in it.
  void joinBranchFailures(Context (&sides)[2], Context &ctx, const ssa::Operation &op) {
    if (sides[0].failures.empty() && sides[1].failures.empty())
      return;
    ValueRef tokens[2];
    for (int side = 0; side < 2; ++side)
      tokens[side] = afterFailures(Graph::value(pivotOf(sides[side])), sides[side].failures,
                                   ctx.frame, op.loc);
    ctx.failures.push_back(g.addNode(OpKind::Merge, {tokens[1], tokens[0]}, {boolScalar()},
                                     ctx.frame, location(op.loc))
                               .id);
  }

  // --- loops -------------------------------------------------------------------------------
  /// The nodes of one loop frame shared by While and For.
  struct Loop {
    FrameId frame = kRootFrame;
    LoopRecord record;
    std::vector<NodeId> merges;
    std::vector<NodeId> switches;
    Values exits;
    bool effects = false;
    ValueRef loopCond;
  };

  /// A function's printed name as a .dlmir identifier:
  /// `grad(fn f, argnums=0)` -> `grad_fn_f_argnums_0`.
  static std::string frameName(const std::string &function) {
    std::string out;
    for (char c : function) {
      bool ok = llvm::isAlnum(c) || c == '_' || c == '.';
      if (ok)
        out += c;
      else if (!out.empty() && out.back() != '_')
        out += '_';
    }
    while (!out.empty() && out.back() == '_')
      out.pop_back();
    return out.empty() ? "fn" : out;
  }

  /// Enter + Merge for each initial value (the token last when the loop has side effects).
  /// A Merge has its carried variable's type, which sema joined over the iterations (an
  /// initial f32[1, 2] grown by a concat each iteration is carried as f32[1, ?]); the
  /// initial value's static shape would claim more than holds after the first iteration, and
  /// passes trust it (licm hoists only what cannot fail).
  void openLoop(Loop &loop, const ssa::Operation &op, Values inits, Context &ctx,
                const char *kind) {
    std::vector<Type> carriedTypes = flatTypes(raw(op.carried));
    std::string name =
        frameName(inlineStack.back()->name) + "." + kind + std::to_string(frameCounter++);
    loop.frame = g.addFrame(name, ctx.frame, options.parallelIterations);
    loop.record.frame = loop.frame;
    loop.record.loc = op.loc;
    loop.record.site = opSite;
    for (const auto &r : op.regions)
      loop.effects |= hasSideEffects(*r->block);
    if (loop.effects)
      inits.push_back(orderedTokenValue(ctx, op.loc));
    if (inits.empty()) // the pivots need one value that goes around the loop
      inits.push_back(constant(ctx, true, boolScalar(), op.loc));
    for (size_t i = 0; i < inits.size(); ++i) {
      const Type &t = g.typeOf(inits[i]);
      Node &enter = g.addNode(OpKind::Enter, {inits[i]}, {t}, loop.frame, location(op.loc));
      enter.attrs.emplace("is_constant", false);
      NodeId e = enter.id;
      Type merged = i < carriedTypes.size() ? carriedTypes[i] : t;
      loop.merges.push_back(g.addNode(OpKind::Merge, {Graph::value(e), Graph::value(e)}, {merged},
                                      loop.frame, location(op.loc))
                                .id);
    }
  }

  Values mergeValues(const Loop &loop, size_t count) {
    Values out;
    for (size_t i = 0; i < count; ++i)
      out.push_back(Graph::value(loop.merges[i]));
    return out;
  }

  /// The context of a loop's cond or body region. `token` is the ordering token's value at the
  /// region's start; effects chain from an Identity of it (never from a Switch node). Without
  /// side effects the region's nodes that may fail follow the token before the loop (`outer`'s).
  Context loopContext(Loop &loop, ValueRef pivotSource, ValueRef token, Context &outer) {
    Context c;
    c.frame = loop.frame;
    c.pivotSource = pivotSource;
    c.loc = loop.record.loc;
    c.site = loop.record.site;
    c.outer = &outer;
    c.enterLoop = &loop.record;
    if (loop.effects) {
      NodeId start = token.node;
      if (g.node(start).op == OpKind::Switch)
        start = g.addNode(OpKind::Identity, {token}, {boolScalar()}, loop.frame,
                          location(c.loc, c.site))
                    .id;
      c.token = start;
      c.tokenValue = Graph::value(start);
    }
    return c;
  }

  /// The cond region runs on the Merge outputs; its pivot is the first Merge.
  Context condContext(Loop &loop, Context &outer) {
    return loopContext(loop, Graph::value(loop.merges[0]), Graph::value(loop.merges.back()), outer);
  }
  /// The body runs on the Switches' true outputs; its pivot is the first Switch's.
  Context bodyContext(Loop &loop, Context &outer) {
    return loopContext(loop, Graph::value(loop.switches[0], 1),
                       Graph::value(loop.switches.back(), 1), outer);
  }

  /// LoopCond, then Switch + Exit per loop value. `tokenAfterCond` replaces the token's Merge
  /// as the Switch input so the cond region's side effects come first.
  void closeCondition(Loop &loop, ValueRef cond, Context &condCtx, const ssa::Operation &op) {
    Location loc = location(op.loc);
    loop.loopCond =
        Graph::value(g.addNode(OpKind::LoopCond, {cond}, {boolScalar()}, loop.frame, loc).id);
    ValueRef tokenAfterCond = loop.effects ? orderedTokenValue(condCtx, op.loc) : ValueRef{};
    for (size_t i = 0; i < loop.merges.size(); ++i) {
      bool isToken = loop.effects && i + 1 == loop.merges.size();
      ValueRef in = isToken ? tokenAfterCond : Graph::value(loop.merges[i]);
      const Type &t = g.typeOf(in);
      NodeId sw = g.addNode(OpKind::Switch, {in, loop.loopCond}, {t, t}, loop.frame, loc).id;
      loop.switches.push_back(sw);
      loop.exits.push_back(
          Graph::value(g.addNode(OpKind::Exit, {Graph::value(sw, 0)}, {t}, loop.frame, loc).id));
    }
  }

  Values bodyValues(const Loop &loop, size_t count) {
    Values out;
    for (size_t i = 0; i < count; ++i)
      out.push_back(Graph::value(loop.switches[i], 1));
    return out;
  }

  /// NextIteration for each next value (the token appended), closing the Merges' back edges.
  void closeBody(Loop &loop, Values next, Context &bodyCtx, const ssa::Operation &op) {
    if (loop.effects)
      next.push_back(orderedTokenValue(bodyCtx, op.loc));
    if (next.size() < loop.merges.size()) // the placeholder value goes around unchanged
      next.push_back(Graph::value(loop.switches.back(), 1));
    for (size_t i = 0; i < loop.merges.size(); ++i) {
      NodeId n = g.addNode(OpKind::NextIteration, {next[i]}, {g.typeOf(next[i])}, loop.frame,
                           location(op.loc))
                     .id;
      g.node(loop.merges[i]).inputs[1] = Graph::value(n);
    }
  }

  /// A loop without side effects whose cond or body may fail carries a token of its own, which
  /// each iteration passes on after what may fail in it: the next side effect follows its Exit,
  /// so every iteration. The nodes that may fail follow only the token before the loop, so
  /// iterations still overlap.
  void carryFailures(const Loop &loop, const Context &condCtx, const Context &bodyCtx, Context &ctx,
                     const ssa::Operation &op) {
    if (loop.effects || (condCtx.failures.empty() && bodyCtx.failures.empty()))
      return;
    Location loc = location(op.loc);
    ValueRef init = constant(ctx, true, boolScalar(), op.loc);
    Node &enter = g.addNode(OpKind::Enter, {init}, {boolScalar()}, loop.frame, loc);
    enter.attrs.emplace("is_constant", false);
    ValueRef entered = Graph::value(enter.id);
    NodeId merge = g.addNode(OpKind::Merge, {entered, entered}, {boolScalar()}, loop.frame, loc).id;
    ValueRef afterCond = afterFailures(Graph::value(merge), condCtx.failures, loop.frame, op.loc);
    NodeId sw = g.addNode(OpKind::Switch, {afterCond, loop.loopCond}, {boolScalar(), boolScalar()},
                          loop.frame, loc)
                    .id;
    NodeId exit =
        g.addNode(OpKind::Exit, {Graph::value(sw, 0)}, {boolScalar()}, loop.frame, loc).id;
    ValueRef afterBody = afterFailures(Graph::value(sw, 1), bodyCtx.failures, loop.frame, op.loc);
    NodeId next = g.addNode(OpKind::NextIteration, {afterBody}, {boolScalar()}, loop.frame, loc).id;
    g.node(merge).inputs[1] = Graph::value(next);
    ctx.failures.push_back(exit);
  }

  void finishLoop(Loop &loop, const std::vector<const ssa::Value *> &results, size_t firstExit,
                  Scope &scope, Context &ctx) {
    size_t n = flatTypes(results).size();
    bind(results, Values(loop.exits.begin() + firstExit, loop.exits.begin() + firstExit + n),
         scope);
    if (loop.effects)
      setToken(ctx, loop.exits.back());
  }

  void lowerWhile(const ssa::Operation &op, Scope &scope, Context &ctx) {
    Loop loop;
    Values inits = lookupAll(op.operands, scope);
    size_t numData = inits.size();
    openLoop(loop, op, inits, ctx, "while");
    std::vector<const ssa::Value *> carried = raw(op.carried);

    Scope condScope(&scope, Scope::Boundary::Loop, nullptr, &loop.record);
    bind(carried, mergeValues(loop, numData), condScope);
    Context condCtx = condContext(loop, ctx);
    std::optional<Values> cond = lowerRegion(*op.regions[0], condScope, condCtx);
    if (!cond)
      return;
    closeCondition(loop, cond->at(0), condCtx, op);

    Scope bodyScope(&scope, Scope::Boundary::Loop, nullptr, &loop.record);
    bind(carried, bodyValues(loop, numData), bodyScope);
    for (size_t k = 0; k < carried.size(); ++k)
      if (std::optional<std::pair<int64_t, int64_t>> r = whileCounterRange(op, k, scope, condScope))
        counterRanges[lookup(carried[k], bodyScope)[0]] = *r;
    Context bodyCtx = bodyContext(loop, ctx);
    std::optional<Values> next = lowerRegion(*op.regions[1], bodyScope, bodyCtx);
    if (!next)
      return;
    closeBody(loop, *next, bodyCtx, op);
    carryFailures(loop, condCtx, bodyCtx, ctx, op);
    finishLoop(loop, raw(op.results), 0, scope, ctx);
  }

  /// The known value of an int constant node, if `v` is one.
  std::optional<int64_t> knownInt(ValueRef v) const {
    while (isInvariant(g, v))
      v = g.node(v.node).inputs[0];
    const Node &n = g.node(v.node);
    if (n.op != OpKind::Const)
      return std::nullopt;
    const int64_t *i = n.attrAs<int64_t>("value");
    return i ? std::optional<int64_t>(*i) : std::nullopt;
  }

  // --- Loop counters (graph::mayFail: an index by a counter in range cannot fail) ---------
  /// The int an SSA `const` op gives `v`, if it is one.
  static std::optional<int64_t> ssaConstInt(const ssa::Value *v) {
    const ssa::Operation *d = v->def;
    if (!d || d->kind != ssa::OpKind::Builtin || d->info->kind != dlm::OpKind::Const)
      return std::nullopt;
    auto it = d->attrs.find("value");
    const int64_t *i = it == d->attrs.end() ? nullptr : std::get_if<int64_t>(&it->second);
    return i ? std::optional<int64_t>(*i) : std::nullopt;
  }

  /// The values the induction variable of `for i in range(lo, hi, step)` takes in the body,
  /// when all three are constants and the body steps it implicitly (yields one value fewer
  /// than the loop carries).
  std::optional<std::pair<int64_t, int64_t>> forCounterRange(const ssa::Operation &op, ValueRef lo,
                                                             ValueRef hi,
                                                             std::optional<int64_t> step) const {
    std::optional<int64_t> first = knownInt(lo), end = knownInt(hi);
    const ssa::Operation *yield = op.regions[0]->block->terminator();
    if (!first || !end || !step || !yield || yield->operands.size() + 1 != op.carried.size())
      return std::nullopt;
    if (*step > 0 && *first < *end)
      return std::pair(*first, *end - 1);
    if (*step < 0 && *first > *end)
      return std::pair(*end + 1, *first);
    return std::nullopt;
  }

  /// The values carried value k takes in the body of `k = a; while k < b: ...; k = k + c` (or
  /// `k <= b`) for constants a, b and c > 0: from a up to b - 1 (b), as the condition holds
  /// and k only grows.
  std::optional<std::pair<int64_t, int64_t>> whileCounterRange(const ssa::Operation &op, size_t k,
                                                               Scope &outer, Scope &condScope) {
    const ssa::Value *counter = op.carried[k].get();
    const ssa::Operation *cond = op.regions[0]->block->terminator();
    const ssa::Operation *yield = op.regions[1]->block->terminator();
    if (!cond || !yield || yield->operands.size() != op.carried.size() ||
        counter->type.kind() != Type::Kind::Int)
      return std::nullopt;
    const ssa::Operation *test = cond->operands[0]->def;
    const ssa::Operation *step = yield->operands[k]->def;
    if (!test || test->kind != ssa::OpKind::Builtin ||
        (test->info->kind != dlm::OpKind::Lt && test->info->kind != dlm::OpKind::Le) ||
        test->operands[0] != counter || !step || step->kind != ssa::OpKind::Builtin ||
        step->info->kind != dlm::OpKind::Add)
      return std::nullopt;
    const ssa::Value *by = step->operands[step->operands[0] == counter ? 1 : 0];
    std::optional<int64_t> increment = ssaConstInt(by);
    std::optional<int64_t> first = knownInt(lookup(op.operands[k], outer)[0]);
    std::optional<int64_t> bound = knownInt(lookup(test->operands[1], condScope)[0]);
    if (!increment || *increment <= 0 || !first || !bound ||
        (step->operands[0] != counter && step->operands[1] != counter))
      return std::nullopt;
    int64_t last = test->info->kind == dlm::OpKind::Lt ? *bound - 1 : *bound;
    return *first <= last ? std::optional(std::pair(*first, last)) : std::nullopt;
  }

  /// range(lo, hi, step): i < hi when step > 0, i > hi when step < 0 (decided at run time
  /// unless step is a constant).
  ValueRef rangeCondition(Context &ctx, ValueRef i, ValueRef hi, ValueRef step,
                          std::optional<int64_t> knownStep, llvm::SMRange loc) {
    if (knownStep)
      return Graph::value(
          emit(ctx, *knownStep > 0 ? OpKind::Lt : OpKind::Gt, {i, hi}, {boolScalar()}, loc));
    ValueRef zero = constant(ctx, int64_t{0}, i64Scalar(), loc);
    auto node = [&](OpKind op, ValueRef a, ValueRef b) {
      return Graph::value(emit(ctx, op, {a, b}, {boolScalar()}, loc));
    };
    ValueRef up = node(OpKind::LogicalAnd, node(OpKind::Gt, step, zero), node(OpKind::Lt, i, hi));
    ValueRef down = node(OpKind::LogicalAnd, node(OpKind::Lt, step, zero), node(OpKind::Gt, i, hi));
    return node(OpKind::LogicalOr, up, down);
  }

  void lowerFor(const ssa::Operation &op, Scope &scope, Context &ctx) {
    Loop loop;
    ValueRef lo = lookup(op.operands[0], scope)[0];
    ValueRef hiOuter = lookup(op.operands[1], scope)[0];
    ValueRef stepOuter = lookup(op.operands[2], scope)[0];
    std::optional<int64_t> knownStep = knownInt(stepOuter);
    Values inits{lo};
    for (ValueRef v : lookupAll(op.operands, scope, 3))
      inits.push_back(v);
    size_t numData = inits.size();
    openLoop(loop, op, inits, ctx, "for");
    std::vector<const ssa::Value *> carried = raw(op.carried);

    Scope loopScope(&scope, Scope::Boundary::Loop, nullptr, &loop.record);
    Context condCtx = condContext(loop, ctx);
    ValueRef hi = crossBoundary(hiOuter, loopScope);
    ValueRef step = crossBoundary(stepOuter, loopScope);
    ValueRef cond =
        rangeCondition(condCtx, Graph::value(loop.merges[0]), hi, step, knownStep, op.loc);
    closeCondition(loop, cond, condCtx, op);

    bind(carried, bodyValues(loop, numData), loopScope);
    if (std::optional<std::pair<int64_t, int64_t>> r = forCounterRange(op, lo, hiOuter, knownStep))
      counterRanges[Graph::value(loop.switches[0], 1)] = *r;
    Context bodyCtx = bodyContext(loop, ctx);
    std::optional<Values> body = lowerRegion(*op.regions[0], loopScope, bodyCtx);
    if (!body)
      return;
    Values yielded = std::move(*body);
    Values next;
    if (yielded.size() + 1 == numData) { // the induction variable steps implicitly
      ValueRef iv = Graph::value(loop.switches[0], 1);
      next.push_back(Graph::value(emit(bodyCtx, OpKind::Add, {iv, step}, {g.typeOf(iv)}, op.loc)));
    }
    next.insert(next.end(), yielded.begin(), yielded.end());
    closeBody(loop, next, bodyCtx, op);
    carryFailures(loop, condCtx, bodyCtx, ctx, op);
    std::vector<const ssa::Value *> results = raw(op.results);
    size_t firstExit = flatTypes(results).size() + 1 == numData ? 1 : 0;
    finishLoop(loop, results, firstExit, scope, ctx);
  }

  DiagnosticEngine &diags;
  const LowerOptions &options;
  Graph g;
  bool failed = false;
  unsigned frameCounter = 0;
  std::vector<const ssa::Function *> inlineStack;
  /// The call whose body is being lowered (kNoCallSite in main) and the op being lowered's
  /// chain (Location::inlinedAt; docs/ir.md "Locations").
  CallSiteId callSite = kNoCallSite;
  CallSiteId opSite = kNoCallSite;
  std::map<std::pair<const ssa::InlineSite *, CallSiteId>, CallSiteId> siteMemo;
  std::map<const ssa::Function *, bool> effectsCache;
  /// Per node, 1 + the newest side effect (token) it is known to depend on, 0 for none: a node
  /// that may fail whose operands already follow the token needs no edge of its own. Tokens
  /// are made in program order, so the newest is the largest id.
  std::vector<NodeId> newestToken;
  /// The loop counters whose range is known (forCounterRange, whileCounterRange).
  IntRanges counterRanges;
  autodiff::Differentiator ownDifferentiator{diags};
  autodiff::Differentiator &differentiator;
};

} // namespace

std::optional<Graph> lowerToGraph(const ssa::Program &program, DiagnosticEngine &diags,
                                  const LowerOptions &options) {
  std::optional<Graph> g = Lowering(diags, options).run(program);
  if (!g)
    return std::nullopt;
  if (!verifyGraph(*g, diags)) {
    diags.error("internal error: lowering produced an invalid graph (see above)");
    return std::nullopt;
  }
  return g;
}

} // namespace dlm::lower
