// Streams the entries of a .tar.xz / .tgz / .tar / .zip through libarchive, one at a time, with
// each file's bytes read in chunks: nothing is buffered whole and nothing is written to disk here
// (the caller checks every entry with core/archive_policy.h and writes it itself).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "install/archive_policy.h"
#include "base/result.h"

struct archive;

namespace cudnnup {

class ArchiveReader {
 public:
  // With hash_file, the archive file itself is hashed as libarchive reads it (one pass over the
  // bytes instead of two); .zip is read through its central directory (seeking), so it is
  // hashed in a separate pass by the caller instead and hash_file is ignored.
  static Result<ArchiveReader> open(const std::string& path, bool hash_file = false);
  ArchiveReader(ArchiveReader&& other) noexcept;
  ArchiveReader& operator=(ArchiveReader&&) = delete;
  ~ArchiveReader();

  // The next entry's header, or nullopt at the end. kCorrupt for a damaged or truncated archive.
  Result<std::optional<ArchiveEntryInfo>> next();
  // The next block of the current entry without copying it (valid until the next call); empty at
  // its end. Sparse entries (holes) are refused: official archives have none.
  Result<std::string_view> read_block();
  const std::string& path() const { return path_; }
  // After the last entry: hashes whatever libarchive did not need (tar padding) and returns the
  // sha256 of the whole file; "" when the reader was not hashing.
  Result<std::string> finish_file_hash();

  struct Source;  // the open file and its running hash (stable address for libarchive's callbacks)

 private:
  ArchiveReader(struct archive* a, std::string path, std::unique_ptr<Source> source);
  Error error(const std::string& what) const;
  struct archive* a_ = nullptr;
  std::string path_;
  std::unique_ptr<Source> source_;
  int64_t entry_offset_ = 0;
};

}  // namespace cudnnup
