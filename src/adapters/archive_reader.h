// Streams the entries of a .tar.xz / .tgz / .tar / .zip through libarchive, one at a time, with
// each file's bytes read in blocks: nothing is buffered whole and nothing is written to disk here.
// The install pipeline (core/install) takes it as its ArchiveEntries and does the rest.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "install/archive_entries.h"

struct archive;

namespace cudnnup {

class ArchiveReader final : public ArchiveEntries {
 public:
  static Result<std::unique_ptr<ArchiveReader>> open(const std::string& path);
  ~ArchiveReader() override;
  ArchiveReader(const ArchiveReader&) = delete;
  ArchiveReader& operator=(const ArchiveReader&) = delete;

  Result<std::optional<ArchiveEntryInfo>> next() override;
  // Without copying (valid until the next call). Sparse entries (holes) are refused: official
  // archives have none.
  Result<std::string_view> read_block() override;
  uint64_t position() const override;
  const std::string& path() const { return path_; }

 private:
  ArchiveReader(struct archive* a, std::string path) : a_(a), path_(std::move(path)) {}
  Error error(const std::string& what) const;
  struct archive* a_ = nullptr;
  std::string path_;
  int64_t entry_offset_ = 0;
};

// The opener core's install pipeline takes (install/archive_entries.h).
ArchiveOpener libarchive_opener();

}  // namespace cudnnup
