// The install and uninstall pipelines, over FileSystem so the same code runs on disk and, in the
// crash tests, on the in-memory filesystem with a crash injected at every write:
//
//   name -> checks that need no writing (hash, toolkit CUDA major, permissions)
//   -> journal (phase staging) -> one streaming pass: policy + sha256 + write into the stage
//   -> content check -> verify the staged libraries (ELF) -> plan -> manifest -> sync
//   -> commit (journal phase commit, renames) -> cleanup
//
// Locking and start-up recovery are the caller's (app/cmd_install.cc, app/recovery.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/commands/archive_scan.h"
#include "base/environment.h"
#include "base/filesystem.h"
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
  bool windows = false;               // target OS layout (toolkit merge)
  std::string expected_sha256;        // from a redistrib manifest, the known-archives table or --sha256
  std::string expected_sha256_from = "NVIDIA's published sha256";  // named in the mismatch message
  uint64_t expected_size = 0;
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
  bool already_installed = false;
  bool dry_run = false;
  std::vector<std::string> warnings;
};

// `source` reads the archive (always the real disk in practice); `target` is written.
Result<InstallOutcome> run_install(FileSystem& target, const FileSystem& source, const StoreLayout& store,
                                   const InstallOptions& options);

struct UninstallOptions {
  std::string version;               // store: "9.19.0.56+cuda13", "9.19.0.56" or "9.19" when unambiguous
  std::optional<std::string> into;   // toolkit merge
  bool dry_run = false;
  bool force = false;                // remove files even when they changed since install
  bool windows = false;
  std::string txid;
  // Store versions that must not be removed: the global default and the selection in force
  // (the versions commands own state.json and the pins; cmd_uninstall asks them).
  std::vector<std::string> protected_ids;
};

struct UninstallOutcome {
  InstallPlan plan;
  bool dry_run = false;
  std::vector<std::string> changed_files;  // merge: files whose sha256 differs from the manifest
};

Result<UninstallOutcome> run_uninstall(FileSystem& target, const StoreLayout& store, const UninstallOptions& options);

// The store version ids (directory names under versions/).
std::vector<std::string> installed_store_versions(const FileSystem& fs, const StoreLayout& store);

}  // namespace cudnnup
