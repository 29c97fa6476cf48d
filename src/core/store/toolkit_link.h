// `cudnnup link --into CUDA_DIR`: the toolkit's cuDNN files become links to the same names under
// the store's `current`, so `cudnnup use` switches the toolkit together with `current`.
// A toolkit that holds cuDNN files of its own is refused unless they are moved aside (into
// CUDA_DIR/.cudnnup-aside/), which the manifest records.
//
// A transaction (docs/commands/versions.md, "link"): the store records the toolkit as "linking"
// in state.json, the toolkit's manifest CUDA_DIR/.cudnnup-link.json is written (in-progress), the
// links are made, the manifest says done, the store says "linked". A failure part-way undoes
// everything before returning; a crash is finished or undone by the next run's recovery
// (recover_toolkit_link), so the toolkit is always exactly as before or fully linked.
// The manifest holds the toolkit's real path and paths relative to it, is written 0600 and
// checked in every field before it is acted on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/result.h"
#include "store/state_store.h"
#include "store/store_layout.h"

namespace cudnnup {

struct LinkItem {
  std::string link;    // relative to the toolkit, by real directories ("lib/libcudnn.so.9")
  std::string target;  // absolute: <store>/current/<sub>/<name>
};

struct AsideItem {
  std::string from;  // relative: the toolkit's own file (or link)
  std::string to;    // relative: .cudnnup-aside/<sub>/<name>
};

struct LinkPlan {
  std::string cuda_dir;              // the toolkit's real path
  std::string store;                 // the real path of the store whose `current` the links follow
  std::string manifest;              // CUDA_DIR/.cudnnup-link.json
  std::string version;               // the store version `current` points at now
  std::vector<LinkItem> links;       // to create (already-correct links are left out)
  std::vector<AsideItem> aside;      // the toolkit's own cuDNN files, to move aside
  bool windows = false;              // paths in printed commands are written C:\...
};

std::string link_manifest_path(const std::string& cuda_dir);

// What linking would do. Fails when CUDA_DIR is not a toolkit, lies inside the store (its
// `current` or a version directory), has a directory that leads outside it, is already linked,
// holds originals an earlier undo kept aside, or when `current` is missing.
Result<LinkPlan> plan_toolkit_link(const FileSystem& fs, const StoreLayout& layout, const std::string& cuda_dir,
                                   bool windows);

// The toolkit side of `link`: manifest first, then the files. All or nothing: on a failure the
// changes made so far are undone before the error is returned; `rolled_back` says whether that
// worked (if not, the manifest stays and recovery or `link --undo` finishes the undo).
Status apply_toolkit_link(FileSystem& fs, const LinkPlan& plan, const std::string& time, bool* rolled_back = nullptr);

struct KeptEntry {
  std::string path;   // in the toolkit, absolute
  std::string aside;  // where the toolkit's original still is ("" when there was none)
  std::string why;
};

struct UnlinkReport {
  LinkPlan plan;
  std::vector<std::string> removed;   // our links taken out (absolute)
  std::vector<std::string> restored;  // the toolkit's own files put back (absolute)
  std::vector<KeptEntry> kept;        // changed by the user since `link`: left as they are
};

// Undoes what the manifest records: our links are removed (or replaced in one rename by the
// file they displaced), moved files come back, the manifest goes. An entry the user changed
// since is kept as they made it, with the original left aside; the report says which. Safe to
// run after a crash half-way through apply or undo.
Result<UnlinkReport> undo_toolkit_link(FileSystem& fs, const std::string& cuda_dir);

// The toolkit's link manifest, checked in every field against `cuda_dir` (its real path); with
// `acting`, also that it belongs to the user cudnnup runs as and nobody else may write it.
// `status` receives "in-progress" or "done".
Result<LinkPlan> read_link_manifest(const FileSystem& fs, const std::string& cuda_dir, bool acting,
                                    std::string* status = nullptr);

// The store side: record, apply, record (see the top of this file). The caller holds the store
// lock and the toolkit's.
Status link_toolkit(FileSystem& fs, const StoreLayout& layout, StoreState& state, const LinkPlan& plan,
                    const std::string& time);
Result<UnlinkReport> unlink_toolkit(FileSystem& fs, const StoreLayout& layout, StoreState& state, const std::string& cuda_dir);

// For the recovery pass: a link or undo of `cuda_dir` the state records as in progress is
// finished ("linking" with a done manifest, "unlinking") or undone ("linking" otherwise).
// Returns a line for the user, "" when nothing was to do.
Result<std::string> recover_toolkit_link(FileSystem& fs, const StoreLayout& layout, StoreState& state,
                                         const std::string& cuda_dir);

// Links of the toolkits linked to this store that would dangle if `current` pointed at
// `version` (nullopt: no `current` at all): "CUDA_DIR/lib/libcudnn_ops.so.9 -> ..." each.
std::vector<std::string> links_that_would_dangle(const FileSystem& fs, const StoreLayout& layout, const StoreState& state,
                                                 const std::optional<std::string>& version);

}  // namespace cudnnup
