// One streaming pass over an archive: every entry through the policy (core/archive_policy.h),
// every file hashed while it streams and, when a stage directory is given, written there in
// chunks. Ends with the content check (core/archive_contents.h). Memory stays bounded: at most
// kHeadBytes of each file is kept (for headers and binary sniffing).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "install/archive_contents.h"
#include "install/archive_name.h"
#include "install/archive_policy.h"
#include "base/filesystem.h"

namespace cudnnup {

struct ScanOptions {
  std::optional<ArchiveName> name;  // what the file name claims
  ExtractionLimits limits;          // archive_bytes is filled from the file when 0
  FileSystem* stage_fs = nullptr;   // with stage_dir: write every entry below it
  std::string stage_dir;
  bool hash_archive = false;        // also compute the archive file's sha256 (ScanResult::archive_sha256)
};

struct ScanResult {
  std::string archive_path;
  uint64_t archive_bytes = 0;
  std::string archive_sha256;       // with ScanOptions::hash_archive
  std::string top_dir;
  uint64_t unpacked_bytes = 0;
  std::vector<ArchiveItem> items;
  ContentReport report;
};

// Fails (kCorrupt, naming the entry) when an entry is refused or the archive is damaged; content
// problems (wrong version, missing library, ...) come back in report.errors.
Result<ScanResult> scan_archive(const FileSystem& fs, const std::string& archive_path, const ScanOptions& options);

}  // namespace cudnnup
