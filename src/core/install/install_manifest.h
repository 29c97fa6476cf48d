// cudnnup-manifest.json: what an install put where, so `uninstall` removes exactly that and a
// toolkit merge can be undone to the byte. One per store version (versions/<id>/) and one per
// toolkit (<CUDA_DIR>/.cudnnup/manifest.json). Schema: docs/commands/install.md.
//
// Every path in it is relative to its root (the version directory, or the toolkit root for a
// merge) and is checked before anything acts on it (validate_manifest); the files are written
// 0600. Actions go through the FileSystem *_below calls, which never pass through a link.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/result.h"
#include "install/archive_policy.h"

namespace cudnnup {

struct ManifestFile {
  std::string path;         // relative to the root: the version dir, or the toolkit root (merge)
  std::string source;       // the archive entry below the top folder ("lib/libcudnn.so.9.19.0")
  EntryKind kind = EntryKind::kFile;
  uint64_t size = 0;
  std::string sha256;       // files
  std::string link_target;  // symlinks, as written in the link (relative, inside the root)
  std::string backup;       // merge: where the original this replaced waits, relative ("" when none)
};

struct MovedAside {
  std::string path;    // relative to the toolkit root
  std::string backup;  // where it waits, relative
};

struct InstallManifest {
  int schema = 2;
  std::string mode;           // "store" or "merge"
  std::string id;             // "9.19.0.56+cuda13"
  std::string cudnn_version;  // "9.19.0.56"
  std::string cuda_variant;   // "13"
  int cuda_major = 0;
  std::string platform;       // "linux-x86_64"
  std::string archive_file_name;
  uint64_t archive_size = 0;
  std::string archive_sha256;
  std::string installed_at;   // ISO 8601 UTC
  std::string cudnnup_version;
  std::string toolkit_root;   // merge: the toolkit's real path, the root of every path here
  std::string backup_dir;     // merge: relative (.cudnnup/backup-<tx>)
  std::vector<std::string> new_dirs;  // merge: toolkit dirs the install created (removed on uninstall)
  std::vector<ManifestFile> files;
  std::vector<MovedAside> moved_aside;
};

std::string manifest_to_json(const InstallManifest& m);
// Parses schema 2, and schema 1 (absolute backup paths, each made relative to the toolkit root
// when it lies inside it). Shape only; validate_manifest checks the values.
Result<InstallManifest> manifest_from_json(const std::string& text, const std::string& path);

// Every field of a manifest whose paths are relative to `root`: mode and id known forms, each
// path relative and well formed (base/relative_path.h), each link target staying inside the
// root, backups inside the toolkit's .cudnnup/, toolkit_root equal to `root`, sums hexadecimal,
// text without control characters. kCorrupt naming the manifest and the field otherwise.
Status validate_manifest(const InstallManifest& m, const std::string& root, const std::string& path);

// Reads the manifest at `path` (a regular file, not a link) and validates it against `root`.
// With `acting` (uninstall will change the disk by it) it must also belong to the user cudnnup
// runs as and be writable by nobody else.
Result<InstallManifest> read_manifest(const FileSystem& fs, const std::string& path, const std::string& root, bool acting);

// sha256 of the file `rel` below `root`, lower-case hex, read without passing through a link
// (the app passes the real one, platform/sha256.h; tests a fake).
using BelowHasher = std::function<Result<std::string>(const std::string& root, const std::string& rel)>;

}  // namespace cudnnup
