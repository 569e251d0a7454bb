//===- tests/cache/ObjectCacheTest.cpp - The JIT's on-disk object cache ---===//
//
// ObjectCache's entries stored and loaded back, its key builder's field boundaries, and the one
// path the lit tests cannot reach: an entry whose header and checksum are right but whose
// object does not link (only another writer could make one). JitSession must drop it, compile
// the program and store the real object, never crash. Then the trust rules: the owner and mode
// checks as functions of any uid (tests run as root, who cannot be another user's victim
// otherwise), an entry others could write turning the cache off, symbolic links, failed writes.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/ObjectCache.h"
#include "compiler/codegen/Codegen.h"
#include "compiler/driver/Compilation.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using namespace dlm;
using codegen::ObjectCache;
using codegen::ObjectCacheConfig;
using codegen::ObjectKey;

/// A fresh directory under the system's temporary directory, removed at the end.
class TempDir {
public:
  TempDir() { EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("dlm-object-cache-test", path)); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string str() const { return path.str().str(); }

private:
  llvm::SmallString<128> path;
};

ObjectCache cacheIn(const std::string &dir, uint64_t maxBytes = 1 << 20) {
  ObjectCacheConfig config;
  config.directory = dir;
  config.maxBytes = maxBytes;
  return ObjectCache(config);
}

ObjectKey keyOf(llvm::StringRef text) {
  codegen::ObjectKeyBuilder builder;
  builder.add(text);
  return builder.finish();
}

/// The entry files of `dir`, by name.
std::vector<std::string> entries(const std::string &dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(ObjectCache::kEntrySuffix))
      names.push_back(llvm::sys::path::filename(it->path()).str());
  return names;
}

TEST(ObjectCache, StoresAndLoadsAnEntry) {
  TempDir dir;
  ObjectCache cache = cacheIn(dir.str());
  std::string why;
  EXPECT_EQ(cache.load(keyOf("a"), why), nullptr);
  EXPECT_EQ(why, "no entry");
  ASSERT_TRUE(cache.store(keyOf("a"), "object bytes", why)) << why;
  auto object = cache.load(keyOf("a"), why);
  ASSERT_NE(object, nullptr) << why;
  EXPECT_EQ(object->getBuffer(), "object bytes");
  EXPECT_EQ(cache.load(keyOf("b"), why), nullptr);
  EXPECT_EQ(entries(dir.str()),
            std::vector<std::string>{codegen::keyToHex(keyOf("a")) + ".dlmobj"});
}

TEST(ObjectCache, KeyFieldsKeepTheirBoundaries) {
  codegen::ObjectKeyBuilder ab_c, a_bc;
  ab_c.add("ab");
  ab_c.add("c");
  a_bc.add("a");
  a_bc.add("bc");
  EXPECT_NE(ab_c.finish(), a_bc.finish());
}

TEST(ObjectCache, EvictsToTheBound) {
  TempDir dir;
  std::string object(1000, 'x'), why;
  // Each entry is 1096 bytes (a 96-byte header): a bound of 2500 holds two.
  ObjectCache cache = cacheIn(dir.str(), 2500);
  for (const char *name : {"first", "second", "third"})
    ASSERT_TRUE(cache.store(keyOf(name), object, why)) << why;
  EXPECT_EQ(entries(dir.str()).size(), 2u);
  EXPECT_EQ(cacheIn(dir.str(), 0).evict(), 2u);
  EXPECT_TRUE(entries(dir.str()).empty());
}

/// Compiles and runs `source` on `session` with the object cache; returns the exit status.
int runCached(codegen::JitSession &session, const std::string &path, const char *source,
              std::string &messages) {
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    if (ec)
      return -1;
    out << source;
  }
  llvm::raw_string_ostream errs(messages);
  DiagnosticEngine diags(errs, "object-cache-test");
  diags.setColorMode(ColorMode::Never);
  CompilerOptions options;
  options.input = path;
  Compilation compilation(options, diags);
  if (!compilation.loadInput() || !compilation.run(llvm::nulls()) || !compilation.getGraph())
    return -1;
  codegen::CodegenOptions codegenOptions;
  codegenOptions.objectCache = true;
  return session.run(*compilation.getGraph(), diags, codegenOptions);
}

TEST(ObjectCache, AnEntryThatDoesNotLinkIsCompiledAgain) {
  TempDir dir, work;
  ASSERT_EQ(setenv("DLM_CACHE_DIR", dir.str().c_str(), 1), 0);
  const char *source = "t = 0\nfor i in range(10):\n    t += i\nassert t == 45, \"for sum\"\n";
  std::string program = work.str() + "/program.dlm", messages;
  {
    codegen::JitSession session;
    ASSERT_EQ(runCached(session, program, source, messages), 0) << messages;
  }
  std::vector<std::string> names = entries(dir.str());
  ASSERT_EQ(names.size(), 1u)
      << "the first run stored no entry (does this build have a GNU build ID?)";
  ObjectKey key;
  std::string bytes = llvm::fromHex(llvm::StringRef(names[0]).take_front(2 * sizeof(ObjectKey)));
  std::copy(bytes.begin(), bytes.end(), key.begin());
  ObjectCache cache = cacheIn(dir.str());
  std::string why;
  auto compiled = cache.load(key, why);
  ASSERT_NE(compiled, nullptr) << why;
  std::string object = compiled->getBuffer().str();
  // A whole entry (right header, length and checksum) whose object is not an object file.
  ASSERT_TRUE(cache.store(key, "not an object file", why)) << why;
  {
    codegen::JitSession session;
    EXPECT_EQ(runCached(session, program, source, messages), 0) << messages;
  }
  auto stored = cache.load(key, why);
  ASSERT_NE(stored, nullptr) << why;
  EXPECT_EQ(stored->getBuffer(), object) << "the entry was not replaced by the compiled object";
  unsetenv("DLM_CACHE_DIR");
}

// --- trust: another user's code is never loaded (docs/codegen.md "Trust") -------------------

TEST(ObjectCacheTrust, OwnerAndModeRules) {
  // Any uid, not only the test's: the rules are functions of stat's owner and mode.
  struct Case {
    bool directory;
    uint32_t owner, mode, uid;
    const char *why; ///< after "directory '/c' " or "entry '/c' "; "" when trusted
  } cases[] = {
      {true, 1000, S_IFDIR | 0700, 1000, ""},
      {true, 1000, S_IFDIR | 0755, 1000, ""},
      {true, 0, S_IFDIR | 0700, 1000, "is owned by uid 0, not by this user (uid 1000)"},
      {true, 1000, S_IFDIR | 0700, 0, "is owned by uid 1000, not by this user (uid 0)"},
      {true, 1000, S_IFDIR | 0770, 1000, "is writable by its group (mode 0770, not sticky)"},
      {true, 1000, S_IFDIR | 0702, 1000, "is writable by others (mode 0702, not sticky)"},
      {true, 1000, S_IFDIR | 0777, 1000,
       "is writable by its group and others (mode 0777, not sticky)"},
      // Sticky: others may add files but not replace or remove the user's.
      {true, 1000, S_IFDIR | 01777, 1000, ""},
      {true, 1001, S_IFDIR | 01777, 1000, "is owned by uid 1001, not by this user (uid 1000)"},
      {false, 1000, S_IFREG | 0600, 1000, ""},
      {false, 1000, S_IFREG | 0644, 1000, ""},
      {false, 65534, S_IFREG | 0600, 1000, "is owned by uid 65534, not by this user (uid 1000)"},
      {false, 1000, S_IFREG | 0620, 1000, "is writable by its group (mode 0620)"},
      // The sticky bit means nothing on a file.
      {false, 1000, S_IFREG | 01666, 1000, "is writable by its group and others (mode 1666)"},
  };
  for (const Case &c : cases) {
    std::string why = c.directory ? codegen::untrustedDirectory("/c", c.owner, c.mode, c.uid)
                                  : codegen::untrustedEntry("/c", c.owner, c.mode, c.uid);
    std::string expected =
        *c.why ? (c.directory ? "directory '/c' " : "entry '/c' ") + std::string(c.why) : "";
    EXPECT_EQ(why, expected) << "owner " << c.owner << ", mode " << c.mode << ", uid " << c.uid;
  }
}

TEST(ObjectCacheTrust, UntrustedDirectoriesAreOffWithOneWarning) {
  TempDir dir;
  ASSERT_EQ(setenv("DLM_CACHE_DIR", dir.str().c_str(), 1), 0);
  auto cleanup = llvm::make_scope_exit([] { unsetenv("DLM_CACHE_DIR"); });
  ASSERT_EQ(chmod(dir.str().c_str(), 0777), 0);
  ObjectCacheConfig config = codegen::objectCacheConfigFromEnvironment();
  EXPECT_EQ(config.directory, "");
  EXPECT_EQ(config.off, "directory '" + dir.str() +
                            "' is writable by its group and others (mode 0777, not sticky)");
  EXPECT_EQ(config.warnings,
            std::vector<std::string>{"the object cache is off for this run: " + config.off});
  // Made directly, the cache checks the directory it opened and is off too.
  ObjectCache direct = cacheIn(dir.str());
  std::string why;
  EXPECT_FALSE(direct.store(keyOf("a"), "object", why));
  EXPECT_EQ(why, config.off);
  EXPECT_EQ(direct.takeWarning(), config.warnings[0]);
  EXPECT_TRUE(entries(dir.str()).empty());
  ASSERT_EQ(chmod(dir.str().c_str(), 01777), 0);
  config = codegen::objectCacheConfigFromEnvironment();
  EXPECT_EQ(config.directory, dir.str());
  EXPECT_TRUE(config.warnings.empty());
}

TEST(ObjectCacheTrust, AnEntryOthersCouldWriteTurnsTheCacheOff) {
  TempDir dir;
  ObjectCache cache = cacheIn(dir.str());
  std::string why;
  ASSERT_TRUE(cache.store(keyOf("a"), "object a", why)) << why;
  ASSERT_TRUE(cache.store(keyOf("b"), "object b", why)) << why;
  EXPECT_EQ(cache.takeWarning(), "");
  std::string a = cache.entryPath(keyOf("a"));
  ASSERT_EQ(chmod(a.c_str(), 0622), 0);
  EXPECT_EQ(cache.load(keyOf("a"), why), nullptr);
  std::string reason = "entry '" + a + "' is writable by its group and others (mode 0622)";
  EXPECT_EQ(why, reason);
  EXPECT_EQ(cache.refusal(), reason);
  // One warning, and off for the rest of the run: b is not loaded, nothing is stored.
  EXPECT_EQ(cache.takeWarning(), "the object cache is off for this run: " + reason);
  EXPECT_EQ(cache.takeWarning(), "");
  EXPECT_EQ(cache.load(keyOf("b"), why), nullptr);
  EXPECT_EQ(why, reason);
  EXPECT_FALSE(cache.store(keyOf("c"), "object c", why));
  EXPECT_EQ(entries(dir.str()).size(), 2u);
  // Another process (a new cache) with the entry fixed uses the cache again.
  ASSERT_EQ(chmod(a.c_str(), 0600), 0);
  ObjectCache next = cacheIn(dir.str());
  auto object = next.load(keyOf("a"), why);
  ASSERT_NE(object, nullptr) << why;
  EXPECT_EQ(object->getBuffer(), "object a");
  if (geteuid() == 0) { // only root can give a file away
    ASSERT_EQ(chown(a.c_str(), 65534, 65534), 0);
    ObjectCache foreign = cacheIn(dir.str());
    EXPECT_EQ(foreign.load(keyOf("a"), why), nullptr);
    EXPECT_EQ(why, "entry '" + a + "' is owned by uid 65534, not by this user (uid 0)");
  }
}

TEST(ObjectCacheTrust, ASymbolicLinkIsNeverFollowed) {
  TempDir dir, elsewhere;
  ObjectCache cache = cacheIn(dir.str());
  std::string why, target = elsewhere.str() + "/target", entry = cache.entryPath(keyOf("a"));
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(target, ec);
    ASSERT_FALSE(ec);
    out << "the link's target";
  }
  ASSERT_EQ(symlink(target.c_str(), entry.c_str()), 0);
  EXPECT_EQ(cache.load(keyOf("a"), why), nullptr);
  EXPECT_EQ(why, "a symbolic link, not an entry");
  EXPECT_EQ(cache.refusal(), "");
  ASSERT_TRUE(cache.store(keyOf("a"), "object a", why)) << why;
  auto kept = llvm::MemoryBuffer::getFile(target);
  ASSERT_TRUE(kept);
  EXPECT_EQ((*kept)->getBuffer(), "the link's target");
  struct stat status;
  ASSERT_EQ(lstat(entry.c_str(), &status), 0);
  EXPECT_TRUE(S_ISREG(status.st_mode));
  auto object = cache.load(keyOf("a"), why);
  ASSERT_NE(object, nullptr) << why;
  EXPECT_EQ(object->getBuffer(), "object a");
}

TEST(ObjectCacheTrust, AFifoInPlaceOfAnEntryIsAMissThatNeverBlocks) {
  TempDir dir;
  ObjectCache cache = cacheIn(dir.str());
  std::string why, entry = cache.entryPath(keyOf("a"));
  ASSERT_EQ(mkfifo(entry.c_str(), 0600), 0);
  EXPECT_EQ(cache.load(keyOf("a"), why), nullptr); // opened without a writer: would block
  EXPECT_EQ(why, "not a regular file");
  ASSERT_TRUE(cache.store(keyOf("a"), "object a", why)) << why;
  auto object = cache.load(keyOf("a"), why);
  ASSERT_NE(object, nullptr) << why;
  EXPECT_EQ(object->getBuffer(), "object a");
}

TEST(ObjectCacheTrust, AWriteThatFailsLeavesNoFile) {
  TempDir dir;
  ObjectCache cache = cacheIn(dir.str());
  std::string why;
  ASSERT_TRUE(cache.store(keyOf("small"), "fits", why)) << why;
  // A full disk, as a file size limit: the write fails part way (EFBIG instead of SIGXFSZ).
  rlimit before;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  void (*handler)(int) = signal(SIGXFSZ, SIG_IGN);
  rlimit limited = before;
  limited.rlim_cur = 1000;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limited), 0);
  bool stored = cache.store(keyOf("large"), std::string(5000, 'x'), why);
  setrlimit(RLIMIT_FSIZE, &before);
  signal(SIGXFSZ, handler);
  EXPECT_FALSE(stored);
  EXPECT_NE(why.find("File too large"), std::string::npos) << why;
  EXPECT_EQ(entries(dir.str()),
            std::vector<std::string>{codegen::keyToHex(keyOf("small")) + ".dlmobj"});
  std::error_code ec;
  unsigned files = 0;
  for (llvm::sys::fs::directory_iterator it(dir.str(), ec), end; it != end && !ec; it.increment(ec))
    ++files;
  EXPECT_EQ(files, 1u) << "the temporary file was left behind";
  EXPECT_NE(cache.load(keyOf("small"), why), nullptr) << why;
  EXPECT_EQ(cache.refusal(), "");
}

TEST(ObjectCacheTrust, AReadOnlyDirectoryStillGivesHits) {
  if (geteuid() == 0)
    GTEST_SKIP() << "root writes a read-only directory anyway; trust.test runs this case as nobody";
  TempDir dir;
  ObjectCache cache = cacheIn(dir.str());
  std::string why;
  ASSERT_TRUE(cache.store(keyOf("a"), "object a", why)) << why;
  ASSERT_EQ(chmod(dir.str().c_str(), 0500), 0);
  auto restore = llvm::make_scope_exit([&] { chmod(dir.str().c_str(), 0700); });
  ObjectCache readOnly = cacheIn(dir.str());
  EXPECT_NE(readOnly.load(keyOf("a"), why), nullptr) << why;
  EXPECT_FALSE(readOnly.store(keyOf("b"), "object b", why));
  EXPECT_NE(why.find("Permission denied"), std::string::npos) << why;
  EXPECT_EQ(readOnly.refusal(), "");
}

} // namespace
