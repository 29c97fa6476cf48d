#include "base/caching_filesystem.h"

#include <limits>

#include "base/strings.h"

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

CachingFileSystem::Shard& CachingFileSystem::shard_for(const std::string& path) const {
  // The top bits: a map that picks its buckets from the low bits then still uses all of them.
  constexpr int kShift = std::numeric_limits<size_t>::digits - 4;
  static_assert(kShards == 16);
  return shards_[std::hash<std::string>{}(path) >> kShift];
}

Result<FileInfo> CachingFileSystem::stat(const std::string& path) const {
  Shard& s = shard_for(path);
  return remember(s.mu, s.stat, path, [&] { return inner_.stat(path); });
}

Result<FileInfo> CachingFileSystem::lstat(const std::string& path) const {
  Shard& s = shard_for(path);
  return remember(s.mu, s.lstat, path, [&] { return inner_.lstat(path); });
}

Result<std::vector<DirEntry>> CachingFileSystem::list_dir(const std::string& path) const {
  Shard& s = shard_for(path);
  return remember(s.mu, s.dirs, path, [&] { return inner_.list_dir(path); });
}

Result<std::string> CachingFileSystem::read_link(const std::string& path) const {
  Shard& s = shard_for(path);
  return remember(s.mu, s.links, path, [&] { return inner_.read_link(path); });
}

Result<std::string> CachingFileSystem::canonical(const std::string& path) const {
  // realpath(3) asks the system for the link of every component of every path; doctor resolves
  // hundreds of paths under the same few directories. A POSIX absolute path is resolved here
  // instead, one component at a time from the cached lstat and read_link answers, so a directory
  // shared by many paths costs one system call. Other paths (relative, "C:/...", "//server/...")
  // get the system's own answer.
  bool posix_absolute = path.size() > 0 && path[0] == '/' && !(path.size() > 1 && path[1] == '/');
  Shard& s = shard_for(path);
  return remember(s.mu, s.canonical, path, [&] { return posix_absolute ? resolve_components(path) : inner_.canonical(path); });
}

Result<std::string> CachingFileSystem::resolve_components(const std::string& path) const {
  // What realpath does: components left to right, "." skipped, ".." to the parent of what is
  // resolved so far (which holds no link), a link's target put in front of what is left (from "/"
  // when absolute), at most 40 links, and every component but the last a directory.
  constexpr int kMaxLinks = 40;  // glibc's MAXSYMLINKS
  std::vector<std::string> left;  // components still to resolve, the next one last
  auto push_front = [&left](const std::string& p) {
    std::vector<std::string> parts = split(p, '/');
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) left.push_back(*it);
  };
  auto fail = [&path](ErrorCode code, const std::string& why) { return make_error(code, "cannot resolve " + path + ": " + why, path); };
  push_front(path);
  std::string resolved;  // "" is the root
  int links = 0;
  while (!left.empty()) {
    std::string c = std::move(left.back());
    left.pop_back();
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      resolved.resize(resolved.empty() ? 0 : resolved.rfind('/'));
      continue;
    }
    std::string next = resolved + "/" + c;
    auto info = lstat(next);
    if (!info) return fail(info.error().code, info.error().message);
    if (info->type == FileType::kSymlink) {
      if (++links > kMaxLinks) return fail(ErrorCode::kIo, "Too many levels of symbolic links");
      auto target = read_link(next);
      if (!target) return fail(target.error().code, target.error().message);
      if (target->empty()) return fail(ErrorCode::kNotFound, next + " is a link to nothing");
      if ((*target)[0] == '/') resolved.clear();
      push_front(*target);
      continue;
    }
    // A trailing "/" or a further component needs a directory ("x/" leaves an empty component).
    if (!left.empty() && info->type != FileType::kDirectory) return fail(ErrorCode::kNotFound, next + ": Not a directory");
    resolved = std::move(next);
  }
  return resolved.empty() ? std::string("/") : resolved;
}

const CachingFileSystem::Block* CachingFileSystem::block_for(const Shard& shard, const std::string& path, uint64_t offset,
                                                             size_t n) {
  auto it = shard.blocks.find(path);
  if (it == shard.blocks.end()) return nullptr;
  for (const Block& b : it->second) {
    uint64_t end = b.offset + b.bytes.size();
    // A block that reached the end of the file answers every offset past its start (with "" past the end).
    if (offset >= b.offset && (offset + n <= end || b.to_end)) return &b;
  }
  return nullptr;
}

Result<std::string> CachingFileSystem::read_range(const std::string& path, uint64_t offset, size_t max_bytes) const {
  Shard& s = shard_for(path);
  if (max_bytes > kMaxCachedRead) {
    // A large read of a small file (read_file(header, 1 MiB): the loader model reads a copy's
    // cudnn_version.h for every framework and search it models) is kept like a small one when
    // the file ended within kMaxCachedRead; a large body is never kept.
    {
      std::lock_guard<std::mutex> lock(s.mu);
      if (const Block* b = block_for(s, path, offset, max_bytes); b && b->to_end) {
        uint64_t from = offset - b->offset;
        return from >= b->bytes.size() ? std::string() : b->bytes.substr(from);
      }
    }
    auto bytes = inner_.read_range(path, offset, max_bytes);
    if (bytes && bytes->size() < kMaxCachedRead) {
      std::lock_guard<std::mutex> lock(s.mu);
      s.blocks[path].push_back(Block{offset, *bytes, true});
    }
    return bytes;
  }
  auto answer = [&](const Block& b) {
    uint64_t from = offset - b.offset;
    return from >= b.bytes.size() ? std::string() : b.bytes.substr(from, max_bytes);
  };
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (auto e = s.read_errors.find(path); e != s.read_errors.end()) return e->second;
    if (const Block* b = block_for(s, path, offset, max_bytes)) return answer(*b);
  }
  auto bytes = inner_.read_range(path, offset, max_bytes);
  std::lock_guard<std::mutex> lock(s.mu);
  if (!bytes) {
    s.read_errors.emplace(path, bytes.error());
    return bytes.error();
  }
  Block b{offset, std::move(*bytes), false};
  b.to_end = b.bytes.size() < max_bytes;
  std::string out = answer(b);
  s.blocks[path].push_back(std::move(b));
  return out;
}

Status CachingFileSystem::writable_or_error(const std::string& path) const {
  if (!writable_) return make_error(ErrorCode::kInternal, "read-only filesystem view asked to write", path);
  return ok_status();
}

void CachingFileSystem::clear() {
  for (Shard& s : shards_) {
    std::lock_guard<std::mutex> lock(s.mu);
    s.stat.clear();
    s.lstat.clear();
    s.dirs.clear();
    s.links.clear();
    s.canonical.clear();
    s.blocks.clear();
    s.read_errors.clear();
  }
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
