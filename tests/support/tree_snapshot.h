// Whole directory trees as comparable values, for "byte-for-byte unchanged" and "exactly the old
// or the new state" assertions after installs, refusals and crashes.
#pragma once

#include <map>
#include <string>

#include "support/memory_fs.h"

namespace cudnnup::testing {

// Every entry under `root` on disk, by path relative to it: "dir", "link:<target>" or
// "file:<bytes>". Empty when `root` does not exist.
std::map<std::string, std::string> disk_tree(const std::string& root);

// The snapshot without doctor's probe cache (.cache/cudnnup/ and the .cache folder holding it,
// core/diagnose/probe_cache.h): the one file a command that only reads may write. Tests that
// check "nothing changed" compare the rest.
std::map<std::string, std::string> without_probe_cache(std::map<std::string, std::string> tree);

// What differs between two snapshots, one path a line ("added: x", "removed: x", "changed: x"),
// "" when they are equal: an assertion names the paths instead of printing two whole trees.
std::string tree_changes(const std::map<std::string, std::string>& before, const std::map<std::string, std::string>& after);

// Every node below `root` in the in-memory filesystem, by full path: "<type>:<contents>". Paths
// starting with `skip` (when given) are left out.
std::map<std::string, std::string> memory_tree(const MemoryFileSystem& fs, const std::string& root, const std::string& skip = {});

}  // namespace cudnnup::testing
