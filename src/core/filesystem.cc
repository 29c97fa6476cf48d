#include "core/filesystem.h"

#include "core/paths.h"

namespace cudnnup {

Status FileSystem::make_dirs(const std::string& path) {
  if (is_dir(path)) return ok_status();
  std::string up = paths::parent(path);
  if (up != path && !up.empty() && up != ".") {
    if (auto s = make_dirs(up); !s) return s;
  }
  return make_dir(path);
}

}  // namespace cudnnup
