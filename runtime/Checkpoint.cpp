//===- runtime/Checkpoint.cpp - Atomic, checked safetensors files --------===//
#include "runtime/Checkpoint.h"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <memory>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <variant>

namespace dlm::rt {

const char *safetensorsDType(DType d) {
  switch (d) {
  case DType::F32:
    return "F32";
  case DType::F64:
    return "F64";
  case DType::I32:
    return "I32";
  case DType::I64:
    return "I64";
  case DType::Bool:
    return "BOOL";
  }
  return "?";
}

namespace {

// --- a small JSON reader, enough for safetensors headers ----------------------------------

struct Json;
using JsonObject = std::vector<std::pair<std::string, Json>>;
using JsonArray = std::vector<Json>;
struct Json {
  std::variant<std::nullptr_t, bool, double, std::string, JsonArray, JsonObject> v;
  bool isNumber() const { return std::holds_alternative<double>(v); }
};

class JsonParser {
public:
  explicit JsonParser(std::string_view text) : s(text) {}

  Json parseDocument() {
    Json j = value(0);
    skipSpace();
    if (pos != s.size())
      fail("unexpected text after the JSON object");
    return j;
  }

private:
  [[noreturn]] void fail(const std::string &what) {
    throw Error("malformed header: " + what + " at byte " + std::to_string(pos));
  }
  void skipSpace() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\n' || s[pos] == '\t' || s[pos] == '\r'))
      ++pos;
  }
  void expect(char c) {
    skipSpace();
    if (pos >= s.size() || s[pos] != c)
      fail(std::string("expected '") + c + "'");
    ++pos;
  }
  Json value(int depth) {
    if (depth > 16)
      fail("nesting too deep");
    skipSpace();
    if (pos >= s.size())
      fail("unexpected end");
    char c = s[pos];
    if (c == '{')
      return Json{object(depth)};
    if (c == '[')
      return Json{array(depth)};
    if (c == '"')
      return Json{string()};
    if (s.substr(pos, 4) == "true")
      return pos += 4, Json{true};
    if (s.substr(pos, 5) == "false")
      return pos += 5, Json{false};
    if (s.substr(pos, 4) == "null")
      return pos += 4, Json{nullptr};
    return Json{number()};
  }
  JsonObject object(int depth) {
    JsonObject o;
    expect('{');
    skipSpace();
    if (pos < s.size() && s[pos] == '}')
      return ++pos, o;
    for (;;) {
      skipSpace();
      std::string key = string();
      expect(':');
      o.emplace_back(key, value(depth + 1));
      skipSpace();
      if (pos < s.size() && s[pos] == ',') {
        ++pos;
        continue;
      }
      expect('}');
      return o;
    }
  }
  JsonArray array(int depth) {
    JsonArray a;
    expect('[');
    skipSpace();
    if (pos < s.size() && s[pos] == ']')
      return ++pos, a;
    for (;;) {
      a.push_back(value(depth + 1));
      skipSpace();
      if (pos < s.size() && s[pos] == ',') {
        ++pos;
        continue;
      }
      expect(']');
      return a;
    }
  }
  std::string string() {
    if (pos >= s.size() || s[pos] != '"')
      fail("expected a string");
    ++pos;
    std::string out;
    while (pos < s.size() && s[pos] != '"') {
      char c = s[pos++];
      if (c == '\\') {
        if (pos >= s.size())
          break;
        char e = s[pos++];
        if (e == 'u') {
          if (pos + 4 > s.size())
            fail("bad escape");
          out += '?'; // names and metadata we use are ASCII
          pos += 4;
          continue;
        }
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        continue;
      }
      if ((unsigned char)c < 0x20)
        fail("control character in a string");
      out += c;
    }
    if (pos >= s.size())
      fail("unterminated string");
    ++pos;
    return out;
  }
  double number() {
    size_t start = pos;
    while (pos < s.size() && (std::isdigit((unsigned char)s[pos]) || s[pos] == '-' ||
                              s[pos] == '+' || s[pos] == '.' || s[pos] == 'e' || s[pos] == 'E'))
      ++pos;
    if (start == pos)
      fail("unexpected character");
    std::string t(s.substr(start, pos - start));
    char *end = nullptr;
    double d = std::strtod(t.c_str(), &end);
    if (*end)
      fail("bad number '" + t + "'");
    return d;
  }

  std::string_view s;
  size_t pos = 0;
};

const Json *field(const JsonObject &o, const std::string &key) {
  for (auto &[k, v] : o)
    if (k == key)
      return &v;
  return nullptr;
}

/// A non-negative integer JSON number (exact up to 2^53).
uint64_t asCount(const Json &j, const std::string &what) {
  check(j.isNumber(), "malformed header: " + what + " is not a number");
  double d = std::get<double>(j.v);
  check(d >= 0 && d <= 9007199254740992.0 && d == (double)(uint64_t)d,
        "malformed header: " + what + " is not a non-negative integer");
  return (uint64_t)d;
}

// --- files ------------------------------------------------------------------------------

std::string errnoText() { return std::strerror(errno); }

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0)
      ::close(fd);
  }
};

void writeAll(int fd, const void *data, size_t n, const std::string &path) {
  const char *p = static_cast<const char *>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      throw Error("cannot write '" + path + "': " + errnoText());
    p += w;
    n -= (size_t)w;
  }
}

void readAt(int fd, void *data, size_t n, uint64_t offset, const std::string &path) {
  char *p = static_cast<char *>(data);
  while (n > 0) {
    ssize_t r = ::pread(fd, p, n, (off_t)offset);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      throw Error("cannot read '" + path +
                  "': " + (r == 0 ? "unexpected end of file" : errnoText()));
    p += r;
    n -= (size_t)r;
    offset += (uint64_t)r;
  }
}

std::string folderOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

/// `name` as a JSON string (names are checked: no control characters).
std::string jsonString(const std::string &name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string header(std::span<const Tensor> tensors, std::span<const std::string> names,
                   uint32_t crc, std::vector<uint64_t> &sizes) {
  char crcHex[16];
  std::snprintf(crcHex, sizeof crcHex, "%08x", crc);
  std::string h =
      "{\"__metadata__\":{\"format\":\"dlm\",\"crc32\":\"" + std::string(crcHex) + "\"}";
  uint64_t at = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor &t = tensors[i];
    h += "," + jsonString(names.empty() ? std::to_string(i) : names[i]) + ":{\"dtype\":\"" +
         safetensorsDType(t.dtype()) + "\",\"shape\":[";
    for (int64_t d = 0; d < t.rank(); ++d)
      h += (d ? "," : "") + std::to_string(t.dim(d));
    h += "],\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(at + sizes[i]) + "]}";
    at += sizes[i];
  }
  h += "}";
  // Pad so the data section starts 8-byte aligned, as safetensors writers do.
  while ((h.size() + 8) % 8)
    h += ' ';
  return h;
}

std::atomic<uint64_t> tempCounter{0};

} // namespace

void checkTensorNames(std::span<const std::string> names, size_t count) {
  check(names.size() == count,
        std::to_string(names.size()) + " names for " + std::to_string(count) + " tensors");
  std::set<std::string> seen;
  for (const std::string &name : names) {
    check(!name.empty() && name != "__metadata__",
          "'" + name + "' cannot name a tensor (safetensors keeps it for the metadata)");
    for (char c : name)
      check((unsigned char)c >= 0x20, "the tensor name '" + name + "' has a control character");
    check(seen.insert(name).second, "the tensor name '" + name + "' is given twice");
  }
}

void saveCheckpoint(const std::string &path, std::span<const Tensor> tensors,
                    std::span<const std::string> names) {
  static_assert(std::endian::native == std::endian::little, "checkpoints are little-endian");
  if (!names.empty()) {
    try {
      checkTensorNames(names, tensors.size());
    } catch (const Error &e) {
      throw Error("cannot save '" + path + "': " + e.what());
    }
  }
  std::vector<Tensor> data;
  std::vector<uint64_t> sizes;
  uint32_t crc = (uint32_t)crc32(0L, Z_NULL, 0);
  for (const Tensor &t : tensors) {
    check(t.device() == Device::CPU, "save: tensors must be on the CPU");
    data.push_back(t.contiguous());
    sizes.push_back((uint64_t)t.numel() * t.elementSize());
    const unsigned char *p = static_cast<const unsigned char *>(data.back().rawData());
    for (uint64_t done = 0; done < sizes.back();) {
      uInt chunk = (uInt)std::min<uint64_t>(sizes.back() - done, 1u << 30);
      crc = (uint32_t)crc32(crc, p + done, chunk);
      done += chunk;
    }
  }
  std::string h = header(tensors, names, crc, sizes);
  std::string tmp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(tempCounter++);
  Fd f;
  f.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (f.fd < 0)
    throw Error("cannot save '" + path + "': " + errnoText());
  try {
    unsigned char len[8];
    uint64_t n = h.size();
    for (int i = 0; i < 8; ++i)
      len[i] = (unsigned char)(n >> (8 * i));
    writeAll(f.fd, len, 8, path);
    writeAll(f.fd, h.data(), h.size(), path);
    for (size_t i = 0; i < data.size(); ++i)
      writeAll(f.fd, data[i].rawData(), sizes[i], path);
    if (::fsync(f.fd) != 0)
      throw Error("cannot save '" + path + "': fsync: " + errnoText());
    ::close(f.fd);
    f.fd = -1;
    if (::rename(tmp.c_str(), path.c_str()) != 0)
      throw Error("cannot save '" + path + "': " + errnoText());
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  Fd dir;
  dir.fd = ::open(folderOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir.fd >= 0)
    ::fsync(dir.fd);
}

namespace {

struct Entry {
  std::string name;
  size_t index; ///< the position a numbered tensor ("0", "1", ...) takes
  DType dtype;
  Shape shape;
  uint64_t begin, end;
};

DType parseSafetensorsDType(const std::string &s, const std::string &name) {
  for (DType d : {DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool})
    if (s == safetensorsDType(d))
      return d;
  throw Error("tensor '" + name + "' has unsupported dtype '" + s + "'");
}

/// The header's tensors: numbered "0", "1", ... in that order, or (`named`) any names, in
/// file order.
std::vector<Entry> parseEntries(const JsonObject &root, uint64_t dataSize,
                                std::optional<uint32_t> &crc, bool named) {
  std::vector<Entry> entries;
  std::vector<bool> seen;
  for (auto &[name, value] : root) {
    if (name == "__metadata__") {
      auto *meta = std::get_if<JsonObject>(&value.v);
      check(meta != nullptr, "malformed header: __metadata__ is not an object");
      if (const Json *c = field(*meta, "crc32")) {
        auto *s = std::get_if<std::string>(&c->v);
        check(s && s->size() == 8 && s->find_first_not_of("0123456789abcdef") == std::string::npos,
              "malformed header: crc32 is not 8 hex digits");
        crc = (uint32_t)std::stoul(*s, nullptr, 16);
      }
      continue;
    }
    check(named || (!name.empty() && name.size() < 10 &&
                    name.find_first_not_of("0123456789") == std::string::npos),
          "unexpected tensor name '" + name +
              "' (dlm checkpoints name their tensors 0, 1, ...; load(path, like=..., names=...) "
              "reads tensors by name)");
    size_t index = named ? entries.size() : std::stoul(name);
    auto *obj = std::get_if<JsonObject>(&value.v);
    check(obj != nullptr, "malformed header: tensor '" + name + "' is not an object");
    const Json *dt = field(*obj, "dtype"), *sh = field(*obj, "shape"),
               *off = field(*obj, "data_offsets");
    check(dt && sh && off,
          "malformed header: tensor '" + name + "' needs dtype, shape and data_offsets");
    auto *dts = std::get_if<std::string>(&dt->v);
    check(dts != nullptr, "malformed header: dtype of tensor '" + name + "' is not a string");
    Entry e{name, index, parseSafetensorsDType(*dts, name), {}, 0, 0};
    auto *dims = std::get_if<JsonArray>(&sh->v);
    check(dims && dims->size() <= 32,
          "malformed header: shape of tensor '" + name + "' is not a list of dims");
    for (const Json &d : *dims)
      e.shape.push_back((int64_t)asCount(d, "a dimension of tensor '" + name + "'"));
    auto *offs = std::get_if<JsonArray>(&off->v);
    check(offs && offs->size() == 2,
          "malformed header: data_offsets of tensor '" + name + "' is not [begin, end]");
    e.begin = asCount((*offs)[0], "data_offsets");
    e.end = asCount((*offs)[1], "data_offsets");
    check(e.begin <= e.end, "tensor '" + name + "' has data_offsets [" + std::to_string(e.begin) +
                                ", " + std::to_string(e.end) + ") that run backwards");
    check(e.end <= dataSize, "truncated file: tensor '" + name + "' needs data bytes up to " +
                                 std::to_string(e.end) + " but the data section has " +
                                 std::to_string(dataSize));
    // numel * size must equal the byte range; numelOf rejects overflowing shapes.
    int64_t numel = numelOf(e.shape);
    check((uint64_t)numel <= dataSize && (uint64_t)numel * dtypeSize(e.dtype) == e.end - e.begin,
          "tensor '" + name + "' of shape " + shapeString(e.shape) + " and dtype " + *dts +
              " does not fit its " + std::to_string(e.end - e.begin) + " data bytes");
    if (index >= seen.size())
      seen.resize(index + 1, false);
    check(!seen[index], "tensor '" + name + "' appears twice");
    seen[index] = true;
    entries.push_back(std::move(e));
  }
  for (size_t i = 0; i < seen.size(); ++i)
    check(seen[i], "tensor '" + std::to_string(i) + "' is missing");
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.index < b.index; });
  std::vector<const Entry *> byOffset;
  for (const Entry &e : entries)
    byOffset.push_back(&e);
  std::sort(byOffset.begin(), byOffset.end(), [](auto *a, auto *b) { return a->begin < b->begin; });
  for (size_t i = 1; i < byOffset.size(); ++i)
    check(byOffset[i]->begin >= byOffset[i - 1]->end, "tensors '" + byOffset[i - 1]->name +
                                                          "' and '" + byOffset[i]->name +
                                                          "' overlap in the data section");
  return entries;
}

/// The entries named `names`, in that order; a name the file lacks is an error (one it has but
/// nobody asks for is left unread).
std::vector<Entry> selectByName(const std::vector<Entry> &entries,
                                std::span<const std::string> names) {
  std::map<std::string, const Entry *> byName;
  for (const Entry &e : entries)
    byName[e.name] = &e;
  std::vector<Entry> out;
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = byName.find(names[i]);
    if (it == byName.end()) {
      std::string has;
      size_t listed = 0;
      for (const Entry &e : entries)
        if (listed++ < 8)
          has += (has.empty() ? "'" : ", '") + e.name + "'";
      if (entries.size() > 8)
        has += ", ... (" + std::to_string(entries.size()) + " in all)";
      throw Error("no tensor named '" + names[i] + "' (the file has " +
                  (has.empty() ? std::string("none") : has) + ")");
    }
    out.push_back(*it->second);
    out.back().index = i;
  }
  return out;
}

/// "tensor 0" or "tensor 'fc1.weight'".
std::string describe(const Entry &e, bool named) {
  return named ? "tensor '" + e.name + "'" : "tensor " + std::to_string(e.index);
}

void checkExpected(const std::vector<Entry> &entries, const CheckpointSpec &spec, bool named) {
  check(entries.size() == spec.dtypes.size(), "checkpoint holds " + std::to_string(entries.size()) +
                                                  " tensors but the program expects " +
                                                  std::to_string(spec.dtypes.size()));
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry &e = entries[i];
    check(e.dtype == spec.dtypes[i],
          describe(e, named) + " has dtype " + std::string(dtypeName(e.dtype)) +
              " but the program expects " + std::string(dtypeName(spec.dtypes[i])));
    if (i >= spec.shapes.size())
      continue;
    const Shape &want = spec.shapes[i];
    bool ok = want.size() == e.shape.size();
    for (size_t d = 0; ok && d < want.size(); ++d)
      ok = want[d] < 0 || want[d] == e.shape[d];
    check(ok, describe(e, named) + " has shape " + shapeString(e.shape) +
                  " but the program expects " + shapeString(want));
  }
}

} // namespace

std::vector<Tensor> loadCheckpoint(const std::string &path,
                                   const std::optional<CheckpointSpec> &expect,
                                   std::span<const std::string> names) {
  try {
    Fd f;
    f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.fd < 0)
      throw Error("cannot open: " + errnoText());
    struct stat st;
    if (::fstat(f.fd, &st) != 0)
      throw Error("cannot stat: " + errnoText());
    check(S_ISREG(st.st_mode), "not a regular file");
    uint64_t size = (uint64_t)st.st_size;
    check(size >= 8, "truncated file: " + std::to_string(size) +
                         " bytes is too short for a safetensors header");
    unsigned char len[8];
    readAt(f.fd, len, 8, 0, path);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
      n = (n << 8) | len[i];
    check(n <= kMaxCheckpointHeader, "header length " + std::to_string(n) +
                                         " exceeds the limit of " +
                                         std::to_string(kMaxCheckpointHeader) + " bytes");
    check(n <= size - 8, "truncated file: header length " + std::to_string(n) + " but only " +
                             std::to_string(size - 8) + " bytes follow");
    std::string text(n, '\0');
    readAt(f.fd, text.data(), n, 8, path);
    Json root = JsonParser(text).parseDocument();
    auto *obj = std::get_if<JsonObject>(&root.v);
    check(obj != nullptr, "malformed header: not a JSON object");
    uint64_t dataStart = 8 + n, dataSize = size - dataStart;
    std::optional<uint32_t> crc;
    bool named = !names.empty();
    std::vector<Entry> entries = parseEntries(*obj, dataSize, crc, named);
    if (named)
      entries = selectByName(entries, names);
    if (expect)
      checkExpected(entries, *expect, named);
    std::vector<Tensor> out;
    for (const Entry &e : entries) {
      Tensor t = Tensor::empty(e.dtype, e.shape);
      readAt(f.fd, t.rawData(), e.end - e.begin, dataStart + e.begin, path);
      if (e.dtype == DType::Bool)
        for (int64_t i = 0; i < t.numel(); ++i)
          if (reinterpret_cast<unsigned char *>(t.rawData())[i] > 1)
            throw Error("tensor '" + e.name + "' holds a bool that is neither 0 nor 1");
      out.push_back(std::move(t));
    }
    if (crc) {
      // The checksum covers the whole data section, read in file order.
      uint32_t c = (uint32_t)crc32(0L, Z_NULL, 0);
      std::vector<unsigned char> buf(1 << 20);
      for (uint64_t at = 0; at < dataSize;) {
        size_t chunk = (size_t)std::min<uint64_t>(buf.size(), dataSize - at);
        readAt(f.fd, buf.data(), chunk, dataStart + at, path);
        c = (uint32_t)crc32(c, buf.data(), (uInt)chunk);
        at += chunk;
      }
      char want[16], got[16];
      std::snprintf(want, sizeof want, "%08x", *crc);
      std::snprintf(got, sizeof got, "%08x", c);
      check(c == *crc, std::string("checksum mismatch: the data is corrupted (header says crc32 ") +
                           want + ", data has " + got + ")");
    }
    return out;
  } catch (const Error &e) {
    throw Error("cannot load checkpoint '" + path + "': " + e.what());
  }
}

} // namespace dlm::rt
