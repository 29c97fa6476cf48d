// An advisory lock on a file, held for the life of the object: install, uninstall, use and link
// take the store's lock, and a toolkit's own lock when they change one, so two cudnnup processes
// (from one store or from two) never change the same thing at once. The OS drops the lock when
// the process dies, so a crash never leaves a stale lock behind. app/commands/locks.h is the
// one place the program takes locks; it says which and in what order.
#pragma once

#include <string>

#include "base/result.h"

namespace cudnnup {

class FileLock {
 public:
  // wait=false: fail at once with kConflict when another process holds it. The lock file is
  // created when missing.
  static Result<FileLock> acquire(const std::string& path, bool wait);
  // A lock on a directory that leaves nothing in it, not even after a crash (a CUDA toolkit
  // keeps no trace of cudnnup). POSIX: flock on the directory itself; where the filesystem
  // cannot lock a directory (NFS), a lock file ".cudnnup-lock" in it, deleted at release.
  // Windows: ".cudnnup-lock" opened delete-on-close, which the OS deletes when the process ends.
  static Result<FileLock> acquire_dir(const std::string& dir, bool wait);
  FileLock(FileLock&& other) noexcept
      : handle_(other.handle_), path_(std::move(other.path_)), remove_at_release_(other.remove_at_release_) {
    other.handle_ = kNone;
  }
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;
  ~FileLock() { release(); }

  // Deletes the lock file when the lock is let go, so a toolkit keeps no trace of cudnnup and a
  // refused first install leaves no store. Safe with other processes waiting on it: whoever gets
  // the lock checks that the file it locked is still the one at the path, and starts over if not.
  void remove_at_release(bool yes) { remove_at_release_ = yes; }
  void release();
  const std::string& path() const { return path_; }

 private:
  static constexpr long long kNone = -1;
  static Result<FileLock> acquire_file(const std::string& path, bool wait, unsigned long flags_and_attributes);  // Windows
  FileLock(long long handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  long long handle_ = kNone;  // fd on POSIX, HANDLE on Windows
  std::string path_;
  bool remove_at_release_ = false;
};

}  // namespace cudnnup
