// The store's `current` link (docs/design.md, "The store"): one stable path that follows the
// global default, for tools that need a path rather than an environment.
//
// Switching never leaves a moment without `current`: a new link is made at current.tmp and then
// renamed over `current`, which replaces it in one step (rename(2) on POSIX). A crash leaves either
// the old link or the new one, plus maybe a current.tmp that recover_store() removes
// (store/store_recovery.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/result.h"
#include "store/state_store.h"
#include "store/store_layout.h"

namespace cudnnup {

std::string current_temp_path(const StoreLayout& layout);  // <root>/current.tmp

// The version id `current` points at; nullopt when there is no `current`. An error when it is
// not a link into versions/ (someone replaced it by hand).
Result<std::optional<std::string>> read_current(const FileSystem& fs, const StoreLayout& layout);

// Points `current` at versions/<id> (which must exist) without a gap.
Status switch_current(FileSystem& fs, const StoreLayout& layout, const std::string& id);
// Removes `current` (used when undo goes back to "no global default").
Status remove_current(FileSystem& fs, const StoreLayout& layout);

}  // namespace cudnnup
