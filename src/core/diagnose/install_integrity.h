// Files that vanished or changed after `cudnnup install` (antivirus quarantine on Windows, a
// cleanup script, a half-finished copy over the top): each install manifest lists every file
// with its size and sha256, so the damage can be named file by file.
//
// Cost: doctor must stay fast (bench/doctor_bench.py), so the default check is existence, type
// and size (one stat per file, no reading). The sha256 of every file is compared only when asked
// (`doctor --deep`), because hashing a cuDNN 9 install reads about 1 GB.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/model.h"
#include "install/install_manifest.h"

namespace cudnnup {

struct ManifestRef {
  std::string manifest_path;  // versions/<id>/cudnnup-manifest.json or CUDA_DIR/.cudnnup/manifest.json
  std::string root;           // the dir the manifest's paths are relative to
  std::string mode;           // "store" or "merge"
};

// The manifests of every store version under `store_root` and of every toolkit in
// `toolkit_roots` that cudnnup installed into (`install --into`). One directory listing plus one
// stat per candidate.
std::vector<ManifestRef> find_install_manifests(const FileSystem& fs, const std::string& store_root,
                                                const std::vector<std::string>& toolkit_roots);

enum class FileDamage { kMissing, kEmpty, kSizeChanged, kContentChanged, kNotAFile, kLinkChanged };
const char* file_damage_name(FileDamage d);  // "missing", "empty", "size_changed", ...

struct DamagedFile {
  std::string path;  // absolute
  FileDamage damage = FileDamage::kMissing;
  uint64_t expected_size = 0;
  uint64_t actual_size = 0;
};

struct IntegrityReport {
  ManifestRef ref;
  std::string id;             // "9.19.0.56+cuda13"
  size_t files_checked = 0;
  bool hashed = false;        // sha256 compared (deep)
  std::vector<DamagedFile> damaged;
  std::string error;          // the manifest could not be read or parsed
};

// sha256 of a file below a root, lower-case hex, never through a link (the app passes the real
// one, platform/sha256.h; tests a fake).
using FileHasher = BelowHasher;

// `hasher` null: existence, type and size only. The manifest is checked first
// (install/install_manifest.h validate_manifest): one that names anything outside its root is
// reported as unreadable and nothing it names is looked at; entries are reached without passing
// through a link, so a manifest cannot make doctor read or hash a file elsewhere.
IntegrityReport check_install_integrity(const FileSystem& fs, const ManifestRef& ref, const FileHasher* hasher);

// One finding per install with damaged files ("install.files_changed"), one per unreadable
// manifest ("install.manifest_unreadable"). On Windows the finding names antivirus quarantine.
std::vector<Finding> integrity_findings(const std::vector<IntegrityReport>& reports, bool windows);

}  // namespace cudnnup
