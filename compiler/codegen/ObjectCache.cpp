//===- compiler/codegen/ObjectCache.cpp - The JIT's on-disk object cache -===//
//
// Entry files, their header and checks, the atomic write, the least-recently-used eviction, the
// build identity read from the loaded ELF objects' notes, and the compiler wrapper that copies
// the JIT's objects out (docs/codegen.md "On-disk object cache").
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/ObjectCache.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <elf.h>
#include <link.h>

namespace dlm::codegen {

namespace fs = llvm::sys::fs;
namespace endian = llvm::support::endian;

void ObjectKeyBuilder::add(uint64_t field) {
  uint8_t bytes[8];
  endian::write64le(bytes, field);
  hasher.update(llvm::ArrayRef<uint8_t>(bytes));
}

void ObjectKeyBuilder::add(llvm::StringRef field) {
  add((uint64_t)field.size());
  hasher.update(field);
}

std::string keyToHex(const ObjectKey &key) { return llvm::toHex(key, /*LowerCase=*/true); }

// --- build identity ----------------------------------------------------------------------------

namespace {

/// The NT_GNU_BUILD_ID note of a loaded object, in hex; empty when it has none.
std::string buildIdOf(const dl_phdr_info &object) {
  for (int i = 0; i < object.dlpi_phnum; ++i) {
    const ElfW(Phdr) &segment = object.dlpi_phdr[i];
    if (segment.p_type != PT_NOTE) continue;
    // Notes are padded to 4 bytes, or 8 in a segment aligned to 8 (.note.gnu.property).
    size_t align = segment.p_align == 8 ? 8 : 4;
    auto pad = [&](size_t n) { return (n + align - 1) / align * align; };
    const char *at = reinterpret_cast<const char *>(object.dlpi_addr + segment.p_vaddr);
    const char *end = at + segment.p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      const auto *note = reinterpret_cast<const ElfW(Nhdr) *>(at);
      const char *name = at + sizeof(ElfW(Nhdr));
      const char *desc = name + pad(note->n_namesz);
      if (desc + note->n_descsz > end) break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0)
        return llvm::toHex(llvm::StringRef(desc, note->n_descsz), /*LowerCase=*/true);
      at = desc + pad(note->n_descsz);
    }
  }
  return "";
}

bool holdsAddress(const dl_phdr_info &object, uintptr_t address) {
  for (int i = 0; i < object.dlpi_phnum; ++i) {
    const ElfW(Phdr) &segment = object.dlpi_phdr[i];
    uintptr_t start = object.dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD && address >= start && address < start + segment.p_memsz) return true;
  }
  return false;
}

struct BuildIds {
  uintptr_t code; ///< an address in dlm's code generator
  std::string dlm, llvm;
};

int visitLoadedObject(dl_phdr_info *object, size_t, void *data) {
  auto &ids = *static_cast<BuildIds *>(data);
  if (holdsAddress(*object, ids.code)) ids.dlm = buildIdOf(*object);
  if (object->dlpi_name && llvm::StringRef(object->dlpi_name).contains("libLLVM")) ids.llvm = buildIdOf(*object);
  return 0;
}

} // namespace

const std::string &buildIdentity() {
  static const std::string identity = [] {
    BuildIds ids{reinterpret_cast<uintptr_t>(&visitLoadedObject), "", ""};
    dl_iterate_phdr(visitLoadedObject, &ids);
    if (ids.dlm.empty()) return std::string();
    return "dlm " + ids.dlm + (ids.llvm.empty() ? "" : "; libLLVM " + ids.llvm);
  }();
  return identity;
}

// --- configuration -----------------------------------------------------------------------------

namespace {

/// Bytes in "N", "NK", "NM" or "NG" (binary multiples; case ignored); nullopt otherwise.
std::optional<uint64_t> parseSize(llvm::StringRef text) {
  uint64_t n = 0;
  if (text.consumeInteger(10, n)) return std::nullopt;
  unsigned shift = text.empty()                    ? 0
                   : text.equals_insensitive("k") ? 10
                   : text.equals_insensitive("m") ? 20
                   : text.equals_insensitive("g") ? 30
                                                   : 64;
  if (shift == 64 || (shift && n > (UINT64_MAX >> shift))) return std::nullopt;
  return n << shift;
}

} // namespace

ObjectCacheConfig objectCacheConfigFromEnvironment() {
  ObjectCacheConfig config;
  if (const char *size = std::getenv("DLM_CACHE_MAX_SIZE"); size && *size) {
    if (std::optional<uint64_t> bytes = parseSize(size))
      config.maxBytes = *bytes;
    else
      config.warning = "ignoring DLM_CACHE_MAX_SIZE='" + std::string(size) +
                       "' (expected bytes, or a number with a K, M or G suffix); the object cache keeps at most 256M";
  }
  llvm::SmallString<256> dir;
  const char *xdg = std::getenv("XDG_CACHE_HOME"), *home = std::getenv("HOME");
  if (const char *env = std::getenv("DLM_CACHE_DIR")) {
    if (!*env) {
      config.off = "DLM_CACHE_DIR is empty";
      return config;
    }
    dir = env;
  } else if (xdg && llvm::sys::path::is_absolute(xdg)) {
    llvm::sys::path::append(dir, xdg, "dlm");
  } else if (home && *home) {
    llvm::sys::path::append(dir, home, ".cache", "dlm");
  } else {
    config.off = "none of DLM_CACHE_DIR, XDG_CACHE_HOME and HOME is set";
    return config;
  }
  fs::make_absolute(dir);
  if (std::error_code ec = fs::create_directories(dir, /*IgnoreExisting=*/true, fs::owner_all)) {
    config.off = "cannot create '" + dir.str().str() + "': " + ec.message();
    return config;
  }
  if (!fs::is_directory(dir)) {
    config.off = "'" + dir.str().str() + "' is not a directory";
    return config;
  }
  if (buildIdentity().empty()) {
    config.off = "this dlm binary has no GNU build ID to tell it from another build";
    return config;
  }
  config.directory = dir.str().str();
  return config;
}

// --- entries -----------------------------------------------------------------------------------

namespace {

/// An entry file: a header, then the object file (the payload).
///   0  magic "DLMOBJC\n"        8  u32 format version     12  u32 header size
///  16  key (32 bytes)          48  u64 payload length     56  BLAKE3 of the payload (32 bytes)
///  88  zero (8 bytes)          96  payload
/// Integers are little-endian.
constexpr llvm::StringLiteral kMagic("DLMOBJC\n");
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderSize = 96;
constexpr size_t kVersionAt = 8, kHeaderSizeAt = 12, kKeyAt = 16, kLengthAt = 48, kChecksumAt = 56;

std::string entryHeader(const ObjectKey &key, llvm::StringRef payload) {
  std::string header(kHeaderSize, '\0');
  char *h = header.data();
  std::memcpy(h, kMagic.data(), kMagic.size());
  endian::write32le(h + kVersionAt, kFormatVersion);
  endian::write32le(h + kHeaderSizeAt, kHeaderSize);
  std::memcpy(h + kKeyAt, key.data(), key.size());
  endian::write64le(h + kLengthAt, payload.size());
  ObjectKey checksum = llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(payload));
  std::memcpy(h + kChecksumAt, checksum.data(), checksum.size());
  return header;
}

/// Why `entry` is not a whole entry for `key`; "" when it is.
std::string checkEntry(llvm::StringRef entry, const ObjectKey &key) {
  if (!entry.starts_with(kMagic)) return kMagic.starts_with(entry) ? "truncated header" : "not a dlm object cache entry";
  if (entry.size() < kHeaderSize) return "truncated header";
  const char *h = entry.data();
  if (uint32_t version = endian::read32le(h + kVersionAt); version != kFormatVersion)
    return "entry format version " + std::to_string(version) + ", this dlm reads " + std::to_string(kFormatVersion);
  if (endian::read32le(h + kHeaderSizeAt) != kHeaderSize) return "corrupt header";
  if (std::memcmp(h + kKeyAt, key.data(), key.size()) != 0) return "entry of another key";
  uint64_t length = endian::read64le(h + kLengthAt);
  if (length != entry.size() - kHeaderSize)
    return (length > entry.size() - kHeaderSize ? "truncated: " : "corrupt: ") + std::to_string(entry.size() - kHeaderSize) +
           " bytes of object where the header says " + std::to_string(length);
  ObjectKey checksum = llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(entry.drop_front(kHeaderSize)));
  if (std::memcmp(h + kChecksumAt, checksum.data(), checksum.size()) != 0) return "corrupt: checksum mismatch";
  return "";
}

bool isHexKey(llvm::StringRef text) {
  return text.size() == 2 * sizeof(ObjectKey) && llvm::all_of(text, llvm::isHexDigit);
}

/// "<key>.dlmobj"
bool isEntryName(llvm::StringRef name) {
  return name.consume_back(ObjectCache::kEntrySuffix) && isHexKey(name);
}

/// "<key>-XXXXXXXX.tmp": store()'s temporary file.
bool isTempName(llvm::StringRef name) {
  return name.consume_back(".tmp") && name.size() > 2 * sizeof(ObjectKey) &&
         isHexKey(name.take_front(2 * sizeof(ObjectKey))) && name[2 * sizeof(ObjectKey)] == '-';
}

} // namespace

std::string ObjectCache::entryPath(const ObjectKey &key) const {
  llvm::SmallString<256> path(config.directory);
  llvm::sys::path::append(path, keyToHex(key) + kEntrySuffix);
  return path.str().str();
}

std::unique_ptr<llvm::MemoryBuffer> ObjectCache::load(const ObjectKey &key, std::string &why) const {
  std::string path = entryPath(key);
  int fd = -1;
  if (std::error_code ec = fs::openFileForRead(path, fd)) {
    why = ec == std::errc::no_such_file_or_directory ? "no entry" : "cannot open: " + ec.message();
    return nullptr;
  }
  auto closeFile = llvm::make_scope_exit([&] { llvm::sys::Process::SafelyCloseFileDescriptor(fd); });
  fs::file_status status;
  if (std::error_code ec = fs::status(fd, status)) {
    why = "cannot stat: " + ec.message();
    return nullptr;
  }
  // Read, not mapped: a file cut short under a mapping would fault.
  auto entry = llvm::MemoryBuffer::getOpenFile(fs::convertFDToNativeFile(fd), path, status.getSize(),
                                               /*RequiresNullTerminator=*/false, /*IsVolatile=*/true);
  if (!entry) {
    why = "cannot read: " + entry.getError().message();
    return nullptr;
  }
  why = checkEntry((*entry)->getBuffer(), key);
  if (!why.empty()) return nullptr;
  // Least recently used first: a hit makes the entry new again. Not an error when it cannot
  // (a cache directory shared read-only).
  (void)fs::setLastAccessAndModificationTime(fd, std::chrono::system_clock::now());
  return llvm::MemoryBuffer::getMemBufferCopy((*entry)->getBuffer().drop_front(kHeaderSize), path);
}

bool ObjectCache::store(const ObjectKey &key, llvm::StringRef object, std::string &why) const {
  llvm::SmallString<256> model(config.directory), temp;
  llvm::sys::path::append(model, keyToHex(key) + "-%%%%%%%%.tmp");
  int fd = -1;
  if (std::error_code ec = fs::createUniqueFile(model, fd, temp, fs::OF_None, fs::owner_read | fs::owner_write)) {
    why = "cannot create a file in '" + config.directory + "': " + ec.message();
    return false;
  }
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << entryHeader(key, object) << object;
    out.close();
    if (out.has_error()) {
      why = "cannot write '" + temp.str().str() + "': " + out.error().message();
      out.clear_error();
      fs::remove(temp);
      return false;
    }
  }
  if (std::error_code ec = fs::rename(temp, entryPath(key))) {
    why = "cannot rename '" + temp.str().str() + "': " + ec.message();
    fs::remove(temp);
    return false;
  }
  evict();
  return true;
}

void ObjectCache::remove(const ObjectKey &key) const { fs::remove(entryPath(key)); }

unsigned ObjectCache::evict() const {
  struct Entry {
    std::string path;
    uint64_t size;
    llvm::sys::TimePoint<> used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  auto now = std::chrono::system_clock::now();
  std::error_code ec;
  for (fs::directory_iterator it(config.directory, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    bool entry = isEntryName(name);
    if (!entry && !isTempName(name)) continue;
    fs::file_status status;
    if (fs::status(it->path(), status)) continue; // removed by another dlm meanwhile
    if (!entry) {
      if (now - status.getLastModificationTime() > std::chrono::hours(1)) fs::remove(it->path());
      continue;
    }
    entries.push_back({it->path(), status.getSize(), status.getLastModificationTime()});
    total += status.getSize();
  }
  if (total <= config.maxBytes) return 0;
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return std::tie(a.used, a.path) < std::tie(b.used, b.path); });
  unsigned removed = 0;
  for (const Entry &e : entries) {
    if (total <= config.maxBytes) break;
    // Another dlm may have removed it first: it is gone either way.
    fs::remove(e.path);
    total -= e.size;
    ++removed;
  }
  return removed;
}

// --- capturing the JIT's objects ---------------------------------------------------------------

void ObjectCapture::expect(const llvm::Module *module) {
  std::lock_guard<std::mutex> guard(lock);
  wanted = module;
  object.reset();
}

std::optional<std::string> ObjectCapture::take() {
  std::lock_guard<std::mutex> guard(lock);
  wanted = nullptr;
  return std::exchange(object, std::nullopt);
}

void ObjectCapture::offer(const llvm::Module &module, llvm::StringRef bytes) {
  std::lock_guard<std::mutex> guard(lock);
  if (&module == wanted) object = bytes.str();
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> CapturingCompiler::operator()(llvm::Module &module) {
  auto object = (*inner)(module);
  if (object) capture.offer(module, (*object)->getBuffer());
  return object;
}

} // namespace dlm::codegen
