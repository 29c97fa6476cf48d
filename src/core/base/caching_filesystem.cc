#include "base/caching_filesystem.h"

namespace cudnnup {
namespace {

template <typename Map, typename Key, typename Fn>
auto remember(std::mutex& mu, Map& map, const Key& key, Fn&& compute) -> typename Map::mapped_type {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = map.find(key); it != map.end()) return it->second;
  }
  auto value = compute();
  std::lock_guard<std::mutex> lock(mu);
  map.emplace(key, value);
  return value;
}

}  // namespace

Result<FileInfo> CachingFileSystem::stat(const std::string& path) const {
  return remember(mu_, stat_, path, [&] { return inner_.stat(path); });
}

Result<FileInfo> CachingFileSystem::lstat(const std::string& path) const {
  return remember(mu_, lstat_, path, [&] { return inner_.lstat(path); });
}

Result<std::vector<DirEntry>> CachingFileSystem::list_dir(const std::string& path) const {
  return remember(mu_, dirs_, path, [&] { return inner_.list_dir(path); });
}

Result<std::string> CachingFileSystem::read_link(const std::string& path) const {
  return remember(mu_, links_, path, [&] { return inner_.read_link(path); });
}

Result<std::string> CachingFileSystem::canonical(const std::string& path) const {
  return remember(mu_, canonical_, path, [&] { return inner_.canonical(path); });
}

Result<std::string> CachingFileSystem::read_range(const std::string& path, uint64_t offset, size_t max_bytes) const {
  if (max_bytes > kMaxCachedRead) return inner_.read_range(path, offset, max_bytes);
  return remember(mu_, reads_, std::make_tuple(path, offset, max_bytes),
                  [&] { return inner_.read_range(path, offset, max_bytes); });
}

Status CachingFileSystem::writable_or_error(const std::string& path) const {
  if (!writable_) return make_error(ErrorCode::kInternal, "read-only filesystem view asked to write", path);
  return ok_status();
}

void CachingFileSystem::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  stat_.clear();
  lstat_.clear();
  dirs_.clear();
  links_.clear();
  canonical_.clear();
  reads_.clear();
}

Status CachingFileSystem::make_dir(const std::string& path) {
  if (auto s = writable_or_error(path); !s) return s;
  clear();
  return writable_->make_dir(path);
}

Status CachingFileSystem::write_file(const std::string& path, const std::string& contents, bool sync) {
  if (auto s = writable_or_error(path); !s) return s;
  clear();
  return writable_->write_file(path, contents, sync);
}

Status CachingFileSystem::rename(const std::string& from, const std::string& to) {
  if (auto s = writable_or_error(from); !s) return s;
  clear();
  return writable_->rename(from, to);
}

Status CachingFileSystem::remove(const std::string& path) {
  if (auto s = writable_or_error(path); !s) return s;
  clear();
  return writable_->remove(path);
}

Status CachingFileSystem::symlink(const std::string& target, const std::string& link) {
  if (auto s = writable_or_error(link); !s) return s;
  clear();
  return writable_->symlink(target, link);
}

Status CachingFileSystem::create_dir_link(const std::string& target, const std::string& link) {
  if (auto s = writable_or_error(link); !s) return s;
  clear();
  return writable_->create_dir_link(target, link);
}

}  // namespace cudnnup
