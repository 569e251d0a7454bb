//===- tests/runtime/CheckpointTool.cpp - save/load from the command line ------===//
//
// For checkpoint_numpy.py: `save PATH` writes a fixed tuple of tensors; `load PATH` loads a
// checkpoint and prints each tensor (dlm's print format) on its own line, or the error.
//
//===----------------------------------------------------------------------===//
#include "runtime/Checkpoint.h"
#include "runtime/Print.h"

#include <cstring>
#include <iostream>

using namespace dlm;
using namespace dlm::rt;

int main(int argc, char **argv) {
  if (argc != 3) {
    std::cerr << "usage: dlm_checkpoint_tool save|load PATH\n";
    return 2;
  }
  try {
    if (std::strcmp(argv[1], "save") == 0) {
      Tensor a =
          Tensor::fromVector<float>(DType::F32, {0.5f, -1.25f, 3.0f, 1e-3f, 7.0f, 8.0f}, {2, 3});
      std::vector<Tensor> ts = {
          a.transpose(), Tensor::fromVector<int64_t>(DType::I64, {-7, 1LL << 40}),
          Tensor::fromVector<int>(DType::Bool, {1, 0}), Tensor::scalarF64(0.1),
          Tensor::fromVector<int32_t>(DType::I32, {1, 2, 3})};
      saveCheckpoint(argv[2], ts);
      return 0;
    }
    for (const Tensor &t : loadCheckpoint(argv[2]))
      std::cout << formatTensor(t) << "\n";
    return 0;
  } catch (const Error &e) {
    std::cout << "error: " << e.what() << "\n";
    return 1;
  }
}
