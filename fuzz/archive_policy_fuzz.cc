// The archive policy (install/archive_policy.h, install/resolved_tree.h) against an oracle that
// does not use our resolver: every entry list the policy accepts is extracted into a temporary
// directory as real files, folders and symlinks, and the kernel's realpath() says where each
// entry really leads. Store mode: everything must stay inside the version directory. Merge mode
// (a toolkit with lib64/ and include/ already holding files of its own): every link must end on
// a file this install put there. In both, a link with a cuDNN library's name must end on a file
// with the same library's name. A violation aborts.
//
// Input: one entry per line, "<kind><path>[\t<link target or file bytes>]", kind f (file),
// d (directory), l (symlink), h (hard link), anything else a special file. Example:
//   dcudnn-linux-x86_64-9.19.0.56_cuda13-archive
//   fcudnn-linux-x86_64-9.19.0.56_cuda13-archive/lib/libcudnn.so.9.19.0\t\x7fELF
//   lcudnn-linux-x86_64-9.19.0.56_cuda13-archive/lib/libcudnn.so.9\tlibcudnn.so.9.19.0
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "base/paths.h"
#include "facts/cudnn_files.h"
#include "fuzz_input.h"
#include "install/archive_contents.h"
#include "install/archive_policy.h"
#include "install/resolved_tree.h"

namespace {

using cudnnup::ArchiveEntryInfo;
using cudnnup::ArchiveItem;
using cudnnup::EntryKind;
using cudnnup::fuzz::violation;

std::vector<ArchiveEntryInfo> parse_entries(std::string_view text) {
  std::vector<ArchiveEntryInfo> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.empty()) continue;
    ArchiveEntryInfo e;
    switch (line[0]) {
      case 'f': e.kind = EntryKind::kFile; break;
      case 'd': e.kind = EntryKind::kDirectory; break;
      case 'l': e.kind = EntryKind::kSymlink; break;
      case 'h': e.kind = EntryKind::kHardlink; break;
      default: e.kind = EntryKind::kOther; break;
    }
    line.remove_prefix(1);
    size_t tab = line.find('\t');
    e.path = std::string(line.substr(0, tab));
    if (tab != std::string_view::npos) e.link_target = std::string(line.substr(tab + 1));
    if (e.kind == EntryKind::kFile) e.size = e.link_target.size();
    e.mode = e.kind == EntryKind::kDirectory ? 0755 : 0644;
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<std::string> split(const std::string& rel) {
  std::vector<std::string> parts;
  for (const auto& p : std::filesystem::path(rel)) {
    if (!p.empty() && p != "/") parts.push_back(p.string());
  }
  return parts;
}

// The directory `parts` below `root`, created as needed, without ever passing through a link:
// a link or file where a folder should be means the policy let an entry be written through it.
int open_dir_below(const std::string& root, const std::vector<std::string>& parts, const std::string& entry) {
  int fd = open(root.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if (fd < 0) violation("cannot open the extraction root " + root);
  for (const std::string& part : parts) {
    if (mkdirat(fd, part.c_str(), 0755) != 0 && errno != EEXIST) violation("mkdir " + part + " for " + entry);
    int next = openat(fd, part.c_str(), O_DIRECTORY | O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    close(fd);
    if (next < 0) violation("entry '" + entry + "' is written through '" + part + "', which is not a folder");
    fd = next;
  }
  return fd;
}

// Writes one placed item at `dest` (relative to root); a file replaces a toolkit's own file of
// that name, as a merge does. Returns false when a link or folder is already there (two entries
// placed on one path is not what this oracle checks).
bool extract(const std::string& root, const std::string& dest, const ArchiveItem& item) {
  std::vector<std::string> parts = split(dest);
  if (parts.empty()) return false;
  std::string name = parts.back();
  parts.pop_back();
  int dir = open_dir_below(root, parts, item.rel);
  bool made = true;
  if (item.kind == EntryKind::kDirectory) {
    made = mkdirat(dir, name.c_str(), 0755) == 0;
  } else if (item.kind == EntryKind::kSymlink) {
    made = symlinkat(item.link_target.c_str(), dir, name.c_str()) == 0;
  } else {
    int fd = openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    made = fd >= 0;
    if (made) {
      if (write(fd, item.head.data(), item.head.size()) < 0) violation("write " + item.rel);
      close(fd);
    }
  }
  close(dir);
  return made;
}

std::string real(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

bool inside(const std::string& path, const std::string& root) {
  return path == root || path.compare(0, root.size() + 1, root + "/") == 0;
}

// A link with a library's name ends on a file with the same library's name.
void check_library_name(const std::string& link, const std::string& resolved) {
  auto lib = cudnnup::parse_cudnn_library_name(cudnnup::paths::basename(link));
  if (!lib) return;
  auto end = cudnnup::parse_cudnn_file_name(cudnnup::paths::basename(resolved));
  if (!end || end->component != lib->component) {
    violation("library link '" + link + "' is accepted but ends on '" + resolved + "'");
  }
}

const std::string& work_dir() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/cudnnup-policy-fuzz-XXXXXX";
    if (!mkdtemp(tmpl)) violation("mkdtemp");
    return real(tmpl);
  }();
  return dir;
}

void check_store(const std::vector<ArchiveItem>& items) {
  std::string root = work_dir() + "/version";
  std::filesystem::remove_all(root);
  std::filesystem::create_directory(root);
  std::vector<const ArchiveItem*> placed;
  for (const ArchiveItem& item : items) {
    if (extract(root, item.rel, item)) placed.push_back(&item);
  }
  for (const ArchiveItem* item : placed) {
    std::string path = root + "/" + item->rel;
    std::string resolved = real(path);
    if (resolved.empty()) violation("accepted entry '" + item->rel + "' does not resolve (dangling or a loop)");
    if (!inside(resolved, root)) violation("accepted entry '" + item->rel + "' resolves outside: " + resolved);
    if (item->kind == EntryKind::kSymlink) check_library_name(item->rel, resolved);
  }
  std::filesystem::remove_all(root);
}

// A toolkit that already has files of its own next to where the cuDNN files go.
void check_merge(const std::vector<ArchiveItem>& items) {
  std::string root = work_dir() + "/toolkit";
  std::filesystem::remove_all(root);
  for (const char* dir : {"/include", "/lib64", "/bin", "/targets/x86_64-linux"}) {
    std::filesystem::create_directories(root + dir);
  }
  for (const char* file : {"/include/cuda.h", "/lib64/libcudart.so.13", "/bin/nvcc", "/version.json"}) {
    std::FILE* f = std::fopen((root + file).c_str(), "w");
    if (f) std::fclose(f);
  }
  cudnnup::TreeLayout layout;
  layout.merge = true;
  layout.where = "the toolkit";
  layout.place = [&](const ArchiveItem& item) -> std::string {
    if (item.kind == EntryKind::kDirectory) return {};
    std::string dest = cudnnup::merge_destination(item.rel, false, "lib64");
    return dest.empty() ? std::string() : root + "/" + dest;
  };
  if (cudnnup::FinalTree(items, layout).check()) {
    std::vector<std::pair<std::string, const ArchiveItem*>> placed;
    for (const ArchiveItem& item : items) {
      std::string dest = layout.place(item);
      if (dest.empty()) continue;
      if (extract(root, dest.substr(root.size() + 1), item)) placed.emplace_back(dest, &item);
    }
    std::set<std::string> files;  // real paths of the files this install put there
    for (const auto& [dest, item] : placed) {
      if (item->kind == EntryKind::kFile) files.insert(real(dest));
    }
    for (const auto& [dest, item] : placed) {
      if (item->kind != EntryKind::kSymlink) continue;
      std::string resolved = real(dest);
      if (!files.count(resolved)) {
        violation("merge: link '" + item->rel + "' is accepted but ends on '" + resolved +
                  "', not on a file this install puts there");
      }
      check_library_name(item->rel, resolved);
    }
  }
  std::filesystem::remove_all(root);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<ArchiveEntryInfo> entries = parse_entries(cudnnup::fuzz::bytes_of(data, size));
  cudnnup::ExtractionLimits limits;
  limits.archive_bytes = size;
  cudnnup::EntryPolicy policy(limits);
  std::vector<ArchiveItem> items;
  for (const ArchiveEntryInfo& e : entries) {
    auto rel = policy.admit(e);
    if (!rel) return 0;  // the whole archive is refused
    if (rel->empty()) continue;
    // libarchive hands over C strings: a NUL cannot reach a real extraction.
    if (rel->find('\0') != std::string::npos || e.link_target.find('\0') != std::string::npos) return 0;
    ArchiveItem item;
    item.rel = *rel;
    item.kind = e.kind;
    if (e.kind == EntryKind::kSymlink) item.link_target = e.link_target;
    if (e.kind == EntryKind::kFile) item.head = e.link_target, item.size = e.link_target.size();
    items.push_back(std::move(item));
  }
  if (!cudnnup::FinalTree(items, cudnnup::store_layout()).check()) return 0;
  (void)cudnnup::check_contents(items, policy.top_dir(), std::nullopt);
  check_store(items);
  check_merge(items);
  return 0;
}
