//===- compiler/codegen/ObjectCache.h - The JIT's on-disk object cache ---===//
//
// `dlm run` keeps the object code the JIT compiled for a program on disk, so that running an
// unchanged program again (in a new process) links that object instead of running LLVM's
// optimiser and machine-code generator. An entry is one file, named by its key: a BLAKE3 hash of
// everything the object code depends on (the module's bitcode as emitted, the levels, the target,
// LLVM's version and the build identity of dlm itself; JitSession computes it). docs/codegen.md
// "On-disk object cache" describes the location, the entry format and the size bound.
//
// Nothing here prints: failures come back as reasons, which the JIT shows under --time-passes
// only. A missing, corrupt, truncated or foreign entry is a miss; an unusable directory means the
// program runs uncached. Entries are machine code that `dlm run` executes, so a directory or an
// entry another user could have written turns the cache off for the run, with a warning the JIT
// prints (docs/codegen.md "Trust").
//
//===----------------------------------------------------------------------===//
#ifndef DLM_COMPILER_CODEGEN_OBJECTCACHE_H
#define DLM_COMPILER_CODEGEN_OBJECTCACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace dlm::codegen {

/// An entry's key: the BLAKE3 hash of what its object code depends on.
using ObjectKey = std::array<uint8_t, 32>;

/// Hashes a sequence of fields into an ObjectKey. Each field is hashed with its length in front,
/// so that no two different sequences of fields hash the same input.
class ObjectKeyBuilder {
public:
  void add(llvm::StringRef field);
  void add(uint64_t field);
  ObjectKey finish() { return hasher.final(); }

private:
  llvm::BLAKE3 hasher;
};

/// "<key in hex>": the entry's file name without its suffix.
std::string keyToHex(const ObjectKey &key);

/// What identifies this build of dlm and the LLVM it runs: the GNU build IDs (NT_GNU_BUILD_ID) of
/// the loaded object holding dlm's code generator and of libLLVM's shared library when LLVM is
/// one. Empty when dlm's own object has none: then nothing may be cached, since a rebuilt dlm
/// could not be told from this one.
const std::string &buildIdentity();

/// The cache directory and the size bound, with what `dlm run` reads from the environment.
struct ObjectCacheConfig {
  std::string directory; ///< empty: the cache is off (`off` says why)
  std::string off;       ///< why there is no cache (for --time-passes)
  std::vector<std::string>
      warnings; ///< to report once: a malformed DLM_CACHE_MAX_SIZE, an untrusted directory
  uint64_t maxBytes = 256ull << 20; ///< the entries' total size bound
};

/// The configuration from the environment: $DLM_CACHE_DIR (set and empty: off), else
/// $XDG_CACHE_HOME/dlm (when absolute), else $HOME/.cache/dlm; $DLM_CACHE_MAX_SIZE (bytes, or
/// with a K, M or G suffix) bounds the size. The directory is created (mode 0700) when missing;
/// when it cannot be, the cache is off. A directory another user could write is off too, with a
/// warning.
ObjectCacheConfig objectCacheConfigFromEnvironment();

/// Why user `uid` must not run code from a cache directory with this owner and mode (st_uid,
/// st_mode), "" when it may: the directory must be the user's, and writable by no one else
/// unless it is sticky (then others cannot replace or remove the user's entries). `path` names
/// it in the reason.
std::string untrustedDirectory(llvm::StringRef path, uint32_t owner, uint32_t mode, uint32_t uid);
/// The same for an entry file: the user's, writable by no one else.
std::string untrustedEntry(llvm::StringRef path, uint32_t owner, uint32_t mode, uint32_t uid);

/// An entry's payload: a program's objects — one, or two from a compile on two threads — packed
/// into one byte string: the magic kPackMagic, the format version and the number of objects
/// (32-bit little-endian each), each object's size (64-bit little-endian), then the objects back
/// to back. The magic and version are part of the key (JitSession).
constexpr llvm::StringLiteral kPackMagic = "DLMPACK\n";
constexpr uint32_t kPackVersion = 1;
constexpr uint32_t kPackMaxObjects = 16;

/// `objects` as one pack.
std::string packObjects(llvm::ArrayRef<std::unique_ptr<llvm::MemoryBuffer>> objects);

/// The objects of `pack`, each copied into a buffer of its own; an error saying why when it is
/// not a whole pack this dlm reads (another magic or version, no objects or too many, a size past
/// its end, an empty object or bytes after the last one): the entry is then a miss.
llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
unpackObjects(llvm::StringRef pack);

/// The entries of one cache directory. Entries are written to a temporary file in the directory
/// and renamed over their name, so a reader (another dlm process) sees a whole entry or none.
///
/// The directory is opened once, when the cache is made, and its owner and mode checked on
/// that open directory; every entry is then opened, written, renamed and removed relative to it
/// (openat), so a directory swapped in under the same path later is never used, and an entry is
/// opened without following a symbolic link. An entry that belongs to another user (or is
/// writable by one) turns the cache off for the rest of the run: `refusal()` says why, and
/// later loads and stores fail with that reason.
class ObjectCache {
public:
  /// Entry files: "<64 hex digits of the key>" + kEntrySuffix.
  static constexpr const char *kEntrySuffix = ".dlmobj";

  explicit ObjectCache(ObjectCacheConfig config);
  ~ObjectCache();
  ObjectCache(const ObjectCache &) = delete;
  ObjectCache &operator=(const ObjectCache &) = delete;

  const std::string &directory() const { return config.directory; }
  std::string entryPath(const ObjectKey &key) const;

  /// The object stored under `key`, or null on a miss; `why` then says what was there (no entry,
  /// a symbolic link, or a truncated, corrupt or foreign file). A hit sets the entry's
  /// modification time to now (eviction removes the least recently used entries first).
  std::unique_ptr<llvm::MemoryBuffer> load(const ObjectKey &key, std::string &why) const;

  /// Stores `object` under `key` (replacing what is there, a symbolic link included, never
  /// writing through one), then evicts. Returns false, with `why`, when the entry could not be
  /// written (a read-only directory, a full disk).
  bool store(const ObjectKey &key, llvm::StringRef object, std::string &why) const;

  /// Why the cache is off for this run, "" while it is on: its directory could not be opened,
  /// or it or an entry could have been written by another user.
  std::string refusal() const;
  /// The refusal, the first time it is asked for once the cache is off (the JIT reports it as
  /// a warning); "" otherwise.
  std::string takeWarning() const;

  /// Removes the entry of `key` (one that failed to link).
  void remove(const ObjectKey &key) const;

  /// Removes entries, least recently used first, until their total size is at most the bound,
  /// and temporary files of writers that died more than an hour ago. Returns how many entries
  /// it removed.
  unsigned evict() const;

private:
  /// Turns the cache off for the run (the first reason stays); returns the reason in effect.
  std::string refuse(std::string reason) const;

  ObjectCacheConfig config;
  int directoryFd = -1; ///< the directory, opened and checked once
  mutable std::mutex refusalLock;
  mutable std::string refused;   ///< why the cache is off ("" while on)
  mutable bool reported = false; ///< takeWarning() has handed `refused` out
};

} // namespace dlm::codegen

#endif // DLM_COMPILER_CODEGEN_OBJECTCACHE_H
