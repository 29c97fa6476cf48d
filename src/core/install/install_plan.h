// Turns "these archive items, into this target" into a Journal (core/transaction.h) plus the
// manifest the install leaves behind, and the human-readable steps `--dry-run` prints. Pure: reads
// the target through FileSystem, writes nothing.
#pragma once

#include <string>
#include <vector>

#include "install/archive_contents.h"
#include "install/install_manifest.h"
#include "store/store_layout.h"
#include "install/toolkit_target.h"
#include "install/transaction.h"

namespace cudnnup {

struct PlanStep {
  std::string action;  // "stage", "create-dir", "back-up", "place", "move-aside", "restore", "remove", "write-manifest"
  std::string path;    // the public path concerned
  std::string detail;  // where from / to, size
};

struct Leftover {
  std::string path;
  int major = 0;  // 0 when unknown
  bool other_major = false;
};

struct InstallPlan {
  std::string mode;    // "store" or "merge"
  std::string id;      // "9.19.0.56+cuda13"
  std::string target;  // the version dir, or the toolkit root
  std::string stage;   // private directory the archive is unpacked into
  std::string manifest_stage_path;  // where the installer writes the manifest before commit
  Journal journal;
  InstallManifest manifest;
  std::vector<PlanStep> steps;
  std::vector<Leftover> leftovers;  // merge: cuDNN files in the toolkit the archive does not replace
};

// "9.19.0.56+cuda13": the store's name for a version built for a CUDA major.
std::string store_version_id(const Version& cudnn, int cuda_major);

std::string store_stage_dir(const StoreLayout& store, const std::string& txid);
std::string merge_stage_dir(const ToolkitTarget& t, const std::string& txid);

// `base` carries the identity fields (versions, platform, source archive); files are filled here.
InstallPlan plan_store_install(const StoreLayout& store, const std::string& txid, const std::vector<ArchiveItem>& items,
                               InstallManifest base);
Result<InstallPlan> plan_merge_install(const FileSystem& fs, const ToolkitTarget& t, const std::string& txid,
                                       const std::vector<ArchiveItem>& items, int archive_major, InstallManifest base,
                                       bool move_aside_leftovers);
Result<InstallPlan> plan_store_uninstall(const FileSystem& fs, const StoreLayout& store, const std::string& id,
                                         const std::string& txid);
Result<InstallPlan> plan_merge_uninstall(const FileSystem& fs, const ToolkitTarget& t, const InstallManifest& m,
                                         const std::string& txid);

}  // namespace cudnnup
