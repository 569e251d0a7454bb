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
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <tuple>
#include <vector>

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

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
    if (segment.p_type != PT_NOTE)
      continue;
    // Notes are padded to 4 bytes, or 8 in a segment aligned to 8 (.note.gnu.property).
    size_t align = segment.p_align == 8 ? 8 : 4;
    auto pad = [&](size_t n) { return (n + align - 1) / align * align; };
    const char *at = reinterpret_cast<const char *>(object.dlpi_addr + segment.p_vaddr);
    const char *end = at + segment.p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      const auto *note = reinterpret_cast<const ElfW(Nhdr) *>(at);
      const char *name = at + sizeof(ElfW(Nhdr));
      const char *desc = name + pad(note->n_namesz);
      if (desc + note->n_descsz > end)
        break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0)
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
    if (segment.p_type == PT_LOAD && address >= start && address < start + segment.p_memsz)
      return true;
  }
  return false;
}

struct BuildIds {
  uintptr_t code; ///< an address in dlm's code generator
  std::string dlm, llvm;
};

int visitLoadedObject(dl_phdr_info *object, size_t, void *data) {
  auto &ids = *static_cast<BuildIds *>(data);
  if (holdsAddress(*object, ids.code))
    ids.dlm = buildIdOf(*object);
  if (object->dlpi_name && llvm::StringRef(object->dlpi_name).contains("libLLVM"))
    ids.llvm = buildIdOf(*object);
  return 0;
}

} // namespace

const std::string &buildIdentity() {
  static const std::string identity = [] {
    BuildIds ids{reinterpret_cast<uintptr_t>(&visitLoadedObject), "", ""};
    dl_iterate_phdr(visitLoadedObject, &ids);
    if (ids.dlm.empty())
      return std::string();
    return "dlm " + ids.dlm + (ids.llvm.empty() ? "" : "; libLLVM " + ids.llvm);
  }();
  return identity;
}

// --- configuration -----------------------------------------------------------------------------

namespace {

/// Bytes in "N", "NK", "NM" or "NG" (binary multiples; case ignored); nullopt otherwise.
std::optional<uint64_t> parseSize(llvm::StringRef text) {
  uint64_t n = 0;
  if (text.consumeInteger(10, n))
    return std::nullopt;
  unsigned shift = text.empty()                   ? 0
                   : text.equals_insensitive("k") ? 10
                   : text.equals_insensitive("m") ? 20
                   : text.equals_insensitive("g") ? 30
                                                  : 64;
  if (shift == 64 || (shift && n > (UINT64_MAX >> shift)))
    return std::nullopt;
  return n << shift;
}

/// "owned by uid N, not by this user (uid M)" or "writable by its group and others (mode 0777)";
/// "" when neither. A sticky directory may be writable by others: they cannot replace or remove
/// what the user put there.
std::string untrusted(uint32_t owner, uint32_t mode, uint32_t uid, bool stickyIsEnough) {
  if (owner != uid)
    return "is owned by uid " + std::to_string(owner) + ", not by this user (uid " +
           std::to_string(uid) + ")";
  bool group = mode & S_IWGRP, others = mode & S_IWOTH;
  if (!group && !others)
    return "";
  if (stickyIsEnough && (mode & S_ISVTX))
    return "";
  std::string octal;
  llvm::raw_string_ostream(octal) << llvm::format("%04o", mode & 07777);
  return std::string("is writable by ") +
         (group && others ? "its group and others"
          : group         ? "its group"
                          : "others") +
         " (mode " + octal + (stickyIsEnough ? ", not sticky)" : ")");
}

/// The warning of a cache that is off for the run because of `reason`.
std::string offForTheRun(llvm::StringRef reason) {
  return "the object cache is off for this run: " + reason.str();
}

/// The cache directory, opened, or why it cannot be used.
struct OpenedDirectory {
  int fd = -1;
  std::string off;        ///< why not (fd < 0)
  bool untrusted = false; ///< because of its owner or mode (a warning), not because it is missing
};

/// Opens `path` (following symbolic links: the user's choice of place) and checks the owner and
/// mode of the directory it opened.
OpenedDirectory openDirectory(llvm::StringRef path) {
  OpenedDirectory opened;
  std::string quoted = "'" + path.str() + "'";
  opened.fd = ::open(path.str().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (opened.fd < 0) {
    opened.off = errno == ENOTDIR ? quoted + " is not a directory"
                                  : "cannot open " + quoted + ": " + std::strerror(errno);
    return opened;
  }
  struct stat status;
  if (::fstat(opened.fd, &status) != 0)
    opened.off = "cannot stat " + quoted + ": " + std::strerror(errno);
  else if (opened.off = untrustedDirectory(path, status.st_uid, status.st_mode, ::geteuid());
           !opened.off.empty())
    opened.untrusted = true;
  if (!opened.off.empty())
    ::close(std::exchange(opened.fd, -1));
  return opened;
}

} // namespace

std::string untrustedDirectory(llvm::StringRef path, uint32_t owner, uint32_t mode, uint32_t uid) {
  std::string why = untrusted(owner, mode, uid, /*stickyIsEnough=*/true);
  return why.empty() ? why : "directory '" + path.str() + "' " + why;
}

std::string untrustedEntry(llvm::StringRef path, uint32_t owner, uint32_t mode, uint32_t uid) {
  std::string why = untrusted(owner, mode, uid, /*stickyIsEnough=*/false);
  return why.empty() ? why : "entry '" + path.str() + "' " + why;
}

ObjectCacheConfig objectCacheConfigFromEnvironment() {
  ObjectCacheConfig config;
  if (const char *size = std::getenv("DLM_CACHE_MAX_SIZE"); size && *size) {
    if (std::optional<uint64_t> bytes = parseSize(size))
      config.maxBytes = *bytes;
    else
      config.warnings.push_back("ignoring DLM_CACHE_MAX_SIZE='" + std::string(size) +
                                "' (expected bytes, or a number with a K, M or G suffix); the "
                                "object cache keeps at most 256M");
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
  OpenedDirectory opened = openDirectory(dir);
  if (opened.fd < 0) {
    config.off = opened.off;
    if (opened.untrusted)
      config.warnings.push_back(offForTheRun(opened.off));
    return config;
  }
  ::close(opened.fd);
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
  if (!entry.starts_with(kMagic))
    return kMagic.starts_with(entry) ? "truncated header" : "not a dlm object cache entry";
  if (entry.size() < kHeaderSize)
    return "truncated header";
  const char *h = entry.data();
  if (uint32_t version = endian::read32le(h + kVersionAt); version != kFormatVersion)
    return "entry format version " + std::to_string(version) + ", this dlm reads " +
           std::to_string(kFormatVersion);
  if (endian::read32le(h + kHeaderSizeAt) != kHeaderSize)
    return "corrupt header";
  if (std::memcmp(h + kKeyAt, key.data(), key.size()) != 0)
    return "entry of another key";
  uint64_t length = endian::read64le(h + kLengthAt);
  if (length != entry.size() - kHeaderSize)
    return (length > entry.size() - kHeaderSize ? "truncated: " : "corrupt: ") +
           std::to_string(entry.size() - kHeaderSize) + " bytes of object where the header says " +
           std::to_string(length);
  ObjectKey checksum =
      llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(entry.drop_front(kHeaderSize)));
  if (std::memcmp(h + kChecksumAt, checksum.data(), checksum.size()) != 0)
    return "corrupt: checksum mismatch";
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

ObjectCache::ObjectCache(ObjectCacheConfig configuration) : config(std::move(configuration)) {
  OpenedDirectory opened = openDirectory(config.directory);
  directoryFd = opened.fd;
  if (directoryFd < 0)
    refused = opened.off;
}

ObjectCache::~ObjectCache() {
  if (directoryFd >= 0)
    ::close(directoryFd);
}

std::string ObjectCache::entryPath(const ObjectKey &key) const {
  llvm::SmallString<256> path(config.directory);
  llvm::sys::path::append(path, keyToHex(key) + kEntrySuffix);
  return path.str().str();
}

std::string ObjectCache::refusal() const {
  std::lock_guard<std::mutex> guard(refusalLock);
  return refused;
}

std::string ObjectCache::takeWarning() const {
  std::lock_guard<std::mutex> guard(refusalLock);
  if (refused.empty() || std::exchange(reported, true))
    return "";
  return offForTheRun(refused);
}

std::string ObjectCache::refuse(std::string reason) const {
  std::lock_guard<std::mutex> guard(refusalLock);
  if (refused.empty())
    refused = std::move(reason);
  return refused;
}

std::unique_ptr<llvm::MemoryBuffer> ObjectCache::load(const ObjectKey &key,
                                                      std::string &why) const {
  if (why = refusal(); !why.empty())
    return nullptr;
  std::string name = keyToHex(key) + kEntrySuffix, path = entryPath(key);
  // Not through a symbolic link (whoever planted it chose what it points to), and never
  // blocking on a FIFO planted under the name.
  int fd = ::openat(directoryFd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    why = errno == ENOENT  ? "no entry"
          : errno == ELOOP ? "a symbolic link, not an entry"
                           : "cannot open: " + std::string(std::strerror(errno));
    return nullptr;
  }
  auto closeFile = llvm::make_scope_exit([&] { ::close(fd); });
  struct stat status;
  if (::fstat(fd, &status) != 0) {
    why = "cannot stat: " + std::string(std::strerror(errno));
    return nullptr;
  }
  if (!S_ISREG(status.st_mode)) {
    why = "not a regular file";
    return nullptr;
  }
  if (std::string distrust = untrustedEntry(path, status.st_uid, status.st_mode, ::geteuid());
      !distrust.empty()) {
    why = refuse(distrust);
    return nullptr;
  }
  // Read, not mapped: a file cut short under a mapping would fault.
  auto entry =
      llvm::MemoryBuffer::getOpenFile(fs::convertFDToNativeFile(fd), path, status.st_size,
                                      /*RequiresNullTerminator=*/false, /*IsVolatile=*/true);
  if (!entry) {
    why = "cannot read: " + entry.getError().message();
    return nullptr;
  }
  why = checkEntry((*entry)->getBuffer(), key);
  if (!why.empty())
    return nullptr;
  // Least recently used first: a hit makes the entry new again. Not an error when it cannot
  // (a cache directory shared read-only).
  (void)fs::setLastAccessAndModificationTime(fd, std::chrono::system_clock::now());
  return llvm::MemoryBuffer::getMemBufferCopy((*entry)->getBuffer().drop_front(kHeaderSize), path);
}

bool ObjectCache::store(const ObjectKey &key, llvm::StringRef object, std::string &why) const {
  if (why = refusal(); !why.empty())
    return false;
  // A new file of a random name (O_EXCL: never one that exists, nor through a symbolic link),
  // renamed over the entry's name (which replaces a link planted there, never follows it).
  std::string temp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 64; ++attempt) {
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "-%08x.tmp", llvm::sys::Process::GetRandomNumber());
    temp = keyToHex(key) + suffix;
    fd = ::openat(directoryFd, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0600);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0) {
    why = "cannot create a file in '" + config.directory + "': " + std::strerror(errno);
    return false;
  }
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << entryHeader(key, object) << object;
    out.close();
    if (out.has_error()) {
      why = "cannot write '" + config.directory + "/" + temp + "': " + out.error().message();
      out.clear_error();
      ::unlinkat(directoryFd, temp.c_str(), 0);
      return false;
    }
  }
  std::string name = keyToHex(key) + kEntrySuffix;
  if (::renameat(directoryFd, temp.c_str(), directoryFd, name.c_str()) != 0) {
    why = "cannot rename '" + config.directory + "/" + temp + "': " + std::strerror(errno);
    ::unlinkat(directoryFd, temp.c_str(), 0);
    return false;
  }
  evict();
  return true;
}

void ObjectCache::remove(const ObjectKey &key) const {
  if (directoryFd >= 0)
    ::unlinkat(directoryFd, (keyToHex(key) + kEntrySuffix).c_str(), 0);
}

unsigned ObjectCache::evict() const {
  struct Entry {
    std::string name;
    uint64_t size;
    struct timespec used;
  };
  if (directoryFd < 0)
    return 0;
  // A DIR of its own (its file offset is shared with directoryFd, which nothing else reads).
  int listFd = ::dup(directoryFd);
  DIR *list = listFd < 0 ? nullptr : ::fdopendir(listFd);
  if (!list) {
    if (listFd >= 0)
      ::close(listFd);
    return 0;
  }
  auto closeList = llvm::make_scope_exit([&] { ::closedir(list); });
  ::rewinddir(list);
  std::vector<Entry> entries;
  uint64_t total = 0;
  time_t anHourAgo = std::time(nullptr) - 3600;
  while (const struct dirent *item = ::readdir(list)) {
    llvm::StringRef name = item->d_name;
    bool entry = isEntryName(name);
    if (!entry && !isTempName(name))
      continue;
    struct stat status;
    if (::fstatat(directoryFd, item->d_name, &status, AT_SYMLINK_NOFOLLOW) != 0)
      continue; // removed by another dlm meanwhile
    if (!entry) {
      if (status.st_mtime < anHourAgo)
        ::unlinkat(directoryFd, item->d_name, 0);
      continue;
    }
    entries.push_back({name.str(), (uint64_t)status.st_size, status.st_mtim});
    total += status.st_size;
  }
  if (total <= config.maxBytes)
    return 0;
  auto order = [](const Entry &e) { return std::tie(e.used.tv_sec, e.used.tv_nsec, e.name); };
  std::sort(entries.begin(), entries.end(),
            [&](const Entry &a, const Entry &b) { return order(a) < order(b); });
  unsigned removed = 0;
  for (const Entry &e : entries) {
    if (total <= config.maxBytes)
      break;
    // Another dlm may have removed it first: it is gone either way.
    ::unlinkat(directoryFd, e.name.c_str(), 0);
    total -= e.size;
    ++removed;
  }
  return removed;
}

std::string packObjects(llvm::ArrayRef<std::unique_ptr<llvm::MemoryBuffer>> objects) {
  std::string pack(kPackMagic);
  auto append = [&](uint64_t value, unsigned bytes) {
    for (unsigned k = 0; k < bytes; ++k)
      pack.push_back((char)(value >> (8 * k)));
  };
  append(kPackVersion, 4);
  append(objects.size(), 4);
  for (const auto &object : objects)
    append(object->getBufferSize(), 8);
  for (const auto &object : objects)
    pack += object->getBuffer();
  return pack;
}

llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
unpackObjects(llvm::StringRef pack) {
  auto notAPack = [](const std::string &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
  };
  namespace endian = llvm::support::endian;
  size_t header = kPackMagic.size() + 8;
  if (pack.size() < header || !pack.starts_with(kPackMagic))
    return notAPack("not a pack of objects");
  uint32_t version = endian::read32le(pack.data() + kPackMagic.size());
  uint32_t count = endian::read32le(pack.data() + kPackMagic.size() + 4);
  if (version != kPackVersion)
    return notAPack("object pack version " + std::to_string(version) + ", this dlm reads " +
                    std::to_string(kPackVersion));
  if (count == 0 || count > kPackMaxObjects || pack.size() < header + 8 * (size_t)count)
    return notAPack("object pack of " + std::to_string(count) + " objects in " +
                    std::to_string(pack.size()) + " bytes");
  uint64_t at = header + 8 * (uint64_t)count;
  std::vector<uint64_t> sizes;
  for (uint32_t k = 0; k < count; ++k) {
    uint64_t size = endian::read64le(pack.data() + header + 8 * k);
    if (size == 0 || size > pack.size() - at)
      return notAPack("object pack: object " + std::to_string(k) + " of " + std::to_string(size) +
                      " bytes past the end of the entry");
    sizes.push_back(size);
    at += size;
  }
  if (at != pack.size())
    return notAPack("object pack: " + std::to_string(pack.size() - at) +
                    " bytes after its objects");
  at = header + 8 * (uint64_t)count;
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  for (uint32_t k = 0; k < count; ++k) {
    objects.push_back(llvm::MemoryBuffer::getMemBufferCopy(pack.substr(at, sizes[k]),
                                                           "cached object " + std::to_string(k)));
    at += sizes[k];
  }
  return objects;
}

} // namespace dlm::codegen
