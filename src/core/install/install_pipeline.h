// The install pipeline, over FileSystem so the same code runs on disk and, in the unit tests, on
// the in-memory filesystem with a fake archive and a crash injected at every write. Five steps,
// each a function of its own (install_pipeline.cc):
//
//   validate  what the file name, the archive's size and the target say, before reading a byte
//   stage     journal (phase staging), then one streaming pass: policy + file digests + write
//             into a private stage; the archive's own digest on its own thread
//   verify    the published digest, the content check, identity (name or top folder), platform
//             and architecture, links on the final tree, every staged library parsed in full
//   plan      every file and step (InstallPlan), the manifest
//   commit    manifest, syncfs, journal phase commit and the renames
//
// One rollback guard undoes a failed stage (journal, stage, the store folders made for it);
// past the commit point the transaction rolls itself back (install/transaction.h).
// Locking and start-up recovery are the caller's (app/commands/cmd_install.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "facts/known_archives.h"
#include "install/archive_scan.h"
#include "install/install_plan.h"
#include "store/store_layout.h"

namespace cudnnup {

struct InstallOptions {
  std::string archive;                // a local archive file
  std::optional<std::string> into;    // --into CUDA_DIR: merge into that toolkit
  std::optional<int> cuda_major;      // --cuda M: the archive must be built for this CUDA major
  bool dry_run = false;
  bool force_cuda_mismatch = false;
  bool move_aside_old = false;
  bool cross_arch = false;            // --cross-arch: libraries for another CPU than the target's
  bool windows = false;               // target OS layout (toolkit merge)
  std::string host_machine;           // this machine's CPU, as facts/machines.h names it
  std::string expected_sha256;        // from the known-archives table, a redistrib manifest or --sha256
  std::string expected_sha256_from = "NVIDIA's published sha256";  // named in the mismatch message
  uint64_t expected_size = 0;
  // The known-archives table (built in, and the store's refreshed rows). With no expected_sha256,
  // an archive whose top folder names a row is checked against that row: a published archive
  // saved under another name ("cudnn (1).zip") is still checked.
  std::vector<KnownArchive> published;
  ExtractionLimits limits;            // archive_bytes 0: taken from the file
  std::string txid;                   // unique id; the caller makes it (time + pid)
  std::string now_iso;                // "2026-11-30T01:02:03Z"
  std::string cudnnup_version;
};

struct InstallOutcome {
  InstallPlan plan;
  ScanResult scan;
  std::optional<ArchiveName> name;
  std::string archive_sha256;
  std::string sha256_checked_against;  // the claim archive_sha256 matched; empty when none was known
  // The known row the top folder named, when the file name is not NVIDIA's and that row decided
  // the sha256 (InstallOptions::published).
  std::optional<KnownArchive> top_folder_row;
  bool already_installed = false;
  bool dry_run = false;
  std::vector<std::string> warnings;
};

// `source` holds the archive (read, also from a second thread); `target` is written.
Result<InstallOutcome> run_install(FileSystem& target, const FileSystem& source, const StoreLayout& store,
                                   const InstallOptions& options, const InstallServices& services);

// Whether two CPU names (sniff_binary's, the host's) are the same machine (facts/machines.h, which
// knows the other spellings).
bool same_machine(const std::string& a, const std::string& b);

}  // namespace cudnnup
