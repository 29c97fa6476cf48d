#include "base/filesystem.h"

#include "base/paths.h"
#include "base/relative_path.h"

namespace cudnnup {
namespace {

class BufferedWriter final : public FileWriter {
 public:
  BufferedWriter(FileSystem& fs, std::string path) : fs_(fs), path_(std::move(path)) {}
  Status write(std::string_view bytes) override {
    data_.append(bytes);
    return ok_status();
  }
  Status close(bool sync) override { return fs_.write_file(path_, data_, sync); }

 private:
  FileSystem& fs_;
  std::string path_;
  std::string data_;
};

// The default check for the *_below calls: `rel` is well formed and no directory on the way to
// its last component is a link. Returns root/rel.
Result<std::string> walk_below(const FileSystem& fs, const std::string& root, const std::string& rel) {
  if (auto s = check_stays_below(rel); !s) return s.error();
  std::string at = root;
  size_t pos = 0;
  while (true) {
    size_t slash = rel.find('/', pos);
    if (slash == std::string::npos) break;
    at = paths::join(at, rel.substr(pos, slash - pos));
    auto info = fs.lstat(at);
    if (!info) return info.error();
    if (info->type == FileType::kSymlink) {
      return make_error(ErrorCode::kPermission, at + " is a link; cudnnup does not follow links below " + root, at);
    }
    if (info->type != FileType::kDirectory) return make_error(ErrorCode::kNotFound, at + " is not a directory", at);
    pos = slash + 1;
  }
  return paths::join(root, rel);
}

}  // namespace

Result<FileContents> FileSystem::read_regular(const std::string& path, size_t max_bytes, bool follow_link) const {
  auto info = follow_link ? stat(path) : lstat(path);
  if (!info) return info.error();
  if (info->type != FileType::kRegular) {
    return make_error(ErrorCode::kCorrupt,
                      path + (info->type == FileType::kSymlink ? " is a link" : " is not a regular file"), path);
  }
  auto bytes = read_range(path, 0, max_bytes + 1);
  if (!bytes) return bytes.error();
  if (bytes->size() > max_bytes) {
    return make_error(ErrorCode::kCorrupt, path + " is larger than " + std::to_string(max_bytes) + " bytes", path);
  }
  return FileContents{*info, std::move(*bytes)};
}

Result<FileInfo> FileSystem::lstat_below(const std::string& root, const std::string& rel) const {
  auto path = walk_below(*this, root, rel);
  if (!path) return path.error();
  return lstat(*path);
}

Result<std::vector<DirEntry>> FileSystem::list_dir_below(const std::string& root, const std::string& rel) const {
  auto info = lstat_below(root, rel);
  if (!info) return info.error();
  if (info->type != FileType::kDirectory) {
    return make_error(ErrorCode::kPermission, paths::join(root, rel) + " is not a directory (a link is not followed)",
                      paths::join(root, rel));
  }
  return list_dir(paths::join(root, rel));
}

Result<std::string> FileSystem::read_link_below(const std::string& root, const std::string& rel) const {
  auto path = walk_below(*this, root, rel);
  if (!path) return path.error();
  return read_link(*path);
}

Result<std::string> FileSystem::read_below(const std::string& root, const std::string& rel, uint64_t offset,
                                           size_t max_bytes) const {
  auto info = lstat_below(root, rel);
  if (!info) return info.error();
  std::string path = paths::join(root, rel);
  if (info->type != FileType::kRegular) {
    return make_error(ErrorCode::kPermission, path + " is not a regular file (a link is not followed)", path);
  }
  return read_range(path, offset, max_bytes);
}

Status FileSystem::make_dir_below(const std::string& root, const std::string& rel) {
  auto path = walk_below(*this, root, rel);
  if (!path) return path.error();
  if (auto info = lstat(*path); info && info->type == FileType::kSymlink) {
    return make_error(ErrorCode::kPermission, *path + " is a link, not a directory", *path);
  }
  return make_dir(*path);
}

Status FileSystem::rename_below(const std::string& root, const std::string& from_rel, const std::string& to_rel) {
  auto from = walk_below(*this, root, from_rel);
  if (!from) return from.error();
  auto to = walk_below(*this, root, to_rel);
  if (!to) return to.error();
  return rename(*from, *to);
}

Status FileSystem::remove_below(const std::string& root, const std::string& rel) {
  auto path = walk_below(*this, root, rel);
  if (!path) return path.error();
  return remove(*path);
}

Status FileSystem::symlink_below(const std::string& root, const std::string& target, const std::string& rel) {
  auto path = walk_below(*this, root, rel);
  if (!path) return path.error();
  return symlink(target, *path);
}

Status FileSystem::remove_tree_below(const std::string& root, const std::string& rel) {
  auto info = lstat_below(root, rel);
  if (!info) return info.error();
  if (info->type == FileType::kDirectory) {
    auto entries = list_dir_below(root, rel);
    if (!entries) return entries.error();
    for (const auto& e : *entries) {
      if (auto s = remove_tree_below(root, rel + "/" + e.name); !s) return s;
    }
  }
  return remove_below(root, rel);
}

Status FileSystem::make_dirs_below(const std::string& root, const std::string& rel) {
  if (auto s = check_stays_below(rel); !s) return s;
  for (size_t slash = rel.find('/');; slash = rel.find('/', slash + 1)) {
    std::string part = rel.substr(0, slash);
    auto info = lstat_below(root, part);
    if (!info || info->type != FileType::kDirectory) {
      if (auto s = make_dir_below(root, part); !s) return s;
    }
    if (slash == std::string::npos) break;
  }
  return ok_status();
}

Result<std::unique_ptr<FileWriter>> FileSystem::create_file(const std::string& path) {
  return std::unique_ptr<FileWriter>(std::make_unique<BufferedWriter>(*this, path));
}

Status FileSystem::remove_tree(const std::string& path) {
  auto info = lstat(path);
  if (!info) return info.error();
  if (info->type == FileType::kDirectory) {
    auto entries = list_dir(path);
    if (!entries) return entries.error();
    for (const auto& e : *entries) {
      if (auto s = remove_tree(paths::join(path, e.name)); !s) return s;
    }
  }
  return remove(path);
}

Result<std::string> FileSystem::read_stream(const std::string& path, size_t max_bytes) const {
  if (auto info = stat(path); info && info->type == FileType::kDirectory) {
    return make_error(ErrorCode::kUsage, path + " is a folder, not a file", path);
  }
  auto text = read_range(path, 0, max_bytes + 1);
  if (text && text->size() > max_bytes) return too_large_input(path, max_bytes);
  return text;
}

Error too_large_input(const std::string& path, size_t max_bytes) {
  return make_error(ErrorCode::kCorrupt,
                    path + " is larger than " + std::to_string(max_bytes >> 20) + " MiB: give the part around the error", path);
}

Status FileSystem::make_dirs(const std::string& path) {
  if (is_dir(path)) return ok_status();
  std::string up = paths::parent(path);
  if (up != path && !up.empty() && up != ".") {
    if (auto s = make_dirs(up); !s) return s;
  }
  return make_dir(path);
}

}  // namespace cudnnup
