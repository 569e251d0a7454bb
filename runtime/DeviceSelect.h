//===- runtime/DeviceSelect.h - Resolving --device to the device to place for ===//
//
// The one call a tool makes before placement (docs/cuda.md "Devices"). It lives in its own
// library, dlm_devices, because in a CUDA build it reaches the GPU through kernels/cuda
// (discovery, the caching allocator, the CUDA kernel table), which dlm_runtime never links.
//
//   auto  "cuda" when this is a CUDA build and a GPU answers (its kernels are then registered),
//         else "cpu". No driver or no device is not an error here.
//   cpu   "cpu".   fake  "fake" (testing: host memory under another name).
//   cuda  "cuda" with the kernels registered, or the error
//         "no CUDA device available (<reason>)" — the reason is what discovery said, or that
//         this build has no CUDA backend.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_DEVICESELECT_H
#define DLM_RUNTIME_DEVICESELECT_H

#include "runtime/Devices.h"
#include "runtime/Error.h"

#include <string>

namespace dlm::rt {

/// Resolves `request` to "cpu", "cuda" or "fake" (see the file comment) in `device`; on failure
/// the Status carries the message and `device` is unchanged.
Status selectDevice(DeviceRequest request, std::string &device);

/// Whether this build has the CUDA backend (DLM_HAVE_CUDA at configure time).
bool cudaBuild();

} // namespace dlm::rt

#endif // DLM_RUNTIME_DEVICESELECT_H
