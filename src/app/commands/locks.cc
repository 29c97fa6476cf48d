#include "app/commands/locks.h"

#include <iostream>

#include "base/paths.h"

namespace cudnnup {

namespace {

// Tries at once; when held, fails (kNoWait) or says so and waits.
template <typename Acquire>
Result<FileLock> acquire_or_wait(const AppContext& ctx, const std::string& what, LockWait wait, Acquire&& acquire) {
  auto first = acquire(/*wait=*/false);
  if (first || first.error().code != ErrorCode::kConflict) return first;
  if (wait == LockWait::kNoWait) {
    return make_error(ErrorCode::kConflict,
                      "another cudnnup is changing this (it holds the lock on " + what + "); try again when it has finished",
                      what);
  }
  if (!ctx.options.json) std::cerr << "cudnnup: waiting for another cudnnup to finish (" << what << ")..." << std::endl;
  return acquire(/*wait=*/true);
}

}  // namespace

Result<FileLock> take_lock(const AppContext& ctx, const std::string& path, LockWait wait) {
  return acquire_or_wait(ctx, path, wait, [&](bool w) { return FileLock::acquire(path, w); });
}

StoreLock::~StoreLock() { release(); }

namespace {

// Removes the directories in `dirs` (deepest first) that are empty, stopping at the first that is not.
void remove_empty(FileSystem& fs, const std::vector<std::string>& dirs) {
  for (const auto& d : dirs) {
    auto entries = fs.list_dir(d);
    if (!entries || !entries->empty() || !fs.remove(d)) return;
  }
}

}  // namespace

void StoreLock::release() {
  if (!lock_) return;
  if (!created_.empty() && fs_) {
    // Nothing but our lock file in a store we made: the command was refused; leave no trace.
    auto entries = fs_->list_dir(root_);
    bool only_lock = entries && entries->size() == 1 && entries->front().name == "lock";
    if (only_lock) lock_->remove_at_release(true);
    lock_->release();
    if (only_lock) remove_empty(*fs_, created_);
  }
  lock_.reset();
}

Result<StoreLock> lock_store_root(AppContext& ctx, const StoreLayout& layout, LockWait wait, bool create) {
  std::vector<std::string> created;  // deepest first
  if (!ctx.fs->is_dir(layout.root)) {
    if (!create) return make_error(ErrorCode::kNotFound, "there is no store at " + layout.root, layout.root);
    for (std::string d = layout.root; !ctx.fs->exists(d) && paths::parent(d) != d; d = paths::parent(d)) created.push_back(d);
    if (auto s = ctx.fs->make_dirs(layout.root); !s) {
      remove_empty(*ctx.fs, created);
      return make_error(s.error().code, "cannot create the store at " + layout.root + ": " + s.error().message +
                                            " (set CUDNNUP_HOME to a writable directory)", layout.root);
    }
  }
  auto lock = take_lock(ctx, layout.lock_file(), wait);
  if (!lock) {
    remove_empty(*ctx.fs, created);
    return lock.error();
  }
  return StoreLock(ctx.fs.get(), layout.root, std::move(*lock), std::move(created));
}

Result<FileLock> lock_toolkit(const AppContext& ctx, const std::string& toolkit_root, LockWait wait) {
  return acquire_or_wait(ctx, toolkit_root, wait, [&](bool w) { return FileLock::acquire_dir(toolkit_root, w); });
}

}  // namespace cudnnup
