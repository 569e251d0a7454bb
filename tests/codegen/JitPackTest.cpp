//===- tests/codegen/JitPackTest.cpp - Damaged object packs are cache misses ---===//
//
// `dlm run` stores a program's objects in its on-disk cache entry as one pack (docs/codegen.md
// "On-disk object cache": magic, version, count, sizes, objects); a large program compiled on two
// threads has two. The cache's own checks (header, checksum) catch damage on disk; these tests
// damage the pack itself and store it back through the cache, so that those checks pass — what
// another writer could leave — and check that each such entry is a miss: the program compiles
// again, runs (its asserts hold), and the entry is rewritten as it was. A structurally whole pack
// that does not link (one of the two objects left out) is a miss too.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Codegen.h"
#include "compiler/codegen/ObjectCache.h"
#include "compiler/driver/Compilation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace dlm;
namespace endian = llvm::support::endian;

/// An LSTM trained by grad: a large program (docs/codegen.md "Large programs") whose loops are
/// enough to compile on two threads. Its asserts fail if the code it runs is wrong.
const char *kProgram = R"(def loss(wx, wh, b, wo, xs):
    h = zeros(1, 8)
    c = zeros(1, 8)
    t = 0
    while t < 6:
        z = xs[t] @ wx + h @ wh + b
        i = sigmoid(z[:, 0:8])
        f = sigmoid(z[:, 8:16])
        g = tanh(z[:, 16:24])
        o = sigmoid(z[:, 24:32])
        c = f * c + i * g
        h = o * tanh(c)
        t += 1
    return sum(h @ wo)

xs = reshape(arange(48).astype(f32), (6, 1, 8)) * 0.05 - 1.0
wx = reshape(arange(256).astype(f32), (8, 32)) * 0.003 - 0.4
wh = reshape(arange(256).astype(f32), (8, 32)) * -0.002 + 0.25
b = zeros(32)
wo = reshape(arange(8).astype(f32), (8, 1)) * 0.1 - 0.3
first = loss(wx, wh, b, wo, xs)
for it in range(3):
    gwx, gwh, gb, gwo = grad(loss, argnums=(0, 1, 2, 3))(wx, wh, b, wo, xs)
    wx = wx - 0.1 * gwx
    wh = wh - 0.1 * gwh
    b = b - 0.1 * gb
    wo = wo - 0.1 * gwo
last = loss(wx, wh, b, wo, xs)
assert last < first, "training lowers the loss"
assert last > first - 10.0, "by a sane amount"
)";

class JitPack : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("jit-pack", dir));
    // The cache refuses a directory others could write (docs/codegen.md "Trust"), whatever the
    // umask.
    ASSERT_FALSE(llvm::sys::fs::setPermissions(dir, llvm::sys::fs::owner_all));
    // Before the first compile of the process: the thread count is read once.
    setenv("DLM_JIT_THREADS", "2", 1);
    setenv("DLM_CACHE_DIR", dir.c_str(), 1);
    ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("jit-pack", "dlm", source));
    std::error_code ec;
    llvm::raw_fd_ostream out(source, ec);
    ASSERT_FALSE(ec);
    out << kProgram;
  }
  void TearDown() override {
    llvm::sys::fs::remove(source);
    llvm::sys::fs::remove_directories(dir);
  }

  /// Compiles the program in the source file and runs it through `session`; returns its exit
  /// status.
  int runIn(codegen::JitSession &session, const codegen::CodegenOptions &codegen,
            std::string &messages) {
    llvm::raw_string_ostream errs(messages);
    DiagnosticEngine diags(errs, "jit-pack-test");
    diags.setColorMode(ColorMode::Never);
    CompilerOptions options;
    options.input = source.str().str();
    Compilation compilation(options, diags);
    if (!compilation.loadInput() || !compilation.run(llvm::nulls()) || !compilation.getGraph())
      return -1;
    return session.run(*compilation.getGraph(), diags, codegen);
  }

  /// Runs the program with the on-disk cache in a new session (so the session's own cache cannot
  /// hit).
  int run(std::string &messages) {
    codegen::CodegenOptions codegen;
    codegen.objectCache = true;
    codegen::JitSession session;
    return runIn(session, codegen, messages);
  }

  /// The cache's one entry: its key (from the file name).
  std::optional<codegen::ObjectKey> onlyEntry() {
    std::error_code ec;
    std::optional<codegen::ObjectKey> key;
    int entries = 0;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
      llvm::StringRef name = llvm::sys::path::filename(it->path());
      if (!name.consume_back(codegen::ObjectCache::kEntrySuffix))
        continue;
      ++entries;
      std::string bytes;
      if (name.size() != 64 || !llvm::tryGetFromHex(name, bytes))
        return std::nullopt;
      codegen::ObjectKey k;
      std::copy(bytes.begin(), bytes.end(), k.begin());
      key = k;
    }
    return entries == 1 ? key : std::nullopt;
  }

  llvm::SmallString<128> dir, source;
};

TEST_F(JitPack, DamagedPacksAreMisses) {
  std::string messages;
  ASSERT_EQ(run(messages), 0) << messages;
  std::optional<codegen::ObjectKey> key = onlyEntry();
  ASSERT_TRUE(key);
  codegen::ObjectCacheConfig config;
  config.directory = dir.str().str();
  codegen::ObjectCache cache(config);
  std::string why;
  std::unique_ptr<llvm::MemoryBuffer> entry = cache.load(*key, why);
  ASSERT_TRUE(entry) << why;
  const std::string good = entry->getBuffer().str();

  // The documented layout: "DLMPACK\n", version 1, two objects (two threads), their sizes, them.
  ASSERT_GT(good.size(), 32u);
  ASSERT_EQ(good.substr(0, 8), "DLMPACK\n");
  ASSERT_EQ(endian::read32le(good.data() + 8), 1u);
  ASSERT_EQ(endian::read32le(good.data() + 12), 2u);
  uint64_t first = endian::read64le(good.data() + 16), second = endian::read64le(good.data() + 24);
  ASSERT_EQ(32 + first + second, good.size());
  ASSERT_EQ(good.substr(32, 4), "\x7f"
                                "ELF");
  ASSERT_EQ(good.substr(32 + first, 4), "\x7f"
                                        "ELF");

  auto with32 = [&](size_t at, uint32_t value) {
    std::string s = good;
    endian::write32le(&s[at], value);
    return s;
  };
  auto with64 = [&](size_t at, uint64_t value) {
    std::string s = good;
    endian::write64le(&s[at], value);
    return s;
  };
  struct Case {
    const char *name;
    std::string pack;
  };
  std::string onlyFirst = with32(12, 1);
  onlyFirst = onlyFirst.substr(0, 24) + good.substr(32, first);
  const Case cases[] = {
      {"another magic", "X" + good.substr(1)},
      {"a newer version", with32(8, 2)},
      {"no objects", with32(12, 0)},
      {"too many objects", with32(12, 1000)},
      {"a size past the end", with64(16, first + 1000)},
      {"an empty object", with64(24, 0)},
      {"bytes after the objects", good + std::string(8, '\0')},
      {"cut inside the header", good.substr(0, 12)},
      {"cut inside an object", good.substr(0, good.size() - 100)},
      {"the first object alone (does not link)", onlyFirst},
  };
  for (const Case &c : cases) {
    ASSERT_TRUE(cache.store(*key, c.pack, why)) << why;
    messages.clear();
    EXPECT_EQ(run(messages), 0) << c.name << ":\n" << messages;
    entry = cache.load(*key, why);
    ASSERT_TRUE(entry) << c.name << ": " << why;
    EXPECT_TRUE(entry->getBuffer() == good)
        << c.name << ": the entry was not compiled and stored again";
  }
}

/// One session (what the REPL keeps) compiling several large programs on two threads, and small
/// ones between them: each split compile is a JITDylib of its own.
TEST_F(JitPack, OneSessionManyPrograms) {
  codegen::JitSession session;
  auto runText = [&](const std::string &text) {
    {
      std::error_code ec;
      llvm::raw_fd_ostream out(source, ec);
      out << text;
    }
    std::string messages;
    int status = runIn(session, codegen::CodegenOptions(), messages);
    EXPECT_TRUE(status == 0 || messages.find("stops here") != std::string::npos) << messages;
    return status;
  };
  std::string program = kProgram;
  std::string changed = program;
  changed.replace(changed.find("- 0.1 * gwx"), 11, "- 0.2 * gwx");
  EXPECT_EQ(runText(program), 0);
  EXPECT_EQ(runText("x = ones(3)\nassert sum(x * 2.0) == 6.0, \"small\"\n"), 0);
  EXPECT_EQ(runText(changed), 0);
  EXPECT_EQ(runText(program), 0); // the session's cache
  EXPECT_EQ(runText(changed + "assert last < 0.0 - 1000.0, \"stops here\"\n"), 1);
  EXPECT_EQ(runText(changed), 0);
}

} // namespace
