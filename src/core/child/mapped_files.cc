#include "child/mapped_files.h"

#include <algorithm>

#include "base/paths.h"
#include "base/strings.h"
#include "facts/cudnn_files.h"

namespace cudnnup {

namespace {

std::string comparable(const std::string& path, bool windows) {
  std::string out = paths::normalize(path);
  if (windows) {
    std::replace(out.begin(), out.end(), '\\', '/');
    out = ascii_lower(out);
  }
  return out;
}

}  // namespace

std::vector<MappedCudnnFile> attribute_cudnn_files(const std::vector<std::string>& mapped,
                                                   const std::vector<std::string>& copy_dirs, bool windows) {
  std::vector<std::string> dirs;
  for (const auto& d : copy_dirs) dirs.push_back(comparable(d, windows));
  std::vector<MappedCudnnFile> out;
  for (const auto& path : mapped) {
    std::string unified = path;
    if (windows) std::replace(unified.begin(), unified.end(), '\\', '/');
    auto name = parse_cudnn_library_name(paths::basename(unified));
    if (!name || name->dev_link) continue;
    MappedCudnnFile f;
    f.path = path;
    f.directory = paths::parent(unified);
    const std::string dir = comparable(f.directory, windows);
    for (size_t i = 0; i < dirs.size(); ++i) {
      if (dirs[i] == dir) f.copy = static_cast<int>(i);
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<MappedCudnnFile> foreign_cudnn_files(const std::vector<std::string>& mapped, const std::string& copy_dir,
                                                 bool windows, const std::vector<std::string>& own_files) {
  std::vector<std::string> own;
  for (const auto& f : own_files) own.push_back(comparable(f, windows));
  std::vector<MappedCudnnFile> out;
  for (auto& f : attribute_cudnn_files(mapped, {copy_dir}, windows)) {
    if (f.copy >= 0 || std::find(own.begin(), own.end(), comparable(f.path, windows)) != own.end()) continue;
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<std::string> directories_of(const std::vector<MappedCudnnFile>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) {
    if (std::find(out.begin(), out.end(), f.directory) == out.end()) out.push_back(f.directory);
  }
  return out;
}

}  // namespace cudnnup
