// Undoing an install: a store version removed, or a toolkit merge put back exactly as it was
// (every file the install replaced restored from its backup), all or nothing, over FileSystem.
// Locking and start-up recovery are the caller's (app/commands/cmd_uninstall.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "install/hashing.h"
#include "install/install_plan.h"
#include "store/store_layout.h"

namespace cudnnup {

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

// `new_hasher` checks the installed files against the manifest's digests.
Result<UninstallOutcome> run_uninstall(FileSystem& target, const StoreLayout& store, const UninstallOptions& options,
                                       const HasherFactory& new_hasher);

// The store version ids (directory names under versions/).
std::vector<std::string> installed_store_versions(const FileSystem& fs, const StoreLayout& store);

}  // namespace cudnnup
