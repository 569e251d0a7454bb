//===- compiler/autodiff/Reverse.h - The reverse sweep (internal) ----------===//
//
// Internal to compiler/autodiff. Reverse turns one flattened function (Autodiff.cpp) into its
// derivative in place: the body stays as the forward pass, and the backward pass is appended.
//
// Levels. Each region of the forward program that the backward enters is a Level: the function
// body (Root), one side of an `if` (IfSide), a loop body (LoopBody), or a recomputed checkpoint
// (sameBlock, like Root). A Level has the forward block it reverses and the backward block its
// gradient ops go to: the backward of an `if` side is the same side of a backward `if` on the
// same predicate; the backward of a loop body is the body of a backward `for` that runs as many
// times as the forward loop did.
//
// Primal values. A backward op reads a forward value v (primal()):
//   - defined in an enclosing level, or in a sameBlock level: v itself (values from outside a
//     loop flow in directly — Zygote's rule);
//   - defined in an `if` side: the forward `if` gets an extra result (v on that side, undef on
//     the other) and the backward reads that result one level up; but when the `if` is in a
//     loop body (through `if`s only) and v's shape is known only at run time, v is pushed on a
//     stack of its own on its side only (an undef has no shape to match v's), and the backward
//     `if` pops it there (exportFromIfInLoop);
//   - defined in a loop body: the forward loop pushes v onto a stack it carries; the backward
//     loop carries the stack and pops it at the start of each iteration.
// Exports are made on first use, so a loop stores exactly what its backward reads. Nested loops
// need no special case: an inner loop's trip count is a value of the outer body, so it is
// stacked like any other.
//
// Files. Reverse.cpp: run() and the sweep of each construct. Activity.cpp: which values get
// adjoints. Primal.cpp: primal() and the forward augmentation its exports make (extra `if`
// results, loop stacks, trip counters). Adjoints.cpp: give() and fitting a gradient to its
// leaf's type. Emit.cpp: making ops (and the small readers of the structured SSA below).
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_AUTODIFF_REVERSE_H
#define DLM_COMPILER_AUTODIFF_REVERSE_H

#include "compiler/autodiff/Autodiff.h"
#include "compiler/autodiff/GradContext.h"

#include <map>
#include <set>

namespace dlm::autodiff {

/// A value leaf: tuples are differentiated leaf by leaf.
using Leaf = std::pair<const ssa::Value *, unsigned>;

/// Adjoints by leaf, in a deterministic order (the value's first-seen number, then the leaf).
struct AdjointMap {
  std::map<std::pair<uint64_t, unsigned>, std::pair<Leaf, ssa::Value *>> entries;
};

struct Level {
  enum class Kind : uint8_t { Root, IfSide, LoopBody };
  Kind kind = Kind::Root;
  Level *parent = nullptr;
  ssa::Block *fwd = nullptr;
  ssa::Block *bwd = nullptr;
  bool sameBlock = false;
  ssa::Operation *fwdOp = nullptr;   ///< the forward If/While/For owning `fwd`
  int side = 0;                      ///< IfSide: 0 then, 1 else
  ssa::Operation *bwdLoop = nullptr; ///< LoopBody: the backward For
  size_t prefix = 0;                 ///< LoopBody, IfSide: pops placed at the start of `bwd`
  /// When set, backward ops of this level are inserted here (before a backward loop that
  /// needs them) instead of appended.
  std::optional<size_t> cursor;
  std::map<const ssa::Value *, ssa::Value *> visible;
  AdjointMap *adj = nullptr;
  AdjointMap ownAdj;
  /// LoopBody: the backward loop's next values, by carried index (iv excluded).
  std::vector<ssa::Value *> next;
  /// IfSide in a loop body through `if` sides only: the stacks of values saved on one side
  /// (exportFromIfInLoop), which the backward `if` threads through: this side yields `popped`
  /// (the pop, or the inner backward `if`'s result), the other `header`; its result is the
  /// backward loop's next stack (`next[nextIndex]` of the loop level) or the enclosing side's
  /// `popped`.
  struct Threaded {
    size_t nextIndex;
    ssa::Value *header, *popped;
  };
  std::vector<Threaded> threaded;
};

class Reverse {
public:
  Reverse(Differentiator &d, ssa::Function &f) : d(d), f(f) {}

  /// Rewrites `f` into its derivative with respect to parameters `argnums`; false after an
  /// error (reported).
  bool run(const std::vector<int64_t> &argnums, bool withValue, const Type &resultType);

  // --- used by GradContext ---
  ssa::Value *primal(const ssa::Value *v, Level &at);
  ssa::Value *adjoint(Level &at, Leaf leaf);
  void give(Level &at, Leaf leaf, ssa::Value *grad, llvm::SMRange loc);
  bool isActive(const ssa::Value *v) const;
  /// Appends a Builtin op to `at`'s backward block (or inserts it at the level's cursor).
  ssa::Value *emit(Level &at, OpKind kind, std::vector<ssa::Value *> operands, Attrs attrs,
                   llvm::SMRange loc, std::optional<Type> type = std::nullopt);
  /// `g` summed down (broadcasting undone) and cast to type `t`.
  ssa::Value *fitTo(Level &at, ssa::Value *g, const Type &t, llvm::SMRange loc);
  ssa::Value *zerosLike(Level &at, ssa::Value *v, llvm::SMRange loc);
  /// Zeros of the type of leaf `leaf` of `v` (from the static type when it has one, else
  /// zeros_like of the primal).
  ssa::Value *zerosOf(Level &at, const ssa::Value *v, unsigned leaf, llvm::SMRange loc);
  /// The constant `v` in the dtype of `like` (see GradContext::num).
  ssa::Value *constLike(Level &at, double v, ssa::Value *like, llvm::SMRange loc);
  /// Leaf `leaf` of `v` (get ops emitted into `at` for a tuple).
  ssa::Value *extractLeaf(Level &at, ssa::Value *v, unsigned leaf, llvm::SMRange loc);
  /// A fresh copy of `v` at `at` that exists only once `token` does: `after(v, token)` of a
  /// tensor or number (an Identity of other values, or when `token` is null), and for a tuple
  /// a new tuple of copies of its elements (one node takes exactly one value).
  ssa::Value *copyAfter(Level &at, ssa::Value *v, ssa::Value *token, llvm::SMRange loc);
  void fail(llvm::SMRange loc, const std::string &message);
  bool hasFailed() const { return failed; }
  DimContext &dims() { return d.dims(); }

private:
  using NextFn = ssa::Value *(Reverse::*)(ssa::Operation &, ssa::Block &, ssa::Value *,
                                          const ssa::Value *);
  // Sweep (Reverse.cpp).
  void sweepOps(Level &level, std::vector<ssa::Operation *> ops);
  void sweepBlock(Level &level, const ssa::Block &block);
  void sweepOp(Level &level, ssa::Operation &op);
  void sweepBuiltin(Level &level, ssa::Operation &op);
  void sweepIf(Level &level, ssa::Operation &op);
  void sweepLoop(Level &level, ssa::Operation &op);
  void sweepCheckpoint(Level &level, ssa::Operation &op);
  bool hasAdjoint(Level &level, const ssa::Operation &op);

  // Forward augmentation (Primal.cpp).
  ssa::Value *exportValue(const ssa::Value *v, Level &level);
  ssa::Value *exportFromIf(const ssa::Value *v, Level &level);
  ssa::Value *exportFromLoop(const ssa::Value *v, Level &level);
  ssa::Value *exportFromIfInLoop(const ssa::Value *v, Level &level);
  /// The loop body that `level` is in through `if` sides only (none: null).
  Level *loopAroundIfs(Level &level);
  ssa::Value *tripCount(ssa::Operation &loop, Level &parent);
  /// Adds a carried value to a forward loop: `init` (already placed before the loop), a
  /// header, the next value `next` builds before the body's yield, and the loop's new result.
  ssa::Value *addCarried(ssa::Operation &loop, ssa::Value *init, NextFn next,
                         const ssa::Value *payload);
  ssa::Value *pushNext(ssa::Operation &loop, ssa::Block &body, ssa::Value *header,
                       const ssa::Value *payload);
  ssa::Value *extendNext(ssa::Operation &loop, ssa::Block &body, ssa::Value *header,
                         const ssa::Value *payload);
  ssa::Value *countNext(ssa::Operation &loop, ssa::Block &body, ssa::Value *header,
                        const ssa::Value *payload);

  // Helpers (Primal.cpp, Adjoints.cpp, Emit.cpp, Activity.cpp).
  Level *levelOf(const ssa::Value *v, Level &from);
  const ssa::Block *defBlock(const ssa::Value *v) const;
  uint64_t order(const ssa::Value *v);
  ssa::Value *makeOp(ssa::Block &b, size_t pos, OpKind kind, std::vector<ssa::Value *> operands,
                     Attrs attrs, llvm::SMRange loc, std::optional<Type> type);
  ssa::Operation *insertOp(ssa::Block &b, size_t pos, std::unique_ptr<ssa::Operation> op);
  void registerArgs(ssa::Block &b);
  void analyseActivity(const std::vector<int64_t> &argnums);
  ssa::Value *buildLike(Level &at, const Type &t, std::vector<ssa::Value *> &leaves, size_t &next,
                        llvm::SMRange loc);

  Differentiator &d;
  ssa::Function &f;
  std::map<const ssa::Value *, const ssa::Block *> argBlocks;
  std::map<const ssa::Value *, uint64_t> numbering;
  std::set<const ssa::Value *> known, varied, useful;
  /// Values that are stacks made by this transformation (saved with stack_extend).
  std::set<const ssa::Value *> stackValues;
  /// The forward op whose gradient rule is running: every op made meanwhile (the rule's own,
  /// the accumulation and broadcast reduction of give(), the stack traffic of the values it
  /// reads) is marked with its name (ssa::Operation::gradOf).
  const ssa::Operation *ruleOp = nullptr;
  /// The inlined-call chain of the forward op being swept: every op made meanwhile gets it
  /// (ssa::Operation::inlinedAt), so a gradient op's errors name the user's call like its
  /// forward op's do.
  const ssa::InlineSite *sweepSite = nullptr;
  bool analysed = false;
  bool failed = false;
};

/// Flattened type leaves of `t` (tuples expanded in order).
std::vector<Type> leafTypes(const Type &t);
/// Leaf `leaf` of `t`, leafTypes(t)[leaf] without copying the others (a tuple of thousands of
/// parameters asked for each of its leaves made that quadratic: issue #27).
Type leafType(const Type &t, size_t leaf);
/// True for `float` and float tensors.
bool isFloatType(const Type &t);
/// Index of `op` in its parent block.
size_t indexIn(const ssa::Block &b, const ssa::Operation *op);
/// The header values, initial values, yielded values and results of a loop's carried
/// variables, aligned (a For's induction variable left out).
struct LoopParts {
  std::vector<ssa::Value *> inits, headers, yields, results;
  ssa::Block *body = nullptr;
};
LoopParts loopParts(ssa::Operation &loop);
/// Number of leaves of `t` (1 unless a tuple).
size_t numLeaves(const Type &t);
/// Adds a carried (header) value of type `type` to `loop`; returns it.
ssa::Value *newHeader(ssa::Operation &loop, Type type, llvm::SMRange loc);
/// Appends a structural op (yield, tuple, return) with `operands` to `into`.
ssa::Operation *makeStructural(ssa::OpKind kind, llvm::SMRange loc, ssa::Block &into,
                               std::vector<ssa::Value *> operands);
/// True for the backward helpers (ops/Ops.def `BackwardHelper`: `max_pool2d_grad`,
/// `conv2d_grad_input`, ...): differentiable in truth even when they have no rule, so reaching
/// one with an adjoint is reported.
bool isBackwardHelper(const OpInfo &info);

} // namespace dlm::autodiff

#endif // DLM_COMPILER_AUTODIFF_REVERSE_H
