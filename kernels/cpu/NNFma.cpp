//===- kernels/cpu/NNFma.cpp - NN.cpp with FMA ----------------------------===//
//
// The portable runtime's FMA copy of softmax, the losses, convolution and pooling
// (FmaVariant.h); not part of the runtime built for the host.
//
//===----------------------------------------------------------------------===//
#define DLM_FMA_VARIANT
#include "kernels/cpu/NN.cpp"
