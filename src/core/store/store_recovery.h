// The store's own repairs, run under the store lock before a command changes the store and, when
// there is anything to repair, at the start of every command (app/commands/recovery.h), so every
// reader afterwards sees one consistent selection:
//   - temporary files an interrupted change left (current.tmp, state.json.tmp, a pin file's temp);
//   - a pin file change recorded as pending (HistoryEntry::pending): done if the pin file says
//     what it was to say, dropped if it still says what it said before;
//   - `current` behind state.json (a crash between writing one and switching the other):
//     state.json is the truth, `current` follows it.
// Links of toolkits (recover_toolkit_link) need the toolkit's lock and are the app's to call.
#pragma once

#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/result.h"
#include "store/state_store.h"
#include "store/store_layout.h"

namespace cudnnup {

// Cheap (a few lstat calls): whether recover_store would find anything to do.
bool store_needs_repair(const FileSystem& fs, const StoreLayout& layout, const StoreState& state);

// Returns one line per repair, for the user. Refuses (kPermission) a state.json that is not
// the user's own (StoreState::untrusted).
Result<std::vector<std::string>> recover_store(FileSystem& fs, const StoreLayout& layout, StoreState& state);

}  // namespace cudnnup
