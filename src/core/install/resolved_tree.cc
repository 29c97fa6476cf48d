#include "install/resolved_tree.h"

#include <deque>
#include <optional>

#include "base/paths.h"
#include "facts/cudnn_files.h"
#include "install/archive_policy.h"

namespace cudnnup {
namespace {

constexpr int kMaxLinkHops = 40;  // Linux's own limit (MAXSYMLINKS)

std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : path) {
    if (c == '/' || c == '\\') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Final paths are kept as written by the layout: "lib/x" (store, relative to the version
// directory) or "/usr/local/cuda/lib64/x" (merge). The walk works on components and joins them
// back the same way.
std::string join(const std::vector<std::string>& parts, bool absolute) {
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "/" : "") + parts[i];
  return out;
}

bool is_absolute_final(const std::string& p) { return !p.empty() && p[0] == '/'; }

// A library's name (not a header's): which component, and whether it is a shared library (a
// run-time name or dev link) or a static/import one.
struct LibraryName {
  std::string component;
  bool shared = false;
};
std::optional<LibraryName> library_name(const std::string& rel) {
  auto f = parse_cudnn_file_name(paths::basename(rel));
  if (!f || f->kind == CudnnFileKind::kHeader) return std::nullopt;
  return LibraryName{f->component, f->kind == CudnnFileKind::kRuntime || f->kind == CudnnFileKind::kDevLink};
}

}  // namespace

TreeLayout store_layout() {
  TreeLayout l;
  l.place = [](const ArchiveItem& item) { return item.rel; };
  l.where = "the version directory";
  return l;
}

FinalTree::FinalTree(const std::vector<ArchiveItem>& items, const TreeLayout& layout) : layout_(layout) {
  for (const auto& item : items) {
    std::string at = layout_.place(item);
    if (at.empty()) continue;
    nodes_[at] = &item;
    placed_.emplace_back(at, &item);
    auto parts = components(at);
    for (size_t n = parts.size(); n-- > 0;) {  // every parent folder, up to the root
      parts.pop_back();
      dirs_[join(parts, is_absolute_final(at))] = true;
    }
  }
}

const ArchiveItem* FinalTree::find(const std::string& path) const {
  auto it = nodes_.find(path);
  return it == nodes_.end() ? nullptr : it->second;
}

bool FinalTree::implied_dir(const std::string& path) const { return dirs_.count(path) > 0; }

Result<FinalTree::Resolved> FinalTree::resolve(const std::string& path) const {
  bool absolute = is_absolute_final(path);
  const ArchiveItem* start = find(path);
  const std::string named = start ? start->rel : path;  // messages name the archive entry
  std::deque<std::string> todo;
  for (auto& c : components(path)) todo.push_back(c);
  std::vector<std::string> at;  // where the walk is
  const ArchiveItem* last = nullptr;
  std::vector<std::string> followed;  // the links followed, for the message
  auto chain = [&followed] {
    std::string out;
    for (size_t i = 0; i < followed.size() && i < 6; ++i) out += (i ? ", " : " (through ") + followed[i];
    return out.empty() ? out : out + (followed.size() > 6 ? ", ...)" : ")");
  };
  int hops = 0;
  while (!todo.empty()) {
    std::string c = todo.front();
    todo.pop_front();
    if (c == ".") continue;
    if (c == "..") {
      if (at.empty()) {
        if (!layout_.merge) return refuse_entry(named, "it resolves above " + layout_.where + chain());
        continue;  // "/.." is "/"
      }
      at.pop_back();
      last = nullptr;
      continue;
    }
    at.push_back(c);
    std::string here = join(at, absolute);
    const ArchiveItem* node = find(here);
    if (!node) {
      if (implied_dir(here)) {
        last = nullptr;
        continue;
      }
      for (const auto& rest : todo) here += "/" + rest;  // what it was heading for, for the message
      if (layout_.merge) return refuse_entry(named, "it resolves to " + here + ", outside " + layout_.where + chain());
      return refuse_entry(named, "it leads to '" + here + "', which is not in the archive (a dangling link)" + chain());
    }
    if (node->kind == EntryKind::kSymlink) {
      if (++hops > kMaxLinkHops) return refuse_entry(named, "a symlink loop" + chain());
      if (looks_absolute(node->link_target)) {
        return refuse_entry(named, "the link '" + node->rel + "' points at the absolute path '" + node->link_target + "'");
      }
      followed.push_back(node->rel + " -> " + node->link_target);
      at.pop_back();  // the link's target is relative to the folder holding it
      auto target = components(node->link_target);
      todo.insert(todo.begin(), target.begin(), target.end());
      continue;
    }
    if (node->kind != EntryKind::kDirectory && !todo.empty()) {
      return refuse_entry(named, "it goes through '" + node->rel + "', which is a " + entry_kind_name(node->kind) + chain());
    }
    last = node;
  }
  Resolved r;
  r.item = last;
  r.path = join(at, absolute);
  return r;
}

Status FinalTree::check() const {
  for (const auto& [at, item] : placed_) {
    if (item->kind != EntryKind::kSymlink) continue;
    auto lib = library_name(item->rel);
    auto end = resolve(at);
    if (!end) return end.error();
    std::string to = end->item ? end->item->rel : end->path;
    if (layout_.merge && (!end->item || end->item->kind != EntryKind::kFile)) {
      return refuse_entry(item->rel, "it resolves to " + end->path + ", which is not a file " + layout_.where);
    }
    if (!lib) continue;
    auto target = end->item && end->item->kind == EntryKind::kFile ? library_name(end->item->rel) : std::nullopt;
    if (!target) return refuse_entry(item->rel, "a library name that resolves to '" + to + "', which is not a cuDNN library");
    if (target->component != lib->component || target->shared != lib->shared) {
      return refuse_entry(item->rel, "a library name that resolves to '" + to + "', another library");
    }
  }
  return ok_status();
}

}  // namespace cudnnup
