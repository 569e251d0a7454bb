//===- compiler/codegen/Nvptx.cpp - Fused elementwise bodies as PTX kernels -===//
#include "compiler/codegen/Nvptx.h"

#include "compiler/codegen/ElementCode.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>

namespace dlm::codegen {

namespace {

constexpr const char *kTriple = "nvptx64-nvidia-cuda";
/// PTX ISA 7.8 is the first with sm_90; ptxas of CUDA 12 and 13 accept it.
constexpr const char *kPtxFeatures = "+ptx78";
constexpr size_t kMaxRank = 8;

std::unique_ptr<llvm::TargetMachine> nvptxMachine(std::string &error) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (!target)
    return nullptr;
  return std::unique_ptr<llvm::TargetMachine>(
      target->createTargetMachine(kTriple, kPtxArch, kPtxFeatures, llvm::TargetOptions(),
                                  std::nullopt, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

/// LLVM's -O3 pipeline for the NVPTX target (its callbacks add NVVMReflect and friends).
void optimize(llvm::Module &m, llvm::TargetMachine &tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(m, mam);
}

/// Builds the kernel (see Nvptx.h for its parameters) into `m`; false with `error` when the
/// body has no GPU form.
bool buildKernel(llvm::Module &m, const ElementBody &body,
                 const std::vector<rt::FusedOperand> &operands, size_t rank,
                 const std::string &name, std::string &error) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  ElementCode code(b, m);
  llvm::Type *i64 = b.getInt64Ty(), *global = b.getPtrTy(1);
  std::vector<llvm::Type *> params = {global, i64};
  params.insert(params.end(), rank, i64);
  for (const rt::FusedOperand &o : operands) {
    if (!o.tensor) {
      params.push_back(code.memoryType(o.dtype));
      continue;
    }
    params.push_back(global);
    params.insert(params.end(), rank, i64);
  }
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), params, false),
                                    llvm::Function::ExternalLinkage, name, m);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Metadata *kernel[] = {llvm::ValueAsMetadata::get(fn), llvm::MDString::get(ctx, "kernel"),
                              llvm::ConstantAsMetadata::get(b.getInt32(1))};
  m.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(ctx, kernel));

  auto *entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  auto *loop = llvm::BasicBlock::Create(ctx, "element", fn);
  auto *done = llvm::BasicBlock::Create(ctx, "done", fn);
  b.SetInsertPoint(entry);
  auto sreg = [&](llvm::Intrinsic::ID id) {
    return b.CreateZExt(b.CreateIntrinsic(id, {}, {}), i64);
  };
  llvm::Value *tid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value *ntid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x);
  llvm::Value *ctaid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value *nctaid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
  llvm::Value *n = fn->getArg(1);
  llvm::Value *first = b.CreateAdd(b.CreateMul(ctaid, ntid, "", true, true), tid, "", true, true);
  llvm::Value *step = b.CreateMul(ntid, nctaid, "", true, true);
  b.CreateCondBr(b.CreateICmpULT(first, n), loop, done);

  b.SetInsertPoint(loop);
  llvm::PHINode *i = b.CreatePHI(i64, 2, "i");
  i->addIncoming(first, entry);
  // The output's multi-index of element i, innermost dim first.
  std::vector<llvm::Value *> index(rank);
  llvm::Value *rest = i;
  for (size_t d = rank; d-- > 0;) {
    llvm::Value *extent = fn->getArg(2 + d);
    if (d == 0) {
      index[d] = rest;
      break;
    }
    index[d] = b.CreateURem(rest, extent);
    rest = b.CreateUDiv(rest, extent);
  }
  std::vector<llvm::Value *> args;
  std::vector<DType> types;
  unsigned arg = 2 + rank;
  for (const rt::FusedOperand &o : operands) {
    types.push_back(o.dtype);
    llvm::Type *mem = code.memoryType(o.dtype);
    llvm::Value *v;
    if (!o.tensor) {
      v = fn->getArg(arg++);
    } else {
      llvm::Value *data = fn->getArg(arg++);
      llvm::Value *offset = b.getInt64(0);
      for (size_t d = 0; d < rank; ++d)
        offset = b.CreateAdd(offset, b.CreateMul(index[d], fn->getArg(arg++)));
      v = b.CreateLoad(mem, b.CreateInBoundsGEP(mem, data, offset));
    }
    args.push_back(o.dtype == DType::Bool ? b.CreateICmpNE(v, b.getInt8(0)) : v);
  }
  llvm::Value *r = code.body(body, args, types);
  if (!r) {
    error = "the body has no GPU form (an op or a conversion is left to the CPU kernels)";
    return false;
  }
  DType dt = body.back().dtype;
  if (dt == DType::Bool)
    r = b.CreateZExt(r, b.getInt8Ty());
  b.CreateStore(r, b.CreateInBoundsGEP(code.memoryType(dt), fn->getArg(0), i));
  llvm::Value *next = b.CreateAdd(i, step, "", true, true);
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpULT(next, n), loop, done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();

  // A call of a host function (the C library's logf, powf, ...; the kernels' scalar functions
  // of runtime/ScalarOps.h) has no definition on the GPU.
  for (const llvm::Function &f : m)
    if (f.isDeclaration() && !f.isIntrinsic()) {
      error = "'" + f.getName().str() + "' (a host function) is not available on the GPU";
      return false;
    }
  std::string broken;
  llvm::raw_string_ostream os(broken);
  if (llvm::verifyModule(m, &os)) {
    error = "internal error: invalid GPU kernel: " + broken;
    return false;
  }
  return true;
}

bool compileForRuntime(std::string_view bodyText, std::span<const rt::FusedOperand> operands,
                       size_t rank, std::string &ptx, std::string &entry, std::string &error) {
  std::optional<ElementBody> body = parseFusedBody(bodyText, operands.size());
  if (!body || body->empty()) {
    error = "malformed fused body '" + std::string(bodyText) + "'";
    return false;
  }
  entry = "dlm_fused";
  std::optional<std::string> text = compileFusedPtx(
      *body, std::vector<rt::FusedOperand>(operands.begin(), operands.end()), rank, entry, error);
  if (!text)
    return false;
  ptx = std::move(*text);
  return true;
}

} // namespace

std::optional<std::string> compileFusedPtx(const ElementBody &body,
                                           const std::vector<rt::FusedOperand> &operands,
                                           size_t rank, const std::string &name,
                                           std::string &error) {
  if (rank > kMaxRank) {
    error = "rank " + std::to_string(rank) + " exceeds " + std::to_string(kMaxRank);
    return std::nullopt;
  }
  if (body.empty()) {
    error = "empty body";
    return std::nullopt;
  }
  std::unique_ptr<llvm::TargetMachine> tm = nvptxMachine(error);
  if (!tm)
    return std::nullopt;
  llvm::LLVMContext ctx;
  llvm::Module m(name, ctx);
  m.setTargetTriple(kTriple);
  m.setDataLayout(tm->createDataLayout());
  if (!buildKernel(m, body, operands, rank, name, error))
    return std::nullopt;
  optimize(m, *tm);
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
    error = "internal error: the NVPTX target cannot emit assembly";
    return std::nullopt;
  }
  pm.run(m);
  return std::string(text.str());
}

void installPtxCompiler() { rt::setFusedPtxCompiler(compileForRuntime); }

bool printPtx(const graph::Graph &graph, DiagnosticEngine &diags, llvm::raw_ostream &os) {
  for (const graph::Node &n : graph.nodes()) {
    if (n.op != OpKind::Fused || n.numResults() != 1 || !n.results[0].isTensor() ||
        n.results[0].rank() == 0)
      continue;
    const AttrValue *attr = n.attr("body");
    const std::string *text = attr ? std::get_if<std::string>(attr) : nullptr;
    std::optional<ElementBody> body = text ? parseFusedBody(*text, n.inputs.size()) : std::nullopt;
    if (!body) {
      diags.error("internal error: fused node %" + std::to_string(n.id) + " has a malformed body");
      return false;
    }
    std::vector<rt::FusedOperand> operands;
    for (graph::ValueRef v : n.inputs) {
      const Type &t = graph.typeOf(v);
      operands.push_back({t.dtype(), t.isTensor() && t.rank() > 0});
    }
    os << "// fused %" << n.id << " : " << n.results[0].str() << " {body = \"" << *text << "\"}\n";
    std::string error;
    std::optional<std::string> ptx = compileFusedPtx(*body, operands, n.results[0].rank(),
                                                     "dlm_fused_" + std::to_string(n.id), error);
    if (!ptx) {
      if (error.starts_with("internal error")) {
        diags.error(error);
        return false;
      }
      os << "// no GPU kernel: " << error << "\n\n";
      continue;
    }
    os << *ptx << "\n";
  }
  return true;
}

} // namespace dlm::codegen
