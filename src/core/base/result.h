// Errors are values: every fallible function returns Result<T>. Only main() turns an Error
// into an exit code, so the logic never exits or throws across layers.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "base/fix_step.h"

namespace cudnnup {

enum class ErrorCode {
  kUsage,        // the user asked for something malformed
  kNotFound,     // a file, version or copy does not exist
  kPermission,   // the OS refused access
  kIo,           // a read or write failed
  kCorrupt,      // the bytes are not what they claim to be (bad ELF, truncated archive, ...)
  kUnsupported,  // valid, but not something we handle (wrong platform, unknown format)
  kTimeout,      // a child process or download took too long
  kConflict,     // another cudnnup holds the lock, or the target is in use
  kInternal,     // a bug in cudnnup
};

const char* error_code_name(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;  // one sentence for a person; says what to do where there is something
  std::string path;     // the file the error is about, if any
  // The commands that fix it, as steps (never written into `message`, which would fix their
  // quoting to one shell): report_error prints them for the user's shell, JSON carries them.
  std::vector<FixStep> fix = {};
};

inline Error make_error(ErrorCode code, std::string message, std::string path = {}) {
  return Error{code, std::move(message), std::move(path), {}};
}

// `error` with these fix steps after any it had.
inline Error with_fix(Error error, std::vector<FixStep> fix) {
  error.fix.insert(error.fix.end(), fix.begin(), fix.end());
  return error;
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(state_); }

  T value_or(T fallback) const { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Error> state_;
};

// Result<void> stand-in.
struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

}  // namespace cudnnup
