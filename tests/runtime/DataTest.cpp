//===- tests/runtime/DataTest.cpp - IDX, Fashion-MNIST and CSV readers ---------===//
#include "runtime/Data.h"
#include "runtime/Kernel.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <zlib.h>

using namespace dlm;
using namespace dlm::rt;

namespace {

std::string tempDir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/dlm-data-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  return dir;
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

void writeGz(const std::string &path, const std::string &bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), (unsigned)bytes.size());
  gzclose(f);
}

std::string idx(int type, std::vector<uint32_t> dims, const std::string &data) {
  std::string s = {0, 0, (char)type, (char)dims.size()};
  for (uint32_t d : dims)
    s += {(char)(d >> 24), (char)(d >> 16), (char)(d >> 8), (char)d};
  return s + data;
}

void expectError(auto &&fn, const std::string &needle) {
  try {
    fn();
    FAIL() << "expected an error with '" << needle << "'";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Idx, ReadsPlainAndGzip) {
  std::string bytes = idx(0x08, {2, 3}, std::string("\x01\x02\x03\x04\x05\xff", 6));
  writeFile(tempDir() + "/a.idx", bytes);
  writeGz(tempDir() + "/a.idx.gz", bytes);
  for (auto *name : {"/a.idx", "/a.idx.gz"}) {
    Tensor t = readIdx(tempDir() + name);
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.dtype(), DType::I32);
    EXPECT_EQ(t.getI64({1, 2}), 255);
  }
  std::string f = idx(0x0D, {1}, std::string("\x3f\xc0\x00\x00", 4)); // 1.5f big-endian
  writeFile(tempDir() + "/f.idx", f);
  EXPECT_EQ(readIdx(tempDir() + "/f.idx").getF64({0}), 1.5);
}

TEST(Idx, HeaderValidation) {
  std::string p = tempDir() + "/bad.idx";
  writeFile(p, std::string("\x01\x00\x08\x01", 4));
  expectError([&] { readIdx(p); }, "bad magic number");
  writeFile(p, idx(0x07, {1}, "x"));
  expectError([&] { readIdx(p); }, "unknown element type");
  writeFile(p, idx(0x08, {10}, "abc"));
  expectError([&] { readIdx(p); }, "truncated");
  writeFile(p, idx(0x08, {100000, 100000, 100000}, "abc"));
  expectError([&] { readIdx(p); }, "implausibly large");
  writeFile(p, std::string("\x00\x00", 2));
  expectError([&] { readIdx(p); }, "truncated");
  expectError([&] { readIdx(tempDir() + "/missing.idx"); }, "cannot open");
}

TEST(FashionMnist, TestSplitHasTheDocumentedForm) {
  auto [x, y] = fashionMnist("test");
  EXPECT_EQ(x.shape(), (Shape{10000, 784}));
  EXPECT_EQ(x.dtype(), DType::F32);
  EXPECT_EQ(y.shape(), (Shape{10000}));
  EXPECT_EQ(y.dtype(), DType::I64);
  float lo = 1, hi = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    lo = std::min(lo, x.data<float>()[i]);
    hi = std::max(hi, x.data<float>()[i]);
  }
  EXPECT_EQ(lo, 0.0f);
  EXPECT_EQ(hi, 1.0f);
  std::vector<int> counts(10, 0);
  for (int64_t i = 0; i < y.numel(); ++i)
    counts[y.data<int64_t>()[i]]++;
  for (int c : counts)
    EXPECT_EQ(c, 1000); // the test split is balanced
}

TEST(FashionMnist, MissingDatasetNamesThePackage) {
  setenv("DLM_DATA", (tempDir() + "/no-such-folder").c_str(), 1);
  expectError([] { fashionMnist("train"); }, "apt-get install dataset-fashion-mnist");
  unsetenv("DLM_DATA");
  expectError([] { fashionMnist("validation"); }, "split must be");
}

TEST(FashionMnist, KernelReturnsImagesAndLabels) {
  auto outs = runAll("fashion_mnist", {Value("test")});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].tensor().typeString(), "f32[10000, 784]");
  EXPECT_EQ(outs[1].tensor().typeString(), "i64[10000]");
}

TEST(Csv, HeaderAndNumbers) {
  std::string p = tempDir() + "/a.csv";
  writeFile(p, "x,y,label\n1,2.5,0\n\n-3,1e-3,1\n");
  Tensor t = readCsv(p);
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_FLOAT_EQ(t.getF64({1, 1}), 1e-3f);
  writeFile(p, "1,2\n3,4\n");
  EXPECT_EQ(readCsv(p, DType::F64).shape(), (Shape{2, 2}));
}

TEST(Csv, ErrorsHaveLineNumbers) {
  std::string p = tempDir() + "/b.csv";
  writeFile(p, "a,b\n1,2\n3\n");
  expectError([&] { readCsv(p); }, "b.csv:3: expected 2 fields, found 1");
  writeFile(p, "1,2\n3,abc\n");
  expectError([&] { readCsv(p); }, "b.csv:2: field 2 'abc' is not a number");
  expectError([&] { readCsv(tempDir() + "/none.csv"); }, "cannot open");
}

TEST(Csv, EmptyFileIsAnErrorHeaderAloneGivesNoRows) {
  std::string p = tempDir() + "/c.csv";
  writeFile(p, "");
  expectError([&] { readCsv(p); }, "CSV file '" + p + "' is empty: no header and no rows");
  writeFile(p, "\n  \n");
  expectError([&] { readCsv(p); }, "is empty");
  writeFile(p, "x,y,label\n\n");
  EXPECT_EQ(readCsv(p).shape(), (Shape{0, 3}));
}

} // namespace
