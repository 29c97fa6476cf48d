#include "support/memory_fs.h"

#include <cctype>

#include "base/paths.h"

namespace cudnnup::testing {
namespace {

bool starts_with_nocase(const std::string& s, const std::string& prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i]))) return false;
  }
  return true;
}

// One component as Win32 reads it: an alternate data stream names its file, trailing dots and
// spaces are dropped (a name of only dots and spaces is "." or ".."), case does not matter.
std::string fold_component(std::string part, bool drive) {
  if (!drive) {
    if (size_t colon = part.find(':'); colon != std::string::npos) part.resize(colon);
    if (!part.empty() && part.find_first_not_of(". ") == std::string::npos) {
      return part.find("..") != std::string::npos ? ".." : ".";
    }
    while (!part.empty() && (part.back() == '.' || part.back() == ' ')) part.pop_back();
  }
  for (char& c : part) c = char(std::tolower(static_cast<unsigned char>(c)));
  return part;
}

}  // namespace

std::string MemoryFileSystem::key(const std::string& path) const {
  std::string p = paths::normalize(path);
  if (!windows_names) return p;
  for (const std::string prefix : {"//?/", "//./"}) {
    if (p.rfind(prefix, 0) == 0) {
      p = p.substr(prefix.size());
      break;
    }
  }
  for (const std::string host : {"//localhost/", "//127.0.0.1/"}) {
    if (!starts_with_nocase(p, host)) continue;
    std::string rest = p.substr(host.size());
    if (rest.size() >= 2 && std::isalpha(static_cast<unsigned char>(rest[0])) && rest[1] == '$') {
      p = std::string(1, rest[0]) + ":" + rest.substr(2);
    }
    break;
  }
  std::vector<std::string> parts = paths::split_list(p, '/');
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    bool drive = i == 0 && parts[i].size() == 2 && parts[i][1] == ':';
    out += (i ? "/" : "") + fold_component(parts[i], drive);
  }
  return paths::normalize(out);
}

void MemoryFileSystem::add_dir(const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  std::string shown = paths::normalize(path);
  std::string p = key(path);
  while (true) {
    if (!nodes.count(p)) nodes[p] = Node{FileType::kDirectory, {}, false, 0755, false, std::string(paths::basename(shown))};
    std::string up = paths::parent(p);
    if (up == p || up == ".") break;
    p = up;
    shown = paths::parent(shown);
  }
}

void MemoryFileSystem::add_file(const std::string& path, const std::string& contents) {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  add_dir(paths::parent(path));
  nodes[key(path)] = Node{FileType::kRegular, contents, false, 0644, false, std::string(paths::basename(paths::normalize(path)))};
}

void MemoryFileSystem::add_symlink(const std::string& link, const std::string& target) {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  add_dir(paths::parent(link));
  nodes[key(link)] = Node{FileType::kSymlink, target, false, 0777, false, std::string(paths::basename(paths::normalize(link)))};
}

void MemoryFileSystem::set_unreadable(const std::string& path) { std::lock_guard<std::recursive_mutex> lock(mutex_.m); nodes[key(path)].unreadable = true; }
void MemoryFileSystem::set_mode(const std::string& path, int mode) { std::lock_guard<std::recursive_mutex> lock(mutex_.m); nodes[key(path)].mode = mode; }
void MemoryFileSystem::set_other_owner(const std::string& path) { std::lock_guard<std::recursive_mutex> lock(mutex_.m); nodes[key(path)].other_owner = true; }
void MemoryFileSystem::set_our_group(const std::string& path) { std::lock_guard<std::recursive_mutex> lock(mutex_.m); nodes[key(path)].our_group = true; }
void MemoryFileSystem::add_fifo(const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  add_dir(paths::parent(path));
  nodes[key(path)] = Node{FileType::kFifo, {}, false, 0644, false, std::string(paths::basename(paths::normalize(path)))};
}


const MemoryFileSystem::Node* MemoryFileSystem::node(const std::string& path) const {
  auto it = nodes.find(key(path));
  return it == nodes.end() ? nullptr : &it->second;
}

std::string MemoryFileSystem::contents(const std::string& path) const {
  auto* n = node(path);
  return n ? n->contents : std::string();
}

FileInfo MemoryFileSystem::info_of(const Node& n) const {
  FileInfo info;
  info.type = n.type;
  info.size = n.type == FileType::kRegular ? n.contents.size() : 0;
  info.other_owner = n.other_owner;
  info.others_may_write = n.type != FileType::kSymlink && (n.mode & 022) != 0;
  int our_bit = !n.other_owner ? 0200 : n.our_group ? 0020 : 0002;
  info.self_may_write = n.type == FileType::kSymlink || (n.mode & our_bit) != 0;
  return info;
}

std::optional<std::string> MemoryFileSystem::resolve(const std::string& path, bool follow_last) const {
  std::string p = key(path);
  for (int hops = 0; hops < 40; ++hops) {
    // Walk components; at the first symlink that must be followed, substitute and restart.
    std::vector<std::string> parts = paths::split_list(p, '/');
    std::string prefix;
    bool restarted = false;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i == 0) {
        prefix = parts[0].empty() ? "/" : parts[0];
        if (parts[0].size() == 2 && parts[0][1] == ':') prefix = parts[0] + "/";
        if (parts[0].empty() || prefix.back() == '/') continue;
      } else {
        prefix = paths::join(prefix, parts[i]);
      }
      auto it = nodes.find(key(prefix));
      if (it == nodes.end()) return key(p);  // missing: let the caller report it
      bool last = i + 1 == parts.size();
      if (it->second.type == FileType::kSymlink && (!last || follow_last)) {
        std::string target = it->second.contents;
        std::string base = paths::is_absolute(target) ? target : paths::join(paths::parent(prefix), target);
        std::string rest;
        for (size_t j = i + 1; j < parts.size(); ++j) rest = paths::join(rest, parts[j]);
        p = key(rest.empty() ? base : paths::join(base, rest));
        restarted = true;
        break;
      }
    }
    if (!restarted) return key(p);
  }
  return std::nullopt;  // link loop
}

Result<FileInfo> MemoryFileSystem::lstat(const std::string& path) const {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  std::string k = key(path);
  auto resolved_parent = resolve(paths::parent(k), true);
  std::string p = resolved_parent ? key(paths::join(*resolved_parent, paths::basename(k))) : k;
  if (k == "/") p = "/";
  auto it = nodes.find(p);
  if (it == nodes.end()) return make_error(ErrorCode::kNotFound, "no such file: " + path, path);
  return info_of(it->second);
}

Result<FileInfo> MemoryFileSystem::stat(const std::string& path) const {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  auto p = resolve(path, true);
  if (!p) return make_error(ErrorCode::kIo, "too many levels of symbolic links: " + path, path);
  auto it = nodes.find(*p);
  if (it == nodes.end()) return make_error(ErrorCode::kNotFound, "no such file: " + path, path);
  return info_of(it->second);
}

Result<std::vector<DirEntry>> MemoryFileSystem::list_dir(const std::string& path) const {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  auto p = resolve(path, true);
  if (!p) return make_error(ErrorCode::kIo, "too many levels of symbolic links: " + path, path);
  auto it = nodes.find(*p);
  if (it == nodes.end()) return make_error(ErrorCode::kNotFound, "no such directory: " + path, path);
  if (it->second.type != FileType::kDirectory) return make_error(ErrorCode::kIo, "not a directory: " + path, path);
  if (it->second.unreadable) return make_error(ErrorCode::kPermission, "permission denied: " + path, path);
  std::vector<DirEntry> out;
  std::string prefix = *p == "/" ? "/" : *p + "/";
  for (auto c = nodes.lower_bound(prefix); c != nodes.end() && c->first.compare(0, prefix.size(), prefix) == 0; ++c) {
    std::string rest = c->first.substr(prefix.size());
    if (rest.empty() || rest.find('/') != std::string::npos) continue;
    out.push_back(DirEntry{c->second.name.empty() ? rest : c->second.name, c->second.type});
  }
  return out;
}

Result<std::string> MemoryFileSystem::read_link(const std::string& path) const {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  auto* n = node(path);
  if (!n) return make_error(ErrorCode::kNotFound, "no such file: " + path, path);
  if (n->type != FileType::kSymlink) return make_error(ErrorCode::kIo, "not a link: " + path, path);
  return n->contents;
}

Result<std::string> MemoryFileSystem::read_range(const std::string& path, uint64_t offset, size_t max_bytes) const {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  auto p = resolve(path, true);
  auto it = p ? nodes.find(*p) : nodes.end();
  if (it == nodes.end()) return make_error(ErrorCode::kNotFound, "no such file: " + path, path);
  if (it->second.unreadable) return make_error(ErrorCode::kPermission, "permission denied: " + path, path);
  if (it->second.type == FileType::kFifo) {
    ++fifo_reads;
    return make_error(ErrorCode::kIo, "opening a FIFO blocks: " + path, path);
  }
  if (it->second.type != FileType::kRegular) return make_error(ErrorCode::kIo, "not a file: " + path, path);
  const std::string& c = it->second.contents;
  if (offset >= c.size()) return std::string();
  return c.substr(size_t(offset), max_bytes);
}

Result<std::string> MemoryFileSystem::canonical(const std::string& path) const {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  auto p = resolve(path, true);
  if (!p || !nodes.count(*p)) return make_error(ErrorCode::kNotFound, "cannot resolve " + path, path);
  return *p;
}

bool MemoryFileSystem::parent_is_dir(const std::string& path) const {
  std::string up = paths::parent(key(path));
  auto p = resolve(up, true);
  if (!p) return false;
  auto it = nodes.find(*p);
  return it != nodes.end() && it->second.type == FileType::kDirectory;
}

Status MemoryFileSystem::begin_write(const std::string& op, const std::string& path, const std::string& path2) {
  if (fail_after_writes && writes_done >= *fail_after_writes) {
    return make_error(ErrorCode::kIo, "injected crash before: " + op + " " + path, path);
  }
  if (fail_paths.count(key(path)) || (!path2.empty() && fail_paths.count(key(path2)))) {
    return make_error(ErrorCode::kIo, "injected failure: " + op + " " + path, path);
  }
  ++writes_done;
  log.push_back(op + " " + key(path) + (path2.empty() ? "" : " " + key(path2)));
  return ok_status();
}

Status MemoryFileSystem::make_dir(const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  if (is_dir(path)) return ok_status();
  if (exists(path)) return make_error(ErrorCode::kIo, "exists and is not a directory: " + path, path);
  if (!parent_is_dir(path)) return make_error(ErrorCode::kNotFound, "parent missing: " + path, path);
  if (auto s = begin_write("mkdir", path); !s) return s;
  nodes[key(path)] = Node{FileType::kDirectory, {}, false, 0755, false, std::string(paths::basename(paths::normalize(path)))};
  return ok_status();
}

Status MemoryFileSystem::write_with_mode(const std::string& path, const std::string& contents, int mode) {
  if (!parent_is_dir(path)) return make_error(ErrorCode::kNotFound, "parent missing: " + path, path);
  if (auto s = begin_write("write", path); !s) return s;
  auto p = resolve(path, true).value_or(key(path));
  nodes[p] = Node{FileType::kRegular, contents, false, mode, false, std::string(paths::basename(paths::normalize(path)))};
  return ok_status();
}

Status MemoryFileSystem::write_file(const std::string& path, const std::string& contents, bool) {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  return write_with_mode(path, contents, 0644);
}

Status MemoryFileSystem::write_private_file(const std::string& path, const std::string& contents, bool sync) {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  // Through write_file, so a test double that refuses writes refuses these too.
  if (auto s = write_file(path, contents, sync); !s) return s;
  nodes[resolve(path, true).value_or(key(path))].mode = 0600;
  return ok_status();
}

Status MemoryFileSystem::rename(const std::string& from, const std::string& to) {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  std::string f = key(from), t = key(to);
  if (!nodes.count(f)) return make_error(ErrorCode::kNotFound, "no such file: " + from, from);
  if (!parent_is_dir(to)) return make_error(ErrorCode::kNotFound, "parent missing: " + to, to);
  auto target = nodes.find(t);
  if (target != nodes.end() && target->second.type == FileType::kDirectory) {
    // POSIX: a directory may replace only an empty directory.
    auto listing = list_dir(t);
    if (listing.ok() && !listing->empty()) return make_error(ErrorCode::kIo, "directory not empty: " + to, to);
  }
  if (auto s = begin_write("rename", from, to); !s) return s;
  // Move the node and, for a directory, everything under it. Atomic, as rename(2) is.
  std::map<std::string, Node> moved;
  for (auto it = nodes.begin(); it != nodes.end();) {
    if (it->first == f || it->first.compare(0, f.size() + 1, f + "/") == 0) {
      moved[t + it->first.substr(f.size())] = it->second;
      it = nodes.erase(it);
    } else {
      ++it;
    }
  }
  moved[t].name = std::string(paths::basename(paths::normalize(to)));
  for (auto it = nodes.begin(); it != nodes.end();) {
    if (it->first == t || it->first.compare(0, t.size() + 1, t + "/") == 0) it = nodes.erase(it);
    else ++it;
  }
  nodes.insert(moved.begin(), moved.end());
  return ok_status();
}

Status MemoryFileSystem::remove(const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  std::string p = key(path);
  auto it = nodes.find(p);
  if (it == nodes.end()) return make_error(ErrorCode::kNotFound, "no such file: " + path, path);
  if (it->second.type == FileType::kDirectory) {
    auto listing = list_dir(p);
    if (listing.ok() && !listing->empty()) return make_error(ErrorCode::kIo, "directory not empty: " + path, path);
  }
  if (auto s = begin_write("remove", path); !s) return s;
  nodes.erase(p);
  return ok_status();
}

Status MemoryFileSystem::symlink(const std::string& target, const std::string& link) {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  if (exists(link)) return make_error(ErrorCode::kIo, "exists: " + link, link);
  if (!parent_is_dir(link)) return make_error(ErrorCode::kNotFound, "parent missing: " + link, link);
  if (links_unsupported) return make_error(ErrorCode::kUnsupported, "cannot create junction " + link + ": not supported", link);
  if (auto s = begin_write("symlink", link); !s) return s;
  nodes[key(link)] = Node{FileType::kSymlink, target, false, 0777, false, std::string(paths::basename(paths::normalize(link)))};
  return ok_status();
}

Status MemoryFileSystem::create_dir_link(const std::string& target, const std::string& link) {
  std::lock_guard<std::recursive_mutex> lock(mutex_.m);
  return symlink(target, link);
}

}  // namespace cudnnup::testing
