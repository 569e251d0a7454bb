//===- runtime/Checkpoint.h - save/load tuples of tensors (safetensors) ---===//
//
// A checkpoint is a safetensors file: an 8-byte little-endian header length N, N bytes of JSON
//
//   {"__metadata__":{"format":"dlm","crc32":"1a2b3c4d"},
//    "0":{"dtype":"F32","shape":[784,256],"data_offsets":[0,802816]}, "1":{...}}
//
// (padded with spaces to a multiple of 8 bytes), then the raw little-endian data of the
// tensors named "0", "1", ... in tuple order (or the names save(..., names=) gives). `crc32` is
// zlib's CRC-32 of the whole data section, verified on load; any safetensors reader (Python's
// `safetensors`, or a few lines of numpy) can read the file.
//
// Saving is atomic: the bytes go to a temporary file in the same folder, which is fsync'ed,
// renamed over the target, and the folder fsync'ed — a crash (even kill -9) mid-save leaves
// the previous checkpoint intact. Loading validates everything before trusting it (header
// size cap, truncation, JSON, dtypes, shapes, offsets in range and not overlapping, checksum,
// and the dtypes/shapes the program expects) and reports the first problem as an rt::Error
// naming it; it never allocates more than the file's size.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_CHECKPOINT_H
#define DLM_RUNTIME_CHECKPOINT_H

#include "runtime/Tensor.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dlm::rt {

/// Header lengths above this are rejected before anything is allocated.
constexpr uint64_t kMaxCheckpointHeader = 100u << 20;

/// Writes `tensors` (CPU tensors, any layout) to `path` atomically, named `names` (one each:
/// non-empty, distinct, no control characters) or, without names, "0", "1", .... Throws
/// rt::Error.
void saveCheckpoint(const std::string &path, std::span<const Tensor> tensors,
                    std::span<const std::string> names = {});

/// What the program expects of a loaded checkpoint; a negative dimension matches any size.
struct CheckpointSpec {
  std::vector<DType> dtypes;
  std::vector<Shape> shapes;
};

/// Reads a checkpoint, validating it (and checking it against `expect` when given): its
/// tensors "0", "1", ... in order, or with `names` the tensors of those names in that order
/// (a file written by PyTorch: other tensors of the file are left unread).
/// Throws rt::Error naming the problem, prefixed with the path.
std::vector<Tensor> loadCheckpoint(const std::string &path,
                                   const std::optional<CheckpointSpec> &expect = std::nullopt,
                                   std::span<const std::string> names = {});

/// safetensors' dtype spelling ("F32", "F64", "I32", "I64", "BOOL").
const char *safetensorsDType(DType d);

} // namespace dlm::rt

#endif // DLM_RUNTIME_CHECKPOINT_H
