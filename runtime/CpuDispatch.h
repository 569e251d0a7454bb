//===- runtime/CpuDispatch.h - FMA code paths chosen at start-up ----------===//
//
// Code built for a generic x86-64 target exists twice where FMA changes results: an AOT
// executable's generated functions (compiler/codegen/Aot.cpp) and the portable runtime's
// contracted kernels (kernels/cpu/FmaVariant.h). A process runs one copy, chosen once: the FMA
// one when the CPU has FMA (with AVX, enabled by the OS), as the JIT's code and the runtime built
// for the host then do, so an executable prints what `dlm run` prints on the same machine;
// the baseline one otherwise, or when DLM_AOT_PORTABLE is set (to anything but "" or "0"), which
// forces it (docs/codegen.md "AOT").
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_CPUDISPATCH_H
#define DLM_RUNTIME_CPUDISPATCH_H

namespace dlm::rt {

/// Whether this process runs the FMA copies (decided on the first call).
bool useFmaCodePaths();

} // namespace dlm::rt

#endif // DLM_RUNTIME_CPUDISPATCH_H
