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

// `use VERSION`, `use system`, `use --unset` for the global default (`id`: the version id,
// "system", or nullopt). Only a new selection is a change, with one history entry to undo.
// Asking again for the default in force records nothing: it only makes `current` agree with it
// again (links cannot be made here, or were removed by hand), and where it cannot, the reason
// lands in `link_problem`. Returns whether the selection changed.
Result<bool> choose_global_default(FileSystem& fs, const StoreLayout& layout, StoreState& state,
                                   const std::optional<std::string>& id, const std::string& time,
                                   std::string* link_problem);

// Writes `spec` into the pin file (or removes it, with nullopt) and records the change: first as
// pending, then done (see HistoryEntry::pending).
Status set_pin_file(FileSystem& fs, const StoreLayout& layout, StoreState& state, const std::string& pin_path,
                    const std::optional<std::string>& spec, const std::string& time);

// Reverts the newest change not yet reverted (StoreState::last_undoable) and records the undo.
// Refuses (changing nothing) when there is nothing to undo, when the version to go back to is no
// longer installed, or when the pin file was edited by hand since.
// `link_problem` as for set_global_default. Refuses while the newest change is still pending.
Result<HistoryEntry> undo_last_change(FileSystem& fs, const StoreLayout& layout, StoreState& state,
                                      const std::vector<StoreVersionId>& installed, const std::string& time,
                                      std::string* link_problem = nullptr);

// The pin file's write: temp file next to it, then one rename (nullopt removes it).
Status write_pin_file(FileSystem& fs, const std::string& path, const std::optional<std::string>& spec);
std::string pin_temp_path(const std::string& pin_path);  // <pin>.cudnnup-new
// The spec a pin file holds now; nullopt when there is none; an error when it cannot be read.
Result<std::optional<std::string>> pin_file_spec(const FileSystem& fs, const std::string& path);

}  // namespace cudnnup
