// cudnnup-manifest.json: what an install put where, so `uninstall` removes exactly that and a
// toolkit merge can be undone to the byte. One per store version (versions/<id>/) and one per
// toolkit (<CUDA_DIR>/.cudnnup/manifest.json). Schema: docs/commands/install.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "install/archive_policy.h"
#include "base/result.h"

namespace cudnnup {

struct ManifestFile {
  std::string path;         // store: relative to the version dir; merge: relative to the toolkit root
  std::string source;       // the archive entry below the top folder ("lib/libcudnn.so.9.19.0")
  EntryKind kind = EntryKind::kFile;
  uint64_t size = 0;
  std::string sha256;       // files
  std::string link_target;  // symlinks
  std::string backup;       // merge: absolute path of the original this replaced ("" when none)
};

struct MovedAside {
  std::string path;    // absolute path in the toolkit
  std::string backup;  // where it waits, absolute
};

struct InstallManifest {
  int schema = 1;
  std::string mode;           // "store" or "merge"
  std::string id;             // "9.19.0.56+cuda13"
  std::string cudnn_version;  // "9.19.0.56"
  std::string cuda_variant;   // "13"
  int cuda_major = 0;
  std::string platform;       // "linux-x86_64"
  std::string archive_path;
  std::string archive_file_name;
  uint64_t archive_size = 0;
  std::string archive_sha256;
  std::string installed_at;   // ISO 8601 UTC
  std::string cudnnup_version;
  std::string toolkit_root;   // merge
  std::string backup_dir;     // merge: absolute
  std::vector<std::string> new_dirs;  // merge: toolkit dirs the install created (removed on uninstall)
  std::vector<ManifestFile> files;
  std::vector<MovedAside> moved_aside;
};

std::string manifest_to_json(const InstallManifest& m);
Result<InstallManifest> manifest_from_json(const std::string& text, const std::string& path);

}  // namespace cudnnup
