// Streams the entries of a .tar.xz / .tgz / .tar / .zip through libarchive, one at a time, with
// each file's bytes read in chunks: nothing is buffered whole and nothing is written to disk here
// (the caller checks every entry with core/archive_policy.h and writes it itself).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/archive_policy.h"
#include "core/result.h"

struct archive;

namespace cudnnup {

class ArchiveReader {
 public:
  static Result<ArchiveReader> open(const std::string& path);
  ArchiveReader(ArchiveReader&& other) noexcept;
  ArchiveReader& operator=(ArchiveReader&&) = delete;
  ~ArchiveReader();

  // The next entry's header, or nullopt at the end. kCorrupt for a damaged or truncated archive.
  Result<std::optional<ArchiveEntryInfo>> next();
  // Up to `n` bytes of the current entry into `buf`; 0 at its end.
  Result<size_t> read(char* buf, size_t n);
  const std::string& path() const { return path_; }

 private:
  ArchiveReader(struct archive* a, std::string path) : a_(a), path_(std::move(path)) {}
  Error error(const std::string& what) const;
  struct archive* a_ = nullptr;
  std::string path_;
};

}  // namespace cudnnup
