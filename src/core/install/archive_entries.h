// What the install pipeline needs from an archive reader: the entries one at a time, and each
// file's bytes in blocks. adapters/archive_reader.h implements it over libarchive; the unit tests
// use a list of entries in memory (tests/support/fake_archive.h). Everything in an entry comes
// from the archive's author: the pipeline trusts none of it (install/archive_policy.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace cudnnup {

enum class EntryKind { kFile, kDirectory, kSymlink, kHardlink, kDevice, kFifo, kSocket, kOther };
const char* entry_kind_name(EntryKind k);

struct ArchiveEntryInfo {
  std::string path;         // as stored in the archive
  EntryKind kind = EntryKind::kOther;
  uint64_t size = 0;        // declared size of a regular file
  bool size_known = true;   // zip entries written by a stream may not declare one
  std::string link_target;  // symlink or hard-link target as stored
  uint32_t mode = 0;        // permission bits as stored (07777); 0 when the format has none
};

class ArchiveEntries {
 public:
  virtual ~ArchiveEntries() = default;
  // The next entry's header, or nullopt at the end. kCorrupt for a damaged or truncated archive.
  virtual Result<std::optional<ArchiveEntryInfo>> next() = 0;
  // The next block of the current entry's bytes (valid until the next call); empty at its end.
  virtual Result<std::string_view> read_block() = 0;
  // How far into the archive file the reader is (compressed bytes consumed), for progress.
  virtual uint64_t position() const = 0;
};

// Opens the archive at `path` (the app wires the libarchive reader; tests a fake).
using ArchiveOpener = std::function<Result<std::unique_ptr<ArchiveEntries>>(const std::string& path)>;

}  // namespace cudnnup
