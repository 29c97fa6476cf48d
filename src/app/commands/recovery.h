// Start-up repair: a cudnnup run that was killed mid-change leaves a journal (install,
// uninstall: core/install/transaction.h), temporary files, a pending pin change or a half-made
// link (core/store/store_recovery.h, toolkit_link.h). The next run repairs them before doing
// anything else, so every command afterwards sees one consistent store. Journals and records that
// are not the user's own, or name anything outside their root, are reported and left alone
// (docs/security.md).
#pragma once

#include <string>
#include <vector>

#include "app/cli/app_context.h"
#include "app/commands/locks.h"
#include "base/filesystem.h"
#include "store/state_store.h"
#include "store/store_layout.h"

namespace cudnnup {

struct RecoveryReport {
  std::vector<std::string> repaired;  // one line per repair
  std::vector<Error> refused;         // journals and records not acted on, and why
};

// With the store lock held: journals (each merge under its toolkit's lock, without waiting: a
// busy toolkit is left for the next run), then the store's own files, then toolkits whose link
// or undo was interrupted. `state` is updated. Fails only when a repair itself fails.
Result<RecoveryReport> recover_with_lock_held(AppContext& ctx, const StoreLayout& store, StoreState& state);

// On stderr: "cudnnup: <repair>" and "cudnnup: warning: <refusal>" lines.
void print_recovery(const RecoveryReport& report);

// For every command at start-up: when the store has anything to repair (a few lstat calls
// decide), takes the store lock without waiting (when another cudnnup holds it, that process
// owns the leftovers and nothing is done), repairs and prints. Never fails the command.
void recover_at_start(AppContext& ctx);

}  // namespace cudnnup
