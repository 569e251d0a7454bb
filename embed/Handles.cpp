//===- embed/Handles.cpp - Checked opaque handles of the C API ------------===//
#include "embed/Handles.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <vector>

namespace dlm::embed {

namespace {

constexpr uint32_t kChunkSlots = 4096;
constexpr uint32_t kMaxChunks = 4096; ///< 16M live handles at most

struct Slot {
  std::mutex lock;
  uint32_t generation = 0; ///< bumped when the slot is given out and when it is freed
  bool live = false;
  HandleKind kind = HandleKind::Module;
  std::shared_ptr<void> object;
};

struct Table {
  std::mutex lock; ///< guards `used` and `freeSlots`, and chunk creation
  std::atomic<Slot *> chunks[kMaxChunks] = {};
  uint32_t used = 0;
  std::vector<uint32_t> freeSlots;

  Slot *slot(uint32_t index) {
    Slot *chunk = chunks[index / kChunkSlots].load(std::memory_order_acquire);
    return chunk ? &chunk[index % kChunkSlots] : nullptr;
  }
};

/// Never destroyed: handles may be used by static destructors of the host.
Table &table() {
  static Table *t = new Table();
  return *t;
}

uint64_t encode(uint32_t index, uint32_t generation) {
  return (uint64_t(index) + 1) << 32 | generation;
}

std::string describe(uint64_t handle, HandleKind kind) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", (unsigned long long)handle);
  return std::string(handleKindName(kind)) + " " + text;
}

/// The slot `handle` names, locked by `guard`, if the table has one; else null.
Slot *find(uint64_t handle, std::unique_lock<std::mutex> &guard) {
  uint64_t index = (handle >> 32) - 1;
  if ((handle >> 32) == 0 || index >= uint64_t(kChunkSlots) * kMaxChunks)
    return nullptr;
  Slot *s = table().slot(uint32_t(index));
  if (s)
    guard = std::unique_lock<std::mutex>(s->lock);
  return s;
}

/// Whether `s` (locked) holds the live object of `handle`, of `kind`; `error` otherwise.
bool check(Slot *s, uint64_t handle, HandleKind kind, std::string &error) {
  if (!handle) {
    error = "null " + std::string(handleKindName(kind));
    return false;
  }
  if (!s || !s->live || s->generation != uint32_t(handle)) {
    error = describe(handle, kind) + " was freed (or is not a handle dlm gave out)";
    return false;
  }
  if (s->kind != kind) {
    error = describe(handle, kind) + " is a " + handleKindName(s->kind) + ", not a " +
            handleKindName(kind);
    return false;
  }
  return true;
}

} // namespace

const char *handleKindName(HandleKind kind) {
  switch (kind) {
  case HandleKind::Module:
    return "dlm_module";
  case HandleKind::Function:
    return "dlm_function";
  case HandleKind::Result:
    return "dlm_result";
  }
  return "handle";
}

uint64_t createHandle(HandleKind kind, std::shared_ptr<void> object) {
  Table &t = table();
  uint32_t index;
  {
    std::lock_guard<std::mutex> guard(t.lock);
    if (!t.freeSlots.empty()) {
      index = t.freeSlots.back();
      t.freeSlots.pop_back();
    } else {
      if (t.used == kChunkSlots * kMaxChunks)
        return 0;
      index = t.used++;
      if (!t.slot(index))
        t.chunks[index / kChunkSlots].store(new Slot[kChunkSlots], std::memory_order_release);
    }
  }
  Slot *s = t.slot(index);
  std::lock_guard<std::mutex> guard(s->lock);
  ++s->generation;
  s->live = true;
  s->kind = kind;
  s->object = std::move(object);
  return encode(index, s->generation);
}

std::shared_ptr<void> lookupHandle(uint64_t handle, HandleKind kind, std::string &error) {
  std::unique_lock<std::mutex> guard;
  Slot *s = handle ? find(handle, guard) : nullptr;
  if (!check(s, handle, kind, error))
    return nullptr;
  return s->object;
}

bool freeHandle(uint64_t handle, HandleKind kind, std::string &error) {
  std::shared_ptr<void> object; // destroyed after the slot's lock is released
  {
    std::unique_lock<std::mutex> guard;
    Slot *s = handle ? find(handle, guard) : nullptr;
    if (!check(s, handle, kind, error))
      return false;
    ++s->generation;
    s->live = false;
    object = std::move(s->object);
  }
  Table &t = table();
  std::lock_guard<std::mutex> guard(t.lock);
  t.freeSlots.push_back(uint32_t((handle >> 32) - 1));
  return true;
}

} // namespace dlm::embed
