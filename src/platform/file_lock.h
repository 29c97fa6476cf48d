// An advisory lock on a file, held for the life of the object: install, uninstall and use take
// the store's lock so two cudnnup processes never change the same state at once. The OS drops
// the lock when the process dies, so a crash never leaves a stale lock behind.
#pragma once

#include <string>

#include "base/result.h"

namespace cudnnup {

class FileLock {
 public:
  // wait=false: fail at once with kConflict when another process holds it.
  static Result<FileLock> acquire(const std::string& path, bool wait);
  FileLock(FileLock&& other) noexcept : handle_(other.handle_) { other.handle_ = kNone; }
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;
  ~FileLock();

 private:
  static constexpr long long kNone = -1;
  explicit FileLock(long long handle) : handle_(handle) {}
  long long handle_ = kNone;  // fd on POSIX, HANDLE on Windows
};

}  // namespace cudnnup
