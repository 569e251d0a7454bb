//===- embed/Handles.h - Checked opaque handles of the C API --------------===//
//
// A dlm_module*, dlm_function* or dlm_result* the C API hands out is not an address: it encodes
// a slot of one process-wide table and the slot's generation, so that every use can be checked.
// A null handle, one of another kind, or one whose object was freed (the slot's generation has
// moved on) is a clear error instead of undefined behaviour. Slots live in chunks that are never
// freed or moved; each has its own lock, held only to copy the object's shared_ptr out, so calls
// through different handles (and the compiled code itself) run without a common lock.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_EMBED_HANDLES_H
#define DLM_EMBED_HANDLES_H

#include <cstdint>
#include <memory>
#include <string>

namespace dlm::embed {

enum class HandleKind : uint8_t { Module, Function, Result };

/// "dlm_module", "dlm_function", "dlm_result".
const char *handleKindName(HandleKind kind);

/// Registers `object` and returns its handle (never 0); 0 when the table is full.
uint64_t createHandle(HandleKind kind, std::shared_ptr<void> object);

/// The object of `handle` if it is a live handle of `kind`; otherwise null and `error` says
/// what is wrong ("null dlm_function", "dlm_function 0x... was freed (or is no handle)", ...).
std::shared_ptr<void> lookupHandle(uint64_t handle, HandleKind kind, std::string &error);

/// Frees `handle` (its slot's next generation); false with `error` as lookupHandle says.
bool freeHandle(uint64_t handle, HandleKind kind, std::string &error);

} // namespace dlm::embed

#endif // DLM_EMBED_HANDLES_H
