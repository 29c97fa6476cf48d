#include "support/tree_snapshot.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace cudnnup::testing {
namespace {

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

}  // namespace

std::map<std::string, std::string> disk_tree(const std::string& root) {
  namespace stdfs = std::filesystem;
  std::map<std::string, std::string> out;
  if (!stdfs::exists(root)) return out;
  for (auto it = stdfs::recursive_directory_iterator(root); it != stdfs::recursive_directory_iterator(); ++it) {
    std::string rel = it->path().lexically_relative(root).generic_string();
    if (it->is_symlink()) out[rel] = "link:" + stdfs::read_symlink(it->path()).generic_string();
    else if (it->is_directory()) out[rel] = "dir";
    else if (!it->is_regular_file()) out[rel] = "special";  // a FIFO or device: opening it could block
    else out[rel] = "file:" + bytes_of(it->path().string());
  }
  return out;
}

std::string tree_changes(const std::map<std::string, std::string>& before, const std::map<std::string, std::string>& after) {
  std::string out;
  for (const auto& [path, entry] : before) {
    auto it = after.find(path);
    if (it == after.end()) out += "removed: " + path + "\n";
    else if (it->second != entry) out += "changed: " + path + "\n";
  }
  for (const auto& [path, entry] : after) {
    if (!before.count(path)) out += "added: " + path + "\n";
  }
  return out;
}

std::map<std::string, std::string> memory_tree(const MemoryFileSystem& fs, const std::string& root, const std::string& skip) {
  std::map<std::string, std::string> out;
  for (const auto& [path, node] : fs.nodes) {
    if (path.compare(0, root.size() + 1, root + "/") != 0) continue;
    if (!skip.empty() && path.compare(0, skip.size(), skip) == 0) continue;
    out[path] = std::to_string(int(node.type)) + ":" + node.contents;
  }
  return out;
}

std::map<std::string, std::string> without_probe_cache(std::map<std::string, std::string> tree) {
  std::erase_if(tree, [](const auto& entry) {
    const std::string& path = entry.first;
    const std::string slashed = "/" + path;
    return slashed.ends_with("/.cache") || slashed.ends_with("/.cache/cudnnup") ||
           slashed.find("/.cache/cudnnup/") != std::string::npos;
  });
  return tree;
}

}  // namespace cudnnup::testing
