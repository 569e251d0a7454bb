//===- kernels/cpu/FmaVariant.h - The FMA variant of the contracted kernels ===//
//
// Elementwise.cpp and NN.cpp are the kernel files compiled with FMA contraction: GCC fuses a
// product feeding only an addition into an FMA wherever the target has one, and the JIT
// transcribes their f32 exp/tanh/sigmoid with llvm.fmuladd at exactly those spots
// (compiler/codegen/ElementCode.cpp). The runtime built for the host (-march=native) contracts
// wherever the host has FMA. The portable runtime AOT executables link (baseline x86-64) compiles
// each of the two files twice: as it is, without FMA, and through a wrapper (ElementwiseFma.cpp,
// NNFma.cpp) that defines DLM_FMA_VARIANT. In that copy the file's code, between
// DLM_FMA_VARIANT_BEGIN and DLM_FMA_VARIANT_END, is in namespace dlm::rt::cpu::fma and compiled
// for x86-64 with FMA (a target pragma: the headers included before it, whose inline functions
// and templates the two copies share, stay baseline). registerCpuKernels registers the FMA copy
// when the process runs the FMA code paths (runtime/CpuDispatch.h), so an AOT executable computes
// what `dlm run` computes on the same machine (docs/codegen.md "AOT").
//
//===----------------------------------------------------------------------===//
#ifndef DLM_KERNELS_CPU_FMAVARIANT_H
#define DLM_KERNELS_CPU_FMAVARIANT_H

#ifdef DLM_FMA_VARIANT
#define DLM_FMA_VARIANT_BEGIN                                                                      \
  _Pragma("GCC push_options") _Pragma("GCC target(\"fma\")") namespace fma {
#define DLM_FMA_VARIANT_END                                                                        \
  }                                                                                                \
  _Pragma("GCC pop_options")
#else
#define DLM_FMA_VARIANT_BEGIN
#define DLM_FMA_VARIANT_END
#endif

#endif // DLM_KERNELS_CPU_FMAVARIANT_H
