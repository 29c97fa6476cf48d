// Shared by the version commands (list, use, current, env, exec, init, link) and by uninstall:
// reading the store, taking its lock, and answering "which version is selected here".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/cli/app_context.h"
#include "store/selection.h"
#include "store/state_store.h"
#include "store/store_layout.h"
#include "store/version_spec.h"
#include "app/commands/locks.h"

namespace cudnnup {

struct StoreSnapshot {
  StoreLayout layout;
  StoreState state;
  std::vector<StoreVersionId> installed;  // best first
};

// Reads state.json and versions/ without the lock (readers see whole files thanks to rename).
Result<StoreSnapshot> read_store(const AppContext& ctx);

// The store, locked (app/commands/locks.h; waiting for another cudnnup unless kNoWait), after
// the recovery pass (app/commands/recovery.h). `repairs` says what the recovery did. Refuses a
// store whose state.json is not the user's own (store/state_store.h check_state_trusted).
// A store directory this creates is removed again on release if nothing was put in it.
struct LockedStore {
  StoreLock lock;
  StoreSnapshot store;
  std::vector<std::string> repairs;
};
Result<LockedStore> lock_store(AppContext& ctx, LockWait wait = LockWait::kWait);

// The selection in this context (command line > CUDNNUP_VERSION > pin file > global).
Result<SelectionRequest> selection_request(const AppContext& ctx, const StoreSnapshot& store,
                                           const std::optional<std::string>& command_line = std::nullopt);
Result<Selection> selected_version(const AppContext& ctx, const StoreSnapshot& store,
                                   const std::optional<std::string>& command_line = std::nullopt);

// For `cudnnup uninstall`: the selection in this context (CUDNNUP_VERSION, pin file or global
// default) and the version id it resolves to (nullopt when nothing is selected, `system` is, or the
// selection does not resolve). Uninstall refuses a version selected here other than by the global
// default, and clears the global default when it removes that version.
struct ActiveVersion {
  SelectionRequest request;
  std::optional<std::string> id;
};
Result<ActiveVersion> active_version(AppContext& ctx);

// Now, UTC, ISO 8601 ("2026-11-30T00:21:02Z"), for the history.
std::string utc_now_iso();

// "/a/b" -> "/a/b" on Linux, "C:\a\b" on Windows, for text output.
std::string shown_path(const AppContext& ctx, const std::string& path);

}  // namespace cudnnup

#include "shell/shell_env.h"

namespace cudnnup {

// The environment plan for a selection: other store versions, the `current` alias and
// `other_copy_dirs` (e.g. lib dirs of copies the doctor found) are removed from the search lists.
EnvPlan environment_for(const AppContext& ctx, const StoreSnapshot& store, const Selection& selection,
                        const std::vector<std::string>& other_copy_dirs = {});

// The environment under `system` (shell/shell_env.h plan_system_environment): every store
// version and `current` taken out of the search lists.
EnvPlan system_environment_for(const AppContext& ctx, const StoreSnapshot& store);

// Checks a plan with the loader model (loader/which.h): when a plain program started with the
// planned variables would not get the selected copy (an LD_PRELOAD, an empty LD_LIBRARY_PATH
// entry, a sub-library mix), a "check:" note says so.
void check_plan_with_loader(const AppContext& ctx, const Selection& selection, EnvPlan& plan);

}  // namespace cudnnup
