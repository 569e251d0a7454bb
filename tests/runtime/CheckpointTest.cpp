//===- tests/runtime/CheckpointTest.cpp - save/load, corruption, kill -9 -------===//
#include "runtime/Checkpoint.h"
#include "runtime/Kernel.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace dlm;
using namespace dlm::rt;

namespace {

std::string tempPath(const std::string &name) {
  static std::string dir = [] {
    char tmpl[] = "/tmp/dlm-ckpt-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  return dir + "/" + name;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::vector<Tensor> sample() {
  Tensor a = Tensor::fromVector<float>(DType::F32, {1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = Tensor::fromVector<int64_t>(DType::I64, {-1, 5});
  Tensor c = Tensor::fromVector<int>(DType::Bool, {1, 0, 1});
  Tensor d = Tensor::scalarF64(2.5);
  Tensor e = Tensor::empty(DType::I32, {0, 4});
  return {a, b, c, d, e};
}

bool sameTensor(const Tensor &x, const Tensor &y) {
  if (x.dtype() != y.dtype() || x.shape() != y.shape())
    return false;
  Tensor a = x.contiguous(), b = y.contiguous();
  return std::memcmp(a.rawData(), b.rawData(), a.numel() * a.elementSize()) == 0;
}

/// Loads `path`, expecting an error that contains `needle`.
void expectLoadError(const std::string &path, const std::string &needle) {
  try {
    loadCheckpoint(path);
    FAIL() << "loading succeeded; expected an error with '" << needle << "'";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

/// A safetensors file with the given JSON header and data bytes.
std::string rawFile(const std::string &json, const std::string &data) {
  std::string out(8, '\0');
  uint64_t n = json.size();
  for (int i = 0; i < 8; ++i)
    out[i] = (char)(n >> (8 * i));
  return out + json + data;
}

TEST(Checkpoint, RoundTripEveryDType) {
  std::string path = tempPath("round.safetensors");
  auto ts = sample();
  saveCheckpoint(path, ts);
  auto back = loadCheckpoint(path);
  ASSERT_EQ(back.size(), ts.size());
  for (size_t i = 0; i < ts.size(); ++i)
    EXPECT_TRUE(sameTensor(ts[i], back[i])) << i;
}

TEST(Checkpoint, NonContiguousInputsAreSavedByValue) {
  std::string path = tempPath("view.safetensors");
  Tensor a = Tensor::fromVector<double>(DType::F64, {1, 2, 3, 4, 5, 6}, {2, 3});
  std::vector<Tensor> ts = {a.transpose()};
  saveCheckpoint(path, ts);
  auto back = loadCheckpoint(path);
  EXPECT_EQ(back[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(back[0].getF64({0, 1}), 4.0);
}

TEST(Checkpoint, HeaderIsAlignedSafetensorsJson) {
  std::string path = tempPath("layout.safetensors");
  auto ts = sample();
  saveCheckpoint(path, ts);
  std::string bytes = readFile(path);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | (unsigned char)bytes[i];
  EXPECT_EQ((8 + n) % 8, 0u);
  std::string json = bytes.substr(8, n);
  EXPECT_NE(json.find("\"0\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]}"),
            std::string::npos);
  EXPECT_NE(json.find("\"crc32\":\""), std::string::npos);
}

TEST(Checkpoint, ExpectedTypesAreChecked) {
  std::string path = tempPath("typed.safetensors");
  auto ts = sample();
  saveCheckpoint(path, ts);
  CheckpointSpec ok{{DType::F32, DType::I64, DType::Bool, DType::F64, DType::I32},
                    {{2, -1}, {2}, {3}, {}, {0, 4}}};
  EXPECT_EQ(loadCheckpoint(path, ok).size(), 5u);
  CheckpointSpec wrongDType = ok;
  wrongDType.dtypes[0] = DType::F64;
  try {
    loadCheckpoint(path, wrongDType);
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("tensor 0 has dtype f32 but the program expects f64"),
              std::string::npos)
        << e.what();
  }
  CheckpointSpec wrongShape = ok;
  wrongShape.shapes[1] = {3};
  EXPECT_THROW(loadCheckpoint(path, wrongShape), Error);
  CheckpointSpec wrongCount{{DType::F32}, {}};
  EXPECT_THROW(loadCheckpoint(path, wrongCount), Error);
}

TEST(Checkpoint, MissingFile) { expectLoadError(tempPath("nope.safetensors"), "cannot open"); }

TEST(Checkpoint, TruncatedAnywhere) {
  std::string path = tempPath("trunc.safetensors");
  auto ts = sample();
  saveCheckpoint(path, ts);
  std::string bytes = readFile(path);
  for (size_t cut :
       {size_t(0), size_t(5), size_t(8), size_t(20), bytes.size() / 2, bytes.size() - 1}) {
    std::string p = tempPath("cut.safetensors");
    writeFile(p, bytes.substr(0, cut));
    EXPECT_THROW(loadCheckpoint(p), Error) << "cut at " << cut;
  }
  writeFile(path, bytes.substr(0, bytes.size() - 1));
  expectLoadError(path, "truncated");
}

TEST(Checkpoint, BitFlipInDataFailsTheChecksum) {
  std::string path = tempPath("flip.safetensors");
  auto ts = sample();
  saveCheckpoint(path, ts);
  std::string bytes = readFile(path);
  bytes[bytes.size() - 20] ^= 0x10;
  writeFile(path, bytes);
  expectLoadError(path, "checksum mismatch");
}

TEST(Checkpoint, EverySingleBitFlipIsCaughtOrHarmless) {
  std::string path = tempPath("fuzz.safetensors");
  std::vector<Tensor> ts = {Tensor::fromVector<float>(DType::F32, {1.5f, -2.0f}),
                            Tensor::scalarI64(7)};
  saveCheckpoint(path, ts);
  std::string bytes = readFile(path);
  int caught = 0;
  for (size_t i = 0; i < bytes.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string b = bytes;
      b[i] ^= (char)(1 << bit);
      writeFile(path, b);
      try {
        auto back = loadCheckpoint(path);
        // Only a flip that leaves the meaning intact (e.g. inside header padding) may load.
        ASSERT_EQ(back.size(), 2u);
        EXPECT_TRUE(sameTensor(back[0], ts[0]) && sameTensor(back[1], ts[1])) << "byte " << i;
      } catch (const Error &) {
        ++caught;
      }
    }
  EXPECT_GT(caught, (int)bytes.size() * 4);
}

TEST(Checkpoint, OversizedHeaderIsRejectedBeforeAllocating) {
  std::string path = tempPath("huge.safetensors");
  std::string bytes(8, '\0');
  bytes[5] = 1; // 2^40
  writeFile(path, bytes + "{}");
  expectLoadError(path, "exceeds the limit");
  bytes.assign(8, '\0');
  bytes[0] = 100;
  writeFile(path, bytes + "{}");
  expectLoadError(path, "truncated");
}

TEST(Checkpoint, HostileHeaders) {
  std::string path = tempPath("hostile.safetensors");
  auto expectFor = [&](const std::string &json, const std::string &data,
                       const std::string &needle) {
    writeFile(path, rawFile(json, data));
    expectLoadError(path, needle);
  };
  std::string eight(8, '\0');
  expectFor(
      R"({"0":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"1":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
      eight, "overlap");
  expectFor(R"({"0":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", eight, "truncated");
  expectFor(R"({"0":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight, "does not fit");
  expectFor(R"({"0":{"dtype":"BF16","shape":[4],"data_offsets":[0,8]}})", eight,
            "unsupported dtype 'BF16'");
  expectFor(R"({"1":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", eight,
            "tensor '0' is missing");
  expectFor(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", eight,
            "unexpected tensor name 'w'");
  expectFor(R"({"0":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", eight, "backwards");
  expectFor(R"({"0":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", eight,
            "");
  expectFor(R"({"0":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})", eight, "malformed header");
  expectFor(std::string(100, '['), eight, "malformed header");
  expectFor(
      R"({"__metadata__":{"crc32":"00000000"},"0":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
      eight.substr(0, 7) + "\x01", "checksum mismatch");
  expectFor(R"({"0":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]}})", "\x07",
            "neither 0 nor 1");
}

TEST(Checkpoint, FilesWithoutChecksumStillLoad) {
  // What a Python user writes with plain numpy (no __metadata__).
  std::string path = tempPath("plain.safetensors");
  float v[2] = {3.0f, 4.0f};
  writeFile(path, rawFile(R"({"0":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                          std::string(reinterpret_cast<char *>(v), 8)));
  auto back = loadCheckpoint(path);
  EXPECT_EQ(back[0].getF64({1}), 4.0);
}

TEST(Checkpoint, SaveIntoMissingFolderIsAnError) {
  std::vector<Tensor> ts = {Tensor::scalarF64(1)};
  EXPECT_THROW(saveCheckpoint("/nonexistent-dir/x.safetensors", ts), Error);
}

TEST(Checkpoint, KillDuringSaveKeepsThePreviousFile) {
  std::string path = tempPath("killed.safetensors");
  Tensor big = Tensor::zeros(DType::F32, {4 << 20}); // 16 MiB
  std::vector<Tensor> first = {big, Tensor::scalarI64(0)};
  saveCheckpoint(path, first);
  for (int round = 0; round < 6; ++round) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (int64_t i = 1;; ++i) {
        Tensor t = Tensor::empty(DType::F32, {4 << 20});
        for (int64_t k = 0; k < t.numel(); ++k)
          t.data<float>()[k] = (float)i;
        std::vector<Tensor> ts = {t, Tensor::scalarI64(i)};
        saveCheckpoint(path, ts);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(40 + 57 * round));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    auto back = loadCheckpoint(path); // must not throw
    ASSERT_EQ(back.size(), 2u);
    // Whole and self-consistent: every element equals the counter saved with it.
    float want = (float)back[1].itemI64();
    const float *p = back[0].data<float>();
    for (int64_t k = 0; k < back[0].numel(); k += 4093)
      ASSERT_EQ(p[k], want);
  }
}

TEST(Checkpoint, SaveAndLoadKernels) {
  std::string path = tempPath("kernel.safetensors");
  auto ts = sample();
  std::vector<Value> ins = {Value(path)};
  for (auto &t : ts)
    ins.emplace_back(t);
  runAll("save", ins);
  Attrs attrs;
  attrs.set("dtypes",
            std::vector<DType>{DType::F32, DType::I64, DType::Bool, DType::F64, DType::I32});
  attrs.set("shapes", std::vector<std::vector<int64_t>>{{2, kDynamicDim}, {2}, {3}, {}, {0, 4}});
  auto outs = runAll("load", {Value(path)}, attrs);
  ASSERT_EQ(outs.size(), 5u);
  EXPECT_TRUE(sameTensor(outs[0].tensor(), ts[0]));
  std::vector<Value> louts;
  Status s = callKernel("load", std::vector<Value>{Value(tempPath("absent"))}, {}, louts);
  EXPECT_FALSE(s.ok());
}

} // namespace
