// The one place cudnnup takes locks (docs/security.md, "Locks"):
//
//   <store>/lock              every change to a store: install, uninstall, use, link and the
//                             start-up recovery. Per store (CUDNNUP_HOME).
//   the toolkit directory     every change to a CUDA toolkit: install --into, uninstall --into,
//                             link --into and --undo, and the recovery of their journals. Shared
//                             by every store, so two stores never change one toolkit at once.
//                             A lock on the directory itself (FileLock::acquire_dir), so the
//                             toolkit keeps no trace of cudnnup, not even after a crash.
//
// Order: a store's lock first, then a toolkit's, never the reverse, so two cudnnup processes
// cannot wait for each other. A command that finds a lock held waits, saying so on stderr,
// unless --no-wait (then exit 4 at once); the start-up recovery never waits.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/cli/app_context.h"
#include "platform/file_lock.h"
#include "store/store_layout.h"

namespace cudnnup {

enum class LockWait { kWait, kNoWait };

// Takes the lock file at `path`; with kWait, tells the user when it has to wait.
Result<FileLock> take_lock(const AppContext& ctx, const std::string& path, LockWait wait);

// The store's lock. With create, a missing store directory is made first; a store this lock
// created is removed again when the lock is let go if nothing was put in it (a refused first
// install leaves no trace). Without create, a missing store is kNotFound.
class StoreLock {
 public:
  StoreLock(StoreLock&& other) noexcept
      : fs_(other.fs_), root_(std::move(other.root_)), lock_(std::move(other.lock_)), created_(std::move(other.created_)) {
    other.lock_.reset();
    other.created_.clear();
  }
  StoreLock& operator=(StoreLock&&) = delete;
  ~StoreLock();
  void release();

 private:
  friend Result<StoreLock> lock_store_root(AppContext& ctx, const StoreLayout& layout, LockWait wait, bool create);
  StoreLock(FileSystem* fs, std::string root, FileLock lock, std::vector<std::string> created)
      : fs_(fs), root_(std::move(root)), lock_(std::move(lock)), created_(std::move(created)) {}
  FileSystem* fs_;
  std::string root_;
  std::optional<FileLock> lock_;
  std::vector<std::string> created_;  // directories this lock made, deepest first (the store, maybe its parents)
};
Result<StoreLock> lock_store_root(AppContext& ctx, const StoreLayout& layout, LockWait wait, bool create = true);

// The toolkit's lock (after the store's). A toolkit the user may not write gives kPermission;
// the caller adds the command that would work.
Result<FileLock> lock_toolkit(const AppContext& ctx, const std::string& toolkit_root, LockWait wait);

}  // namespace cudnnup
