// The rules an archive entry must pass before cudnnup writes a byte of it
// (docs/commands/install.md). Pure logic: the reader (install/archive_entries.h) describes each
// entry, EntryPolicy says yes (with the entry's path inside the single top folder) or no (with a
// message naming the entry and the attack it looks like). Where each symlink really leads is
// decided on the whole tree once every entry is known (install/resolved_tree.h).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "install/archive_entries.h"

namespace cudnnup {

// The error for an archive entry that is not extracted: "refusing archive entry 'E': WHY".
Error refuse_entry(const std::string& entry, const std::string& why);

// How much an archive may unpack to. A zip bomb or a lying header is stopped when the bytes
// actually produced pass bound(); the bound follows the compressed size so a 900 MB cuDNN
// archive (about 2.5x) passes while a 40 kB archive claiming gigabytes does not.
struct ExtractionLimits {
  uint64_t archive_bytes = 0;              // compressed size (the file, or the manifest's "size")
  uint64_t ratio = 20;                     // allowed expansion over archive_bytes
  uint64_t floor_bytes = 256ull << 20;     // small archives may still unpack to this much
  uint64_t cap_bytes = 16ull << 30;        // never more than this, whatever the ratio says
  size_t max_entries = 20000;
  size_t max_path_length = 1024;
  // Longest single name: NAME_MAX on Linux file systems, 255 UTF-16 units on NTFS. A longer
  // name would fail half-way through writing the tree instead of before it starts.
  size_t max_name_length = 255;
  uint64_t bound() const;
};

class EntryPolicy {
 public:
  explicit EntryPolicy(ExtractionLimits limits) : limits_(limits) {}

  // Checks one entry. On success returns its path below the top folder ("" for the top folder
  // itself), with '/' separators and no "." components.
  Result<std::string> admit(const ArchiveEntryInfo& entry);
  // Counts bytes as they are produced; fails once the total passes the bound.
  Status count_bytes(uint64_t n);

  const std::string& top_dir() const { return top_dir_; }
  uint64_t total_bytes() const { return total_bytes_; }
  const ExtractionLimits& limits() const { return limits_; }

 private:
  ExtractionLimits limits_;
  std::string top_dir_;
  size_t entries_ = 0;
  uint64_t total_bytes_ = 0;
  std::map<std::string, EntryKind> kinds_;        // relative path -> kind
  std::map<std::string, std::string> folded_;     // lower-cased path -> path as stored
};

// An absolute path on any OS: "/x", "\\server\x", "C:\x", "C:x".
bool looks_absolute(const std::string& path);

}  // namespace cudnnup
