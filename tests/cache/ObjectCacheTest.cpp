//===- tests/cache/ObjectCacheTest.cpp - The JIT's on-disk object cache ---===//
//
// ObjectCache's entries stored and loaded back, its key builder's field boundaries, and the one
// path the lit tests cannot reach: an entry whose header and checksum are right but whose
// object does not link (only another writer could make one). JitSession must drop it, compile
// the program and store the real object, never crash.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Codegen.h"
#include "compiler/codegen/ObjectCache.h"
#include "compiler/driver/Compilation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

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
  EXPECT_EQ(entries(dir.str()), std::vector<std::string>{codegen::keyToHex(keyOf("a")) + ".dlmobj"});
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
  for (const char *name : {"first", "second", "third"}) ASSERT_TRUE(cache.store(keyOf(name), object, why)) << why;
  EXPECT_EQ(entries(dir.str()).size(), 2u);
  EXPECT_EQ(cacheIn(dir.str(), 0).evict(), 2u);
  EXPECT_TRUE(entries(dir.str()).empty());
}

/// Compiles and runs `source` on `session` with the object cache; returns the exit status.
int runCached(codegen::JitSession &session, const std::string &path, const char *source, std::string &messages) {
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    if (ec) return -1;
    out << source;
  }
  llvm::raw_string_ostream errs(messages);
  DiagnosticEngine diags(errs, "object-cache-test");
  diags.setColorMode(ColorMode::Never);
  CompilerOptions options;
  options.input = path;
  Compilation compilation(options, diags);
  if (!compilation.loadInput() || !compilation.run(llvm::nulls()) || !compilation.getGraph()) return -1;
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
  ASSERT_EQ(names.size(), 1u) << "the first run stored no entry (does this build have a GNU build ID?)";
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

} // namespace
