// Start-up repair: a cudnnup run that was killed mid-install leaves a journal in the store
// (core/transaction.h). The next run completes or rolls it back before doing anything else.
#pragma once

#include <string>
#include <vector>

#include "app/cli/app_context.h"
#include "base/filesystem.h"
#include "store/store_layout.h"

namespace cudnnup {

// For any command to call at start-up: takes the store lock without waiting (when another
// cudnnup holds it, that process owns the journals and nothing is done), repairs, and prints one
// line per repair on stderr. Returns what was repaired. Never fails the command: problems are
// printed with the journal's path.
std::vector<std::string> recover_pending_transactions(AppContext& ctx);

// The same with the lock already held (install/uninstall call this under their own lock).
Result<std::vector<std::string>> recover_with_lock_held(FileSystem& fs, const StoreLayout& store);

}  // namespace cudnnup
