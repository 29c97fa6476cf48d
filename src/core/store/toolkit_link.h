// `cudnnup link --into CUDA_DIR`: make a CUDA toolkit's cuDNN files follow the store's `current`
// link — the classic hand-made symlink scheme, but switching stays atomic (only `current` changes)
// and the setup is recorded in a manifest so `--undo` puts the toolkit back as it was.
//
// Each stable cuDNN name of the current version (libcudnn*.so, libcudnn*.so.<major>, *_static.a,
// cudnn*.h; Windows cudnn*.dll, cudnn*.lib) becomes a link in the toolkit pointing through
// <store>/current/..., so `cudnnup use` switches the toolkit together with `current`.
// A toolkit that holds cuDNN files of its own is refused unless they are moved aside (into
// CUDA_DIR/.cudnnup-aside/), which the manifest records.
#pragma once

#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/result.h"
#include "store/store_layout.h"

namespace cudnnup {

struct LinkItem {
  std::string link;    // in the toolkit
  std::string target;  // <store>/current/<sub>/<name>
};

struct AsideItem {
  std::string from;  // the toolkit's own file (or link)
  std::string to;    // CUDA_DIR/.cudnnup-aside/<sub>/<name>
};

struct LinkPlan {
  std::string cuda_dir;
  std::string manifest;              // CUDA_DIR/.cudnnup-link.json
  std::string version;               // the store version `current` points at now
  std::vector<LinkItem> links;       // to create (already-correct links are left out)
  std::vector<AsideItem> aside;      // the toolkit's own cuDNN files, to move aside
};

std::string link_manifest_path(const std::string& cuda_dir);

// What linking would do. Fails when CUDA_DIR is not a toolkit, `current` is missing, or the
// toolkit is already linked (manifest present).
Result<LinkPlan> plan_toolkit_link(const FileSystem& fs, const StoreLayout& layout, const std::string& cuda_dir,
                                   bool windows);

// Writes the manifest first, then moves the toolkit's own files aside and creates the links.
// A link over an existing name is made at a temp name and renamed into place.
Status apply_toolkit_link(FileSystem& fs, const LinkPlan& plan, const std::string& time);

// Undoes what the manifest records: our links are removed (or replaced in one rename by the
// file they displaced), moved files come back, the manifest goes. Safe to run after a crash
// half-way through apply or undo. Returns the plan it undid.
Result<LinkPlan> undo_toolkit_link(FileSystem& fs, const std::string& cuda_dir);

}  // namespace cudnnup
