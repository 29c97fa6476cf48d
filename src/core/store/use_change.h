// The changes `cudnnup use` makes, each recorded in the state's history so it can be undone.
// The caller holds the store lock and has run recover_store() (core/current_link.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/result.h"
#include "store/state_store.h"
#include "store/store_layout.h"
#include "store/version_spec.h"

namespace cudnnup {

// Sets (or, with nullopt, clears) the global default: state.json first, then `current`.
// A crash in between leaves state.json ahead of `current`; recover_store() finishes the switch.
// With `link_problem`, failing to switch `current` (a filesystem without links) is not an error:
// the default is recorded, env/exec follow it, and the reason lands there ("environment-only
// mode"). Without it, that failure is returned.
Status set_global_default(FileSystem& fs, const StoreLayout& layout, StoreState& state,
                          const std::optional<std::string>& id, const std::string& time,
                          std::string* link_problem = nullptr);

// Writes `spec` into the pin file (or removes it, with nullopt) and records the change.
Status set_pin_file(FileSystem& fs, const StoreLayout& layout, StoreState& state, const std::string& pin_path,
                    const std::optional<std::string>& spec, const std::string& time);

// Reverts the newest change not yet reverted (StoreState::last_undoable) and records the undo.
// Refuses (changing nothing) when there is nothing to undo, when the version to go back to is no
// longer installed, or when the pin file was edited by hand since.
// `link_problem` as for set_global_default.
Result<HistoryEntry> undo_last_change(FileSystem& fs, const StoreLayout& layout, StoreState& state,
                                      const std::vector<StoreVersionId>& installed, const std::string& time,
                                      std::string* link_problem = nullptr);

}  // namespace cudnnup
