//===- kernels/cpu/ElementwiseFma.cpp - Elementwise.cpp with FMA ----------===//
//
// The portable runtime's FMA copy of the elementwise kernels (FmaVariant.h); not part of the
// runtime built for the host.
//
//===----------------------------------------------------------------------===//
#define DLM_FMA_VARIANT
#include "kernels/cpu/Elementwise.cpp"
