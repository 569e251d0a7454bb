//===- runtime/Data.cpp - IDX (via zlib), Fashion-MNIST and CSV readers ---===//
#include "runtime/Data.h"

#include <zlib.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sys/stat.h>

namespace dlm::rt {
namespace {

struct GzFile {
  gzFile f = nullptr;
  ~GzFile() {
    if (f)
      gzclose(f);
  }
};

/// Reads up to `n` bytes, appending to `out`; returns how many were read.
size_t readSome(gzFile f, std::string &out, size_t n, const std::string &path) {
  size_t before = out.size();
  while (n > 0) {
    unsigned chunk = (unsigned)std::min<size_t>(n, 1u << 24);
    size_t at = out.size();
    out.resize(at + chunk);
    int r = gzread(f, out.data() + at, chunk);
    if (r < 0) {
      int err;
      const char *msg = gzerror(f, &err);
      throw Error("cannot read '" + path + "': " + (msg ? msg : "read error"));
    }
    out.resize(at + (size_t)r);
    if (r == 0)
      break;
    n -= (size_t)r;
  }
  return out.size() - before;
}

uint32_t bigEndian32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

bool fileExists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

} // namespace

Tensor readIdx(const std::string &path) {
  GzFile g;
  g.f = gzopen(path.c_str(), "rb");
  if (!g.f)
    throw Error("cannot open IDX file '" + path + "': " + std::strerror(errno));
  std::string head;
  check(readSome(g.f, head, 4, path) == 4, "IDX file '" + path + "' is truncated: no header");
  const unsigned char *h = reinterpret_cast<const unsigned char *>(head.data());
  check(h[0] == 0 && h[1] == 0, "'" + path + "' is not an IDX file: bad magic number");
  int type = h[2], rank = h[3];
  size_t esize;
  switch (type) {
  case 0x08:
  case 0x09:
    esize = 1;
    break;
  case 0x0B:
    esize = 2;
    break;
  case 0x0C:
  case 0x0D:
    esize = 4;
    break;
  case 0x0E:
    esize = 8;
    break;
  default:
    throw Error("IDX file '" + path + "' has unknown element type 0x" + std::to_string(type));
  }
  check(rank >= 1 && rank <= 8,
        "IDX file '" + path + "' has " + std::to_string(rank) + " dimensions");
  std::string dimBytes;
  check(readSome(g.f, dimBytes, 4 * (size_t)rank, path) == 4 * (size_t)rank,
        "IDX file '" + path + "' is truncated in its header");
  Shape shape;
  for (int i = 0; i < rank; ++i)
    shape.push_back(bigEndian32(reinterpret_cast<const unsigned char *>(dimBytes.data()) + 4 * i));
  int64_t n = numelOf(shape);
  check(n <= (int64_t(1) << 34) / (int64_t)esize,
        "IDX file '" + path + "' declares an implausibly large shape " + shapeString(shape));
  // Read what is there (never more than declared) before allocating the tensor.
  std::string raw;
  size_t want = (size_t)n * esize;
  size_t got = readSome(g.f, raw, want, path);
  check(got == want, "IDX file '" + path + "' is truncated: shape " + shapeString(shape) +
                         " needs " + std::to_string(want) + " bytes of data, found " +
                         std::to_string(got));
  const unsigned char *p = reinterpret_cast<const unsigned char *>(raw.data());
  DType dt = type == 0x0D ? DType::F32 : type == 0x0E ? DType::F64 : DType::I32;
  Tensor t = Tensor::empty(dt, shape);
  for (int64_t i = 0; i < n; ++i) {
    const unsigned char *e = p + i * esize;
    switch (type) {
    case 0x08:
      t.data<int32_t>()[i] = e[0];
      break;
    case 0x09:
      t.data<int32_t>()[i] = (int8_t)e[0];
      break;
    case 0x0B:
      t.data<int32_t>()[i] = (int16_t)(e[0] << 8 | e[1]);
      break;
    case 0x0C:
      t.data<int32_t>()[i] = (int32_t)bigEndian32(e);
      break;
    case 0x0D: {
      uint32_t bits = bigEndian32(e);
      std::memcpy(&t.data<float>()[i], &bits, 4);
      break;
    }
    default: {
      uint64_t bits = (uint64_t)bigEndian32(e) << 32 | bigEndian32(e + 4);
      std::memcpy(&t.data<double>()[i], &bits, 8);
    }
    }
  }
  return t;
}

std::string fashionMnistFolder() {
  const char *env = std::getenv("DLM_DATA");
  return env && *env ? env : "/usr/share/datasets/fashion-mnist";
}

std::pair<Tensor, Tensor> fashionMnist(const std::string &split) {
  check(split == "train" || split == "test",
        "fashion_mnist: split must be \"train\" or \"test\", got \"" + split + "\"");
  std::string folder = fashionMnistFolder();
  std::string stem = folder + "/" + (split == "train" ? "train" : "t10k");
  auto locate = [&](const std::string &name) {
    for (const std::string &p : {stem + name + ".gz", stem + name})
      if (fileExists(p))
        return p;
    throw Error("Fashion-MNIST not found: no '" + stem + name +
                ".gz' (install it with "
                "'apt-get install dataset-fashion-mnist', or set DLM_DATA to a folder holding the "
                "IDX files)");
  };
  Tensor images = readIdx(locate("-images-idx3-ubyte"));
  Tensor labels = readIdx(locate("-labels-idx1-ubyte"));
  check(images.rank() == 3 && images.dim(1) == 28 && images.dim(2) == 28 &&
            images.dtype() == DType::I32,
        "fashion_mnist: images file holds " + images.typeString() + ", expected [N, 28, 28] bytes");
  check(labels.rank() == 1 && labels.dim(0) == images.dim(0),
        "fashion_mnist: " + std::to_string(labels.numel()) + " labels for " +
            std::to_string(images.dim(0)) + " images");
  int64_t n = images.dim(0);
  Tensor x = Tensor::empty(DType::F32, {n, 784});
  for (int64_t i = 0; i < n * 784; ++i)
    x.data<float>()[i] = (float)images.data<int32_t>()[i] / 255.0f;
  Tensor y = labels.to(DType::I64);
  for (int64_t i = 0; i < n; ++i)
    if (y.data<int64_t>()[i] < 0 || y.data<int64_t>()[i] >= 10)
      throw Error("fashion_mnist: label " + std::to_string(y.data<int64_t>()[i]) +
                  " is not a class 0..9");
  return {x, y};
}

namespace {
std::vector<std::string> splitFields(const std::string &line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t comma = line.find(',', start);
    std::string f =
        line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t b = f.find_first_not_of(" \t\r"), e = f.find_last_not_of(" \t\r");
    out.push_back(b == std::string::npos ? "" : f.substr(b, e - b + 1));
    if (comma == std::string::npos)
      return out;
    start = comma + 1;
  }
}

bool parseNumber(const std::string &s, double &v) {
  if (s.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  v = std::strtod(s.c_str(), &end);
  return *end == '\0';
}
} // namespace

Tensor readCsv(const std::string &path, DType dtype) {
  check(isFloat(dtype), "load_csv: dtype must be f32 or f64");
  std::ifstream in(path);
  if (!in)
    throw Error("cannot open CSV file '" + path + "': " + std::strerror(errno));
  std::vector<double> values;
  size_t cols = 0;
  int64_t rows = 0, lineNo = 0;
  bool first = true;
  std::string line;
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    std::vector<std::string> fields = splitFields(line);
    std::vector<double> row(fields.size());
    size_t bad = fields.size();
    for (size_t i = 0; i < fields.size() && bad == fields.size(); ++i)
      if (!parseNumber(fields[i], row[i]))
        bad = i;
    if (first) {
      first = false;
      cols = fields.size();
      if (bad != fields.size())
        continue; // a header line
    }
    std::string where = path + ":" + std::to_string(lineNo) + ": ";
    if (fields.size() != cols)
      throw Error(where + "expected " + std::to_string(cols) + " fields, found " +
                  std::to_string(fields.size()));
    if (bad != fields.size())
      throw Error(where + "field " + std::to_string(bad + 1) + " '" + fields[bad] +
                  "' is not a number");
    values.insert(values.end(), row.begin(), row.end());
    ++rows;
  }
  check(!in.bad(), "cannot read CSV file '" + path + "'");
  // No line at all says nothing about the columns: a [0, 0] tensor would only fail later, far
  // from the cause (a truncated download, a wrong path). A header alone gives [0, cols].
  if (first)
    throw Error("CSV file '" + path + "' is empty: no header and no rows");
  return Tensor::fromVector<double>(dtype, values, Shape{rows, (int64_t)cols});
}

} // namespace dlm::rt
