//===- runtime/Data.h - Datasets: IDX files, Fashion-MNIST, CSV ----------===//
//
// Readers behind the stdlib's `data` module. Every malformed input is an rt::Error that says
// what is wrong and where (file, and line for CSV); nothing is allocated beyond what the file
// actually contains.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_DATA_H
#define DLM_RUNTIME_DATA_H

#include "runtime/Tensor.h"

#include <string>
#include <utility>

namespace dlm::rt {

/// Reads an IDX file (gzip-compressed or plain). Element types: unsigned/signed byte, short and
/// int become i32; float f32; double f64. The shape is the IDX dimensions.
Tensor readIdx(const std::string &path);

/// The folder Fashion-MNIST is read from: $DLM_DATA if set, else
/// /usr/share/datasets/fashion-mnist (Debian's dataset-fashion-mnist).
std::string fashionMnistFolder();

/// data.fashion_mnist(split): split "train" (60000) or "test" (10000). Returns images f32
/// [N, 784] scaled to [0, 1] and labels i64 [N]. A missing dataset is an error that names the
/// package to install.
std::pair<Tensor, Tensor> fashionMnist(const std::string &split);

/// Reads a numeric CSV file into a [rows, cols] tensor of `dtype` (f32 or f64). A first line
/// with a non-numeric field is a header and skipped; blank lines are skipped. Errors give
/// "path:line: ...". A header alone gives [0, cols]; a file with no line at all is an error.
Tensor readCsv(const std::string &path, DType dtype = DType::F32);

} // namespace dlm::rt

#endif // DLM_RUNTIME_DATA_H
