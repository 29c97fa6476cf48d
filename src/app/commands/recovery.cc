#include "app/commands/recovery.h"

#include <iostream>

#include "install/transaction.h"
#include "platform/file_lock.h"

namespace cudnnup {

Result<std::vector<std::string>> recover_with_lock_held(FileSystem& fs, const StoreLayout& store) {
  TransactionRunner runner(fs, store.journal_dir());
  return runner.recover();
}

std::vector<std::string> recover_pending_transactions(AppContext& ctx) {
  StoreLayout store = StoreLayout::for_environment(ctx.env);
  if (!ctx.fs->is_dir(store.journal_dir())) return {};
  auto entries = ctx.fs->list_dir(store.journal_dir());
  if (!entries || entries->empty()) return {};
  auto lock = FileLock::acquire(store.lock_file(), /*wait=*/false);
  if (!lock) return {};  // another cudnnup is working; its journals are its own
  auto repaired = recover_with_lock_held(*ctx.fs, store);
  if (!repaired) {
    std::cerr << "cudnnup: warning: " << repaired.error().message << std::endl;
    return {};
  }
  for (const auto& r : *repaired) std::cerr << "cudnnup: " << r << std::endl;
  return *repaired;
}

}  // namespace cudnnup
