// One streaming pass over an archive: every entry through the policy (install/archive_policy.h),
// every file hashed while it streams and, when a stage directory is given, written there in
// chunks; the archive file itself hashed on a thread of its own at the same time. Ends with the
// links resolved on the whole tree (install/resolved_tree.h) and the content check
// (install/archive_contents.h). Memory stays bounded: at most kHeadBytes of each file is kept
// (for headers and binary sniffing).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/progress.h"
#include "install/archive_contents.h"
#include "install/archive_entries.h"
#include "install/archive_name.h"
#include "install/archive_policy.h"
#include "install/hashing.h"

namespace cudnnup {

// What the pipeline needs from outside core; the app wires the real ones
// (app/commands/install_services.h), tests fakes.
struct InstallServices {
  ArchiveOpener open_archive;
  HasherFactory new_hasher;
  Progress* progress = nullptr;  // nullptr: nothing shown
};

struct ScanOptions {
  std::optional<ArchiveName> name;  // what the file name claims
  ExtractionLimits limits;          // archive_bytes is filled from the file when 0
  FileSystem* stage_fs = nullptr;   // with stage_dir: write every entry below it
  std::string stage_dir;
  bool hash_archive = false;        // also compute the archive file's digest (ScanResult::archive_sha256)
  // Leave that digest computing when the scan returns, so the caller's next steps overlap it;
  // settle_archive_sha256() waits for it.
  bool defer_archive_hash = false;
};

struct ScanResult {
  std::string archive_path;
  uint64_t archive_bytes = 0;
  std::string archive_sha256;       // with ScanOptions::hash_archive, once settled
  std::shared_ptr<WholeFileHash> pending_archive_hash;  // with defer_archive_hash, until settled
  std::string top_dir;
  uint64_t unpacked_bytes = 0;
  std::vector<ArchiveItem> items;
  ContentReport report;
};

// Fails (kCorrupt, naming the entry) when an entry is refused, a link leads out of the tree or
// the archive is damaged; content problems (wrong version, missing library, ...) come back in
// report.errors. `fs` holds the archive; with hash_archive it is read from a second thread.
Result<ScanResult> scan_archive(const FileSystem& fs, const std::string& archive_path, const ScanOptions& options,
                                const InstallServices& services);

// Waits for a deferred archive digest (showing it as a phase) and stores it in archive_sha256;
// nothing to do when none is pending.
Status settle_archive_sha256(ScanResult& scan, Progress* progress);

}  // namespace cudnnup
