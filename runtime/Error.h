//===- runtime/Error.h - Run-time errors of the runtime and kernels -------===//
//
// A run-time error in a running program (an out-of-range index, a shape mismatch on symbolic
// dimensions, a bad checkpoint) is a `rt::Error` carrying a message in the diagnostic style
// ("cannot broadcast f32[3, 4] with f32[5]"). Kernels throw it; every entry point that leaves
// the runtime (the kernel dispatcher `callKernel`, the C ABI) catches it and returns a `Status`,
// so the caller can attach the .dlm source location. The runtime never aborts or exits on a
// user error.
//
//===----------------------------------------------------------------------===//
#ifndef DLM_RUNTIME_ERROR_H
#define DLM_RUNTIME_ERROR_H

#include <stdexcept>
#include <string>
#include <utility>

namespace dlm::rt {

/// A user-facing run-time error. The message has no location; the caller adds it.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

/// Throws `Error(message)` unless `cond` holds. The message is built even when `cond` holds,
/// so hot loops use `if (!cond) throw Error(...)` instead.
inline void check(bool cond, const std::string &message) {
  if (!cond)
    throw Error(message);
}
inline void check(bool cond, const char *message) {
  if (!cond)
    throw Error(message);
}

/// The result of an operation that can fail at run time: ok, or an error message.
class Status {
public:
  Status() = default;
  static Status error(std::string message) {
    Status s;
    s.failed = true;
    s.msg = std::move(message);
    return s;
  }
  bool ok() const { return !failed; }
  explicit operator bool() const { return ok(); }
  const std::string &message() const { return msg; }

private:
  bool failed = false;
  std::string msg;
};

/// Runs `fn()`, turning an `rt::Error` (or an allocation failure) into a failed Status.
template <typename Fn> Status guard(Fn &&fn) {
  try {
    fn();
    return Status();
  } catch (const Error &e) {
    return Status::error(e.what());
  } catch (const std::bad_alloc &) {
    return Status::error("out of memory");
  } catch (const std::length_error &) {
    return Status::error("out of memory (size too large)");
  } catch (const std::exception &e) {
    // Nothing may escape into JIT-compiled frames or C callers; a non-rt::Error is a runtime bug.
    return Status::error(std::string("internal error in the runtime: ") + e.what());
  }
}

} // namespace dlm::rt

#endif // DLM_RUNTIME_ERROR_H
