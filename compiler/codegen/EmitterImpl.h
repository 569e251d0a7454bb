//===- compiler/codegen/EmitterImpl.h - The module emitter's class --------===//
//
// Internal to the emitter (Emitter.h): the class that emits one module, shared by the files that
// define its parts — Emitter.cpp (the module's functions, slots and ownership, regions and loops,
// error exits), EmitOps.cpp (a node: the dispatch, constants, kernel calls), EmitDirect.cpp (the
// ops with a direct C ABI call or view instead of a kernel) and EmitElementwise.cpp (elementwise
// ops as inline code and loops).
//
// Every graph value gets a stack slot (promoted to SSA registers by mem2reg at -O1 and up): a
// 0-d tensor lives in it as a scalar of its dtype (i64, double, float, i32, i1), so does a
// one-element tensor computed in registers (findUnboxed), any other tensor as an owned
// `dlm_tensor*`, a string as a `const char*`. Forwarding nodes share their input's slot.
// Tensor slots follow one ownership rule: a slot holds one reference, set when its node runs
// and dropped right after its last reader in the region that owns it (the program for the root
// frame, each iteration for a loop frame), or when that region ends (loop-carried variables
// when the loop exits). Slots start null and are nulled when dropped, so a branch that did not
// run releases nothing.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_CODEGEN_EMITTERIMPL_H
#define DLM_COMPILER_CODEGEN_EMITTERIMPL_H

#include "compiler/codegen/ElementCode.h"
#include "compiler/codegen/Emitter.h"
#include "compiler/codegen/Structure.h"
#include "compiler/ir/ErrorReport.h"
#include "runtime/DType.h"

#include "llvm/IR/IRBuilder.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dlm::codegen {

using graph::Graph;
using graph::Node;
using graph::NodeId;
using graph::ValueRef;

/// How a graph value lives in generated code.
enum class Repr : uint8_t { Scalar, Tensor, Str, Unsupported };

inline Repr reprOf(const Type &t) {
  if (t.isTensor())
    return t.rank() == 0 ? Repr::Scalar : Repr::Tensor;
  if (t.kind() == Type::Kind::Str)
    return Repr::Str;
  return Repr::Unsupported;
}

/// Emits one module for a structured graph (emitModule).
class Emitter {
public:
  Emitter(const Graph &g, const Structure &s, llvm::LLVMContext &ctx, const EmitOptions &options)
      : g(g), s(s), ctx(ctx), options(options), b(ctx), ib(ctx) {}

  /// The module, or the first node emission could not handle (unsupported), or the verifier's
  /// complaint.
  llvm::Expected<std::unique_ptr<llvm::Module>> run();

private:
  // --- runtime declarations --------------------------------------------------------------
  llvm::FunctionCallee rt(llvm::StringRef name, llvm::Type *ret, llvm::ArrayRef<llvm::Type *> args);

  llvm::Type *i32() { return b.getInt32Ty(); }

  llvm::Type *i64() { return b.getInt64Ty(); }

  llvm::Type *voidTy() { return b.getVoidTy(); }

  void retain(llvm::IRBuilder<> &at, llvm::Value *t);

  /// Drops a reference; a null one (a branch that did not run, a moved value) costs a test.
  /// (Inline, not a call to a shared helper: at machine-code level 0 — the large-program JIT
  /// path — a helper cost a training step more than it saved of compile time; docs/codegen.md
  /// "Ops".)
  void release(llvm::IRBuilder<> &at, llvm::Value *t);

  /// Drops the reference tensor slot `slot` holds, if any, and nulls the slot.
  void drop(llvm::Value *slot);

  llvm::Type *scalarType(DType t) { return code->scalarType(t); }

  // --- constants and globals ------------------------------------------------------------
  llvm::Constant *cstr(const std::string &text);

  template <typename T> llvm::Constant *constArray(llvm::ArrayRef<T> values) {
    auto *init = llvm::ConstantDataArray::get(ctx, values);
    return new llvm::GlobalVariable(*m, init->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                    init, ".arr");
  }

  llvm::GlobalVariable *global(llvm::Type *ty, llvm::Constant *init, const llvm::Twine &name);

  // --- @dlm_init ------------------------------------------------------------------------
  void beginInit();

  /// In @dlm_init: branch to the failure exit when `bad` holds.
  void initCheck(llvm::Value *bad);

  /// Kernels are named after their op (docs/ops.md).
  std::string kernelName(const Node &n) { return opString(n.op); }

  llvm::GlobalVariable *kernelId(const std::string &name);

  std::vector<int64_t> runtimeShape(const Shape &shape);

  void setAttr(llvm::Value *a, const std::string &name, const AttrValue &value);

  /// A global holding node n's attributes, built by @dlm_init; null when it has none.
  llvm::Value *attrsOf(const Node &n);

  // --- slots ----------------------------------------------------------------------------
  /// reprOf its type, except that a one-element tensor findUnboxed chose is a Scalar.
  Repr repr(ValueRef v) {
    ValueRef r = s.resolve(g, v);
    return unboxed.count({r.node, r.port}) ? Repr::Scalar : reprOf(g.typeOf(v));
  }

  /// Chooses the values of static shape [1], [1, 1], ... that live in a register, as a 0-d
  /// tensor does, instead of in a `dlm_tensor` (unboxed): those computed in registers — by an
  /// elementwise op (or fused node) on register operands that ElementCode supports, a literal,
  /// or zeros/ones when nothing reads them as a tensor — and the loop variables, loop exits and
  /// branch joins all of whose inputs are unboxed. The largest such set (start from every
  /// candidate, drop what fails, until nothing changes), so a loop-carried `x = x + 1.0` on a [1]
  /// tensor never calls the runtime. Any other reader gets the value boxed to its shape (box).
  void findUnboxed();

  /// Whether node n's one-element result can be unboxed, given the current choice for its
  /// operands.
  bool computesUnboxed(const Node &n);

  /// Whether node n takes register operands as they are: elementwise code (ElementCode) that
  /// supports its body, whether its result is a register or a loop over a tensor.
  bool readsUnboxed(const Node &n);

  /// zeros{shape} or ones{shape} of an unboxed result: a register constant.
  bool emitUnboxedFill(const Node &n);

  llvm::Type *slotType(ValueRef v);

  /// Tensor slots are the elements of one array (`tensors`, zeroed in the entry block) rather
  /// than allocas of their own, so that the error exit can release every reference the program
  /// holds with one call (releaseTensorsFunction) instead of a phi per slot and failing call.
  /// The array is as long as the graph has tensor results.
  void beginTensorSlots();

  /// The slot of a resolved value, created in the entry block on first use: an element of the
  /// tensor array for a tensor, an alloca otherwise (a str slot starts null).
  llvm::Value *slot(ValueRef v);

  llvm::Value *load(ValueRef v);

  /// Stores into v's slot. A value of another machine type (a forwarding node or loop variable
  /// declared with a dtype its input does not have) would silently overwrite the slot with the
  /// wrong bits: it is an internal error instead.
  void store(ValueRef v, llvm::Value *x);

  static std::string typeName(llvm::Type *t);

  /// One operand (or result) array shared by every kernel call site, as large as the largest.
  llvm::AllocaInst *callArray(llvm::AllocaInst *&array, llvm::Type *ty);

  llvm::AllocaInst *entryAlloca(llvm::Type *ty, unsigned count = 1);

  void releaseOwned(const Region &region);

  // --- errors ---------------------------------------------------------------------------
  /// Branches to an error exit for node n when `failed` holds: records n's .dlm location and
  /// returns 1 from @dlm_main (the message is already set by the runtime).
  /// All failing checks branch to one exit block, passing their site (an index into a table of
  /// locations) through a phi: one compare and branch per call instead of a block each.
  void checkFailure(llvm::Value *failed, const Node &n);

  /// A failure site, runtime/CApi.h's dlm_error_site: where the error is reported (file, line,
  /// column, source line), the message's prefix (or null), the notes and their count.
  llvm::StructType *siteTy();

  /// A note, dlm_error_note: file, line, column, source line, message.
  llvm::StructType *noteTy();

  /// The failure-site table (one entry per failing node: reported at the user's line, the
  /// inlined calls it is in as notes; compiler/ir/ErrorReport.h) and one table of notes, each
  /// run of notes stored once, that the entries point into.
  llvm::GlobalVariable *siteTable();

  /// The shared error exit: dlm_set_error_site(&sites[site]); return 1.
  void finishFailBlock();

  /// `void dlm_release_tensors(ptr slots, i64 n)`: dlm_tensor_release on each (null-safe).
  llvm::Function *releaseTensorsFunction();

  /// @dlm_fini, run on every exit of @dlm_main: drops what @dlm_init built (the tensor
  /// literals' references and the attribute objects) and nulls the globals, so that running
  /// the entry again (a JitSession cache hit) starts from a clean state.
  void finishFini();

  void checkStatus(llvm::Value *status, const Node &n);

  /// A loop's back-edge: one load of dlm_interrupt_flag (runtime/Interrupt.h) and a branch; a
  /// set flag stops the program like a run-time error at n ("interrupted").
  void checkInterrupt(const Node &n);

  /// Records that node n cannot be emitted (`what` says why) as the module's error, when it is the
  /// first such node; emission goes on so that the module stays well formed. Returns false.
  bool unsupported(const Node &n, const std::string &what);

  // --- regions --------------------------------------------------------------------------
  template <typename Filter> void emitItems(const Region &region, Filter filter);

  /// The tensors `region` owns to drop after each of its items (by index in region.items): each
  /// after its last reader in emission order (a loop's header items, then its body items; a
  /// child loop reads what any node inside it reads), so that a long iteration (a training
  /// step) holds only what it still needs. A loop's next values and its Exits' operands are
  /// read after the items and stay to the iteration's end. Under a guard that does not hold,
  /// the drop does not run and the region's end releases the value as before.
  const std::vector<std::vector<ValueRef>> &lastReads(const Region &region);

  /// Branches into a new block taken when every term of `guard` holds; returns the join block.
  llvm::BasicBlock *openGuard(const Guard &guard);

  llvm::Value *predicate(ValueRef v);

  void emitLoop(graph::FrameId f);

  // --- nodes ----------------------------------------------------------------------------
  void emitNode(const Node &n);

  /// The op's fast path, when it has one (the switch in EmitDirect.cpp: slice, slice_grad, split,
  /// the stack ops, transpose, index, reshape, zeros, sum_to) and it applies to n: a direct call
  /// of a C ABI entry or a view, without the kernel's lookup and attribute parsing. False: n
  /// takes the kernel.
  bool emitDirect(const Node &n);

  /// `arg{index}` of an entry graph: the caller's args[index], borrowed, so a tensor slot takes
  /// a reference of its own (the caller still holds one: the tensor is never updated in place);
  /// a scalar is read from its 0-d tensor.
  void emitArg(const Node &n);
  /// `retval{index}(x)`: a new reference to x in the caller's results[index] (a scalar boxed).
  void emitRetval(const Node &n);

  /// Whether n has `numIn` tensor operands and one tensor result: the form of the direct calls.
  bool tensorsToTensor(const Node &n, size_t numIn);

  /// Stores the new reference a direct call returned as n's result, after the null check.
  void storeDirect(const Node &n, llvm::Value *t);

  /// The AD stack ops a loop runs every iteration (stack_push in the forward pass, stack_top
  /// and stack_pop in the gradient) call their C ABI entries directly: no operand array,
  /// attributes or kernel lookup. emitStackCall calls `entry` with the node's `numIn` tensor
  /// operands.
  bool emitStackCall(const Node &n, const char *entry, size_t numIn);
  bool emitStackPush(const Node &n);
  bool emitStackTop(const Node &n);
  bool emitStackPop(const Node &n);

  /// The node's int attribute `name`, if it has one.
  std::optional<int64_t> intAttr(const Node &n, const char *name);

  /// `transpose{perm}` (a view) with the permutation checked here against the operand's static
  /// rank: `dlm_tensor_transpose` permutes dims and strides without the kernel's attribute
  /// parsing and checks. A permutation the kernel would reject takes the kernel (its error).
  bool emitTranspose(const Node &n);

  /// `index{axis}(x, i)` with a register integer index and a tensor result (x[t] in a loop): the
  /// view `dlm_tensor_select` makes, with the kernel's bounds check; no boxing of i.
  bool emitIndex(const Node &n);

  /// A shape attribute without run-time dims (a reshape's may hold one -1), as the kernel reads it.
  std::optional<std::vector<int64_t>> fixedShapeAttr(const Node &n);

  /// `reshape{shape}(x)` with a shape fixed at compile time: `dlm_tensor_reshape` (a view of a
  /// contiguous operand) without the kernel's attribute parsing.
  bool emitReshape(const Node &n);

  /// `zeros{shape, dtype}` of a fixed shape (a gradient accumulator's start, made again every
  /// training step): `dlm_tensor_zeros`.
  bool emitZeros(const Node &n);

  /// `sum_to{shape}(x)` of a float x whose static shape is `shape` after leading axes of size 1
  /// (an LSTM's bias gradient [1, 128] -> [128], every step): no sum to compute, so
  /// `dlm_tensor_sum_to` copies the elements (plus 0.0, as the kernel's sum from zero) without
  /// the reduction's planning. The shapes are checked here as the kernel checks them.
  bool emitSumToCopy(const Node &n);

  /// Any other op with tensor (or boxed scalar) operands and one tensor result: the generic
  /// fast path `dlm_kernel_run`, which borrows the operands and returns the result (no value
  /// structs, output array, output count or status to read back).
  bool emitKernelRun(const Node &n);

  /// matmul_bias's addend (graph::accumulatorOperand), resolved, when n may take it over
  /// (donatable): dlm_matmul_bias_accumulate then writes the sum over it if nothing else holds it.
  std::optional<ValueRef> accumulatorDonor(const Node &n);

  static std::vector<int64_t> staticSizes(const Shape &shape);

  /// A `slice` with constant bounds and unit steps of an operand of static shape is a view
  /// made without the kernel (`dlm_tensor_slice`, which reads only the operand's strides and
  /// offset; staticSliceStart). An LSTM step slices its gates this way.
  bool emitStaticSlice(const Node &n);

  /// `split{axis, sizes}` of an operand of static shape (a merged autodiff stack's entry split
  /// back into its values, every gradient step) is one `dlm_tensor_slice` view per piece, as
  /// the kernel makes them (an empty piece starts at 0), without its attribute parsing and
  /// checks, which the static shapes settle here; anything else takes the kernel.
  bool emitStaticSplit(const Node &n);

  /// `slice_grad` of such a slice (its gradient placed into zeros of the input's static shape;
  /// the LSTM backward assembles its gate gradients this way) calls `dlm_tensor_slice_grad`
  /// with the window's start resolved here instead of the kernel's attribute parsing and
  /// generic copy; the node's attributes go along for a gradient on another device.
  bool emitStaticSliceGrad(const Node &n);

  void emitCondMerge(const Node &n);

  bool allScalar(const Node &n);

  /// A scalar constant in a register, a string in a global, or a tensor built once by
  /// @dlm_init (tensors are immutable, so every use shares it).
  bool emitConst(const Node &n);

  /// The constant of dtype dt (machine type ty) the const kernel makes from a flat literal's
  /// value v (a C++ conversion, as Tensor::fromVector does); null when it is not representable.
  llvm::Constant *constFromDouble(DType dt, llvm::Type *ty, double v);

  std::vector<DType> operandTypes(const Node &n);

  /// The elementwise expression n computes: a `fused` node's body, or n itself as one
  /// statement (a registry elementwise op without attributes, or cast); nullopt otherwise.
  std::optional<ElementBody> elementBody(const Node &n);

  /// An elementwise op (or a fused node) on scalars: inline instructions in registers.
  bool emitScalarOp(const Node &n);

  /// Counts, per resolved value, its readers (Exits apart): a tensor read once may be updated
  /// in place by that reader.
  void countUses();

  unsigned useCount(const std::vector<std::vector<unsigned>> &counts, ValueRef r);

  /// Whether node n may take over operand value r's tensor (when, at run time, nothing else
  /// holds it): n is r's only reader, in r's own frame, and an Exit reading r (a loop
  /// variable) runs only after the loop, never after n in the same iteration.
  bool donatable(const Node &n, ValueRef r, bool nInBody);

  /// An elementwise op or a fused node with a tensor result as one loop nest over the output
  /// (ElementCode::loopFunction), its body inlined as scalar code: operands broadcast by
  /// strides (the broadcast pattern is read from the static types: an operand dim equal to the
  /// result's runs along it, a static 1 is broadcast; anything else takes the kernel), views
  /// are first copied dense, and the output takes over a donated operand's buffer when it can
  /// (in place). Output dims of static size 1 are dropped and adjacent dims along which every
  /// operand runs alike are merged, so same-shape operands make one flat loop.
  bool emitElementwise(const Node &n);

  /// Whether value r is a dense host tensor whenever it is set: the output of a generated
  /// elementwise loop (a fresh dense tensor or a dense donor updated in place) or of zeros.
  bool knownDense(ValueRef r) { return denseResults.count({r.node, r.port}) != 0; }

  /// The dense data of tensor t: its own, or (for a view) that of a contiguous copy, returned
  /// second (null when t is dense) for the caller to release. When t may be the output `out`
  /// (a donor), the output's data `outData` is taken without asking the runtime.
  std::pair<llvm::Value *, llvm::Value *> denseData(llvm::Value *t, const Node &n, llvm::Value *out,
                                                    llvm::Value *outData);

  /// `ptr @dlm.dense_data(ptr t, ptr out, ptr outData, ptr copySlot)`: outData when t is out;
  /// else t's dense data, or that of a contiguous copy of t (a view), stored in *copySlot (null
  /// otherwise); null data and a null copy when the copy failed. One call per operand rather
  /// than five blocks inline: less to compile, and the inliner puts the blocks back from -O1
  /// (docs/codegen.md "Ops"; release, by contrast, stays inline).
  llvm::Function *denseDataFunction();

  /// A tensor of type t (0-d, or one element of an unboxed value's shape) holding the register
  /// scalar v (a new reference; null when it could not be made); node n reports a failure.
  llvm::Value *box(llvm::Value *v, const Type &t, const Node &n);

  /// Any op: boxes scalar operands, calls the kernel through the C ABI, checks the status,
  /// unboxes scalar results.
  void emitKernelCall(const Node &n);

  // --- AOT entry ------------------------------------------------------------------------
  void emitMain();
  /// @dlm_init's and @dlm_fini's: external for an entry graph's host, which runs each once.
  llvm::GlobalValue::LinkageTypes hostLinkage() const {
    return options.entry ? llvm::Function::ExternalLinkage : llvm::Function::InternalLinkage;
  }

  const Graph &g;
  const Structure &s;
  llvm::LLVMContext &ctx;
  const EmitOptions &options;
  llvm::Error firstError = llvm::Error::success(); ///< see unsupported
  std::unique_ptr<llvm::Module> m;
  llvm::IRBuilder<> b;  ///< @dlm_main
  llvm::IRBuilder<> ib; ///< @dlm_init
  llvm::Function *mainFn = nullptr, *initFn = nullptr;
  llvm::BasicBlock *allocaBlock = nullptr, *initFail = nullptr;
  llvm::PointerType *ptrTy = nullptr;
  llvm::StructType *valueTy = nullptr;
  std::vector<std::vector<llvm::Value *>> slots; ///< see slot()
  llvm::AllocaInst *tensors = nullptr;           ///< the tensor slots (beginTensorSlots)
  uint64_t tensorCount = 0, tensorUsed = 0;
  llvm::Function *finiFn = nullptr;                              ///< @dlm_fini (finishFini)
  llvm::Function *denseDataFn = nullptr;                         ///< see denseDataFunction
  std::vector<llvm::GlobalVariable *> constTensors, attrObjects; ///< what @dlm_fini drops
  std::map<std::string, llvm::Constant *> strings;
  std::map<std::string, llvm::GlobalVariable *> kernelIds;
  std::vector<std::vector<unsigned>> uses, exitUses;                          ///< see countUses
  std::map<graph::FrameId, std::vector<std::vector<ValueRef>>> dropAfterItem; ///< see lastReads
  std::unique_ptr<ElementCode> code; ///< elementwise ops as scalar IR and loops
  bool currentBody = false;          ///< the item being emitted is in its loop's body
  llvm::AllocaInst *callInputs = nullptr, *callOutputs = nullptr, *runInputs = nullptr,
                   *scalarTmp = nullptr;
  llvm::AllocaInst *copySlot = nullptr;               ///< see denseData
  std::set<std::pair<NodeId, uint32_t>> denseResults; ///< see knownDense
  std::set<std::pair<NodeId, uint32_t>> unboxed;      ///< see findUnboxed
  llvm::BasicBlock *failBlock = nullptr;              ///< the shared error exit (see checkFailure)
  llvm::PHINode *failSite = nullptr;
  std::vector<graph::ErrorReport> siteReports; ///< per failure site (see siteTable)
  std::map<NodeId, uint32_t> siteOf;
};

} // namespace dlm::codegen

#endif // DLM_COMPILER_CODEGEN_EMITTERIMPL_H
