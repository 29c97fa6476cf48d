#include "store/current_link.h"

#include "base/paths.h"

namespace cudnnup {
namespace {

Status remove_if_present(FileSystem& fs, const std::string& path) {
  if (!fs.exists(path)) return ok_status();
  return fs.remove(path);
}

}  // namespace

std::string current_temp_path(const StoreLayout& layout) { return layout.current_link() + ".tmp"; }

Result<std::optional<std::string>> read_current(const FileSystem& fs, const StoreLayout& layout) {
  std::string link = layout.current_link();
  auto info = fs.lstat(link);
  if (!info) {
    if (info.error().code == ErrorCode::kNotFound) return std::optional<std::string>();
    return info.error();
  }
  auto target = fs.read_link(link);
  if (!target) {
    return make_error(ErrorCode::kConflict,
                      link + " is not a link (was it replaced by hand?); move it aside and run `cudnnup use VERSION`",
                      link);
  }
  std::string full = paths::normalize(paths::is_absolute(*target) ? *target : paths::join(layout.root, *target));
  if (paths::parent(full) != paths::normalize(layout.versions_dir())) {
    return make_error(ErrorCode::kConflict,
                      link + " points at " + *target + ", outside " + layout.versions_dir() +
                          "; remove it and run `cudnnup use VERSION`",
                      link);
  }
  return std::optional<std::string>(std::string(paths::basename(full)));
}

Status switch_current(FileSystem& fs, const StoreLayout& layout, const std::string& id) {
  std::string link = layout.current_link();
  std::string tmp = current_temp_path(layout);
  if (auto info = fs.lstat(link); info && info->type != FileType::kSymlink) {
    // A junction reads as a link too (see FileSystem::create_dir_link); a real directory here is
    // someone's data, which we never replace.
    if (!fs.read_link(link)) {
      return make_error(ErrorCode::kConflict,
                        link + " is a real directory or file, not a link; move it aside and run the command again", link);
    }
  }
  if (auto s = remove_if_present(fs, tmp); !s) return s;
  if (auto s = fs.create_dir_link(layout.version_dir(id), tmp); !s) return s;
  return fs.rename(tmp, link);
}

Status remove_current(FileSystem& fs, const StoreLayout& layout) {
  return remove_if_present(fs, layout.current_link());
}

}  // namespace cudnnup
